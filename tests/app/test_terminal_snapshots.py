"""A table of each game as a 16-colour terminal and a terminal without colour show it (80×24):
still playable, the letters, symbols, borders and bold saying what colour says elsewhere.

Textual's screenshots are drawn in true colour whatever the app's colour system: for 16
colours, a line filter here turns every colour into the one a 16-colour terminal shows (Rich's
own downgrade, then its default terminal theme's colour), so that the picture is what the
player sees. Without colour, the app's own filter (Textual's NoColor) does it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import pytest
from rich.color import Color, ColorSystem
from rich.segment import Segment
from rich.style import Style
from rich.terminal_theme import DEFAULT_TERMINAL_THEME
from textual import constants
from textual.color import Color as TextualColor
from textual.filter import LineFilter

from . import test_collection_snapshots as collection_scenes
from . import test_snapshots as scenes
from .conftest import run_scene


@lru_cache(1024)
def _as_16(color: Color | None) -> Color | None:
    if color is None or color.is_default:
        return color
    return Color.from_triplet(
        color.downgrade(ColorSystem.STANDARD).get_truecolor(DEFAULT_TERMINAL_THEME))


@lru_cache(1024)
def _style_as_16(style: Style) -> Style:
    return style + Style(color=_as_16(style.color), bgcolor=_as_16(style.bgcolor))


class AsSixteenColours(LineFilter):
    """What a 16-colour terminal shows of each colour (for the picture only)."""

    def apply(self, segments: list[Segment], background: TextualColor) -> list[Segment]:
        return [Segment(text, _style_as_16(style) if style else style, control)
                for text, style, control in segments]


SCENES = {"defausse": scenes.table, "collection": collection_scenes.turn}
TERMS = {"16": "xterm", "none": "vt100"}


@pytest.mark.parametrize("depth", sorted(TERMS))
@pytest.mark.parametrize("game", sorted(SCENES))
def test_a_table_in_few_colours(game: str, depth: str, tmp_path: Path,
                                snap_compare: Callable[..., bool],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(constants, "COLOR_SYSTEM", "truecolor")  # pioche serve's ceiling
    filters = [AsSixteenColours()] if depth == "16" else []
    assert run_scene(snap_compare, tmp_path, SCENES[game], filters=filters, term=TERMS[depth])
