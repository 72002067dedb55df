"""A coordinator whose tables' logs are in JetStream (``Settings.logs`` "jetstream",
store/jslog.py), against a real nats-server with JetStream: a move is shown to no one before
the stream holds it, moves arriving meanwhile wait their turn, a stream that does not answer
pauses the table (and the move that landed after all is taken when it resumes), another writer
stops the table here, and a restart brings the tables back from the stream."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from nats.aio.client import Client

from pioche_tui import bus
from pioche_tui.bus.natsd import NatsServer
from pioche_tui.coordinator import table as table_module
from pioche_tui.coordinator.core import Coordinator, Session, Settings
from pioche_tui.coordinator.model import Refused, TableUpdate
from pioche_tui.coordinator.table import Table
from pioche_tui.store import jslog
from pioche_tui.store.log import ACTION
from tests.stall import stalled

from .conftest import player, until

pytestmark = pytest.mark.asyncio(loop_scope="module")

Make = Callable[..., Awaitable[Coordinator]]


@pytest_asyncio.fixture(loop_scope="module")
async def nc(jetstream_server: NatsServer) -> AsyncIterator[Client]:
    """A connection to the module's JetStream server; the stream emptied for each test."""
    client = await bus.connect(jetstream_server.url, "test-coordinator-jslog")
    js = client.jetstream()
    await jslog.ensure_stream(js, 1)
    await js.purge_stream(bus.LOG_STREAM)
    try:
        yield client
    finally:
        await client.close()


@pytest_asyncio.fixture(loop_scope="module")
async def make(nc: Client, tmp_path: Path) -> AsyncIterator[Make]:
    """Coordinators with their logs in the stream, each on its own data directory (the
    database is each one's; the logs are the stream's)."""
    made: list[Coordinator] = []

    async def start(**settings: Any) -> Coordinator:
        options: dict[str, Any] = {"bot_delay": (0.0, 0.0), "turn_timer": None, "grace": 60.0,
                                   "logs": "jetstream"}
        options.update(settings)
        c = Coordinator(Settings(tmp_path / f"data{len(made)}", **options))
        await c.start(nc)
        made.append(c)
        return c

    yield start
    for c in made:
        c.stop()


def steps_shown(session: Session) -> list[int]:
    """Every step published to ``session`` from now on, as it is published (the table's
    acknowledged records counted at that moment, beside it)."""
    shown: list[int] = []
    put = session.mailbox.put_table

    def put_table(update: TableUpdate) -> None:
        shown.append(update.step)
        put(update)

    session.mailbox.put_table = put_table  # type: ignore[method-assign]
    return shown


def logged_moves(table: Table) -> int:
    assert table.writer is not None
    return sum(1 for r in table.writer.read_back() if r[0] == ACTION)


async def two_players(c: Coordinator) -> tuple[Table, Session, Session]:
    """A table of two players, started; the first returned is the one to act."""
    ann, bob = c.connect(player("Ann")), c.connect(player("Bob"))
    tid = ann.create_table("defausse", seats=2)
    bob.join(tid)
    table = c.tables[tid]
    assert table.status == "playing"
    writer = table.writer
    assert isinstance(writer, jslog.JetStreamLog)
    await until(lambda: writer.last_seq > 0)  # (its header is in)
    first = table.game.to_act(table.state)[0]
    return (table, ann, bob) if first == ann.seat else (table, bob, ann)


def a_move(table: Table, session: Session) -> Any:
    assert session.seat is not None
    return table.game.legal_actions(table.state, session.seat)[0]


async def test_a_move_is_shown_only_once_the_stream_holds_it(make: Make, nc: Client) -> None:
    c = await make()
    ann = c.connect(player("Ann"))
    published: list[tuple[int, int]] = []
    tid = ann.quick_play("defausse", seats=3)
    table = c.tables[tid]
    put = ann.mailbox.put_table

    def put_table(update: TableUpdate) -> None:  # (what the stream acknowledged, then)
        published.append((update.step, logged_moves(table)))
        put(update)

    ann.mailbox.put_table = put_table  # type: ignore[method-assign]
    while table.step < 30 and table.status == "playing":
        if table.appending is None and ann.seat in table.game.to_act(table.state):
            answer = ann.act(a_move(table, ann), table.step)
            assert answer is not None  # (a log that is not immediate: awaited)
            await answer
        await asyncio.sleep(0.001)
    assert published and all(step <= logged for step, logged in published)
    contents = await jslog.read_table(nc.jetstream(), tid)
    assert sum(1 for r in contents.records if r[0] == ACTION) >= table.step >= 30


