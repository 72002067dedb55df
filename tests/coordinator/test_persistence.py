"""What a restart keeps beside the logs, and every other write the disk may refuse (issue 12,
items 3 and 13): real engines, real msgpack logs, and each test on both databases, a real
SQLite file and a real PostgreSQL (``--db``: the ``postgres`` fixture); a refusing database is
the backend's own (SQLite's ``PRAGMA query_only``, PostgreSQL's read-only transactions), a
refusing disk a failed fsync."""

from __future__ import annotations

import asyncio
import errno
import os
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from pioche_tui.coordinator.core import CHAT_HISTORY, Coordinator
from pioche_tui.coordinator.model import Refused
from pioche_tui.store.db import PostgresDatabase
from pioche_tui.store.log import read_log

from .conftest import player, until

Make = Callable[..., Awaitable[Coordinator]]


@pytest.fixture(params=["sqlite", "postgresql"])
def make_coordinator(request: pytest.FixtureRequest, make_coordinator: Make) -> Make:
    """conftest.py's, each test on both databases (the coordinators of one test on one)."""
    if request.param == "sqlite":
        return make_coordinator
    url = request.getfixturevalue("postgres").new_database()

    async def make(games: Any = None, **settings: object) -> Coordinator:
        return await make_coordinator(games, db=url, **settings)
    return make


@contextmanager
def database_refusing(c: Coordinator) -> Iterator[None]:
    """The database refuses every write meanwhile, as a full disk would (SQLite: an
    OperationalError; PostgreSQL: a read-only transaction's error)."""
    assert c.db is not None
    on, off = (("SET default_transaction_read_only = on", "SET default_transaction_read_only = off")
               if isinstance(c.db, PostgresDatabase)
               else ("PRAGMA query_only = ON", "PRAGMA query_only = OFF"))
    c.db._run(on)
    try:
        yield
    finally:
        c.db._run(off)


