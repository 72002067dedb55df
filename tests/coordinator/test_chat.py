"""The chat that knows who is who, through the coordinator: private lines reach their two
players and nobody else, /me, mentions that ring once within their limit, the spectators' own
chat at a table, /ignore, and the rate limits shared by every kind of line."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from pioche_tui.coordinator.core import IGNORE_MAX, Coordinator, Session
from pioche_tui.coordinator.model import ChatLine, Player, Refused
from pioche_tui.coordinator.text import mentions, name_key
from pioche_tui.store.db import SQLiteDatabase

from .conftest import player

Make = Callable[..., Awaitable[Coordinator]]


def heard(session: Session) -> list[ChatLine]:
    """The chat lines waiting in the session's mailbox (taken)."""
    mail = session.mailbox.take()
    return list(mail.chat) if mail is not None else []


def texts(session: Session) -> list[str]:
    return [line.text for line in heard(session)]


def refusal(call: Callable[[], object]) -> str:
    with pytest.raises(Refused) as e:
        call()
    return e.value.code


async def test_a_private_line_reaches_its_two_players_alone(make_coordinator: Make) -> None:
    c = await make_coordinator()
    alice, bob, carl = (c.connect(player(n)) for n in ("Alice", "Bob", "Carl"))
    tid = carl.create_table("defausse", seats=2)
    dan = c.connect(player("Dan"))
    dan.watch(tid)  # at the table, watching: hears nothing private either
    for s in (alice, bob, carl, dan):
        heard(s)
    alice.chat("rien que pour toi", to="bob")  # the name as typed: any case
    for session in (alice, bob):
        [line] = heard(session)
        assert (line.name, line.to, line.text, line.scope) == (
            "Alice", "Bob", "rien que pour toi", "")
    assert heard(carl) == [] and heard(dan) == []
    assert not any(c._chat.values())  # kept in no history: nobody arriving later reads it
    again = c.connect(player("Eve"))
    assert "rien que pour toi" not in texts(again)
    assert c.db is not None and all(line[2] != "rien que pour toi"
                                    for line in c.db.chat_lines())  # nor on disk
    # A player at a table gets it there, and answers from there.
    carl.chat("oui ?", to="Alice")
    assert [(line.name, line.to) for line in heard(alice)] == [("Carl", "Alice")]
    assert heard(dan) == [] and heard(bob) == []


async def test_a_private_line_to_nobody_is_refused_and_counts_for_nothing(
        make_coordinator: Make) -> None:
    c = await make_coordinator()
    alice, bob = c.connect(player("Alice")), c.connect(player("Bob"))
    c.connect(Player("SHA256:w", "Wanda", watch_only=True))
    heard(bob)
    for _ in range(5):  # more than the rate limit: none of them counted
        assert refusal(lambda: alice.chat("hé", to="Zoé")) == "not_online"
    assert refusal(lambda: alice.chat("hé", to="ALICE")) == "msg_self"
    assert refusal(lambda: alice.chat("hé", to="Wanda")) == "msg_watcher"
    assert refusal(lambda: alice.chat("\x1b ", to="Bob")) == "empty"
    with pytest.raises(Refused) as e:
        alice.chat("hé", to="\x1b[2Jzo\u202eé")
    assert "\x1b" not in str(e.value) and "\u202e" not in str(e.value)
    assert heard(bob) == []
    for n in range(3):  # the limit is whole: three lines, private or not
        alice.chat(f"ligne {n}", to="Bob")
    assert refusal(lambda: alice.chat("une de trop", to="Bob")) == "chat_rate"
    assert refusal(lambda: alice.chat("une de trop")) == "chat_rate"
    assert texts(bob) == ["ligne 0", "ligne 1", "ligne 2"]


