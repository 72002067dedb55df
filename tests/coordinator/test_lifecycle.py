"""The coordinator's whole lifecycle with test subscribers, no terminal: real engines, real
msgpack logs and a real SQLite file under a temporary data directory."""

from __future__ import annotations

import asyncio
import copy
import random
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from pioche_tui.coordinator.core import Coordinator, Session
from pioche_tui.coordinator.guests import RESUME_ATTEMPTS
from pioche_tui.coordinator.mailbox import MAX_EVENTS
from pioche_tui.coordinator.model import Player, Refused, TableUpdate
from pioche_tui.engine import GAMES
from pioche_tui.store.log import read_log

from .conftest import player, until

Make = Callable[..., Awaitable[Coordinator]]
BOTH = ["defausse", "collection"]


def latest_table(session: Session) -> TableUpdate:
    mail = session.mailbox.take()
    assert mail is not None and mail.table is not None, "no table update waiting"
    return mail.table


def play_randomly(c: Coordinator, session: Session, rng: random.Random) -> None:
    """The session's seat makes one random legal move if it is theirs to make."""
    table, seat = session.table, session.seat
    assert table is not None and seat is not None
    legal = table.game.legal_actions(table.state, seat)
    if legal:
        session.act(legal[rng.randrange(len(legal))], table.step)


async def moves_once(c: Coordinator, session: Session, seed: int = 1) -> None:
    """Wait for the session's turn and make a move: the table is now one a player played at."""
    table, seat = session.table, session.seat
    assert table is not None and seat is not None
    await until(lambda: seat in table.game.to_act(table.state))
    play_randomly(c, session, random.Random(seed))


def check_eyes(update: TableUpdate, game: str, state: Any) -> None:
    """What a subscriber got is exactly its seat's view, and no one else's secrets."""
    assert update.view == GAMES[game].view(state, update.seat)
    for event in update.events:
        assert not event.secret or event.seat == update.seat


@pytest.mark.parametrize("game", BOTH)
async def test_a_bot_table_plays_to_the_end_and_lands_in_sqlite(make_coordinator: Make,
                                                                game: str) -> None:
    c = await make_coordinator()
    alice = c.connect(player("Alice"))
    seats = 3
    table_id = alice.create_table(game, seats=seats, bots={i: "basic" for i in range(seats)},
                                  options={"single_round": True}, sit=False)
    table = c.tables[table_id]
    assert table.status == "playing" and alice.seat is None
    seen_steps: list[int] = []

    def watch() -> bool:
        mail = alice.mailbox.take()
        if mail and mail.table:
            check_eyes(mail.table, game, table.state)
            seen_steps.append(mail.table.step)
        return table.status == "finished"

    await until(watch, timeout=30)
    assert c.db is not None and c.db.game_count() == 1
    results = c.db.game_seats(table_id)
    assert len(results) == seats and any(r.winner for r in results)
    assert all(r.bot == "basic" and r.identity is None for r in results)
    assert seen_steps == sorted(seen_steps)  # never an older view after a newer one
    log = read_log(c.log_path(table_id))
    assert log.ended and len(list(log.actions())) == table.step


async def test_quick_play_seats_the_player_with_bots(make_coordinator: Make) -> None:
    c = await make_coordinator()
    bob = c.connect(player("Bob"))
    table_id = bob.quick_play("defausse", seats=4)
    table = c.tables[table_id]
    assert bob.seat == 0 and table.status == "playing"
    assert [s.kind for s in table.seats] == ["player", "bot", "bot", "bot"]
    update = latest_table(bob)
    assert update.seat == 0 and update.view.seat == 0


