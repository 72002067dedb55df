"""A hypothesis state machine over the coordinator: players connect and drop, come back (or
connect again elsewhere while still connected) and find their seat, create, join, watch, start
and leave tables, play legal, illegal, stale and out-of-turn moves; watch-only spectators come,
watch and go; time runs so bots, turn timers and grace periods fire. After every step:

- every card of every game is in exactly one place;
- one seat acts at a time (several only in a simultaneous phase);
- what each session holds is exactly its own seat's view (spectators: the public one);
- every table's log replays to the same state.
"""

from __future__ import annotations

import asyncio
import random
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from pioche_tui.coordinator.core import Coordinator, Session, Settings
from pioche_tui.coordinator.model import Player, Refused
from pioche_tui.coordinator.table import Table
from pioche_tui.engine import GAMES
from pioche_tui.store.log import read_log

from ..engine.defausse_rig import check_cards as check_defausse_cards
from ..engine.test_collection_rules import assert_conserved as check_collection_cards
from .conftest import player

NAMES = ("Ana", "Ben", "Cyd", "Dom")
WATCHERS = ("Wes", "Xia")
CARD_CHECKS: dict[str, Callable[[Any], None]] = {
    "defausse": check_defausse_cards, "collection": check_collection_cards}


def simultaneous(table: Table) -> bool:
    """Collection's validation is the one phase where several seats act at once."""
    view = table.game.view(table.state, None)
    return getattr(view, "phase", None) == "validation"


class VirtualClockLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock moves only when told: timers, bot delays and grace periods
    fire in the same order on every run, so hypothesis can replay and shrink."""

    def __init__(self) -> None:
        super().__init__()
        self.now = 0.0

    def time(self) -> float:
        return self.now

    def settle(self) -> None:
        """Run every callback that is due now, and those they schedule for now."""
        while True:
            self.run_until_complete(asyncio.sleep(0))
            due = [h for h in self._scheduled if not h.cancelled() and h.when() <= self.now]
            if not self._ready and not due:  # type: ignore[attr-defined]
                return

    def advance(self, dt: float) -> None:
        end = self.now + dt
        self.settle()
        while True:
            pending = [h.when() for h in self._scheduled if not h.cancelled()]
            following = min(pending, default=end + 1)
            if following > end:
                break
            self.now = max(self.now, following)
            self.settle()
        self.now = end
        self.settle()


class CoordinatorMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="pioche-sm-"))
        self.loop = VirtualClockLoop()
        self.c = Coordinator(Settings(self.dir, bot_delay=(0.0, 0.002), turn_timer=0.01,
                                      grace=0.03, seed=0))
        self.loop.run_until_complete(self.c.start())
        self.sessions: dict[str, Session] = {}
        self.rng = random.Random(0)

    def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run a coordinator call on the loop (it schedules timers there); Refused → None."""

        async def inside() -> Any:
            try:
                return fn(*args, **kwargs)
            except Refused as e:
                assert e.code and str(e)
                return None

        result = self.loop.run_until_complete(inside())
        self.loop.settle()
        return result

    def teardown(self) -> None:
        self.c.stop()
        self.loop.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    # --- rules ----------------------------------------------------------------------------

    def kept_seat(self, name: str) -> tuple[Table, int] | None:
        """The seat of a game in progress that waits for ``name``, if any."""
        for table in self.c.tables.values():
            seat = table.seat_of(player(name).identity)
            if seat is not None and table.status == "playing":
                return table, seat
        return None

    def connect_again(self, name: str) -> None:
        """Connect ``name``: a seat kept for them at a game in progress is theirs again."""
        kept = self.kept_seat(name)
        session = self.sessions[name] = self.call(self.c.connect, player(name))
        if kept is not None:
            assert (session.table, session.seat) == kept
            assert not kept[0].seats[kept[1]].away

    @rule(name=st.sampled_from(NAMES))
    def connect(self, name: str) -> None:
        if name not in self.sessions:
            self.connect_again(name)

    @precondition(lambda self: any(name in NAMES for name in self.sessions))
    @rule(data=st.data())
    def connect_elsewhere(self, data: st.DataObject) -> None:
        """The same key again while connected: the newest connection wins, seat included."""
        name = data.draw(st.sampled_from(sorted(n for n in self.sessions if n in NAMES)))
        old = self.sessions[name]
        self.connect_again(name)
        assert not old.open and old.mailbox.closed and old.table is None

    @rule(name=st.sampled_from(WATCHERS), data=st.data())
    def spectator_comes(self, name: str, data: st.DataObject) -> None:
        if name in self.sessions:
            return
        watcher = Player(f"SHA256:{name}-key", name, watch_only=True)
        session = self.sessions[name] = self.call(self.c.connect, watcher)
        if self.c.tables:
            table = data.draw(st.sampled_from(sorted(self.c.tables)))
            self.call(session.watch, table)
            if not self.c.tables[table].code:
                assert session.table is self.c.tables[table] and session.seat is None

    @precondition(lambda self: self.sessions)
    @rule(data=st.data())
    def disconnect(self, data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(sorted(self.sessions)))
        self.call(self.sessions.pop(name).close)

    @precondition(lambda self: self.sessions)
    @rule(data=st.data(), game=st.sampled_from(sorted(GAMES)), seats=st.integers(2, 4),
          bots=st.integers(0, 3), sit=st.booleans())
    def create(self, data: st.DataObject, game: str, seats: int, bots: int, sit: bool) -> None:
        s = self.sessions[data.draw(st.sampled_from(sorted(self.sessions)))]
        bot_seats = range(1, 1 + min(bots, seats - 1)) if sit else range(seats)
        self.call(s.create_table, game, seats=seats, sit=sit,
                  bots={i: self.rng.choice(("random", "basic")) for i in bot_seats},
                  options={"single_round": True}, timer="default")

    @precondition(lambda self: self.sessions and self.c.tables)
    @rule(data=st.data(), watch=st.booleans())
    def join_or_watch(self, data: st.DataObject, watch: bool) -> None:
        s = self.sessions[data.draw(st.sampled_from(sorted(self.sessions)))]
        tid = data.draw(st.sampled_from(sorted(self.c.tables)))
        self.call(s.watch if watch else s.join, tid)

    @precondition(lambda self: self.sessions)
    @rule(data=st.data(), leave=st.booleans())
    def start_or_leave(self, data: st.DataObject, leave: bool) -> None:
        s = self.sessions[data.draw(st.sampled_from(sorted(self.sessions)))]
        self.call(s.leave if leave else s.start)

    @precondition(lambda self: self.sessions)
    @rule(data=st.data(), kind=st.sampled_from(["legal", "legal", "legal", "stale", "garbage",
                                                "foreign"]))
    def act(self, data: st.DataObject, kind: str) -> None:
        s = self.sessions[data.draw(st.sampled_from(sorted(self.sessions)))]
        table, seat = s.table, s.seat
        if table is None or seat is None or table.state is None:
            self.call(s.act, "nothing", None)
            return
        before = [table.game.view(table.state, v) for v in (*range(len(table.seats)), None)]
        step = table.step
        legal = table.game.legal_actions(table.state, seat)
        others = [o for o in range(len(table.seats)) if o != seat]
        if kind == "legal" and legal:
            self.call(s.act, data.draw(st.sampled_from(list(legal))), table.step)
            return
        if kind == "stale" and legal:
            self.call(s.act, legal[0], table.step - 1 - data.draw(st.integers(0, 3)))
        elif kind == "garbage":
            self.call(s.act, data.draw(st.sampled_from([None, "draw", 7, ("play", 1), b"\xff"])),
                      table.step)
        else:  # another seat's legal action, sent from this seat
            foreign = [a for o in others for a in table.game.legal_actions(table.state, o)
                       if a not in legal]
            if not foreign:
                return
            self.call(s.act, data.draw(st.sampled_from(foreign)), table.step)
        assert table.step == step, "a refused action changed the table"
        assert before == [table.game.view(table.state, v)
                          for v in (*range(len(table.seats)), None)]

    @rule(dt=st.sampled_from([0.0, 0.005, 0.02, 0.05]))
    def let_time_pass(self, dt: float) -> None:
        self.loop.advance(dt)

    # --- invariants -----------------------------------------------------------------------

    @invariant()
    def cards_stay_where_they_are(self) -> None:
        for table in self.c.tables.values():
            if table.state is not None:
                CARD_CHECKS[table.game.name](table.state)

    @invariant()
    def one_actor_at_a_time(self) -> None:
        for table in self.c.tables.values():
            if table.status == "playing":
                actors = table.game.to_act(table.state)
                assert len(actors) == 1 or (actors and simultaneous(table))

    @invariant()
    def each_session_holds_its_own_view(self) -> None:
        for s in self.sessions.values():
            mail = s.mailbox.take()
            if mail is None or mail.table is None or s.table is None:
                continue
            update, table = mail.table, s.table
            assert update.table.id == table.id and update.seat == s.seat
            assert update.step == table.step
            expected = None if table.state is None else table.game.view(table.state, s.seat)
            assert update.view == expected
            for event in update.events:
                assert not event.secret or event.seat == s.seat

    @invariant()
    def logs_replay_to_the_same_state(self) -> None:
        for table in self.c.tables.values():
            if table.writer is None or table.status != "playing":
                continue
            log = read_log(table.writer.path)
            game = table.game
            state = game.new_game(len(table.seats), log.header["options"], log.header["seed"])
            steps = 0
            for seat, wire in log.actions():
                game.apply(state, seat, game.action_from_wire(wire))
                steps += 1
            assert steps == table.step
            seats = (*range(len(table.seats)), None)
            assert [game.view(state, v) for v in seats] == [game.view(table.state, v)
                                                             for v in seats]


CoordinatorMachine.TestCase.settings = settings(
    max_examples=50, stateful_step_count=40, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
TestCoordinatorMachine = CoordinatorMachine.TestCase
