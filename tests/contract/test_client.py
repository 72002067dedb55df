"""Every request of ``CoordinatorClient``, granted and refused, and the news it makes, as any
implementation must behave (the connector fixture: conftest.py).

Ordering, which these tests rely on and every implementation keeps: a request's effects are in
every session's mailbox before the request returns, and news and answers reach a client in the
order the coordinator sent them; so once a client's own request has returned (``barrier``),
its mailbox holds what every earlier request of anyone made.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

import pytest

from pioche_tui.coordinator.client import Connector, CoordinatorClient, Mail
from pioche_tui.coordinator.core import REPLAY_PAGES
from pioche_tui.coordinator.model import GuestPass, Place, Player, Refused, TableUpdate
from pioche_tui.engine.defausse.rules import Draw

from .conftest import connected, key, mail, news_until, update_until


async def refused(request: Awaitable[Any]) -> str:
    """The code of the refusal ``request`` must meet."""
    with pytest.raises(Refused) as refusal:
        await request
    return refusal.value.code


async def barrier(client: CoordinatorClient) -> None:
    """Wait for the answer of a request of this client's own: what others did before is in
    its mailbox now (the module's docstring)."""
    await client.place()


async def drained(client: CoordinatorClient) -> Mail | None:
    """Everything waiting, taken (None when nothing was)."""
    await barrier(client)
    return await mail(client) if client.pending else None


async def toy_game(connector: Connector, goal: int = 10
                   ) -> tuple[CoordinatorClient, CoordinatorClient, str]:
    """Alice and Bob at a toy table of two, Alice to play first (step 0); mailboxes read."""
    alice, bob = await connected(connector, "Alice"), await connected(connector, "Bob")
    table = await alice.create_table("toy", seats=2, timer=None, options={"goal": goal})
    await bob.join(table)
    for client in (alice, bob):
        update = await update_until(client, lambda u: u.view is not None)
        assert update.step == 0 and update.to_act == (0,)
        await drained(client)
    return alice, bob, table


def adds(update: TableUpdate) -> list[tuple[Any, ...]]:
    return [tuple(event.args) for event in update.events if event.kind == "add"]


# --- connecting ----------------------------------------------------------------------------


async def test_a_connected_player_is_in_the_lobby_and_online(connector: Connector) -> None:
    client = connector.client()
    assert client.player is None and not client.open
    place = await client.connect(Player(key("Alice"), "Alice"))
    assert place == Place() and client.open
    assert client.player is not None and client.player.name == "Alice"
    # (Over the bus with its buckets, the front's lobby may come a moment after the first
    # news: it waits for a build that shows her, at most every 0.5 s. Never one without her.)
    online: list[list[str]] = []  # each lobby's, up to the first

    def a_lobby(news: Mail) -> bool:
        if news.lobby is not None:
            online.append([entry.name for entry in news.lobby.online])
        return bool(online)

    shown = await news_until(client, a_lobby)
    assert online == [["Alice"]] and shown.table is None and not shown.closed


async def test_connecting_is_refused_a_bad_or_taken_name(connector: Connector) -> None:
    await connected(connector, "Alice")
    assert await refused(connector.client().connect(Player(key("x"), "x"))) == "bad_name"
    intruder = connector.client()
    assert await refused(intruder.connect(Player(key("Mallory"), "alice"))) == "name_taken"
    assert not intruder.open and intruder.player is None
    alicia = await connected(connector, "Alicia")  # a client opens one session
    assert await refused(alicia.connect(Player(key("Alicia"), "Alicia"))) == "connected"


async def test_the_sessions_requests_wait_for_a_session(connector: Connector) -> None:
    client = connector.client()
    for request in (client.place(), client.quick_play("toy"), client.chat("hello"),
                    client.leave(), client.act(1, 0), client.player_stats()):
        assert await refused(request) == "not_connected"


async def test_the_server_says_its_games_and_timers(connector: Connector) -> None:
    info = await connector.client().server_info()
    assert {"defausse", "collection", "toy"} <= set(info.game_names)
    toy = info.game("toy")
    assert (toy.min_seats, toy.max_seats) == (2, 4) and "random" in toy.bots
    assert info.timer_allowed(info.min_timer) and info.timer_allowed(info.max_timer)
    assert not info.timer_allowed(info.max_timer + 1) and info.grace > 0


async def test_preferences_are_kept_for_a_key_not_for_a_guest(connector: Connector) -> None:
    client = connector.client()
    assert await client.preferences(key("Alice")) == {}
    assert await client.keep_preferences(key("Alice"), {"lang": "en", "bell": False})
    assert await connector.client().preferences(key("Alice")) == {"lang": "en", "bell": False}
    guest = (await client.guest_pass()).identity
    assert await client.keep_preferences(guest, {"lang": "en"})
    assert await client.preferences(guest) == {}


async def test_a_keys_last_name_is_known(connector: Connector) -> None:
    await connected(connector, "Alice")
    client = connector.client()
    assert await client.known_name(key("Alice")) == "Alice"
    assert await client.known_name(key("Nobody")) is None


async def test_a_guest_gets_their_seat_back_with_their_token(connector: Connector) -> None:
    gus = connector.client()
    gus_pass = await gus.guest_pass()
    assert gus_pass.identity.startswith("guest:") and len(gus_pass.token.split("-")) == 3
    await gus.connect(Player(gus_pass.identity, "Gus", guest=True), gus_pass)
    table = await gus.quick_play("toy", seats=2)
    update = await update_until(gus, lambda u: u.view is not None and 0 in u.to_act)
    await gus.act(1, update.step)  # (a table nobody played at would close as he goes)
    await gus.close()
    back = connector.client()
    assert await refused(back.resume("abeille-abeille-abeille", "192.0.2.9")) == "resume_unknown"
    proved, name = await back.resume(gus_pass.token.upper(), "192.0.2.9")
    assert proved == gus_pass and name == "Gus"
    place = await back.connect(Player(proved.identity, name, guest=True), proved)
    assert place == Place(table, 0, "playing")
    notices = (await news_until(back, lambda m: bool(m.notices))).notices
    assert "reclaimed" in [n.code for n in notices]


async def test_resume_attempts_are_limited_per_address(connector: Connector) -> None:
    client = connector.client()
    codes = [await refused(client.resume("pas-un-code", "198.51.100.7")) for _ in range(11)]
    assert codes == ["resume_unknown"] * 10 + ["resume_limit"]
    assert await refused(client.resume("pas-un-code", "198.51.100.8")) == "resume_unknown"


async def test_the_newest_connection_of_a_key_replaces_the_older(connector: Connector) -> None:
    old = await connected(connector, "Alice")
    new = await connected(connector, "Alice")
    last = await news_until(old, lambda m: m.closed)
    assert "replaced" in [n.code for n in last.notices] and not old.open
    assert new.open


async def test_a_closed_session_is_gone_from_the_lobby(connector: Connector) -> None:
    alice, bob = await connected(connector, "Alice"), await connected(connector, "Bob")
    await alice.close()
    await alice.close()  # (twice: nothing more)
    assert not alice.open
    lobby = await news_until(bob, lambda m: m.lobby is not None
                             and [e.name for e in m.lobby.online] == ["Bob"])
    assert lobby.lobby is not None


# --- tables --------------------------------------------------------------------------------


async def test_a_new_table_is_the_creators_and_in_the_lobby(connector: Connector) -> None:
    alice, bob = await connected(connector, "Alice"), await connected(connector, "Bob")
    table = await alice.create_table("toy", seats=3, timer=None)
    update = await update_until(alice, lambda u: u.table.id == table)
    assert (update.seat, update.creator, update.code, update.view) == (0, True, None, None)
    assert update.table.status == "waiting" and update.table.seats[0].name == "Alice"
    assert await alice.place() == Place(table, 0, "waiting")
    lobby = await news_until(bob, lambda m: m.lobby is not None and bool(m.lobby.tables))
    assert lobby.lobby is not None and [t.id for t in lobby.lobby.tables] == [table]


async def test_what_a_request_did_is_read_after_its_answer(connector: Connector) -> None:
    """News a request causes is read once the request has answered, never before: a screen
    that closes itself on the answer (the create dialog) is still on top when the news opens
    the next one (the table's screen). In one process the request never suspends; over the
    bus its news arrives first."""
    import asyncio

    alice = await connected(connector, "Alice")
    answered: list[str] = []

    async def table_news() -> list[str]:
        """The requests answered when the table's news is read."""
        while (await alice.mail()).table is None:
            pass
        return list(answered)

    reader = asyncio.ensure_future(table_news())
    await asyncio.sleep(0)  # (the reader waits for news)
    answered.append(await alice.create_table("toy", seats=3, timer=None))
    assert await asyncio.wait_for(reader, 5.0) == answered


async def test_a_table_is_refused_what_it_cannot_be(connector: Connector) -> None:
    alice = await connected(connector, "Alice")
    assert await refused(alice.create_table("belote", seats=4)) == "unknown_game"
    assert await refused(alice.create_table("toy", seats=9)) == "seats"
    assert await refused(alice.create_table("toy", seats=2, timer=1.0)) == "timer"
    assert await refused(alice.create_table("toy", seats=2, options={"x": 1})) == "bad_options"
    assert await refused(alice.create_table("toy", seats=2, bots={1: "genius"})) == "bad_bot"
    await alice.create_table("toy", seats=2)
    assert await refused(alice.create_table("toy", seats=2)) == "already_seated"
    assert await refused(alice.quick_play("toy")) == "already_seated"
    watcher = await connected(connector, "Regard", watch_only=True)
    assert await refused(watcher.create_table("toy", seats=2)) == "watch_only"


async def test_quick_play_and_learn_start_at_once_against_bots(connector: Connector) -> None:
    alice = await connected(connector, "Alice")
    table = await alice.quick_play("toy", seats=3)
    update = await update_until(alice, lambda u: u.view is not None)
    assert update.table.id == table and update.table.status == "playing"
    assert [s.kind for s in update.table.seats] == ["player", "bot", "bot"]
    await alice.leave()
    learning = await alice.learn("toy")
    update = await update_until(alice, lambda u: u.table.id == learning)
    assert update.table.learn and update.table.timer is None and update.seat == 0


async def test_a_second_player_joins_and_the_game_starts(connector: Connector) -> None:
    _, bob, table = await toy_game(connector)
    assert await bob.place() == Place(table, 1, "playing")
    carol = await connected(connector, "Carol")
    assert await refused(carol.join(table)) == "started"
    assert await refused(carol.join("ZZZZ")) == "no_table"
    assert await refused(bob.join(table)) == "already_seated"


async def test_joining_a_waiting_table_and_its_refusals(connector: Connector) -> None:
    alice, bob = await connected(connector, "Alice"), await connected(connector, "Bob")
    table = await alice.create_table("toy", seats=3, timer=None)
    await bob.join(table.lower(), seat=2)  # (ids are read aloud: any case)
    update = await update_until(bob, lambda u: u.table.id == table)
    assert update.seat == 2 and not update.creator
    carol = await connected(connector, "Carol")
    assert await refused(carol.join(table, seat=2)) == "seat_taken"
    await carol.join(table)  # the last seat: the game starts
    assert (await update_until(bob, lambda u: u.view is not None)).table.seats[1].name == "Carol"


async def test_a_private_table_needs_its_code_which_only_its_players_see(
        connector: Connector) -> None:
    alice, bob = await connected(connector, "Alice"), await connected(connector, "Bob")
    table = await alice.create_table("toy", seats=3, timer=None, private=True)
    code = (await update_until(alice, lambda u: u.table.id == table)).code
    assert code is not None and len(code) == 6
    lobby = await news_until(bob, lambda m: m.lobby is not None and bool(m.lobby.tables))
    assert lobby.lobby is not None and lobby.lobby.tables[0].private
    assert code not in repr(lobby.lobby)
    assert await refused(bob.join(table)) == "code"
    assert await refused(bob.watch(table, "WRONG1")) == "code"
    await bob.watch(table, code.lower())
    watched = await update_until(bob, lambda u: u.table.id == table)
    assert watched.seat is None and watched.code is None and not watched.creator
    await bob.leave()
    await bob.join(table, code=code)
    assert (await update_until(bob, lambda u: u.seat == 1)).code == code


async def test_only_the_creator_starts_a_waiting_table(connector: Connector) -> None:
    alice, bob = await connected(connector, "Alice"), await connected(connector, "Bob")
    assert await refused(alice.start()) == "not_seated"
    table = await alice.create_table("toy", seats=3, timer=None)
    await bob.join(table)
    assert await refused(bob.start()) == "not_creator"
    await alice.start()
    update = await update_until(bob, lambda u: u.view is not None)
    assert update.table.status == "playing" and update.table.seats[2].kind == "bot"
    assert await refused(alice.start()) == "started"


async def test_leaving_sends_back_to_the_lobby_and_passes_the_creators_right(
        connector: Connector) -> None:
    alice, bob = await connected(connector, "Alice"), await connected(connector, "Bob")
    assert await refused(alice.leave()) == "not_seated"
    table = await alice.create_table("toy", seats=3, timer=None)
    await bob.join(table)
    await alice.leave()
    left = await news_until(alice, lambda m: m.left_table)
    assert left.table is None
    assert await alice.place() == Place()
    assert left.lobby is not None  # (the lobby to go back to comes with the news of leaving)
    update = await update_until(bob, lambda u: u.table.seats[0].kind == "free")
    assert update.creator and update.seat == 1


# --- play ----------------------------------------------------------------------------------


async def test_two_players_see_each_others_moves(connector: Connector) -> None:
    alice, bob, _ = await toy_game(connector)
    await alice.act(2, 0)
    seen = await update_until(bob, lambda u: u.step == 1)
    assert adds(seen) == [(2, 2)] and seen.to_act == (1,) and seen.view.total == 2
    await bob.act(1, 1)
    seen = await update_until(alice, lambda u: u.step == 2)  # (her own move's events too)
    assert adds(seen) == [(2, 2), (1, 3)] and seen.to_act == (0,)


async def test_an_action_is_refused_when_stale_illegal_or_not_the_players(
        connector: Connector) -> None:
    alice, bob, _ = await toy_game(connector)
    assert await refused(bob.act(1, 0)) == "not_your_turn"
    assert await refused(alice.act(5, 0)) == "illegal"
    assert await refused(alice.act(1, 7)) == "stale"
    await alice.act(1, 0)
    assert await refused(alice.act(1, 0)) in ("stale", "not_your_turn")
    carol = await connected(connector, "Carol")
    assert await refused(carol.act(1)) == "not_seated"
    assert (await update_until(bob, lambda u: u.step == 1)).view.total == 1  # (one move)


async def test_news_is_latest_wins_with_every_event_kept(connector: Connector) -> None:
    """A session that reads late finds one update, the newest, with the events of every move
    it did not read."""
    alice, bob, _ = await toy_game(connector)
    await alice.act(1, 0)
    await bob.act(1, 1)
    await alice.act(2, 2)
    await barrier(alice)
    late = await mail(alice)
    assert late.table is not None and late.table.step == 3
    assert adds(late.table) == [(1, 1), (1, 2), (2, 4)]
    assert not alice.pending


async def test_the_lobby_comes_newest_and_no_more_than_once_per_change(
        connector: Connector) -> None:
    """Lobby snapshots are sent a moment after a change (several changes, one snapshot):
    however they come, the lobby reaches the newest, one snapshot per mail at most."""
    alice = await connected(connector, "Alice")
    await drained(alice)
    for name in ("Bob", "Carol", "Dave"):
        await connected(connector, name)
    everyone = ["Alice", "Bob", "Carol", "Dave"]
    read: list[Mail] = []

    def newest(got: Mail) -> bool:
        read.append(got)
        return got.lobby is not None and [e.name for e in got.lobby.online] == everyone

    await news_until(alice, newest)
    assert len(read) <= 3


async def test_a_spectators_view_hides_every_hand(connector: Connector) -> None:
    alice = await connected(connector, "Alice")
    table = await alice.create_table("defausse", seats=3, bots={1: "basic", 2: "basic"},
                                     timer=None)
    mine = (await update_until(alice, lambda u: u.view is not None)).view
    assert mine.hand
    bob = await connected(connector, "Bob")
    await bob.watch(table)
    watched = await update_until(bob, lambda u: u.view is not None)
    assert watched.seat is None and watched.view.hand == () and watched.view.legal == ()
    assert watched.view.drawn is None and len(watched.view.counts) == 3
    assert watched.history and all(
        event.secret == () for event in watched.history + watched.events)
    assert await refused(bob.act(Draw())) == "not_seated"


async def test_a_finished_game_counts_in_the_scores(connector: Connector) -> None:
    alice, bob, _ = await toy_game(connector, goal=2)
    await alice.act(2, 0)
    over = await update_until(bob, lambda u: u.view.outcome is not None)
    assert over.view.outcome.winners == (0,)
    board = await bob.leaderboard(None, 10)  # every game's, by wins
    assert [(r.name, r.identity, r.games, r.wins) for r in board] == [
        ("Alice", key("Alice"), 1, 1), ("Bob", key("Bob"), 1, 0)]
    assert over.table.unrated == ""  # two players with keys: a rated game
    # a game's board, by rating, from MIN_RATED_GAMES rated games: not yet
    assert await bob.leaderboard("toy", 10) == ()
    assert await bob.leaderboard("defausse", 10) == ()
    stats = await alice.player_stats()
    assert stats is not None and (stats.games, stats.wins, stats.by_game) == (
        1, 1, (("toy", 1, 1),))
    [(game, rated, mu, sigma)] = stats.ratings  # her rating in the toy game, after one win
    assert (game, rated) == ("toy", 1) and mu > 25.0 and 0 < sigma < 25 / 3
    carol = await connected(connector, "Carol")
    assert (await carol.player_stats()).games == 0


async def test_a_key_players_profile_and_a_guests_none(connector: Connector) -> None:
    alice, bob, table = await toy_game(connector, goal=2)
    await alice.act(2, 0)
    await update_until(bob, lambda u: u.view.outcome is not None)
    profile = await bob.profile("alice")  # (as a nickname is matched: case folded)
    assert profile is not None and (profile.identity, profile.name) == (key("Alice"), "Alice")
    assert profile.by_game == (("toy", 1, 1),)
    [(game, rated, mu, sigma)] = profile.ratings
    assert (game, rated) == ("toy", 1)
    [(game, points)] = profile.history
    assert game == "toy" and points == (pytest.approx(mu - 3 * sigma),)
    [played] = profile.last
    assert (played.table_id, played.game, played.seat, played.seats, played.place,
            played.unrated, played.replay) == (table, "toy", 0, 2, 1, "", True)
    assert await bob.profile("Nobody") is None
    gus = connector.client()
    gus_pass = await gus.guest_pass()
    await gus.connect(Player(gus_pass.identity, "Gus", guest=True), gus_pass)
    assert await bob.profile("Gus") is None  # a guest has no profile
    assert await refused(connector.client().profile("Alice")) == "not_connected"


async def test_a_finished_games_replay_step_by_step(connector: Connector) -> None:
    alice, bob, table = await toy_game(connector, goal=3)
    await alice.act(2, 0)
    await bob.act(1, 1)
    await update_until(alice, lambda u: u.view.outcome is not None)
    carol = await connected(connector, "Carol")
    told = await carol.replay(table)  # as a spectator saw it
    assert (told.table.id, told.table.status, told.seat, told.first, told.total) == (
        table, "finished", None, 0, 3)
    assert [f.step for f in told.frames] == [0, 1, 2] and told.rounds == (0,)
    assert [f.to_act for f in told.frames] == [(0,), (1,), ()]
    assert [tuple(e.args) for e in told.frames[1].events if e.kind == "add"] == [(2, 2)]
    assert told.frames[2].view.outcome.winners == (1,)
    assert [s.name for s in told.table.seats] == ["Alice", "Bob"]
    page = await carol.replay(table.lower(), None, 2)
    assert [f.step for f in page.frames] == [2] and page.total == 3
    mine = await bob.replay(table, 1)  # his own seat's view
    assert mine.seat == 1 and mine.total == 3
    assert await refused(carol.replay(table, 1)) == "not_your_seat"
    assert await refused(bob.replay(table, 0)) == "not_your_seat"
    assert await refused(carol.replay(table, None, 3)) == "no_step"
    assert await refused(carol.replay("ZZZZ")) == "no_game"
    assert await refused(connector.client().replay(table)) == "not_connected"
    # (each page replays the log: a player asking on and on is told to slow down)
    for _ in range(REPLAY_PAGES - 5):  # (Carol asked 5 above: a page refused counts too)
        await carol.replay(table)
    assert await refused(carol.replay(table)) == "replay_rate"
    assert (await bob.replay(table)).total == 3  # (another player's pages are his own)


async def test_a_rematch_asked_and_accepted_starts_a_new_table_for_both(
        connector: Connector) -> None:
    alice, bob, table = await toy_game(connector, goal=2)
    assert await refused(alice.rematch()) == "not_finished"
    await alice.act(2, 0)
    await alice.rematch()
    asked = await update_until(bob, lambda u: u.rematch == (0,))
    assert asked.table.id == table and asked.rematch_left is not None
    await bob.rematch()
    new = await update_until(alice, lambda u: u.table.id != table)
    assert new.seat == 1 and new.table.status == "playing" and new.rematch == ()
    assert [s.name for s in new.table.seats] == ["Bob", "Alice"]
    assert await bob.place() == Place(new.table.id, 0, "playing")


async def test_a_rematch_declined_is_off_for_all(connector: Connector) -> None:
    alice, bob, table = await toy_game(connector, goal=2)
    await alice.act(2, 0)
    await alice.rematch()
    await bob.rematch(accept=False)
    assert await bob.place() == Place()
    off = await news_until(alice, lambda m: any(n.code == "rematch_left" for n in m.notices))
    assert off.table is None or off.table.rematch_off
    assert await refused(alice.rematch()) == "rematch_off"
    assert (await alice.place()).table == table


# --- chat ----------------------------------------------------------------------------------


async def test_lobby_chat_reaches_the_lobby(connector: Connector) -> None:
    alice, bob = await connected(connector, "Alice"), await connected(connector, "Bob")
    await alice.chat("Bonjour \x1b[31mà tous")
    said = await news_until(bob, lambda m: bool(m.chat))
    line = said.chat[-1]
    assert (line.scope, line.name, line.text) == ("lobby", "Alice", "Bonjour [31mà tous")
    assert await refused(alice.chat("  \x07 ")) == "empty"
    watcher = await connected(connector, "Regard", watch_only=True)
    assert await refused(watcher.chat("hello")) == "watch_only"


async def test_table_chat_reaches_the_table_alone(connector: Connector) -> None:
    alice, bob, table = await toy_game(connector)
    carol = await connected(connector, "Carol")
    await drained(carol)
    await bob.chat("bien joué")
    said = await news_until(alice, lambda m: bool(m.chat))
    assert [(c.scope, c.name, c.text) for c in said.chat] == [(table, "Bob", "bien joué")]
    rest = await drained(carol)
    assert rest is None or not rest.chat


async def test_chat_is_rate_limited(connector: Connector) -> None:
    alice = await connected(connector, "Alice")
    for n in range(3):
        await alice.chat(f"message {n}")
    assert await refused(alice.chat("un de trop")) == "chat_rate"


# --- learn tables' memory ------------------------------------------------------------------


async def test_a_keys_learned_situations_are_kept_a_guests_are_not(
        connector: Connector) -> None:
    alice = await connected(connector, "Alice")
    assert await alice.learned() == ()
    await alice.note_learned("df.plus2")
    await alice.note_learned("col.draw")
    await alice.note_learned("col.draw")
    assert await alice.learned() == ("col.draw", "df.plus2")
    await alice.forget_learned()
    assert await alice.learned() == ()
    gus = connector.client()
    gus_pass: GuestPass = await gus.guest_pass()
    await gus.connect(Player(gus_pass.identity, "Gus", guest=True), gus_pass)
    await gus.note_learned("col.draw")
    assert await gus.learned() == ()


# --- the server stopping -------------------------------------------------------------------


async def test_once_the_server_stops_a_player_going_is_not_a_drop(connector: Connector) -> None:
    """``server_stopping``: every table holds still, so the sessions' ends that follow leave
    seats and turns as they are for the next start (no « drop », no stand-in)."""
    alice, bob, _ = await toy_game(connector)
    await alice.server_stopping()
    await bob.close()
    assert await drained(alice) is None  # (without server_stopping: Bob's « drop »)
