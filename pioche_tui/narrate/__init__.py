"""Events told as sentences, per game: the table screens' log and ``pioche replay``.

No Textual here. A game's narrator lives in ``narrate/<game>.py`` as ``narrate(events, names,
t)``: it turns the events of one or more actions, as one viewer saw them, into lines in the
viewer's language (an action and its consequences on one line, "Alice joue +2 rouge — Bob
pioche 2").
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence

from ..engine.base import Event
from ..i18n import Catalogue

Narrator = Callable[[Sequence[Event], Sequence[str], Catalogue], list[str]]


def narrator(game: str) -> Narrator | None:
    """The narrator of ``game``, or None when it has none yet."""
    name = f"{__name__}.{game}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:
            raise  # the narrator exists but something it needs does not: a real error
        return None
    found: Narrator = module.narrate
    return found


def lines_of(events: Sequence[Event], clause: Callable[[Event], str | None],
             begins: Callable[[str], bool]) -> list[str]:
    """The events told as lines: each event's ``clause`` (None: not told), a new line for the
    event kinds that ``begins`` one (an action), the others joining the line before (what the
    action caused) with " — ". (No capital forced on a line: most lines start with a player's
    name, written as the player wrote it.)"""
    groups: list[list[str]] = []
    for event in events:
        text = clause(event)
        if text is None:
            continue
        if begins(event.kind) or not groups:
            groups.append([text])
        else:
            groups[-1].append(text)
    return [" — ".join(clauses) for clauses in groups]
