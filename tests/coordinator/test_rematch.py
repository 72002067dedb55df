"""The rematch (« Revanche ») through a real coordinator (real logs, a real SQLite file): the
players of a finished table ask, the new table starts with the seats turned by one and everyone
follows; a decline, a player who leaves or the time running out calls it off for all."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from pioche_tui.coordinator import core
from pioche_tui.coordinator.core import Coordinator, Session
from pioche_tui.coordinator.model import Refused, TableUpdate
from pioche_tui.engine import GAMES
from tests.app.toy import TOY

from .conftest import player, until

Make = Callable[..., Awaitable[Coordinator]]


@pytest.fixture
def make(make_coordinator: Make) -> Make:
    async def start(**settings: object) -> Coordinator:
        return await make_coordinator({**GAMES, "toy": TOY}, **settings)

    return start


async def finished_pair(c: Coordinator, private: bool = False
                        ) -> tuple[str, Session, Session, Session]:
    """Alice and Bob played a toy game to its end (Alice won), Carol watching."""
    alice, bob = c.connect(player("Alice")), c.connect(player("Bob"))
    carol = c.connect(player("Carol"))
    tid = alice.create_table("toy", seats=2, options={"goal": 2}, timer=30.0, private=private)
    bob.join(tid, code=c.tables[tid].code)
    carol.watch(tid, c.tables[tid].code)
    alice.act(2)
    assert c.tables[tid].status == "finished"
    return tid, alice, bob, carol


def table_news(session: Session) -> TableUpdate:
    mail = session.mailbox.take()
    assert mail is not None and mail.table is not None
    return mail.table


def notices(session: Session) -> list[str]:
    mail = session.mailbox.take()
    return [n.code for n in mail.notices] if mail is not None else []


async def test_when_both_ask_a_new_game_starts_with_the_seats_turned_and_all_follow(
        make: Make) -> None:
    c = await make()
    tid, alice, bob, carol = await finished_pair(c)
    for s in (alice, bob, carol):
        s.mailbox.take()
    alice.rematch()
    news = table_news(bob)  # Bob sees that Alice asked, and the time left
    assert news.table.id == tid and news.rematch == (0,) and not news.rematch_off
    assert news.rematch_left is not None and 0 < news.rematch_left <= core.REMATCH_TIME
    bob.rematch()
    assert alice.table is bob.table is carol.table
    new = alice.table
    assert new is not None and new.id != tid and new.status == "playing"
    assert [s.name for s in new.seats] == ["Bob", "Alice"]  # turned by one
    assert (alice.seat, bob.seat, carol.seat) == (1, 0, None)
    assert new.options == {"goal": 2} and new.timer == 30.0 and new.code is None
    assert tid not in c.tables  # the old table closed, its spectator gone with the players
    news = table_news(carol)
    assert news.table.id == new.id and news.seat is None and news.rematch == ()
    # A game like any: it is recorded, and rated.
    bob.act(2)
    assert new.status == "finished" and new.summary().unrated == ""
    assert c.db is not None and c.db.has_game(new.id) and c.db.has_game(tid)


async def test_a_private_table_stays_private_with_its_code(make: Make) -> None:
    c = await make()
    tid, alice, bob, _carol = await finished_pair(c, private=True)
    code = c.tables[tid].code
    alice.rematch()
    bob.rematch()
    assert alice.table is not None and alice.table.code == code and code is not None


async def test_a_decline_calls_it_off_for_all_and_frees_the_seat(make: Make) -> None:
    c = await make()
    tid, alice, bob, carol = await finished_pair(c)
    alice.rematch()
    for s in (alice, bob, carol):
        s.mailbox.take()
    bob.rematch(accept=False)
    assert bob.table is None  # to the lobby
    assert "rematch_left" in notices(alice) and "rematch_left" in notices(carol)
    table = c.tables[tid]
    assert table.rematch_off and table.rematch_handle is None
    with pytest.raises(Refused) as refused:
        alice.rematch()
    assert refused.value.code == "rematch_off"
    assert alice.table is table  # nothing changed: Alice is at her podium still


async def test_leaving_calls_it_off_and_a_player_gone_cannot_be_waited_for(
        make: Make) -> None:
    c = await make()
    tid, alice, bob, _carol = await finished_pair(c)
    bob.leave()  # before anyone asked
    with pytest.raises(Refused) as refused:
        alice.rematch()
    assert refused.value.code == "rematch_off"
    tid, alice2, bob2, _ = await finished_pair(c)  # (new sessions replace the old ones)
    alice2.rematch()
    alice2.mailbox.take()
    bob2.close()  # the connection drops while the rematch is asked
    assert "rematch_left" in notices(alice2) and c.tables[tid].rematch_off


async def test_the_time_running_out_calls_it_off(make: Make,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core, "REMATCH_TIME", 0.05)
    c = await make()
    tid, alice, bob, carol = await finished_pair(c)
    alice.rematch()
    for s in (alice, bob, carol):
        s.mailbox.take()
    table = c.tables[tid]
    await until(lambda: table.rematch_off)
    assert "rematch_timeout" in notices(bob)
    news = table_news(alice)
    assert news.rematch_off and news.rematch == () and news.rematch_left is None
    assert alice.table is table and bob.table is table  # each goes on as after any game


async def test_alone_against_bots_it_starts_at_once_with_the_same_bots(make: Make) -> None:
    c = await make()
    alice = c.connect(player("Alice"))
    tid = alice.create_table("toy", seats=3, options={"goal": 1}, timer=None,
                             bots={1: "basic", 2: "random"})
    table = c.tables[tid]
    alice.act(1)
    assert table.status == "finished"
    bots = [(s.name, s.bot) for s in table.seats[1:]]
    alice.rematch()
    new = alice.table
    assert new is not None and new is not table and new.status in ("playing", "finished")
    assert [(s.name, s.bot) for s in new.seats[:2]] == bots and new.seats[2].name == "Alice"
    assert alice.seat == 2


async def test_no_rematch_at_a_learn_table_nor_before_the_end(make: Make) -> None:
    c = await make()
    alice = c.connect(player("Alice"))
    alice.learn("defausse")
    with pytest.raises(Refused) as refused:
        alice.rematch()
    assert refused.value.code == "rematch_learn"
    alice.leave()
    alice.create_table("toy", seats=2, options={"goal": 2}, timer=None)
    with pytest.raises(Refused) as refused:
        alice.rematch()
    assert refused.value.code == "not_finished"


async def test_a_new_table_the_disk_refuses_calls_it_off_and_says_why(make: Make) -> None:
    c = await make()
    tid, alice, bob, _carol = await finished_pair(c)
    alice.rematch()
    bob.mailbox.take()
    away = c.tables_dir.with_name("away")
    c.tables_dir.rename(away)
    c.tables_dir.write_bytes(b"")  # no new log can be created there (as on a full disk)
    try:
        bob.rematch()
    finally:
        c.tables_dir.unlink()
        away.rename(c.tables_dir)
    assert "storage" in notices(bob) and c.tables[tid].rematch_off
    assert alice.table is bob.table is c.tables[tid]  # nothing moved