async def test_moves_arriving_meanwhile_wait_their_turn(make: Make, jetstream_server: NatsServer
                                                        ) -> None:
    c = await make()
    table, mover, other = await two_players(c)
    shown = steps_shown(other)
    step = table.step
    with stalled(jetstream_server):
        first = asyncio.ensure_future(mover.act(a_move(table, mover), step))  # type: ignore[arg-type]
        again = asyncio.ensure_future(mover.act(a_move(table, mover), step))  # type: ignore[arg-type]
        await asyncio.sleep(0.3)
        # Not in the stream yet: nobody sees it, the table is at the step before, and the
        # second move waits (it is not refused for arriving while the table was busy).
        assert not first.done() and not again.done()
        assert table.step == step and table.appending is not None and step + 1 not in shown
    await first
    with pytest.raises(Refused) as refused:  # checked after the first: its step is past
        await again
    assert refused.value.code == "stale"
    assert table.step == step + 1 and logged_moves(table) == 1 and step + 1 in shown


async def test_a_stream_that_does_not_answer_pauses_the_table_until_it_does(
    make: Make, jetstream_server: NatsServer, nc: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jslog, "APPEND_TIMEOUT", 0.3)
    monkeypatch.setattr(table_module, "RETRY", 0.2)
    c = await make()
    table, mover, _other = await two_players(c)
    step = table.step
    with stalled(jetstream_server):
        with pytest.raises(Refused) as refused:
            await mover.act(a_move(table, mover), step)  # type: ignore[misc]
        assert refused.value.code == "paused" and table.paused and table.step == step
        with pytest.raises(Refused):  # paused: no move taken
            await mover.act(a_move(table, mover), step)  # type: ignore[misc]
        await asyncio.sleep(0.5)  # (retries meanwhile find the stream still silent)
        assert table.paused
    # The stream answers again; the record sent before it went silent landed after all: the
    # table takes it (its log is the truth) and resumes.
    await until(lambda: not table.paused)
    assert table.step == step + 1 and logged_moves(table) == 1
    contents = await jslog.read_table(nc.jetstream(), table.id)
    assert [r[0] for r in contents.records] == [ACTION]