@contextmanager
def fsync_failing() -> Iterator[None]:
    real = os.fsync

    def fsync(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    os.fsync = fsync  # type: ignore[assignment]
    try:
        yield
    finally:
        os.fsync = real


async def test_a_waiting_table_comes_back_with_its_players_seats(make_coordinator: Make) -> None:
    c = await make_coordinator(grace=0.2)
    carol, dave = c.connect(player("Carol")), c.connect(player("Dave"))
    tid = carol.create_table("defausse", seats=3, options={"target": 300}, private=True)
    code = c.tables[tid].code
    dave.join(tid, code=code)
    c.stop()

    c2 = await make_coordinator(grace=0.2)
    table = c2.tables[tid]
    assert table.status == "waiting" and table.code == code and table.options["target"] == 300
    assert [(s.kind, s.name, s.away) for s in table.seats] == [
        ("player", "Carol", True), ("player", "Dave", True), ("free", "", False)]
    back = c2.connect(player("Carol"))  # her seat back, the right to start it too
    assert back.table is table and back.seat == 0 and table.creator == back.player.identity
    # Dave does not come back: after the grace period his seat is free again.
    await until(lambda: table.seats[1].kind == "free")
    back.leave()  # nobody left: the table closes, and is not brought back again
    assert tid not in c2.tables
    c2.stop()
    c3 = await make_coordinator()
    assert tid not in c3.tables


async def test_a_table_that_started_is_not_brought_back_as_waiting(make_coordinator: Make
                                                                   ) -> None:
    c = await make_coordinator()
    carol, dave = c.connect(player("Carol")), c.connect(player("Dave"))
    tid = carol.create_table("defausse", seats=2)
    dave.join(tid)  # full: it starts, its log holds it now
    c.stop()
    c2 = await make_coordinator()
    assert c2.tables[tid].status == "playing"
    assert c2.db is not None and c2.db.waiting_tables() == []


async def test_a_table_the_database_cannot_keep_is_refused(make_coordinator: Make) -> None:
    c = await make_coordinator()
    carol, dave = c.connect(player("Carol")), c.connect(player("Dave"))
    with database_refusing(c), pytest.raises(Refused) as e:
        carol.create_table("defausse", seats=3)
    assert e.value.code == "storage" and not c.tables and carol.table is None
    tid = carol.create_table("defausse", seats=3)
    with database_refusing(c), pytest.raises(Refused) as e:
        dave.join(tid)
    assert e.value.code == "storage" and dave.table is None
    assert [s.kind for s in c.tables[tid].seats] == ["player", "free", "free"]


async def test_a_spectator_comes_back_to_the_table_after_a_drop_and_a_restart(
    make_coordinator: Make,
) -> None:
    c = await make_coordinator()
    alice, zoe = c.connect(player("Alice")), c.connect(player("Zoe"))
    tid = alice.quick_play("defausse", seats=2)
    zoe.watch(tid)
    zoe.close()
    again = c.connect(player("Zoe"))  # a drop: back at the table, watching
    assert again.table is c.tables[tid] and again.seat is None
    mail = again.mailbox.take()
    assert mail is not None and mail.table is not None and mail.table.seat is None
    assert [n.code for n in mail.notices] == ["watching_again"]
    c.stop()
    c2 = await make_coordinator()
    after = c2.connect(player("Zoe"))  # a restart: the same
    assert after.table is c2.tables[tid] and after.seat is None
    after.leave()  # she left on purpose: next time, the lobby
    after.close()
    assert c2.connect(player("Zoe")).table is None


async def test_the_time_left_on_a_turn_survives_a_restart(make_coordinator: Make) -> None:
    c = await make_coordinator(turn_timer=60.0)
    fay = c.connect(player("Fay"))
    tid = fay.quick_play("defausse", seats=2)
    table = c.tables[tid]
    await until(lambda: 0 in table.game.to_act(table.state))
    table.deadlines[0] -= 25.0  # 25 s of her turn already spent
    table.schedule()
    left = table.deadlines[0] - asyncio.get_running_loop().time()
    c.stop()
    c2 = await make_coordinator(turn_timer=60.0)
    again = c2.tables[tid]
    c2.connect(player("Fay"))  # back at her seat: her clock goes on (it stood still till then)
    restored = again.deadlines[0] - asyncio.get_running_loop().time()
    # What she had left when the server stopped, not the whole minute (the time between the
    # two is this test's own run, well under a second).
    assert left - 1.0 < restored <= left


async def test_chat_comes_back_with_the_newest_lines_of_each_scope(make_coordinator: Make
                                                                    ) -> None:
    c = await make_coordinator()
    said = []
    for n in range(12):  # 3 lines each: no one goes past the rate limit
        talker = c.connect(player(f"P{n:02}"))
        for line in range(3):
            talker.chat(f"ligne {n}.{line}")
            said.append(f"ligne {n}.{line}")
        talker.close()
    alice = c.connect(player("Alice"))
    tid = alice.quick_play("defausse", seats=2)
    alice.chat("à la table")
    c.stop()
    c2 = await make_coordinator()
    newcomer = c2.connect(player("Bob"))
    mail = newcomer.mailbox.take()
    assert mail is not None
    assert [line.text for line in mail.chat] == said[-CHAT_HISTORY:]
    back = c2.connect(player("Alice"))
    mail = back.mailbox.take()
    assert mail is not None and [line.text for line in mail.chat if line.scope == tid] == [
        "à la table"]


async def test_a_result_the_database_refuses_is_recorded_at_the_next_start(
    make_coordinator: Make,
) -> None:
    c = await make_coordinator()
    alice = c.connect(player("Alice"))
    tid = alice.create_table("defausse", seats=2, bots={0: "basic", 1: "basic"},
                             options={"single_round": True}, sit=False)
    table = c.tables[tid]
    with database_refusing(c):
        await until(lambda: table.status == "finished", timeout=30)
    assert c.db is not None and c.db.game_count() == 0
    assert not read_log(c.log_path(tid)).ended  # so that the next start finishes it
    c.stop()
    c2 = await make_coordinator()
    await until(lambda: tid not in c2.tables)
    assert c2.db is not None and c2.db.game_count() == 1
    assert read_log(c2.log_path(tid)).records[-1] == ["end", "finished"]


async def test_a_seat_change_the_log_refuses_is_written_when_it_resumes(
    make_coordinator: Make,
) -> None:
    c = await make_coordinator(grace=0.05)
    dan, eve = c.connect(player("Dan")), c.connect(player("Eve"))
    tid = dan.create_table("defausse", seats=2)
    eve.join(tid)
    table = c.tables[tid]
    to_act = table.game.to_act(table.state)[0]  # the table waits for them
    stays, goes = (dan, eve) if to_act == 0 else (eve, dan)
    with fsync_failing():
        goes.close()
        await until(lambda: table.seats[1 - to_act].kind == "bot")  # the grace is over
        assert table.paused
        with pytest.raises(Refused) as e:
            stays.act(table.game.legal_actions(table.state, to_act)[0], table.step)
        assert e.value.code == "paused"
    await until(lambda: not table.paused, timeout=10)
    assert read_log(c.log_path(tid)).records[-1][:2] == ["s", 1 - to_act]
    mail = stays.mailbox.take()
    assert mail is not None
    assert [n.code for n in mail.notices if n.code in ("paused", "resumed")] == [
        "paused", "resumed"]


async def test_a_log_that_cannot_even_be_read_back_stops_the_table(make_coordinator: Make
                                                                   ) -> None:
    c = await make_coordinator()
    gus, zoe = c.connect(player("Gus")), c.connect(player("Zoe"))
    tid = gus.quick_play("defausse", seats=2)
    zoe.watch(tid)
    table = c.tables[tid]
    await until(lambda: 0 in table.game.to_act(table.state))
    step = table.step
    path = c.log_path(tid)
    moved = path.with_suffix(".away")
    path.rename(moved)  # (the writer keeps writing to it; reading it back by name fails)
    with fsync_failing(), pytest.raises(Refused) as e:
        gus.act(table.game.legal_actions(table.state, 0)[0], table.step)
    assert e.value.code == "stopped" and tid not in c.tables
    for session in (gus, zoe):
        mail = session.mailbox.take()
        assert mail is not None and mail.left_table and session.table is None
        assert "stopped" in [n.code for n in mail.notices]
    moved.rename(path)
    c.stop()
    c2 = await make_coordinator()  # the next start brings it back, as its log stands
    assert c2.tables[tid].step == step
    assert c2.connect(player("Gus")).seat == 0
