"""Everything that reaches a session's mailbox in real games crosses the wire unchanged.

A real coordinator (real engines, logs and SQLite) runs both games with players, a bot, a
spectator, chat in the lobby and at the table, a turn timer, refusals and the notice of a
second login; each session's mail is read as an app reads it, and every piece of it is
encoded and decoded (pioche_tui/wire.py). A type that starts reaching a mailbox without a
codec fails here; so does a field a codec loses."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import msgpack

from pioche_tui import wire
from pioche_tui.coordinator.core import Coordinator, Session
from pioche_tui.coordinator.mailbox import Mail
from pioche_tui.coordinator.model import Refused
from tests.coordinator.conftest import player, until

Make = Callable[..., Awaitable[Coordinator]]


class Reader:
    """Reads a session's mailbox as an app does, and sends every mail through the wire."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.mails = 0
        self.tags: set[str] = set()
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        while True:
            mail = await self.session.mailbox.get()
            self.check(mail)
            if mail.closed:
                return

    def check(self, value: Any) -> None:
        data = wire.encode(value)
        back = wire.decode(data, expect=type(value))
        assert back == value
        self.mails += 1
        self.tags |= tags_in(msgpack.unpackb(data))


def tags_in(data: Any) -> set[str]:
    if isinstance(data, dict):
        return {data[wire.TAG]}.union(*(tags_in(v) for v in data.values()))
    if isinstance(data, list):
        return set().union(*(tags_in(v) for v in data))
    return set()


def refused(request: Callable[[], object]) -> Refused:
    """The refusal a request gets, after it crossed the wire."""
    try:
        request()
    except Refused as error:
        back = wire.decode(wire.encode(error), expect=Refused)
        assert (back.code, str(back), back.params) == (error.code, str(error), error.params)
        return back
    raise AssertionError("not refused")


async def play_to_the_end(session_of: dict[int, Session], table: Any, seed: int) -> None:
    """The players move at random whenever it is theirs to; the bots by themselves."""
    rng = random.Random(seed)
    while table.status == "playing":
        moved = False
        for seat, session in session_of.items():
            state = table.state
            if seat in table.game.to_act(state) + table.game.interjectors(state):
                legal = table.game.legal_actions(state, seat)
                if legal:
                    session.act(legal[rng.randrange(len(legal))], table.step)
                    moved = True
        await asyncio.sleep(0 if moved else 0.001)


async def test_every_item_that_reaches_a_mailbox_round_trips(make_coordinator: Make) -> None:
    c = await make_coordinator(turn_timer=60.0)
    ann, bob = c.connect(player("Ann")), c.connect(player("Bob"))
    eve = c.connect(player("Eve", guest=True))
    readers = [Reader(s) for s in (ann, bob, eve)]
    ann.chat("bonjour tout le monde")
    ann.chat("salue @Bob", me=True)  # an action that rings Bob's bell
    ann.chat("rien que pour toi", to="Eve")  # a private line
    for game, options in (("defausse", {"single_round": True, "annonce": True}),
                          ("collection", {"single_round": True, "mode": "classique"})):
        tid = ann.create_table(game, seats=3, bots={2: "basic"}, options=options)
        eve.watch(tid)
        assert refused(partial(eve.join, tid)).code == "already_seated"
        assert refused(partial(bob.act, None, 0)).code == "not_seated"
        bob.join(tid)  # the last seat: the game starts
        table = c.tables[tid]
        await until(lambda t=table: t.status == "playing")
        bob.chat("bonne chance")
        eve.chat("qui gagne ?")  # the spectators' chat
        await play_to_the_end({0: ann, 1: bob}, table, seed=len(game))
        assert table.status == "finished"
        for session in (ann, bob, eve):
            session.leave()
    assert refused(lambda: ann.create_table("belote", seats=4)).code == "unknown_game"
    ann_again = c.connect(player("Ann"))  # a second login: the first session's notice, closed
    readers.append(Reader(ann_again))
    await until(lambda: readers[0].task.done())
    await asyncio.sleep(0.01)
    for reader in readers[1:]:
        reader.task.cancel()
    readers[0].task.result()  # (a failed round trip fails here)
    for reader in readers[1:]:
        if reader.task.done() and not reader.task.cancelled():
            reader.task.result()
    seen = set().union(*(r.tags for r in readers))
    assert seen >= {
        "Mail", "LobbySnapshot", "TableSummary", "SeatInfo", "OnlineEntry", "ChatLine",
        "Notice", "TableUpdate", "Event", "Outcome", "defausse.View", "defausse.Action",
        "defausse.RoundResult", "collection.View", "collection.SeatView", "collection.Action",
        "collection.Combination",
    }, seen
    # The scores the scores screen reads, after those games.
    assert c.db is not None
    board = c.db.leaderboard(None, 20)
    stats = c.db.player_stats(player("Bob").identity)
    assert board and stats is not None and stats.games == 2
    for value in (*board, stats):
        assert wire.decode(wire.encode(value)) == value
    assert isinstance(wire.decode(wire.encode(Mail(None, None, False, (), (), True))), Mail)