async def test_a_paused_table_tries_its_log_again_soon_then_less_often(
    make: Make, jetstream_server: NatsServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stream back from its leader's election is found within a fraction of the pause, not
    up to ``RETRY`` later: the first try a quarter-second after the pause, each next one twice
    as late, every ``RETRY`` at most."""
    monkeypatch.setattr(jslog, "APPEND_TIMEOUT", 0.1)
    waits: list[float] = []
    real_later = table_module.later

    def later(delay: float, callback: Any, *args: Any) -> asyncio.TimerHandle:
        if getattr(callback, "__name__", "") == "try_log":
            waits.append(delay)
        return real_later(delay, callback, *args)

    monkeypatch.setattr(table_module, "later", later)
    c = await make()
    table, mover, _other = await two_players(c)
    with stalled(jetstream_server):
        with pytest.raises(Refused):
            await mover.act(a_move(table, mover), table.step)  # type: ignore[misc]
        await until(lambda: len(waits) >= 4)
    assert waits[:4] == [table_module.RETRY_FIRST, 0.5, 1.0, table_module.RETRY]
    await until(lambda: not table.paused)


async def test_another_writer_takes_the_table_and_this_coordinator_stops_it(
    make: Make, nc: Client
) -> None:
    c = await make()
    table, mover, _other = await two_players(c)
    js = nc.jetstream()
    usurper = jslog.JetStreamLog.reopen(js, await jslog.read_table(js, table.id))
    await usurper.append_seat(1, {"kind": "bot", "name": "Ambre", "identity": None,
                                  "bot": "basic"})
    with pytest.raises(Refused) as refused:
        await mover.act(a_move(table, mover), table.step)  # type: ignore[misc]
    assert refused.value.code == "stopped"
    assert table.id not in c.tables and mover.table is None
    contents = await jslog.read_table(js, table.id)  # the usurper's log, not forked
    assert [r[0] for r in contents.records] == ["s"]


async def test_a_restart_brings_the_tables_back_from_the_stream(make: Make) -> None:
    c = await make()
    table, mover, other = await two_players(c)
    for _ in range(3):
        actor = mover if mover.seat in table.game.to_act(table.state) else other
        await actor.act(a_move(table, actor), table.step)  # type: ignore[misc]
    step, tid = table.step, table.id
    c.stop()
    again = await make()  # (another data directory: only the stream has the table)
    restored = again.tables[tid]
    assert restored.step == step and restored.status == "playing"
    back = again.connect(player("Ann"))
    assert back.table is restored and logged_moves(restored) == step
    other_back = again.connect(player("Bob"))
    actor = back if back.seat in restored.game.to_act(restored.state) else other_back
    await actor.act(a_move(restored, actor), restored.step)  # type: ignore[misc]
    assert restored.step == step + 1 and logged_moves(restored) == step + 1


async def test_a_table_closed_before_any_move_leaves_no_log(make: Make, nc: Client) -> None:
    c = await make(bot_delay=(30.0, 30.0))
    ann = c.connect(player("Ann"))
    tid = ann.quick_play("defausse", seats=3)
    js = nc.jetstream()
    await until_async(lambda: jslog.table_ids(js), lambda ids: tid in ids)
    ann.leave()
    assert tid not in c.tables
    await until_async(lambda: jslog.table_ids(js), lambda ids: tid not in ids)


async def until_async(ask: Callable[[], Awaitable[Any]], holds: Callable[[Any], bool],
                      timeout: float = 10.0) -> None:
    end = asyncio.get_running_loop().time() + timeout
    while not holds(await ask()):
        if asyncio.get_running_loop().time() > end:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)


async def test_a_finished_game_is_replayed_from_the_stream_then_purged_past_its_retention(
    make: Make, nc: Client
) -> None:
    c = await make(keep_finished=0.0, keep_abandoned=3600.0)
    ida, ann = c.connect(player("Ida")), c.connect(player("Ann"))
    tid = ida.create_table("collection", seats=2, bots={0: "basic", 1: "basic"},
                           options={"single_round": True}, sit=False)
    live = ann.quick_play("defausse", seats=3)
    await until(lambda: c.tables[tid].status == "finished", timeout=30)
    assert c.db is not None and c.db.log_file(tid) == bus.log_subject(tid)
    page = await c.replay(ida.player, tid, None, 0)
    assert page.total > 0 and page.frames
    ida.leave()
    js = nc.jetstream()
    await until_async(lambda: jslog.last_record(js, tid), lambda found: found[0] == [
        "end", "finished"])
    report = await c.retention_pass()
    assert report.removed == 1
    assert sorted(await jslog.table_ids(js)) == [live]  # (a live table's log is never touched)
    assert c.db.log_file(tid) == ""
    with pytest.raises(Refused) as refused:
        await c.replay(ida.player, tid, None, 0)
    assert refused.value.code == "replay_gone"


async def test_a_move_waiting_for_the_stream_holds_no_other_request(
    jetstream_server: NatsServer, nats_server: NatsServer, nc: Client, tmp_path: Path
) -> None:
    """Under ``--workers`` (``coordinator/host.py``): while one move waits for the stream,
    another session's request is answered. (The stream is on a JetStream server of its own
    here, stalled; the requests go over another bus, which goes on.)"""
    from tests.contract.conftest import hosted

    c = Coordinator(Settings(tmp_path / "data", bot_delay=(0.0, 0.0), turn_timer=None,
                             grace=60.0, logs="jetstream"))
    await c.start(nc)
    try:
        async with hosted(c, nats_server.url) as connector:
            ann, bob, cid = (connector.client() for _ in range(3))
            for client, name in ((ann, "Ann"), (bob, "Bob"), (cid, "Cid")):
                await client.connect(player(name))
            tid = await ann.create_table("defausse", seats=2)
            await bob.join(tid)
            table = c.tables[tid]
            writer = table.writer
            assert isinstance(writer, jslog.JetStreamLog)
            await until(lambda: writer.last_seq > 0)
            seat = table.game.to_act(table.state)[0]
            mover = ann if c.sessions[player("Ann").identity].seat == seat else bob
            move = table.game.legal_actions(table.state, seat)[0]
            with stalled(jetstream_server):
                moving = asyncio.ensure_future(mover.act(move, table.step))
                await until(lambda: table.appending is not None)
                place = await asyncio.wait_for(cid.place(), jslog.APPEND_TIMEOUT / 2)
                assert place.table is None and not moving.done()
            await moving
            assert table.step == 1
    finally:
        c.stop()


async def test_a_last_move_that_landed_after_all_ends_the_game_when_the_table_resumes(
    make: Make, jetstream_server: NatsServer, nc: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The move that ends the game is sent as the stream goes silent, and lands after all:
    the table takes it when it resumes (its log is the truth), and the game ends there: its
    result recorded, its log ended. (It resumed with the game over and nobody to act: the
    table stood still until its coordinator died; the chaos bench, seed 11.)"""
    import copy

    monkeypatch.setattr(jslog, "APPEND_TIMEOUT", 0.3)
    monkeypatch.setattr(table_module, "RETRY", 0.2)
    c = await make()
    ann, bob = c.connect(player("Ann")), c.connect(player("Bob"))
    tid = ann.create_table("defausse", seats=2, options={"single_round": True})
    bob.join(tid)
    table = c.tables[tid]

    def ending(session: Session) -> Any:
        """A legal move of ``session`` that ends the game, or None."""
        assert session.seat is not None
        for action in table.game.legal_actions(table.state, session.seat):
            state = copy.deepcopy(table.state)
            table.game.apply(state, session.seat, action)
            if table.game.outcome(state) is not None:
                return action
        return None

    while True:
        actor = ann if ann.seat in table.game.to_act(table.state) else bob
        last = ending(actor)
        if last is not None:
            break
        answer = actor.act(a_move(table, actor), table.step)
        assert answer is not None
        await answer
    step = table.step
    with stalled(jetstream_server):
        with pytest.raises(Refused) as refused:
            await actor.act(last, step)  # type: ignore[misc]
        assert refused.value.code == "paused" and table.paused
    await until(lambda: not table.paused)
    assert table.step == step + 1
    await until(lambda: table.status == "finished")
    assert c.db is not None and c.db.has_game(tid)
    contents = await jslog.read_table(nc.jetstream(), tid)
    assert contents.ended