async def test_create_join_start_watch_leave(make_coordinator: Make) -> None:
    c = await make_coordinator()
    alice, bob, zoe = (c.connect(player(n)) for n in ("Alice", "Bob", "Zoe"))
    tid = alice.create_table("defausse", seats=3)
    assert c.tables[tid].status == "waiting"
    bob.join(tid)
    assert [s.kind for s in c.tables[tid].seats] == ["player", "player", "free"]
    with pytest.raises(Refused) as e:
        bob.start()
    assert e.value.code == "not_creator"
    zoe.watch(tid)
    assert c.tables[tid].summary().spectators == 1
    with pytest.raises(Refused) as e:
        zoe.act(None)
    assert e.value.code == "not_seated"
    alice.start()  # the free seat goes to a bot
    table = c.tables[tid]
    assert table.status == "playing" and table.seats[2].kind == "bot"
    lobby = c.snapshot()
    assert [t.id for t in lobby.tables] == [tid]
    assert {e.name: e.table for e in lobby.online} == {"Alice": tid, "Bob": tid, "Zoe": tid}
    # Bob leaves mid-game: his seat goes to a bot for good, and it is in the log
    bob.leave()
    assert table.seats[1].kind == "bot" and bob.table is None
    assert read_log(c.log_path(tid)).records[-1][0] == "s"
    # everybody leaves: the table closes; no player had moved, so no log is left of it
    # (test_churn.py: one where a player moved ends 'closed')
    alice.leave()
    zoe.leave()
    assert tid not in c.tables
    assert not c.log_path(tid).exists()


async def test_a_table_starts_by_itself_when_full(make_coordinator: Make) -> None:
    c = await make_coordinator()
    alice, bob = c.connect(player("Alice")), c.connect(player("Bob"))
    tid = alice.create_table("collection", seats=2)
    bob.join(tid)
    assert c.tables[tid].status == "playing"
    with pytest.raises(Refused) as e:
        c.connect(player("Carl")).join(tid)
    assert e.value.code == "started"


async def test_private_tables_need_their_code(make_coordinator: Make) -> None:
    c = await make_coordinator()
    alice, bob = c.connect(player("Alice")), c.connect(player("Bob"))
    tid = alice.create_table("defausse", seats=2, private=True)
    code = c.tables[tid].code
    assert code is not None and c.snapshot().tables[0].private
    for wrong in (None, "NOPE"):
        with pytest.raises(Refused) as e:
            bob.join(tid, code=wrong)
        assert e.value.code == "code"
    bob.join(tid, code=code.lower())
    assert c.tables[tid].status == "playing"


async def test_bad_requests_are_refused_with_a_reason(make_coordinator: Make) -> None:
    c = await make_coordinator()
    alice, bob = c.connect(player("Alice")), c.connect(player("Bob"))
    cases: list[tuple[Callable[[], object], str]] = [
        (lambda: alice.create_table("poker", seats=2), "unknown_game"),
        (lambda: alice.create_table("defausse", seats=11), "seats"),
        (lambda: alice.create_table("collection", seats=7), "seats"),
        (lambda: alice.create_table("defausse", seats=2, options={"bogus": 1}), "bad_options"),
        (lambda: alice.create_table("defausse", seats=2, timer=1), "timer"),
        (lambda: alice.create_table("defausse", seats=2, bots={1: "genius"}), "bad_bot"),
        (lambda: alice.join("ZZZZ"), "no_table"),
        (lambda: alice.act(None), "not_seated"),
        (lambda: alice.leave(), "not_seated"),
    ]
    for call, code in cases:
        with pytest.raises(Refused) as e:
            call()
        assert e.value.code == code, (code, e.value.code)
        assert str(e.value)  # a sentence for the player
    assert not c.tables
    tid = alice.create_table("defausse", seats=2)
    with pytest.raises(Refused) as e:
        alice.act(None)
    assert e.value.code == "not_playing"
    bob.join(tid)
    table = c.tables[tid]
    first = table.game.to_act(table.state)[0]
    mover, other = (alice, bob) if first == 0 else (bob, alice)
    legal = table.game.legal_actions(table.state, first)
    with pytest.raises(Refused) as e:
        other.act(legal[0], table.step)
    assert e.value.code == "not_your_turn"
    with pytest.raises(Refused) as e:
        mover.act(legal[0], table.step - 1)
    assert e.value.code == "stale"
    before = table.game.view(table.state, first)
    for bad in ("draw", 42, None, object()):
        with pytest.raises(Refused) as e:
            mover.act(bad, table.step)
        assert e.value.code == "illegal"
    assert table.step == 0 and table.game.view(table.state, first) == before
    mover.act(legal[0], table.step)
    assert table.step == 1


