"""``pioche replay LOG``: a table's log told move by move, as text.

The log holds the seed and every accepted action, so replaying it rebuilds the game exactly
(design.md). By default the story is told as a spectator sees it — nobody's hidden cards; with
``--seat N``, as that seat saw it (their own cards named).

An ended table's log is compacted (``ID.log.gz``, ``ID.closed.log.gz``) and later removed by the
server's retention (``store/retention.py``): ``pioche replay data/tables/ID.log`` finds the
compacted copy, and says so plainly when the log is gone.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .engine import GAMES
from .engine.base import Event, Game, IllegalAction, events_seen_by
from .i18n import Catalogue, lang_from_env
from .narrate import narrator
from .store import retention
from .store.log import ACTION, END, SEAT, LogContents, LogError, read_log


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "replay",
        help="print a table's log move by move",
        description="Print a table's log (data/tables/ID.log) move by move, as text.",
    )
    p.add_argument("log", type=Path, help="the table's log file")
    p.add_argument("--seat", type=int, default=None,
                   help="tell it as this seat saw it (default: as a spectator)")
    p.add_argument("--lang", choices=("fr", "en"), default=None,
                   help="language (default: from LANG)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import os

    t = Catalogue(args.lang or lang_from_env(os.environ))
    try:
        for line in replay_lines(find_log(args.log), args.seat, t):
            print(line)
    except (OSError, LogError, ValueError) as e:
        print(f"pioche replay: {e}", file=sys.stderr)
        return 1
    return 0


def find_log(path: Path) -> Path:
    """``path``, or the compacted copy of the log it names; FileNotFoundError saying why when
    neither is there."""
    if path.exists():
        return path
    for name in retention.log_names(retention.table_id(path)):
        if (found := path.with_name(name)).exists():
            return found
    raise FileNotFoundError(
        f"{path}: no such log. An ended table's log is compacted to ID.log.gz (finished) or "
        "ID.closed.log.gz (abandoned), then removed after the server's retention (pioche serve "
        "--keep-finished, --keep-abandoned; docs/server.md); a finished game's result stays in "
        "the database. A table closed before any player moved leaves no log.")


@dataclass(frozen=True, slots=True)
class Move:
    """One step of a replayed log (``Replayer.moves``): the opening deal (``step`` 0), a move
    (``step`` counts the moves so far, ``seat`` made it), a bot taking a seat over
    (``took_over``), or the log's end (``end``: "finished" or "closed"). ``events``: the
    engine's events of that step, as the replayer's viewer sees them."""

    step: int
    events: tuple[Event, ...] = ()
    seat: int | None = None
    took_over: bool = False
    end: str = ""


class Replayer:
    """A table's log played again: the one replay engine, for ``pioche replay``'s text and
    the app's replays (``Coordinator.replay``, which reads each step's view off ``state``).

    ``viewer``: the seat whose eyes the events are filtered for (None: a spectator's);
    ``games``: the games known (the coordinator's own, which tests extend)."""

    def __init__(self, contents: LogContents, viewer: int | None,
                 games: Mapping[str, Game[Any, Any]] = GAMES) -> None:
        h = contents.header
        game = games.get(h.get("game", ""))
        if game is None:
            raise ValueError(f"unknown game {h.get('game')!r}")
        self.contents = contents
        self.game = game
        self.seats: list[dict[str, Any]] = list(h["seats"])
        if viewer is not None and not 0 <= viewer < len(self.seats):
            raise ValueError(f"no seat {viewer} at this table")
        self.viewer = viewer
        self.names = [str(s.get("name") or f"#{i}") for i, s in enumerate(self.seats)]
        self.state: Any = game.new_game(len(self.seats), h["options"], h["seed"])
        self.step = 0

    def moves(self) -> Iterator[Move]:
        """The log's steps in order; ``state`` is the game after each as it is yielded.
        ValueError when a move of the log is refused."""
        game, viewer = self.game, self.viewer
        yield Move(0, events_seen_by(list(getattr(self.state, "opening", ())), viewer))
        for record in self.contents.records:
            if record[0] == ACTION:
                seat, action = record[1], game.action_from_wire(record[2])
                try:
                    events = game.apply(self.state, seat, action)
                except IllegalAction as e:
                    raise ValueError(f"action {self.step + 1} of the log is refused: {e}") from e
                self.step += 1
                yield Move(self.step, events_seen_by(events, viewer), seat)
            elif record[0] == SEAT and record[2].get("kind") == "bot":
                yield Move(self.step, seat=record[1], took_over=True)
            elif record[0] == END and record[1] in ("finished", "closed"):
                yield Move(self.step, end=record[1])


def replay_lines(path: Path, viewer: int | None, t: Catalogue) -> Iterator[str]:
    contents = read_log(path)
    h = contents.header
    replayer = Replayer(contents, viewer)
    game, seats, names = replayer.game, replayer.seats, replayer.names
    options = ", ".join(f"{k}={v}" for k, v in sorted(h["options"].items()))
    yield f"{game.title} · table {h['table']} · {options}"
    yield "  " + ", ".join(
        f"{i}: {n}{' (' + str(s['bot']) + ')' if s.get('kind') == 'bot' else ''}"
        for i, (n, s) in enumerate(zip(names, seats, strict=True))
    )
    tell = narrator(game.name)
    for move in replayer.moves():
        if move.took_over:
            assert move.seat is not None
            yield f"     — {names[move.seat]} : {t('replay.bot_takes_over')}"
        elif move.end:
            yield f"     — {t('replay.end.' + move.end)}"
        elif move.step == 0:
            if move.events:
                yield from _told(tell, move.events, names, t, "  ")
        else:
            yield from _told(tell, move.events, names, t, f"{move.step:>4} ")
    outcome = game.outcome(replayer.state)
    if outcome is not None:
        scores = ", ".join(f"{names[i]} {s}" for i, s in enumerate(outcome.scores))
        winners = t.names([names[w] for w in outcome.winners])
        yield f"{t('replay.scores')} : {scores}"
        yield f"{t('replay.winners')} : {winners}"
    elif not contents.ended:
        yield f"     ({t('replay.unfinished', n=replayer.step)})"
    if contents.dropped_bytes:
        yield f"     ({t('replay.torn', n=contents.dropped_bytes)})"


def _told(tell: Any, events: tuple[Event, ...], names: list[str], t: Catalogue,
          prefix: str) -> Iterator[str]:
    if tell is None:  # a game without a narrator yet: its raw events
        lines = [", ".join(f"{e.kind}{list(e.args) if e.args else ''}" for e in events)]
    else:
        lines = tell(events, names, t)
    for i, line in enumerate(lines):
        yield (prefix if i == 0 else " " * len(prefix)) + line