async def test_a_table_whose_header_the_stream_did_not_take_pauses_until_it_does(
    make: Make, jetstream_server: NatsServer, nc: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game starts as the stream goes silent (a NATS node's death: its leader's
    election): its log's header is not acknowledged. The table pauses and tries again, as
    after a move's failed append, and resumes once the header is in; its players play on.
    (It stopped for good, its owner key kept, so nobody claimed it: the chaos bench, seed
    13, a table made two seconds after a kill, its player sitting at it until the end.)"""
    monkeypatch.setattr(jslog, "APPEND_TIMEOUT", 0.3)
    monkeypatch.setattr(table_module, "RETRY", 0.2)
    c = await make()
    ann, bob = c.connect(player("Ann")), c.connect(player("Bob"))
    tid = ann.create_table("defausse", seats=2)
    with stalled(jetstream_server):
        bob.join(tid)
        table = c.tables[tid]
        await until(lambda: table.paused or table.status != "playing")
        assert table.status == "playing" and table.paused
    await until(lambda: not table.paused)
    assert tid in c.tables and table.status == "playing"
    mover = ann if ann.seat in table.game.to_act(table.state) else bob
    answer = mover.act(a_move(table, mover), table.step)
    assert answer is not None
    await answer
    contents = await jslog.read_table(nc.jetstream(), tid)
    assert [r[0] for r in contents.records] == [ACTION]
