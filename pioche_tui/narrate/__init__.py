"""Events told as sentences, per game: the table screens' log and ``pioche replay``.

No Textual here. A game's narrator lives in ``narrate/<game>.py`` as ``narrate(events, names,
t)``: it turns the events of one or more actions, as one viewer saw them, into lines in the
viewer's language (an action and its consequences on one line, "Alice joue +2 rouge — Bob
pioche 2"). ``tell`` adds the table's own events, the same for every game (a player drops,
comes back, leaves; a turn timer runs out; the stand-in plays for someone).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence

from ..coordinator.model import TABLE_EVENTS
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


def tell(events: Sequence[Event], names: Sequence[str], t: Catalogue, me: int | None,
         narrate: Narrator | None) -> list[str]:
    """The game's events (told by ``narrate``) and the table's (``model.TABLE_EVENTS``) as
    lines for the viewer ``me`` (a seat, None for a spectator). A move the stand-in made for
    the viewer's own seat is marked so (« le robot a joué pour vous : … »)."""
    lines: list[str] = []
    run: list[Event] = []
    marked = False  # the run's first line is a move the stand-in made for the viewer

    def flush() -> None:
        nonlocal marked
        if not run:
            return
        told = narrate(run, names, t) if narrate is not None else []
        if marked and told:
            told[0] = t("tev.stand_in_you", line=told[0])
        marked = False
        lines.extend(told)
        run.clear()

    for event in events:
        if event.kind not in TABLE_EVENTS:
            run.append(event)
            continue
        flush()
        if event.kind == "stand_in":
            marked = event.seat == me
            continue
        seat = event.seat
        if seat == me:
            lines.append(t(f"tev.{event.kind}_you"))
        else:
            name = names[seat] if seat is not None and 0 <= seat < len(names) else "?"
            lines.append(t(f"tev.{event.kind}", name=name))
    flush()
    return lines