async def test_me_is_an_action_kept_as_one(make_coordinator: Make) -> None:
    c = await make_coordinator()
    alice, bob = c.connect(player("Alice")), c.connect(player("Bob"))
    heard(bob)
    alice.chat("réfléchit", me=True)
    [line] = heard(bob)
    assert (line.name, line.text, line.me) == ("Alice", "réfléchit", True)
    c.stop()
    again = await make_coordinator()  # a restart keeps the lobby's lines, and what they are
    [line] = heard(again.connect(player("Bob")))
    assert (line.name, line.text, line.me, line.spectators) == ("Alice", "réfléchit", True,
                                                                False)


async def test_a_mention_rings_the_one_mentioned_once_within_the_limit(
        make_coordinator: Make) -> None:
    c = await make_coordinator()
    alice, bob, carl = (c.connect(player(n)) for n in ("Alice", "Bob", "Carl"))
    for s in (alice, bob, carl):
        heard(s)
    alice.chat("@bob, @Alice et @nobody : à table !")
    assert [line.bell for line in heard(bob)] == [True]
    assert [line.bell for line in heard(alice)] == [False]  # never the sender
    assert [line.bell for line in heard(carl)] == [False]  # nor who is not mentioned
    assert [line.bell for line in c._chat[("lobby", False)]] == [False]  # nor the history
    # Again, from her and from another: the line is read, the bell rings no more for now.
    alice.chat("@Bob ?")
    carl.chat("@bob. @bob. @bob.", me=True)
    assert [line.bell for line in heard(bob)] == [False, False]
    assert [line.bell for line in heard(carl)] == [False, False]
    carl.chat("merci @Alice.")  # another player's own limit
    assert [line.bell for line in heard(alice)] == [False, False, True]
    heard(bob)
    # Once the limit's time has passed, a mention rings again.
    c._bells.forget(bob.player.identity)
    alice.chat("toujours là, @BOB ?")
    assert [line.bell for line in heard(bob)] == [True]
    # Someone who arrives gets the lines, none of them ringing.
    assert [line.bell for line in heard(c.connect(player("Bob")))] == [False] * 5


async def test_a_mention_rings_only_who_reads_the_line(make_coordinator: Make) -> None:
    c = await make_coordinator()
    alice, bob = c.connect(player("Alice")), c.connect(player("Bob"))
    bob.create_table("defausse", seats=2)  # bob at a table: the lobby's line does not reach him
    heard(bob)
    alice.chat("@Bob tu viens ?")
    assert heard(bob) == []
    assert c._bells.wait(bob.player.identity, 0.0) == 0  # no ring counted against him


async def test_spectators_talk_among_themselves_and_read_the_players(
        make_coordinator: Make) -> None:
    c = await make_coordinator()
    ann, bob = c.connect(player("Ann")), c.connect(player("Bob"))
    tid = ann.create_table("defausse", seats=2)
    bob.join(tid)
    carl, dora = c.connect(player("Carl")), c.connect(player("Dora"))
    carl.watch(tid)
    shared = c.mirror(tid)  # a screen shared by watch-only spectators
    lobby = c.connect(player("Eve"))
    for s in (ann, bob, carl, dora, shared, lobby):
        heard(s)
    carl.chat("Ann va gagner")
    for spectator in (carl, shared):
        [line] = heard(spectator)
        assert (line.name, line.scope, line.spectators) == ("Carl", tid, True)
    assert heard(ann) == [] and heard(bob) == [] and heard(dora) == [] and heard(lobby) == []
    ann.chat("bonne chance")
    for reader in (bob, carl, shared):
        assert [(line.text, line.spectators) for line in heard(reader)] == [
            ("bonne chance", False)]
    # Who comes to watch reads both chats, in the order they were said; a player who comes
    # back to the table reads the players' alone.
    dora.watch(tid)
    assert texts(dora) == ["Ann va gagner", "bonne chance"]
    bob.close()  # dropped: the seat is kept
    bob = c.connect(player("Bob"))
    assert "Ann va gagner" not in texts(bob) and bob.seat is not None
    # Both histories survive a restart, each its own.
    c.stop()
    again = await make_coordinator()
    again.connect(player("Ann"))
    watcher = again.connect(player("Dora"))  # brought back to the table she watched
    assert watcher.table is not None
    assert texts(watcher) == ["Ann va gagner", "bonne chance"]
    assert texts(again.connect(player("Bob"))) == ["bonne chance"]


