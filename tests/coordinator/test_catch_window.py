"""Défausse with « annonce »: while a connected player may catch a missing announcement, the bot
(or stand-in) whose turn it is waits at least CATCH_WAIT seconds before it moves, since its move
ends the chance to catch; with bots alone to catch, bots keep their own pace.

The scene is set by hand in the real game, as another deal could have brought it: seat 1 has
just laid its second-to-last card without announcing, and seat 2 (a bot) is to play.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from pioche_tui.coordinator.core import Coordinator, Session
from pioche_tui.coordinator.table import CATCH_WAIT, Table
from pioche_tui.engine.defausse import Catch

from .conftest import player, until

Make = Callable[..., Awaitable[Coordinator]]


async def forgotten_announcement(c: Coordinator, alice: Session, bots: dict[int, str]) -> Table:
    """A 3-seat table with the announcement option, Alice at seat 0 unless ``bots`` has it;
    then seat 1 forgot to announce and seat 2 is to play."""
    tid = alice.create_table("defausse", seats=3, bots=bots, timer=None,
                             options={"annonce": True}, sit=0 not in bots)
    table = c.tables[tid]  # (without a seat, its creator watches it)
    await until(lambda: table.status == "playing" and table.game.to_act(table.state) == (0,)
                and not table._handles if 0 not in bots else table.status == "playing")
    state = table.state
    state.hands[1] &= -state.hands[1]  # one card left: the lowest
    state.culprit, state.current, state.phase, state.drawn = 1, 2, "play", -1
    table.schedule()
    return table


def bot_moves_in(table: Table) -> list[float]:
    """Seconds until each bot move the table has scheduled."""
    loop = asyncio.get_running_loop()
    return [handle.when() - loop.time() for handle in table._handles
            if getattr(handle, "_callback", None) == table.bot_move]


async def test_the_next_bot_waits_for_a_player_who_may_catch(make_coordinator: Make) -> None:
    c = await make_coordinator()  # bots play at once (bot_delay 0)
    alice = c.connect(player("Alice"))
    table = await forgotten_announcement(c, alice, {1: "basic", 2: "basic"})
    waits = bot_moves_in(table)
    assert waits and all(wait > CATCH_WAIT - 0.5 for wait in waits)
    step = table.step
    await asyncio.sleep(0.3)  # bots that play at once would have played many times over
    assert table.step == step and table.state.culprit == 1
    alice.act(Catch(1), table.step)  # the catch is still there to make
    assert table.state.culprit == -1 and table.state.hands[1].bit_count() == 3
    # Caught: nothing more to wait for, seat 2 plays at its own pace.
    assert all(wait < 0.5 for wait in bot_moves_in(table))
    await until(lambda: table.step > step + 1)


async def test_bots_alone_keep_their_pace(make_coordinator: Make) -> None:
    c = await make_coordinator()
    alice = c.connect(player("Alice"))  # only watching: she cannot catch
    table = await forgotten_announcement(c, alice, {0: "basic", 1: "basic", 2: "basic"})
    assert all(wait < 0.5 for wait in bot_moves_in(table))
    step = table.step
    await until(lambda: table.step > step)


async def test_an_away_player_is_not_waited_for(make_coordinator: Make) -> None:
    c = await make_coordinator()
    alice = c.connect(player("Alice"))
    bob = c.connect(player("Bob"))
    table = await forgotten_announcement(c, alice, {1: "basic", 2: "basic"})
    bob.watch(table.id)  # (the table goes on while somebody is there)
    alice.close()  # dropped: she keeps her seat for the grace period, but cannot catch now
    table.schedule()
    assert table.seats[0].away
    assert all(wait < 0.5 for wait in bot_moves_in(table))
