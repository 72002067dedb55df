"""How many colours a session's terminal gets: its own, capped by the operator's.

Textual decides an app's colour system once, in ``App.__init__``: it builds the app's Rich
``Console`` from ``constants.COLOR_SYSTEM`` (``auto``: Rich's detection from TERM and
COLORTERM in the environment it is given) and adds a ``Monochrome`` line filter when NO_COLOR is
set. Over SSH every app shares the server's environment, so the server fixes one colour system
for all (``pioche serve --colors``, ``server.driver.configure_textual``): the ceiling. Each
session then gets the depth its client's TERM and COLORTERM say, by the same Rich detection
run on the client's values, never more than the ceiling; NO_COLOR from the client (or the
player's setting) adds Textual's ``Monochrome`` filter, as NO_COLOR does for a local app, and a
terminal without colours (``vt100``, ``dumb``) gets Textual's ``NoColor`` filter: its default
colours only, with the bold, underline and reverse the screens use as well.

Colours are turned into escape codes by Textual itself (``Strip.render``, with the console's
colour system); ``server.driver.configure_textual`` makes its caches hold for apps of different
depths in one process.
"""

from __future__ import annotations

import io
import re
from typing import Any

from rich.color import ColorSystem
from rich.console import Console
from textual.app import App
from textual.filter import LineFilter, Monochrome, NoColor

DEPTHS = ("truecolor", "256", "16", "none")
"""Colour depths, most colours first."""
CHOICES = ("auto", *DEPTHS)
"""What a player may choose in the settings: ``auto`` is what their terminal says."""
_SYSTEMS: dict[str, ColorSystem | None] = {
    "truecolor": ColorSystem.TRUECOLOR, "256": ColorSystem.EIGHT_BIT,
    "16": ColorSystem.STANDARD, "none": None,
}
_DEPTH_OF = {"truecolor": "truecolor", "256": "256", "standard": "16", "windows": "16"}
# Terminals with no colour at all that Rich counts as 16 colours (it knows only dumb and
# unknown): the DEC VT family (vt52, vt100, vt220-8…), unless a suffix names colours.
_VT_TERM = re.compile(r"vt\d+[a-z]?(-[a-z0-9]+)*")


def terminal_depth(term: str | None, colorterm: str | None) -> str:
    """The colours a terminal says it shows, by Rich's detection (as Textual's console does
    with the process's environment): COLORTERM ``truecolor``/``24bit``, else TERM's suffix
    (``-256color``, ``-16color``), else 16; none for ``dumb``, ``unknown`` and the VT family."""
    term = (term or "").strip().lower()
    if _VT_TERM.fullmatch(term) and "color" not in term:
        return "none"
    console = Console(color_system="auto", force_terminal=True, file=io.StringIO(),
                      _environ={"TERM": term, "COLORTERM": colorterm or ""})
    return _DEPTH_OF.get(console.color_system or "", "none")


def capped(depth: str, ceiling: str) -> str:
    """``depth``, or ``ceiling`` if that has fewer colours."""
    return max(depth, ceiling, key=DEPTHS.index)


def depth_of(app: App[Any]) -> str:
    """The depth ``app``'s console renders with now."""
    return _DEPTH_OF.get(app.console.color_system or "", "none")


class _Session(LineFilter):
    """Marks the filter this module added, to replace it when the depth changes."""


class SessionMonochrome(Monochrome, _Session):
    """Textual's NO_COLOR filter, for a session that asked for no colours."""


class SessionNoColor(NoColor, _Session):
    """Textual's filter for a terminal that has no colours."""


def apply_depth(app: App[Any], depth: str, monochrome: bool = False) -> None:
    """Render ``app`` with ``depth`` colours; ``monochrome`` (NO_COLOR) turns them to greys.
    Call before the app runs, or refresh its screens after."""
    app.console._color_system = _SYSTEMS[depth]  # what Textual's Strip.render reads
    filters = [f for f in app._filters if not isinstance(f, _Session)]
    if depth == "none":
        filters.append(SessionNoColor())
    elif monochrome:
        filters.append(SessionMonochrome())
    app._filters = filters
    app.no_color = any(isinstance(f, (Monochrome, NoColor)) for f in filters)  # (ours too)
