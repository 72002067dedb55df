"""One table: its seats, its game, its log, its subscribers, its timers and bots.

Every method runs to completion on the event loop without awaiting, so a table has one writer
at a time by construction: this is the table's lock (design.md, convention 5). Timers and bot
moves are ``loop.call_later`` callbacks that check, when they fire, that the table is still at
the step they were scheduled for.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..engine.base import Event, Game, IllegalAction, derive_seed
from ..store.db import SeatResult
from ..store.log import LogWriter, read_log
from .clock import later
from .model import Refused, SeatInfo, SeatKind, TableStatus, TableSummary, TableUpdate

if TYPE_CHECKING:
    from .core import Coordinator, Session

log = logging.getLogger("pioche.table")
trace = logging.getLogger("pioche.trace")
"""At DEBUG, one record per accepted action, ``MONOTONIC TABLE STEP`` (``pioche serve --trace
FILE``): bench/load.py compares it with the moment each screen shows that step. Off (and
costing one level check) otherwise; ``time.monotonic`` is the same clock in every process."""

STAND_IN = "basic"  # the bot that plays for an absent or slow player


@dataclass
class Seat:
    kind: SeatKind
    name: str = ""
    identity: str | None = None
    bot: str = STAND_IN  # a bot seat's bot; for a player, their stand-in
    session: Session | None = None  # the connected player's session
    away_since: float | None = None  # loop time the player's connection dropped
    grace: asyncio.TimerHandle | None = None
    # Restored after a restart, not yet back: the stand-in waits for the turn timer instead of
    # playing at once, since everybody dropped together and is likely on their way back.
    patient: bool = False

    @property
    def away(self) -> bool:
        return self.kind == "player" and self.session is None

    def info(self) -> SeatInfo:
        return SeatInfo(self.kind, self.name, self.bot if self.kind == "bot" else "", self.away,
                        self.identity)

    def to_log(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "identity": self.identity, "bot": self.bot}

    @classmethod
    def from_log(cls, data: dict[str, Any]) -> Seat:
        kind = data.get("kind")
        if kind not in ("player", "bot"):
            raise ValueError(f"bad seat kind {kind!r}")
        return cls(kind, str(data.get("name", "")), data.get("identity"),
                   str(data.get("bot", STAND_IN)))


class Table:
    def __init__(
        self,
        coordinator: Coordinator,
        table_id: str,
        game: Game[Any, Any],
        options: dict[str, Any],
        seats: list[Seat],
        creator: str,
        timer: float | None,
        private_code: str | None,
    ) -> None:
        self.coordinator = coordinator
        self.id = table_id
        self.game = game
        self.options = options
        self.seats = seats
        self.creator = creator  # identity of the creator (who may start it)
        self.timer = timer
        self.code = private_code
        self.status: TableStatus = "waiting"
        self.state: Any = None
        self.seed = 0
        self.step = 0
        self.started_at = 0.0  # wall clock, for the results
        self.writer: LogWriter | None = None
        self.subscribers: dict[Session, int | None] = {}
        self.bot_rng = random.Random()
        self.autoplay: set[int] = set()  # seats whose timer ran out: the stand-in ends the turn
        self.deadlines: dict[int, float] = {}
        self._handles: list[asyncio.TimerHandle] = []
        self._summary: TableSummary | None = None

    # --- what others see ------------------------------------------------------------------

    @property
    def private(self) -> bool:
        return self.code is not None

    def summary(self) -> TableSummary:
        if self._summary is None:
            self._summary = TableSummary(
                id=self.id,
                game=self.game.name,
                title=self.game.title,
                options=tuple(sorted(self.options.items())),
                seats=tuple(s.info() for s in self.seats),
                status=self.status,
                spectators=sum(1 for seat in self.subscribers.values() if seat is None),
                private=self.private,
                timer=self.timer,
                creator=next((s.name for s in self.seats if s.identity == self.creator), ""),
            )
        return self._summary

    def changed(self) -> None:
        """Seats, status or spectators changed: refresh the summary, tell the lobby."""
        self._summary = None
        self.coordinator.lobby_changed()

    def humans(self) -> list[Seat]:
        return [s for s in self.seats if s.kind == "player"]

    def seat_of(self, identity: str) -> int | None:
        for i, s in enumerate(self.seats):
            if s.kind == "player" and s.identity == identity:
                return i
        return None

    # --- subscribers ----------------------------------------------------------------------

    def subscribe(self, session: Session, seat: int | None) -> None:
        self.subscribers[session] = seat
        if seat is None:
            self.changed()
        session.mailbox.put_table(self._update(seat, ()))

    def unsubscribe(self, session: Session) -> None:
        seat = self.subscribers.pop(session, "absent")
        if seat is None:
            self.changed()

    def publish(self, events: list[Event] | None = None) -> None:
        """Give every subscriber the newest view of its seat (computed once per seat)."""
        cache: dict[int | None, TableUpdate] = {}
        happened = events or []
        for session, seat in self.subscribers.items():
            update = cache.get(seat)
            if update is None:
                seen = tuple(e.seen_by(seat) for e in happened)
                update = cache[seat] = self._update(seat, seen)
            session.mailbox.put_table(update)

    def _update(self, seat: int | None, events: tuple[Event, ...]) -> TableUpdate:
        to_act: tuple[int, ...] = ()
        view = None
        if self.state is not None:
            view = self.game.view(self.state, seat)
            to_act = self.game.to_act(self.state)
        deadline = None
        if self.deadlines:
            deadline = self.deadlines.get(seat) if seat in self.deadlines else min(
                self.deadlines.values())
        return TableUpdate(self.summary(), seat, self.step, view, events, to_act, deadline)

    # --- the game -------------------------------------------------------------------------

    def start(self, seed: int) -> None:
        """Fill free seats with bots, deal, open the log and let the first player act."""
        taken = {s.name for s in self.seats}
        for seat in self.seats:
            if seat.kind == "free":
                seat.kind, seat.bot = "bot", STAND_IN
                seat.name = self.coordinator.bot_name(taken)
                taken.add(seat.name)
        self.seed = seed
        self.state = self.game.new_game(len(self.seats), self.options, seed)
        self.bot_rng.seed(derive_seed(seed, 0xB07))
        self.started_at = time.time()
        self.writer = LogWriter.create(self.coordinator.log_path(self.id), self.header())
        self.status = "playing"
        self.changed()
        self.after_change([])

    def header(self) -> dict[str, Any]:
        return {
            "table": self.id,
            "game": self.game.name,
            "options": self.options,
            "seed": self.seed,
            "seats": [s.to_log() for s in self.seats],
            "creator": self.creator,
            "timer": self.timer,
            "code": self.code,
            "started": self.started_at,
        }

    def submit(self, seat: int, action: Any, step: int | None) -> None:
        """A player's action: checked for turn, staleness and legality, then applied."""
        if self.status != "playing":
            raise Refused("not_playing", "La partie n'est pas en cours.")
        if step is not None and step != self.step:
            raise Refused("stale", "Trop tard : la table a changé entre-temps.")
        if seat not in self.game.to_act(self.state) and seat not in self.game.interjectors(
            self.state
        ):
            raise Refused("not_your_turn", "Ce n'est pas à vous de jouer.")
        self.autoplay.discard(seat)  # back at the keyboard: the stand-in steps aside
        self.apply(seat, action)

    def apply(self, seat: int, action: Any) -> None:
        """Apply an action (the rules check it), log it, then tell everyone."""
        try:
            events = self.game.apply(self.state, seat, action)
        except IllegalAction as e:
            raise Refused("illegal", str(e)) from e
        assert self.writer is not None
        try:
            self.writer.append_action(seat, self.game.action_to_wire(action))
        except OSError as e:
            log.exception("table %s: cannot write its log; the action is undone", self.id)
            self.rebuild_from_log()
            message = "Le serveur n'a pas pu enregistrer ce coup ; réessayez."
            raise Refused("storage", message) from e
        self.step += 1
        if trace.isEnabledFor(logging.DEBUG):
            trace.debug("%.6f %s %d", time.monotonic(), self.id, self.step)
        self.deadlines.pop(seat, None)
        self.after_change(events)

    def rebuild_from_log(self) -> None:
        """Undo what the log does not hold: replay it from scratch (the engine is exact)."""
        assert self.writer is not None
        contents = read_log(self.writer.path)
        self.state = self.game.new_game(len(self.seats), self.options, self.seed)
        self.step = 0
        for seat, wire in contents.actions():
            self.game.apply(self.state, seat, self.game.action_from_wire(wire))
            self.step += 1

    def after_change(self, events: list[Event]) -> None:
        outcome = self.game.outcome(self.state)
        if outcome is not None:
            self.finish(outcome.scores, outcome.winners, outcome.rounds)
        self.schedule()
        self.publish(events)

    def finish(self, scores: tuple[int, ...], winners: tuple[int, ...], rounds: int) -> None:
        self.status = "finished"
        assert self.writer is not None
        self.writer.end("finished")
        self.writer.close()
        self.coordinator.table_finished(self, [
            SeatResult(i, s.identity, s.name, s.bot if s.kind == "bot" else None, scores[i],
                       i in winners)
            for i, s in enumerate(self.seats)
        ], rounds)
        self.changed()

    # --- timers and bots ------------------------------------------------------------------

    def schedule(self) -> None:
        """After any change: who plays next, and when the bots and the timer act."""
        for handle in self._handles:
            handle.cancel()
        self._handles.clear()
        if self.status != "playing":
            self.deadlines.clear()
            return
        loop = asyncio.get_running_loop()
        actors = self.game.to_act(self.state)
        self.autoplay.intersection_update(actors)
        now = loop.time()
        for seat_no in list(self.deadlines):
            if seat_no not in actors:
                del self.deadlines[seat_no]
        for seat_no in actors:
            seat = self.seats[seat_no]
            waits = seat.patient and self.timer is not None
            if seat.kind == "bot" or seat_no in self.autoplay or (seat.away and not waits):
                self.deadlines.pop(seat_no, None)
                self._later(self.coordinator.bot_delay(), self.bot_move, seat_no, self.step)
            elif self.timer is not None:
                deadline = self.deadlines.setdefault(seat_no, now + self.timer)
                self._later(deadline - now, self.time_out, seat_no, self.step)
        for seat_no in self.game.interjectors(self.state):
            if self.seats[seat_no].kind == "bot":
                self._later(self.coordinator.bot_delay(), self.bot_interject, seat_no, self.step)

    def _later(self, delay: float, callback: Callable[[int, int], None], seat: int,
               step: int) -> None:
        self._handles.append(later(delay, callback, seat, step))

    def _bot_for(self, seat: int) -> Any:
        return self.game.bot(self.seats[seat].bot)

    def bot_move(self, seat: int, step: int) -> None:
        if self.status != "playing" or step != self.step:
            return
        if seat not in self.game.to_act(self.state):
            return
        legal = self.game.legal_actions(self.state, seat)
        try:
            action = self._bot_for(seat).choose(self.state, seat, legal, self.bot_rng)
            self.apply(seat, action)
        except Exception:
            # A bot or engine bug must not stall the table silently nor reach other tables.
            log.exception("table %s: the bot of seat %d failed", self.id, seat)

    def bot_interject(self, seat: int, step: int) -> None:
        if self.status != "playing" or step != self.step:
            return
        if seat not in self.game.interjectors(self.state):
            return
        legal = self.game.legal_actions(self.state, seat)
        try:
            action = self._bot_for(seat).interject(self.state, seat, legal, self.bot_rng)
            if action is not None:
                self.apply(seat, action)
        except Exception:
            log.exception("table %s: the bot of seat %d failed to interject", self.id, seat)

    def time_out(self, seat: int, step: int) -> None:
        if self.status != "playing" or step != self.step:
            return
        self.autoplay.add(seat)
        self.coordinator.notify_seat(self, seat, "timeout",
                                     "Temps écoulé : le robot joue ce tour pour vous.")
        self.bot_move(seat, step)

    def cancel_timers(self) -> None:
        for handle in self._handles:
            handle.cancel()
        self._handles.clear()
        for seat in self.seats:
            if seat.grace is not None:
                seat.grace.cancel()
                seat.grace = None