async def test_a_dropped_player_is_replaced_then_gets_the_same_seat_back(
        make_coordinator: Make) -> None:
    c = await make_coordinator(grace=30.0)
    carol = c.connect(player("Carol"))
    zoe = c.connect(player("Zoe"))
    tid = carol.quick_play("defausse", seats=3)
    table = c.tables[tid]
    zoe.watch(tid)  # someone sees the game go on (nobody there: it holds still, test_churn)
    await moves_once(c, carol)
    carol.close()
    assert table.seats[0].away and table.summary().seats[0].away
    steps = table.step
    await until(lambda: table.step > steps + 5)  # the stand-in plays her turns too
    again = c.connect(player("Carol"))
    assert again.table is table and again.seat == 0 and not table.seats[0].away
    mail = again.mailbox.take()
    assert mail is not None and mail.table is not None
    assert mail.table.seat == 0 and mail.table.view == table.game.view(table.state, 0)
    assert [n.code for n in mail.notices] == ["reclaimed"]


async def test_after_the_grace_period_the_bot_keeps_the_seat(make_coordinator: Make) -> None:
    c = await make_coordinator(grace=0.05)
    dan = c.connect(player("Dan"))
    eve = c.connect(player("Eve"))
    tid = dan.create_table("defausse", seats=3)
    eve.join(tid)
    dan.start()
    table = c.tables[tid]
    dan.close()
    await until(lambda: table.seats[0].kind == "bot")
    assert read_log(c.log_path(tid)).records[-1][:2] == ["s", 0]
    back = c.connect(player("Dan"))
    assert back.table is None  # the seat is gone


async def test_a_guest_reclaims_only_with_the_token(make_coordinator: Make) -> None:
    c = await make_coordinator()
    gus = c.guest_pass()
    guest = c.connect(Player(gus.identity, "Gus", guest=True), gus)
    guest.quick_play("collection", seats=2)
    await moves_once(c, guest)
    guest.close()
    # The same name from the same address is another guest: no seat, and not that name while
    # the seat waits for its player.
    other = c.guest_pass()
    assert other.identity != gus.identity and other.token != gus.token
    with pytest.raises(Refused) as refused:
        c.connect(Player(other.identity, "Gus", guest=True), other)
    assert refused.value.code == "name_held"
    with pytest.raises(Refused) as refused:
        c.connect(Player(other.identity, "gus", guest=True), other)
    assert refused.value.code == "name_held"
    assert c.connect(Player(other.identity, "Gaston", guest=True), other).table is None
    # A token that is no token, or another guest's, holds no seat.
    for wrong in ("abeille-tulipe", "pas-un-code", other.token):
        with pytest.raises(Refused) as refused:
            c.resume(wrong, "10.0.0.9")
        assert refused.value.code == "resume_unknown"
    # The token, however it is typed, gives the seat and the name back.
    typed = gus.token.upper().replace("-", " ")
    proven, name = c.resume(typed, "10.0.0.9")
    assert proven == gus and name == "Gus"
    back = c.connect(Player(proven.identity, name, guest=True), proven)
    assert back.seat == 0 and back.guest_pass == gus


async def test_a_guest_token_still_works_after_a_restart(make_coordinator: Make) -> None:
    c = await make_coordinator()
    gus = c.guest_pass()
    tid = c.connect(Player(gus.identity, "Gus", guest=True), gus).quick_play("defausse", seats=2)
    c.stop()
    secret = c.settings.data_dir / "guests.key"
    assert secret.stat().st_mode & 0o777 == 0o600 and len(secret.read_bytes()) == 32
    c2 = await make_coordinator()  # the same data directory: the same guests.key
    proven, name = c2.resume(gus.token, "127.0.0.1")
    back = c2.connect(Player(proven.identity, name, guest=True), proven)
    assert back.table is c2.tables[tid] and back.seat == 0 and name == "Gus"


