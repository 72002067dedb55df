"""Ratings through a real coordinator (real logs, a real SQLite file): which finished games
are rated, the stand-in's decisions counted per seat (and kept in the log across a restart),
and a game counted once whatever replays its end after a restart."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from itertools import chain

import msgpack
import pytest

from pioche_tui.coordinator.core import Coordinator, Session
from pioche_tui.coordinator.model import (
    UNRATED_BOTS,
    UNRATED_GUESTS,
    UNRATED_STAND_IN,
    Player,
)
from pioche_tui.coordinator.ratings import NEW
from pioche_tui.engine import GAMES
from pioche_tui.store.log import read_log
from tests.app.toy import TOY

from .conftest import player, until

Make = Callable[..., Awaitable[Coordinator]]


@pytest.fixture
def make(make_coordinator: Make) -> Make:
    """Coordinators with the toy game too (who brings the total to ``goal`` wins), on one
    data directory."""

    async def start(**settings: object) -> Coordinator:
        return await make_coordinator({**GAMES, "toy": TOY}, **settings)

    return start


async def two_players(c: Coordinator, goal: int, bob: Player | None = None,
                      timer: float | str | None = None) -> tuple[str, Session, Session]:
    """Alice creates a toy table of two; Bob (or a guest) sits: it starts, Alice first."""
    alice_s = c.connect(player("Alice"))
    bob_s = c.connect(bob or player("Bob"), c.guest_pass() if bob and bob.guest else None)
    tid = alice_s.create_table("toy", seats=2, options={"goal": goal}, timer=timer)
    bob_s.join(tid)
    return tid, alice_s, bob_s


async def play_alices_turns(c: Coordinator, tid: str, alice: Session) -> None:
    """Alice plays 1 at each of her turns until the game is over (the others' turns are
    played by whoever plays them)."""
    table = c.tables[tid]
    while table.status == "playing":
        if table.game.to_act(table.state) == (0,):
            alice.act(1, table.step)
        await until(lambda: table.status != "playing" or table.game.to_act(table.state) == (0,),
                    timeout=20)


async def test_a_game_of_two_key_players_is_rated(make: Make) -> None:
    c = await make()
    tid, alice, _bob = await two_players(c, goal=2)
    alice.act(2)
    table = c.tables[tid]
    assert table.status == "finished" and table.summary().unrated == ""
    assert c.db is not None and c.db.unrated(tid) == ""
    won = c.db.rating(player("Alice").identity, "toy")
    lost = c.db.rating(player("Bob").identity, "toy")
    assert won is not None and lost is not None and won.mu > NEW.mu > lost.mu


async def test_a_game_against_bots_only_is_unrated_and_says_so(make: Make) -> None:
    c = await make()
    alice = c.connect(player("Alice"))
    tid = alice.create_table("toy", seats=3, options={"goal": 3}, bots={1: "basic", 2: "basic"},
                             timer=None, sit=True)
    table = c.tables[tid]
    await play_alices_turns(c, tid, alice)
    assert table.summary().unrated == UNRATED_BOTS
    assert c.db is not None and c.db.unrated(tid) == UNRATED_BOTS
    assert c.db.rating(player("Alice").identity, "toy") is None


async def test_a_guest_is_not_rated_nor_a_second_player(make: Make) -> None:
    c = await make()
    gus = c.guest_pass()
    tid, alice, _ = await two_players(c, goal=2, bob=Player(gus.identity, "Gus", guest=True))
    alice.act(2)
    assert c.db is not None and c.db.unrated(tid) == UNRATED_GUESTS
    assert c.db.rating(player("Alice").identity, "toy") is None


async def test_a_game_the_stand_in_played_most_of_is_unrated(make: Make) -> None:
    """Bob drops: his stand-in plays his turns (marked so in the log). Past half of his
    decisions, the game is unrated; the counts come back from the log after a restart."""
    c = await make()
    tid, alice, bob = await two_players(c, goal=9)
    table = c.tables[tid]
    alice.act(1, 0)
    bob.act(1, 1)
    bob.close()
    alice.act(1, 2)
    await until(lambda: table.step == 4)  # the stand-in played Bob's second turn
    alice.act(1, 4)
    await until(lambda: table.step == 6)  # and his third
    assert (table.own_moves[0], table.own_moves[1], table.stand_in_moves[1]) == (3, 1, 2)
    marks = [len(r) == 4 for r in read_log(c.log_path(tid)).records]
    assert marks == [False, False, False, True, False, True]
    c.stop()
    c2 = await make()
    again = c2.tables[tid]
    assert (again.own_moves[0], again.own_moves[1], again.stand_in_moves[1]) == (3, 1, 2)
    alice2 = c2.connect(player("Alice"))  # she takes her seat back; Bob is still away
    await play_alices_turns(c2, tid, alice2)
    assert again.stand_in_moves[1] > again.own_moves[1]
    assert c2.db is not None and c2.db.unrated(tid) == UNRATED_STAND_IN
    assert c2.db.rating(player("Alice").identity, "toy") is None


async def test_a_game_whose_turn_timer_played_for_a_player_is_unrated(make: Make) -> None:
    """Bob stays but never plays: each time his turn timer runs out, the stand-in plays for
    him. All his decisions were the stand-in's: unrated."""
    c = await make(turn_timer=0.05)
    tid, alice, _bob = await two_players(c, goal=6, timer="default")
    table = c.tables[tid]
    await play_alices_turns(c, tid, alice)
    assert table.own_moves[1] == 0 and table.stand_in_moves[1] >= 1
    assert any(e.kind == "timeout" for e in chain.from_iterable(table.history))
    assert c.db is not None and c.db.unrated(tid) == UNRATED_STAND_IN


async def test_a_replayed_finish_after_a_restart_counts_once(make: Make) -> None:
    """The result is recorded, then the server dies before the log's end is written: the
    next start replays the log, finds the game over and finishes it again. The game and its
    ratings count once, over any number of restarts."""
    c = await make()
    tid, alice, _ = await two_players(c, goal=2)
    alice.act(2)
    assert c.db is not None
    alice_key = player("Alice").identity
    rated = c.db.rating(alice_key, "toy")
    path = c.log_path(tid)
    c.stop()
    end = msgpack.packb(["end", "finished"])
    data = path.read_bytes()
    assert data.endswith(end)
    path.write_bytes(data[:-len(end)])  # the end never reached the disk
    for _ in range(2):
        c2 = await make()
        assert tid in c2.tables  # brought back, found over
        await until(lambda c2=c2: tid not in c2.tables)
        assert c2.db is not None and c2.db.game_count() == 1
        assert c2.db.rating(alice_key, "toy") == rated
        assert len(c2.db.rating_history(alice_key, "toy")) == 1
        assert read_log(path).ended
        c2.stop()
        path.write_bytes(data[:-len(end)])
