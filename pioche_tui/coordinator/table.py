"""One table: its seats, its game, its log, its subscribers, its timers and bots.

Every method runs to completion on the event loop without awaiting, so a table has one writer
at a time by construction: this is the table's lock (design.md, convention 5). Timers and bot
moves are ``loop.call_later`` callbacks that check, when they fire, that the table is still at
the step they were scheduled for.

A move is acknowledged (published) only once its log record is on disk. When the log refuses a
write (a full disk, a quota, an I/O error), the move is undone and the table *pauses*: it takes no
move, its bots and turn timers stop (the time left is kept), everyone at the table is told, and
it tries its log again, ``RETRY_FIRST`` seconds later, then twice as long each time up to every
``RETRY`` seconds; when the log takes a write, it resumes and says so (docs/reliability.md,
round two, item 3).

The log is a ``store.log.TableLog``. The file log (the default) is *immediate*: its append
returns once the record is on disk, so all of the above happens within the one call, as it
always has. A JetStream log (``--logs jetstream``, ``store/jslog.py``) is not: its append returns
a future, and a record is durable when the stream acknowledges it. For such a log a move is
applied to a copy of the game's state (``copy.deepcopy``, some 0.3 ms) and the copy waits with
the record (``appending``); until the acknowledgement:

- everything anyone sees of the table is the state before the move (nothing of it is
  published, no subscriber arriving meanwhile sees it);
- the table takes no other move: a player's move waits its turn (``Coordinator.act`` awaits
  ``appending``, then checks the move again, as it would have been checked after the one before
  it), a bot's or a turn timer's callback does nothing (``schedule`` arms them again once the
  move is in);
- the acknowledgement makes the copy the table's state and goes on exactly as an immediate
  append would (``_logged``): the step, the counts, the publishing, the next turn;
- a failed append leaves the state as it was (the move is simply not taken: nothing to undo)
  and pauses the table; its retries settle the failed record's fate (``TableLog.probe``: it may
  have been stored all the same, see ``store/jslog.py``), and the table replays its log, that
  move in, before it resumes;
- a refusal because another writer appended to the log (``jslog.LogTaken``: another coordinator
  took the table) stops the table here (``Coordinator.stop_table``): this coordinator never
  writes it again.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import logging
import random
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, replace
from itertools import chain
from typing import TYPE_CHECKING, Any

from ..engine.base import Event, Game, IllegalAction, Outcome, derive_seed, events_seen_by
from ..store.db import KEY_PREFIX, SeatResult
from ..store.jslog import LogTaken
from ..store.log import ACTION, LogError, TableLog, by_stand_in
from . import ratings
from .clock import later
from .mailbox import Notice
from .model import (
    UNRATED_LEARN,
    Refused,
    SeatInfo,
    SeatKind,
    TableStatus,
    TableSummary,
    TableUpdate,
)

if TYPE_CHECKING:
    from .core import Coordinator, Session

log = logging.getLogger("pioche.table")
trace = logging.getLogger("pioche.trace")
"""At DEBUG, one record per accepted action, ``MONOTONIC TABLE STEP`` (``pioche serve --trace
FILE``): bench/load.py compares it with the moment each screen shows that step. Off (and
costing one level check) otherwise; ``time.monotonic`` is the same clock in every process."""

STAND_IN = "basic"  # the bot that plays for an absent or slow player
HISTORY = 200
"""Moves (each with what it caused) and table events a table keeps for whoever arrives or comes
back: their screen's log starts with them. A few hundred events, a few tens of KiB per table:
a Défausse round is some 30 to 60 moves, a Collection round some 40."""
RETRY = 2.0  # seconds between a paused table's tries of its log, at most
RETRY_FIRST = 0.25
"""Seconds before a paused table's first try of its log, doubled at each failed one up to
``RETRY``: a JetStream log's stream back from a leader's election (its length decides when)
is found within a quarter of what the table waited, not up to 2 s after
(docs/performance.md, « A NATS node killed, as players see it »)."""
CATCH_WAIT = 3.0
"""Seconds a bot or stand-in waits at least before its move while a connected player may
interject (Défausse's catch of a missing announcement, which the next move ends): time to see
the hint and press the key."""
PAUSED = ("La table est en pause : le serveur ne peut plus enregistrer la partie (disque plein "
          "ou en panne). Elle reprendra d'elle-même.")
RESUMED = "La table reprend : le serveur enregistre de nouveau la partie."
NOT_TAKEN = "Table en pause : ce coup n'est pas pris ; rejouez quand elle reprendra."
STOPPED = ("La table est arrêtée : le serveur ne peut plus lire sa partie. Elle reviendra au "
           "prochain démarrage du serveur.")
NOT_SAVED = "Le serveur ne peut rien enregistrer pour le moment (disque plein ?) ; réessayez."


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
        if kind not in ("player", "bot", "free"):  # (free: a waiting table's seat)
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
        learn: bool = False,
    ) -> None:
        self.coordinator = coordinator
        self.id = table_id
        self.game = game
        self.options = options
        self.seats = seats
        self.creator = creator  # identity of the creator (who may start it)
        self.timer = timer
        self.code = private_code
        self.learn = learn  # « Apprendre »: its result is not recorded (Coordinator.learn)
        self.status: TableStatus = "waiting"
        self.state: Any = None
        self.seed = 0
        self.step = 0
        self.started_at = 0.0  # wall clock, for the results
        self.writer: TableLog | None = None
        # A move applied to a copy of the state, its record on its way to a log that is not
        # immediate (the module's doc): resolved once the log holds it.
        self.appending: asyncio.Future[None] | None = None
        self.subscribers: dict[Session, int | None] = {}
        self.bot_rng = random.Random()
        self.autoplay: set[int] = set()  # seats whose timer ran out: the stand-in ends the turn
        self.deadlines: dict[int, float] = {}
        self.human_acted = False  # a player has made a move here (not a bot, not a stand-in)
        # Each player's seat: the decisions they made, and those their stand-in made for them
        # (a game where the stand-in made most of a player's is unrated: ``ratings``).
        self.own_moves: Counter[int] = Counter()
        self.stand_in_moves: Counter[int] = Counter()
        self.unrated = ""  # finished: why its game is not rated ("" when it is)
        self.hold: asyncio.TimerHandle | None = None  # restored: waiting for its people
        self.idle = False  # nobody at the table: nothing is scheduled (see schedule)
        self._handles: list[asyncio.TimerHandle] = []
        self._summary: TableSummary | None = None
        # The log refused a write: no move until it takes one again (see the module's doc).
        self.paused = False
        self._retry: asyncio.TimerHandle | None = None
        self._retry_wait = RETRY_FIRST  # before the next try of a paused table's log
        self._frozen: dict[int, float] = {}  # paused or idle: seconds left on each turn clock
        self._unlogged_seats: dict[int, dict[str, Any]] = {}  # written when the log is back
        self.clock_saved: dict[int, float] = {}  # the deadlines the coordinator last stored
        self.saved_waiting = False  # the coordinator stored it while it waited for players
        # What happened lately, unfiltered (hidden cards in their owners' ``secret``): each
        # subscriber gets it filtered for its eyes when it arrives (``subscribe``).
        self.history: deque[tuple[Event, ...]] = deque(maxlen=HISTORY)
        # Finished: the rematch asked for (``Coordinator.rematch``): the seats that asked, in
        # order, the loop time the others must accept by, and its timer; off for good.
        self.rematch: list[int] = []
        self.rematch_deadline: float | None = None
        self.rematch_handle: asyncio.TimerHandle | None = None
        self.rematch_off = False

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
                spectators=sum(1 for session, seat in self.subscribers.items()
                               if seat is None and not session.mirror),
                private=self.private,
                timer=self.timer,
                creator=next((s.name for s in self.seats if s.identity == self.creator), ""),
                paused=self.paused,
                learn=self.learn,
                unrated=self.unrated,
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
        if self.idle:  # someone is back: the bots and the clock go on (first: the update
            self.schedule()  # below carries the turn's deadline)
        history = events_seen_by(tuple(chain.from_iterable(self.history)), seat)
        session.mailbox.put_table(replace(self._update(seat, ()), history=history))

    def refresh(self, session: Session) -> None:
        """The subscriber's newest view again, with nothing new in it (its front lost some of
        its news: ``Coordinator.refresh``)."""
        if session in self.subscribers:
            session.mailbox.put_table(self._update(self.subscribers[session], ()))

    def unsubscribe(self, session: Session) -> None:
        seat = self.subscribers.pop(session, "absent")
        if seat is None:
            self.changed()
        if not self.subscribers:
            self.schedule()  # the last one gone: hold still

    def remember(self, events: Iterable[Event]) -> None:
        """Keep what just happened in the table's history (``HISTORY``)."""
        happened = tuple(events)
        if happened:
            self.history.append(happened)

    def announce(self, kind: str, seat: int) -> None:
        """A table event (``model.TABLE_EVENTS``) for everyone's log, with the newest views."""
        event = Event(kind, seat)
        self.remember((event,))
        self.publish([event])

    def publish(self, events: list[Event] | None = None) -> None:
        """Give every subscriber the newest view of its seat (computed once per seat)."""
        cache: dict[int | None, TableUpdate] = {}
        happened = events or []
        for session, seat in self.subscribers.items():
            update = cache.get(seat)
            if update is None:
                update = cache[seat] = self._update(seat, events_seen_by(happened, seat))
            session.mailbox.put_table(update)

    def _update(self, seat: int | None, events: tuple[Event, ...]) -> TableUpdate:
        to_act: tuple[int, ...] = ()
        view = None
        if self.state is not None:
            view = self.game.view(self.state, seat)
            to_act = self.game.to_act(self.state)
        time_left = None
        if self.deadlines:  # (loop times: what crosses to the sessions is the time left)
            deadline = self.deadlines[seat] if seat in self.deadlines else min(
                self.deadlines.values())
            time_left = max(0.0, deadline - asyncio.get_running_loop().time())
        rematch_left = None
        if self.rematch_deadline is not None:
            rematch_left = max(0.0, self.rematch_deadline - asyncio.get_running_loop().time())
        seated = seat is not None  # (a spectator: neither the creator's right nor the code)
        return TableUpdate(self.summary(), seat, self.step, view, events, to_act, time_left,
                           creator=seat is not None and self.seats[seat].identity == self.creator,
                           code=self.code if seated else None, rematch=tuple(self.rematch),
                           rematch_left=rematch_left, rematch_off=self.rematch_off)

    # --- the game -------------------------------------------------------------------------

    def start(self, seed: int) -> None:
        """Fill free seats with bots, deal, open the log and let the first player act.

        Refused (nothing changed) when the log cannot be created: a game starts only once its
        header is on disk."""
        free = [i for i, seat in enumerate(self.seats) if seat.kind == "free"]
        taken = {s.name for s in self.seats}
        for i in free:
            seat = self.seats[i]
            seat.kind, seat.bot = "bot", STAND_IN
            seat.name = self.coordinator.bot_name(taken)
            taken.add(seat.name)
        self.seed = seed
        self.started_at = time.time()
        try:
            self.writer, written = self.coordinator.open_log(self.id, self.header())
        except OSError as e:
            log.error("table %s: cannot create its log (%s); not started", self.id, e)
            for i in free:
                self.seats[i] = Seat("free")
            raise Refused("storage", NOT_SAVED) from e
        self.state = self.game.new_game(len(self.seats), self.options, seed)
        self.bot_rng.seed(derive_seed(seed, 0xB07))
        self.status = "playing"
        self.coordinator.keep_waiting(self)  # no longer waiting: its log holds it now
        if written is not None:  # (not immediate: every move's record follows the header's)
            written.add_done_callback(self._header_written)
        log.info("table %s started: %s, %s", self.id, self.game.name,
                 ", ".join(s.name for s in self.seats),
                 extra={"event": "table_started", "table": self.id, "game": self.game.name,
                        "seats": [s.name for s in self.seats]})
        self.changed()
        # The deal and the first card's effect, told as later rounds' are. Those seated now see
        # them in this update, whoever sits down afterwards in the history.
        self.after_change(list(getattr(self.state, "opening", ())))

    def _header_written(self, written: asyncio.Future[None]) -> None:
        """A log that is not immediate took the header, or did not (no move of it was
        acknowledged: each one's record waits behind the header's): another writer's log, the
        table stops; a stream that did not answer, the table pauses and tries again, as after
        a move's failed append (it stopped for good: the chaos bench, seed 13)."""
        error = written.exception()
        if error is None or self.status != "playing":
            return
        if isinstance(error, LogTaken):
            self._taken(error)
            return
        log.error("table %s: its log refused its header (%s); the table pauses", self.id,
                  error)
        self.pause()

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
            **({"learn": True} if self.learn else {}),
        }

    def submit(self, seat: int, action: Any, step: int | None) -> Awaitable[None] | None:
        """A player's action: checked for turn, staleness and legality, then applied. With a
        log that is not immediate, what to await for its answer: done once the move is in the
        log, or the ``Refused`` an immediate log would have raised at once."""
        if self.status != "playing":
            raise Refused("not_playing", "La partie n'est pas en cours.")
        if self.paused:
            raise Refused("paused", NOT_TAKEN)
        if step is not None and step != self.step:
            raise Refused("stale", "Trop tard : la table a changé entre-temps.")
        if seat not in self.game.to_act(self.state) and seat not in self.game.interjectors(
            self.state
        ):
            raise Refused("not_your_turn", "Ce n'est pas à vous de jouer.")
        self.autoplay.discard(seat)  # back at the keyboard: the stand-in steps aside
        appending = self.apply(seat, action, human=True)
        return None if appending is None else self._answer(appending)

    async def _answer(self, appending: asyncio.Future[None]) -> None:
        try:
            await appending
        except Exception as e:  # (the log's reason: logged by _durable)
            raise self._refusal() from e

    def _refusal(self) -> Refused:
        return Refused("paused", NOT_TAKEN) if self.paused else Refused("stopped", STOPPED)

    def apply(self, seat: int, action: Any, said: tuple[Event, ...] = (),
              stand_in: bool = False, human: bool = False) -> asyncio.Future[None] | None:
        """Apply an action (the rules check it), log it, then tell everyone, with the table
        events ``said`` before it (a stand-in's move). ``stand_in``: a player's stand-in made
        it (the log marks it so); ``human``: the player did. An action the log refuses is
        undone, and the table pauses. With a log that is not immediate, all that waits for
        the future returned (the module's doc)."""
        if self.paused:
            raise Refused("paused", NOT_TAKEN)
        assert self.writer is not None and self.appending is None
        state = self.state if self.writer.immediate else copy.deepcopy(self.state)
        try:
            events = self.game.apply(state, seat, action)
        except IllegalAction as e:
            raise Refused("illegal", str(e)) from e
        try:
            appending = self.writer.append_action(seat, self.game.action_to_wire(action),
                                                  stand_in)
        except OSError as e:
            log.error("table %s: its log refused step %d (%s); the move is undone and the "
                      "table paused", self.id, self.step + 1, e)
            self.undo_unlogged()
            raise self._refusal() from e
        if appending is None:
            self._logged(seat, stand_in, human, [*said, *events])
        else:
            self.appending = appending
            appending.add_done_callback(functools.partial(
                self._durable, state, seat, stand_in, human, [*said, *events]))
        return appending

    def _logged(self, seat: int, stand_in: bool, human: bool, events: list[Event]) -> None:
        """A move is in the log: count it, then tell everyone and go on."""
        self.step += 1
        self.count_move(seat, stand_in)
        self.human_acted = self.human_acted or human
        if trace.isEnabledFor(logging.DEBUG):
            trace.debug("%.6f %s %d", time.monotonic(), self.id, self.step)
        self.deadlines.pop(seat, None)
        self.after_change(events)

    def _durable(self, state: Any, seat: int, stand_in: bool, human: bool,
                 events: list[Event], appending: asyncio.Future[None]) -> None:
        """A log that is not immediate answered for a move: in, or not (the module's doc)."""
        self.appending = None
        error = appending.exception()
        if self.status != "playing":  # (stopped or closed meanwhile: nobody to tell)
            return
        if error is None:
            self.state = state
            self._logged(seat, stand_in, human, events)
        elif isinstance(error, LogTaken):
            self._taken(error)
        else:
            log.error("table %s: its log refused step %d (%s); the move is not taken and the "
                      "table paused", self.id, self.step + 1, error)
            self.pause()

    def _taken(self, error: BaseException) -> None:
        log.error("table %s: another writer has its log (%s); this coordinator stops serving "
                  "it", self.id, error)
        self.coordinator.hold_taken(self)  # (coordinator/owners.py: brought back here if its
        # owner key still says so)

    def count_move(self, seat: int, stand_in: bool) -> None:
        """Count a decision at a player's seat: the player's own, or their stand-in's."""
        if stand_in:
            self.stand_in_moves[seat] += 1
        elif self.seats[seat].identity is not None:
            self.own_moves[seat] += 1

    def undo_unlogged(self) -> None:
        """The log refused the action just applied: rebuild the state from the log (which the
        writer has cut back to its last good record) and pause. If the log cannot even be read
        back, the table stops: the coordinator sends everyone away, and the next start brings
        it back from its log."""
        try:
            self.rebuild_from_log()
        except (OSError, LogError, ValueError) as e:
            log.error("table %s: cannot read its log back (%s); the table stops", self.id, e)
            self.coordinator.stop_table(self)
            return
        self.pause()

    def rebuild_from_log(self) -> None:
        """Undo what the log does not hold (or take what it holds that the table did not
        know): replay it from scratch (the engine is exact)."""
        assert self.writer is not None
        records = self.writer.read_back()
        state = self.game.new_game(len(self.seats), self.options, self.seed)
        step = 0
        self.own_moves.clear()
        self.stand_in_moves.clear()
        for record in records:
            if record[0] == ACTION:
                self.game.apply(state, record[1], self.game.action_from_wire(record[2]))
                self.count_move(record[1], by_stand_in(record))
                step += 1
        if step < self.step:  # the log lost moves it had said were on disk
            log.error("table %s: its log holds %d moves, %d were acknowledged", self.id, step,
                      self.step)
        elif step > self.step:  # (a JetStream log's record that landed after a failure)
            log.warning("table %s: its log holds %d moves where the table had %d: it goes on "
                        "from its log", self.id, step, self.step)
        self.state, self.step = state, step

    # --- a log that refuses writes --------------------------------------------------------

    def pause(self) -> None:
        """Take no move until the log takes a write again: stop the bots and turn timers (the
        time left is kept), tell everyone, try the log again (``RETRY_FIRST`` s later, then
        less and less often, every ``RETRY`` s at most)."""
        if self.paused:
            return
        self.paused = True
        self.schedule()  # (the turn clocks stop)
        self._retry_wait = RETRY_FIRST
        self._retry_later()
        self.changed()
        self.tell("paused", PAUSED)
        self.publish()

    def try_log(self) -> None:
        """A paused table's retry: if the log takes a write (and the seat changes it refused),
        resume; otherwise try again later."""
        self._retry = None
        if not self.paused or self.writer is None:
            return
        try:
            probing = self.writer.probe()
            if probing is None:  # (immediate)
                for seat_no, info in list(self._unlogged_seats.items()):
                    self.writer.append_seat(seat_no, info)
                    del self._unlogged_seats[seat_no]
        except OSError:
            self._retry_later()
            return
        if probing is None:
            self.resume()
        else:
            probing.add_done_callback(self._probed)

    def _retry_later(self) -> None:
        self._retry = later(self._retry_wait, self.try_log)
        self._retry_wait = min(RETRY, self._retry_wait * 2)

    def _probed(self, probing: asyncio.Future[int]) -> None:
        """A log that is not immediate answered a paused table's probe."""
        error = probing.exception()
        if not self.paused or self.status != "playing":
            return
        if isinstance(error, LogTaken):
            self._taken(error)
            return
        if error is not None:
            self._retry_later()
            return
        if probing.result():  # its records that landed after all: the log is the truth
            self.rebuild_from_log()
        unlogged, self._unlogged_seats = self._unlogged_seats, {}
        for seat_no, info in unlogged.items():  # (a refusal comes later: it pauses again)
            self._append_seat(seat_no, info)
        self.resume()

    def resume(self) -> None:
        """The log takes writes again: the table goes on. If the move that landed after all
        (``rebuild_from_log``) ended the game, the game ends now, as after any last move (it
        resumed with nobody to act, and stood still)."""
        log.info("table %s: its log takes writes again; the table resumes", self.id)
        self.paused = False
        self.changed()
        self.tell("resumed", RESUMED)
        self.after_change([])

    def tell(self, code: str, text: str) -> None:
        """A notice for everyone at the table, players and spectators."""
        for session in self.subscribers:
            session.mailbox.put_notice(Notice(code, text))

    def log_seat(self, seat_no: int) -> None:
        """Write a seat's change (a bot taking it for good). If the log refuses it, the table
        pauses and writes it before it resumes."""
        if self.writer is None or self.status != "playing":
            return
        info = self.seats[seat_no].to_log()
        if self.paused:
            self._unlogged_seats[seat_no] = info
            return
        self._append_seat(seat_no, info)

    def _append_seat(self, seat_no: int, info: dict[str, Any]) -> None:
        assert self.writer is not None
        try:
            appending = self.writer.append_seat(seat_no, info)
        except OSError as e:
            self._seat_refused(seat_no, info, e)
            return
        if appending is not None:
            appending.add_done_callback(lambda done: self._seat_written(seat_no, info, done))

    def _seat_written(self, seat_no: int, info: dict[str, Any],
                      appending: asyncio.Future[None]) -> None:
        error = appending.exception()
        if error is None or self.status != "playing":
            return
        if isinstance(error, LogTaken):
            self._taken(error)
        else:
            self._seat_refused(seat_no, info, error)

    def _seat_refused(self, seat_no: int, info: dict[str, Any], error: BaseException) -> None:
        log.error("table %s: its log refused seat %d's change (%s); the table pauses",
                  self.id, seat_no, error)
        self._unlogged_seats[seat_no] = info
        self.pause()

    def close_log(self, reason: str | None) -> None:
        """End the log with ``reason`` (None: no end record) and close it. An end record the
        log refuses is left out: the next start restores the table, finds it over (or
        abandoned again) and ends it then."""
        if self.writer is None or self.writer.closed:
            return
        try:
            if reason is not None:
                appending = self.writer.end(reason)
                if appending is not None:
                    appending.add_done_callback(self._end_written)
        except OSError as e:
            self._end_written(e)
        self.writer.close()

    def _end_written(self, done: asyncio.Future[None] | OSError) -> None:
        error = done if isinstance(done, OSError) else done.exception()
        if error is not None:
            log.error("table %s: its log refused its end (%s); the next start ends it",
                      self.id, error)

    def after_change(self, events: list[Event]) -> None:
        self.remember(events)
        outcome = self.game.outcome(self.state)
        if outcome is not None:
            self.finish(outcome)
        self.schedule()
        self.publish(events)

    def finish(self, outcome: Outcome) -> None:
        """The game is over: whether it is rated, then the coordinator records the result and
        ends the log."""
        self.status = "finished"
        self.unrated = UNRATED_LEARN if self.learn else ratings.unrated_reason([
            ratings.SeatPlay(s.identity is not None, self.rated_seat(s), self.own_moves[i],
                             self.stand_in_moves[i])
            for i, s in enumerate(self.seats)])
        places = outcome.standing()
        self.coordinator.table_finished(self, [
            SeatResult(i, s.identity, s.name, s.bot if s.kind == "bot" else None,
                       outcome.scores[i], i in outcome.winners, places[i], self.rated_seat(s))
            for i, s in enumerate(self.seats)
        ], outcome.rounds)
        self.changed()

    @staticmethod
    def rated_seat(seat: Seat) -> bool:
        """A seat whose player is rated: one with a key (a guest's identity ends with their
        session; a bot from the start has none)."""
        return seat.identity is not None and seat.identity.startswith(KEY_PREFIX)

    # --- timers and bots ------------------------------------------------------------------

    def schedule(self) -> None:
        """After any change: who plays next, and when the bots and the timer act.

        A table nobody is at (no player connected, nobody watching) holds still: no bot or
        stand-in plays for nobody, no turn clock runs (its time left is kept). The coordinator
        closes it, or keeps it for players who dropped after moving (their grace period); when
        one of them, or anyone, comes back (``subscribe``), the game goes on from where it
        stood."""
        for handle in self._handles:
            handle.cancel()
        self._handles.clear()
        if self.status != "playing":
            self.deadlines.clear()
            self._frozen = {}
            return
        self.idle = not self.subscribers
        # Paused (the log refuses writes), idle (nobody here) or stopping: nobody moves. Paused
        # or idle, the turn clocks stop too, the time left kept for when the table goes on.
        if self.paused or self.idle:
            if self.deadlines:
                now = asyncio.get_running_loop().time()
                self._frozen.update({seat: max(0.0, deadline - now) for seat, deadline in
                                     self.deadlines.items()})
                self.deadlines.clear()
            return
        if self.coordinator.stopping:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        if self._frozen:
            self.deadlines.update({seat: now + left for seat, left in self._frozen.items()})
            self._frozen = {}
        actors = self.game.to_act(self.state)
        self.autoplay.intersection_update(actors)
        for seat_no in list(self.deadlines):
            if seat_no not in actors:
                del self.deadlines[seat_no]
        interjectors = self.game.interjectors(self.state)
        floor = CATCH_WAIT if any(self.seats[s].kind == "player" and not self.seats[s].away
                                  for s in interjectors) else 0.0
        for seat_no in actors:
            seat = self.seats[seat_no]
            waits = seat.patient and self.timer is not None
            if seat.kind == "bot" or seat_no in self.autoplay or (seat.away and not waits):
                self.deadlines.pop(seat_no, None)
                self._later(max(floor, self.coordinator.bot_delay()), self.bot_move, seat_no,
                            self.step)
            elif self.timer is not None:
                deadline = self.deadlines.setdefault(seat_no, now + self.timer)
                self._later(deadline - now, self.time_out, seat_no, self.step)
        for seat_no in interjectors:
            if self.seats[seat_no].kind == "bot":
                self._later(self.coordinator.bot_delay(), self.bot_interject, seat_no, self.step)
        if self.deadlines != self.clock_saved:
            self.coordinator.keep_clock(self)

    def _later(self, delay: float, callback: Callable[[int, int], None], seat: int,
               step: int) -> None:
        self._handles.append(later(delay, callback, seat, step))

    def _bot_for(self, seat: int) -> Any:
        return self.game.bot(self.seats[seat].bot)

    def bot_move(self, seat: int, step: int, timed_out: bool = False) -> None:
        """The bot of a bot seat, or a player's stand-in, plays (``timed_out``: because the
        player's turn timer ran out). A stand-in's move is marked so in everyone's log."""
        if self.status != "playing" or step != self.step or self.appending is not None:
            return
        if seat not in self.game.to_act(self.state):
            return
        legal = self.game.legal_actions(self.state, seat)
        try:
            # A player's stand-in does what the rules say where they say it (Collection: the
            # best selection at validation), else what the bot chooses.
            stand_in = self.seats[seat].kind == "player"
            action = self.game.stand_in_action(self.state, seat) if stand_in else None
            if action is None:
                action = self._bot_for(seat).choose(self.state, seat, legal, self.bot_rng)
            said = ((*((Event("timeout", seat),) if timed_out else ()), Event("stand_in", seat))
                    if stand_in else ())
            # (a seat a player left for good is a bot's now, but still the player's seat)
            self.apply(seat, action, said, self.seats[seat].identity is not None)
        except Refused as e:
            if e.code != "paused":  # (paused: it plays again when the table resumes)
                log.error("table %s: the bot of seat %d was refused: %s", self.id, seat, e)
        except Exception:
            # A bot or engine bug must not stall the table silently nor reach other tables.
            log.exception("table %s: the bot of seat %d failed", self.id, seat)

    def bot_interject(self, seat: int, step: int) -> None:
        if self.status != "playing" or step != self.step or self.appending is not None:
            return
        if seat not in self.game.interjectors(self.state):
            return
        legal = self.game.legal_actions(self.state, seat)
        try:
            action = self._bot_for(seat).interject(self.state, seat, legal, self.bot_rng)
            if action is not None:
                self.apply(seat, action, stand_in=self.seats[seat].identity is not None)
        except Refused as e:
            if e.code != "paused":
                log.error("table %s: the bot of seat %d was refused: %s", self.id, seat, e)
        except Exception:
            log.exception("table %s: the bot of seat %d failed to interject", self.id, seat)

    def time_out(self, seat: int, step: int) -> None:
        if self.status != "playing" or step != self.step or self.appending is not None:
            return
        self.autoplay.add(seat)
        self.coordinator.notify_seat(self, seat, "timeout",
                                     "Temps écoulé : le robot joue ce tour pour vous.")
        self.bot_move(seat, step, timed_out=True)

    def cancel_rematch(self) -> None:
        """No rematch proposal open any more (it started, or it is off)."""
        if self.rematch_handle is not None:
            self.rematch_handle.cancel()
            self.rematch_handle = None
        self.rematch.clear()
        self.rematch_deadline = None

    def cancel_timers(self) -> None:
        self.cancel_rematch()
        for handle in self._handles:
            handle.cancel()
        self._handles.clear()
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        if self.hold is not None:
            self.hold.cancel()
            self.hold = None
        for seat in self.seats:
            if seat.grace is not None:
                seat.grace.cancel()
                seat.grace = None