async def test_resume_attempts_are_limited_per_address(make_coordinator: Make) -> None:
    c = await make_coordinator()
    gus = c.guest_pass()
    c.connect(Player(gus.identity, "Gus", guest=True), gus).quick_play("defausse", seats=2)
    for _attempt in range(RESUME_ATTEMPTS):
        with pytest.raises(Refused):
            c.resume("abeille-tulipe-zeste", "2001:db8::1")
    for address in ("2001:db8::1", "2001:db8::2:3"):  # the same /64
        with pytest.raises(Refused) as refused:
            c.resume(gus.token, address)
        assert refused.value.code == "resume_limit"
    assert c.resume(gus.token, "2001:db8:0:1::1")[0] == gus  # another network


async def test_a_turn_clock_stops_while_nobody_is_at_the_table(make_coordinator: Make) -> None:
    """Fay drops during her turn; nobody else is at the table, so it holds still: when she
    comes back after longer than the turn, she finds her turn with the time she had left (the
    clock kept running before: the stand-in played it as she came back)."""
    c = await make_coordinator(turn_timer=0.5)
    loop = asyncio.get_running_loop()
    fay = c.connect(player("Fay"))
    tid = fay.quick_play("defausse", seats=2)
    table = c.tables[tid]
    await until(lambda: 0 in table.game.to_act(table.state))
    fay.act(table.game.legal_actions(table.state, 0)[0], table.step)  # her seat is kept
    await until(lambda: 0 in table.game.to_act(table.state) and 0 in table.deadlines)
    step, left = table.step, table.deadlines[0] - loop.time()
    fay.close()
    await asyncio.sleep(0.8)  # longer than the turn
    fay = c.connect(player("Fay"))  # back at her seat
    assert table.step == step and 0 < table.deadlines[0] - loop.time() <= left
    mail = fay.mailbox.take()
    assert mail is not None and not any(n.code == "timeout" for n in mail.notices)


async def test_the_turn_timer_lets_the_stand_in_play(make_coordinator: Make) -> None:
    c = await make_coordinator(turn_timer=0.05)
    fay = c.connect(player("Fay"))
    tid = fay.quick_play("defausse", seats=2)
    table = c.tables[tid]
    await until(lambda: 0 in table.game.to_act(table.state))
    update = latest_table(fay)
    step = table.step
    assert update.time_left is not None and 0 <= update.time_left <= 0.05
    await until(lambda: table.step > step)  # nobody pressed a key: the stand-in did
    mail = fay.mailbox.take()
    assert mail is not None and any(n.code == "timeout" for n in mail.notices)


async def test_the_time_left_crosses_as_a_duration_and_waiting_in_the_mailbox_counts(
        make_coordinator: Make) -> None:
    """An update carries the seconds left on the turn, not the coordinator's clock; one read
    late has the time it waited taken off, so that the reader's deadline is the table's."""
    c = await make_coordinator(turn_timer=60.0)
    loop = asyncio.get_running_loop()
    fay = c.connect(player("Fay"))
    tid = fay.quick_play("defausse", seats=2)
    table = c.tables[tid]
    await until(lambda: 0 in table.game.to_act(table.state) and 0 in table.deadlines)
    fay.mailbox.take()
    table.publish()  # the newest view, put now and left to wait
    await asyncio.sleep(0.3)
    mail = fay.mailbox.take()
    assert mail is not None and mail.table is not None and mail.table.time_left is not None
    # Read now: the deadline the reader makes of it is the table's own, on its own clock.
    assert mail.table.time_left <= 60.0 - 0.3
    assert abs(loop.time() + mail.table.time_left - table.deadlines[0]) < 0.1