async def test_ignore_hides_a_player_for_this_session(make_coordinator: Make) -> None:
    c = await make_coordinator()
    alice, bob, carl = (c.connect(player(n)) for n in ("Alice", "Bob", "Carl"))
    bob.chat("avant")
    for s in (alice, bob, carl):
        heard(s)
    assert alice.ignore("BOB") == ("Bob",)
    assert alice.ignore("bob") == ("Bob",)  # twice: the same
    bob.chat("@Alice coucou")
    bob.chat("psst", to="Alice")  # his private lines too: said, but not to her
    assert heard(alice) == []
    assert texts(bob) == ["@Alice coucou", "psst"]  # he reads his own, as ever
    assert c._bells.wait(alice.player.identity, 0.0) == 0  # his mention rang nothing
    assert texts(carl) == ["@Alice coucou"]
    # Coming back to the lobby's history: his lines are left out too.
    tid = alice.create_table("defausse", seats=2)
    alice.leave()
    assert "avant" not in texts(alice) and c.tables.get(tid) is None
    # The newer connection of the same player keeps the list; another player has their own.
    alice = c.connect(player("Alice"))
    assert alice.ignored() == ("Bob",) and carl.ignored() == ()
    assert texts(alice) == []
    assert alice.unignore("bob") == ()
    c._chat_limit.forget(bob.player.identity)  # (as if 3 s had passed: his 4th line)
    bob.chat("re")
    assert texts(alice) == ["re"]
    assert refusal(lambda: alice.unignore("bob")) == "not_ignored"
    assert refusal(lambda: alice.ignore("alice")) == "ignore_self"
    assert refusal(lambda: alice.ignore("Zoé")) == "not_online"


async def test_the_ignore_list_is_bounded(make_coordinator: Make) -> None:
    c = await make_coordinator()
    alice = c.connect(player("Alice"))
    for n in range(IGNORE_MAX):
        c.connect(player(f"p{n}"))
        alice.ignore(f"p{n}")
    c.connect(player("one-more"))
    assert refusal(lambda: alice.ignore("one-more")) == "ignore_full"
    assert len(alice.ignored()) == IGNORE_MAX


def test_a_chat_table_from_before_gets_its_kinds(tmp_path: Path) -> None:
    """A database written before /me and the spectators' chat: its lines are said ones."""
    import sqlite3

    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE chat (id INTEGER PRIMARY KEY, scope TEXT NOT NULL,"
                     " name TEXT NOT NULL, text TEXT NOT NULL, time REAL NOT NULL)")
        conn.execute("CREATE INDEX chat_scope ON chat (scope, id)")
        conn.execute("INSERT INTO chat (scope, name, text, time) VALUES ('lobby', 'a', 'b', 1)")
    db = SQLiteDatabase(path, str.lower)
    db.add_chat("lobby", "c", "d", 2.0, 30, True, False)
    assert db.chat_lines() == [("lobby", "a", "b", 1.0, False, False),
                               ("lobby", "c", "d", 2.0, True, False)]


def test_what_a_line_mentions() -> None:
    keys = {name_key(name) for name in ("bob", "élise", "bob.", "élise-")}
    assert mentions("merci @Bob. et @élise- !") == keys
    assert mentions("@b.o.b") == {name_key("b.o.b")}  # a name with dots stays one
    assert mentions("@- @ @. a@") == frozenset()  # no name: nobody (not a nameless screen)
    assert mentions("@AIice") == mentions("@alice")  # one name key, as everywhere
