"""What one client can make the coordinator keep, and for how long (issue 12, items 10–12):
tables per minute, tables nobody is at, ended tables' logs, table ids, the timer's default.
Real engines, real msgpack logs, a real SQLite file (the attacks over SSH: tests/hostile/)."""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable

import pytest

from pioche_tui.coordinator.core import Coordinator, Session
from pioche_tui.coordinator.model import Player, Refused
from pioche_tui.coordinator.text import RateLimiter
from pioche_tui.store.log import read_log

from .conftest import player, until
from .test_lifecycle import moves_once

Make = Callable[..., Awaitable[Coordinator]]
DAY = 86400.0


def from_address(name: str, address: str) -> Player:
    return Player(f"SHA256:{name}-key", name, address=address)


def refusal(call: Callable[[], object]) -> Refused:
    with pytest.raises(Refused) as e:
        call()
    return e.value


async def test_tables_per_minute_per_player_and_per_address(make_coordinator: Make) -> None:
    c = await make_coordinator(table_rate=(2, 3))
    ann = c.connect(from_address("Ann", "10.0.0.1"))
    for _ in range(2):
        ann.quick_play("defausse")
        ann.leave()
    tables, files = set(c.tables), sorted(c.tables_dir.iterdir())
    e = refusal(lambda: ann.quick_play("defausse"))
    assert e.code == "tables_player" and e.params["n"] == 2 and 1 <= e.params["wait"] <= 60
    assert str(e) == (f"Trop de tables créées en une minute (2 au plus) : vous pourrez en créer "
                      f"une autre dans {e.params['wait']} s.")
    e = refusal(lambda: ann.create_table("defausse", seats=2))  # the dialog's way too
    assert e.code == "tables_player"
    assert (set(c.tables), sorted(c.tables_dir.iterdir()), ann.table) == (tables, files, None)
    # Someone else from her address: one more, then the address's limit.
    bob = c.connect(from_address("Bob", "10.0.0.1"))
    bob.quick_play("defausse")
    bob.leave()
    e = refusal(lambda: bob.quick_play("defausse"))
    assert e.code == "tables_address" and "depuis votre adresse (3 au plus)" in str(e)
    # Another address, and a local game (no address), are not held back by it.
    c.connect(from_address("Cy", "10.0.0.2")).quick_play("defausse")
    c.connect(player("Dee")).quick_play("defausse")


def test_the_rate_limiter_forgets_what_is_past() -> None:
    limiter = RateLimiter(2, 60.0)
    for n in range(1000):  # a client inventing names
        assert limiter.allow(f"guest{n}", n * 0.001)
    assert limiter.wait("guest1", 1.0) == 0.0 and len(limiter) == 1000
    assert limiter.allow("x", 30.0) and limiter.allow("x", 31.0)
    assert limiter.wait("x", 32.0) == pytest.approx(58.0)
    limiter.wait("y", 61.0)  # a minute later: only what is in the window is kept
    assert len(limiter) == 1
    assert limiter.wait("x", 90.0) == 0.0


async def test_a_game_left_before_any_player_moved_closes_at_once(make_coordinator: Make) -> None:
    c = await make_coordinator(grace=60.0)
    for leaves in ("drops", "leaves"):
        eve = c.connect(player("Eve"))
        tid = eve.quick_play("defausse", seats=3)
        eve.close() if leaves == "drops" else eve.leave()
        assert tid not in c.tables, leaves  # not kept for the grace period
        assert not any(c.tables_dir.iterdir())  # nobody's play in it: no log is kept
        eve.close()


async def test_a_game_nobody_is_at_holds_still_until_its_player_is_back(
        make_coordinator: Make) -> None:
    c = await make_coordinator(grace=0.5, bot_delay=(0.001, 0.002), turn_timer=0.01)
    fay = c.connect(player("Fay"))
    tid = fay.quick_play("defausse", seats=3, options={"target": 1000})
    table = c.tables[tid]
    await moves_once(c, fay)
    fay.close()
    held = table.step
    assert table.idle and not table._handles and table.seats[0].away
    back = c.connect(player("Fay"))  # within the grace period: her seat, the same step
    assert back.table is table and not table.idle and table.step == held
    await until(lambda: table.step > held)  # and the game goes on
    back.close()
    await until(lambda: tid not in c.tables)  # the grace period over, nobody came: closed
    assert read_log(c.log_path(tid)).records[-1] == ["end", "closed"]  # she had played: kept
    assert read_log(c.log_path(tid)).records[-2][:2] == ["s", 0]  # (the stand-in's, for good)


async def test_a_table_of_bots_stops_when_nobody_watches_it(make_coordinator: Make) -> None:
    c = await make_coordinator(grace=0.3, bot_delay=(0.001, 0.002))
    gil = c.connect(player("Gil"))
    tid = gil.create_table("defausse", seats=3, bots=dict.fromkeys(range(3), "basic"),
                           options={"target": 1000}, sit=False)
    await until(lambda: c.tables[tid].step > 5)
    gil.close()  # its only spectator: stopped, closed at once, no log (nobody played in it)
    assert tid not in c.tables and not c.log_path(tid).exists()
    # After a restart, a table of bots waits the grace period for a spectator, holding still.
    tid = c.connect(player("Gil")).create_table(
        "defausse", seats=3, bots=dict.fromkeys(range(3), "basic"), options={"target": 1000},
        sit=False)
    await until(lambda: c.tables[tid].step > 5)
    c.stop()
    c2 = await make_coordinator(grace=0.3, bot_delay=(0.001, 0.002))
    table = c2.tables[tid]
    held = table.step
    assert table.idle and table.hold is not None
    watcher = c2.connect(player("Hu"))
    watcher.watch(tid)
    await until(lambda: table.step > held)  # someone is there: the bots play
    watcher.leave()
    assert tid in c2.tables and table.idle  # its restart's grace period is not over
    await until(lambda: tid not in c2.tables)
    assert not c2.log_path(tid).exists()