async def test_a_slow_subscriber_holds_only_the_newest_view(make_coordinator: Make) -> None:
    c = await make_coordinator()
    viewer = c.connect(player("Slow"))
    tid = viewer.create_table("defausse", seats=4, bots={i: "random" for i in range(4)},
                              options={"single_round": True}, sit=False)
    table = c.tables[tid]
    viewer.mailbox.take()
    await until(lambda: table.status == "finished", timeout=30)
    mail = viewer.mailbox.take()
    assert mail is not None and mail.table is not None
    assert mail.table.step == table.step  # the newest, and only that
    assert len(mail.table.events) <= MAX_EVENTS
    assert viewer.mailbox.take() is None  # nothing else was queued


@pytest.mark.parametrize("game", BOTH)
async def test_a_restart_rebuilds_every_table_exactly(make_coordinator: Make, game: str) -> None:
    rng = random.Random(5)
    c = await make_coordinator(seed=5)  # a deal that is still being played after 40 moves
    hal = c.connect(player("Hal"))
    tid = hal.quick_play(game, seats=3)
    table = c.tables[tid]
    for _ in range(40):  # Hal plays at random; the bots answer through the loop
        await until(lambda: table.status != "playing"
                    or 0 in table.game.to_act(table.state) + table.game.interjectors(table.state))
        if table.status != "playing":
            break
        play_randomly(c, hal, rng)
    await until(lambda: table.status != "playing" or 0 in table.game.to_act(table.state))
    views = [table.game.view(table.state, s) for s in (*range(3), None)]
    step = table.step
    assert table.status == "playing"
    c.stop()
    c2 = await make_coordinator(seed=5)
    again = c2.tables[tid]
    assert again.step == step
    assert [again.game.view(again.state, s) for s in (*range(3), None)] == views
    assert again.seats[0].away and again.seats[0].identity == player("Hal").identity
    back = c2.connect(player("Hal"))
    assert back.seat == 0 and latest_table(back).view == views[0]


async def test_a_log_torn_in_the_middle_of_a_record_still_loads(make_coordinator: Make) -> None:
    rng = random.Random(9)
    c = await make_coordinator(seed=9)  # a deal still being played after 10 moves
    ivy = c.connect(player("Ivy"))
    tid = ivy.quick_play("defausse", seats=2)
    table = c.tables[tid]
    for _ in range(10):
        await until(lambda: 0 in table.game.to_act(table.state) or table.status != "playing")
        assert table.status == "playing"
        play_randomly(c, ivy, rng)
    await until(lambda: 0 in table.game.to_act(table.state))
    c.stop()
    path = c.log_path(tid)
    contents = read_log(path)
    path.write_bytes(path.read_bytes()[:-2])  # cut the last record in its middle
    c2 = await make_coordinator()
    again = c2.tables[tid]
    assert again.step == len(list(contents.actions())) - 1
    # the state is what replaying the kept actions gives
    game = GAMES["defausse"]
    state = game.new_game(2, contents.header["options"], contents.header["seed"])
    for seat, wire in list(contents.actions())[:-1]:
        game.apply(state, seat, game.action_from_wire(wire))
    assert [game.view(again.state, s) for s in (0, 1, None)] == [
        game.view(state, s) for s in (0, 1, None)]


async def test_chat_is_clean_scoped_and_rate_limited(make_coordinator: Make) -> None:
    c = await make_coordinator()
    alice, bob, carl = (c.connect(player(n)) for n in ("Alice", "Bob", "Carl"))
    for s in (alice, bob, carl):
        s.mailbox.take()
    alice.chat("salut \x1b[2J\x1b]52;c;bWVjaGFudA==\x07 [@click=app.quit]x[/] \u202etxet")
    alice.mailbox.take()  # her own line, echoed
    mail = bob.mailbox.take()
    assert mail is not None and len(mail.chat) == 1
    text = mail.chat[0].text
    assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text
    assert "[@click=app.quit]x[/]" in text  # kept as plain text; screens never parse markup
    tid = bob.create_table("defausse", seats=2)
    carl.watch(tid)
    bob.mailbox.take()
    carl.mailbox.take()
    bob.chat("à table")
    mail = carl.mailbox.take()
    assert mail is not None and [line.text for line in mail.chat] == ["à table"]
    mail = alice.mailbox.take()
    assert mail is None or not mail.chat  # the lobby does not hear the table
    alice.chat("2")
    alice.chat("3")  # three messages within 3 s: the limit
    with pytest.raises(Refused) as e:
        alice.chat("4")
    assert e.value.code == "chat_rate"
    with pytest.raises(Refused) as e:
        carl.chat("\x1b\x1b \u200b  ")
    assert e.value.code == "empty"
    watcher = c.connect(Player("SHA256:w", "watch", watch_only=True))
    with pytest.raises(Refused) as e:
        watcher.chat("hello")
    assert e.value.code == "watch_only"
    with pytest.raises(Refused):
        watcher.join(tid)


async def test_names_are_unique_online_and_bound_to_keys(make_coordinator: Make) -> None:
    c = await make_coordinator()
    c.connect(player("Jo"))
    with pytest.raises(Refused) as e:
        c.connect(Player("SHA256:other", "jo"))
    assert e.value.code == "name_taken"
    first = c.sessions[player("Jo").identity]
    first.close()
    with pytest.raises(Refused) as e:
        c.connect(Player("guest:Jo@127.0.0.1", "Jo", guest=True))
    assert e.value.code == "name_owned"
    # the same key again replaces its older session
    s1 = c.connect(player("Jo"))
    s2 = c.connect(player("Jo"))
    assert not s1.open and s1.mailbox.closed and s2.open


async def test_a_timed_out_player_validates_the_best_selection(make_coordinator: Make) -> None:
    """At the end of a round the rules validate the best-scoring selection for a player whose
    timer runs out — not the stand-in bot's own choice, which keeps Suite pure open for a Suite
    Shadow when it holds two Shadows with rounds to come."""
    from pioche_tui.engine.collection.bots import BasicBot
    from pioche_tui.engine.collection.cards import KIND, RAINBOW, SHADOW, SUITE_SHADOW_POINTS
    from pioche_tui.engine.collection.objectives import ALL_OBJECTIVES, SUITE_PURE, best_selection
    from pioche_tui.engine.collection.rules import OVER, TURN, VALIDATION

    c = await make_coordinator(turn_timer=0.05)
    fay = c.connect(player("Fay"))
    table = c.tables[fay.quick_play("collection", seats=2)]
    await until(lambda: 0 in table.game.to_act(table.state))
    # The round ends at Fay's turn: one card left to draw, three Rainbows and two Shadows in
    # her collection (the rest of the deck is in the discard).
    state = table.state
    wilds = [card for card in state.deck if KIND[card] == RAINBOW][:3] + [
        card for card in state.deck if KIND[card] == SHADOW][:2]
    classics = [0, 2, 12, 14, 24, 40]  # 1 and 2 rouge, 1 and 2 jaune, 1 vert, 3 bleu
    last = 50
    state.collections[0][:] = [*wilds, *classics]
    for other in (state.piles, state.reserves, state.collections[1:]):
        for cards in other:
            cards.clear()
    state.draw = [[last], []]
    state.discard[:] = [card for card in state.deck
                        if card not in state.collections[0] and card != last]
    state.current, state.phase, state.held[:] = 0, TURN, []
    best = best_selection(state.collections[0], ALL_OBJECTIVES)
    assert any(combo.objective == SUITE_PURE and combo.points < SUITE_SHADOW_POINTS
               for combo in best)
    at_validation = copy.deepcopy(state)
    at_validation.phase = VALIDATION
    bot_choice = BasicBot().choose(at_validation, 0, (), random.Random())
    assert bot_choice.combos != best  # the case that mattered: the bot keeps Suite pure open
    table.schedule()  # Fay's stand-in draws the last card, the round ends, her timer runs out
    await until(lambda: state.round == 2 or state.phase is OVER)
    assert state.last_results[0] == best