async def test_a_recorded_games_id_is_never_given_again(make_coordinator: Make) -> None:
    """The same seed on the same data directory draws the same ids: the second coordinator must
    skip the finished game's id, though its log has been removed (its result has not)."""
    c = await make_coordinator(seed=11)
    ida = c.connect(player("Ida"))
    tid = ida.create_table("collection", seats=2, bots={0: "basic", 1: "basic"},
                           options={"single_round": True}, sit=False)
    await until(lambda: c.tables[tid].status == "finished", timeout=30)
    ida.leave()
    c.stop()
    c.log_path(tid).unlink()
    c2 = await make_coordinator(seed=11)
    again = c2.connect(player("Ida")).create_table(
        "collection", seats=2, bots={0: "basic", 1: "basic"}, sit=False)
    assert again != tid
    assert c2.db is not None and c2.db.has_game(tid)


async def finished_game(c: Coordinator, creator: Session) -> str:
    tid = creator.create_table("collection", seats=2, bots={0: "basic", 1: "basic"},
                               options={"single_round": True}, sit=False)
    await until(lambda: c.tables[tid].status == "finished", timeout=30)
    creator.leave()
    return tid


async def test_the_retention_pass(make_coordinator: Make) -> None:
    c = await make_coordinator(keep_finished=30 * DAY, keep_abandoned=7 * DAY)
    assert c.db is not None
    jo = c.connect(player("Jo"))
    recent, old = await finished_game(c, jo), await finished_game(c, jo)
    kim = c.connect(player("Kim"))
    left = kim.quick_play("defausse", seats=2)
    await moves_once(c, kim)
    kim.leave()  # abandoned after she played: its log ends 'closed'
    live = c.connect(player("Lu")).quick_play("defausse", seats=2)
    (c.tables_dir / "ZZZZ.log.gz.part").write_bytes(b"cut by a crash")
    stale = time.time() - 31 * DAY
    os.utime(c.log_path(old), (stale, stale))
    results = {tid: c.db.game_seats(tid) for tid in (recent, old)}

    report = await c.retention_pass()
    names = sorted(p.name for p in c.tables_dir.iterdir())
    assert names == sorted([f"{recent}.log.gz", f"{left}.closed.log.gz", f"{live}.log"])
    assert report.compacted == 3 and report.bytes_out < report.bytes_in
    assert report.removed == 2  # the old one, past its 30 days, and the crash's leftover
    assert read_log(c.tables_dir / f"{recent}.log.gz").ended  # readable as ever
    assert (c.db.log_file(old), c.db.log_file(recent)) == ("", f"{recent}.log.gz")
    assert {tid: c.db.game_seats(tid) for tid in (recent, old)} == results
    # The retention counts from the log's end, not from its compaction.
    then = time.time() - 20 * DAY
    os.utime(c.tables_dir / f"{recent}.log.gz", (then, then))
    await c.retention_pass()
    assert (c.tables_dir / f"{recent}.log.gz").exists()
    # Abandoned logs go after 7 days; a live table's log is never touched.
    os.utime(c.tables_dir / f"{left}.closed.log.gz", (time.time() - 8 * DAY,) * 2)
    os.utime(c.log_path(live), (stale, stale))
    await c.retention_pass()
    assert sorted(p.name for p in c.tables_dir.iterdir()) == sorted([f"{recent}.log.gz",
                                                                       f"{live}.log"])
    assert os.stat(c.tables_dir / f"{recent}.log.gz").st_mtime == pytest.approx(then)


async def test_the_servers_default_timer_is_always_accepted(make_coordinator: Make) -> None:
    c = await make_coordinator(turn_timer=5.0)
    mo = c.connect(player("Mo"))
    tid = mo.create_table("defausse", seats=2, timer=5.0)  # what the dialog sends by default
    assert c.tables[tid].timer == 5.0
    mo.leave()
    assert refusal(lambda: mo.create_table("defausse", seats=2, timer=6.0)).code == "timer"
    assert c.timer_allowed(10.0) and c.timer_allowed(600.0) and not c.timer_allowed(601.0)


async def test_the_server_info_is_built_once_and_holds_the_coordinators_rule(
        make_coordinator: Make) -> None:
    """Every app asks for it as it starts: the same object each time, not a new one (with
    every game's bots listed again); the coordinator's timer rule is the one it carries."""
    c = await make_coordinator(turn_timer=5.0)
    first, second = await c.client().server_info(), await c.client().server_info()
    assert first is second is c.server_info
    assert [g.name for g in first.games] == list(c.games) and first.turn_timer == 5.0
    for timer in (5.0, 6.0, 10.0, 600.0, 601.0):
        assert c.timer_allowed(timer) == first.timer_allowed(timer)
