"""Défausse's engine as the rest of Pioche uses it: options, seats, wire format, views, events,
bots."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from pioche_tui.engine import GAMES
from pioche_tui.engine.base import BadOptions, events_seen_by
from pioche_tui.engine.defausse import GAME, Catch, ChooseColour, Draw, Keep, Play
from pioche_tui.engine.defausse.cards import COLOUR, card_name
from pioche_tui.engine.defausse.rules import AFTER_DRAW
from pioche_tui.sim import simulate

from .defausse_rig import Pool, rig, rigged_deal
from .test_defausse_sweep import EVERY_ACTION

ROUGE, JAUNE, VERT, BLEU = range(4)


def test_registered_with_its_bots() -> None:
    assert GAMES["defausse"] is GAME
    assert (GAME.name, GAME.title) == ("defausse", "Défausse")
    assert (GAME.min_seats, GAME.max_seats) == (2, 10)
    assert GAME.bot_names() == ("random", "basic")
    assert {GAME.bot(n).name for n in GAME.bot_names()} == {"random", "basic"}
    with pytest.raises(KeyError):
        GAME.bot("expert")


# --- options and seats ------------------------------------------------------------------------


def test_options_defaults_are_the_seed_rules() -> None:
    assert GAME.options({}) == {
        "target": 500, "annonce": False, "cumul": False, "pioche_jusqua_jouer": False,
        "single_round": False,
    }  # fmt: skip
    raw = {"target": 300, "cumul": True}
    assert GAME.options(raw) == {**GAME.options({}), **raw}
    assert GAME.options(GAME.options(raw)) == GAME.options(raw)
    assert all(type(v) in (int, bool) for v in GAME.options(raw).values())


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ({"cible": 300}, "inconnue"),
        ({"target": 99}, "100 à 1000"),
        ({"target": 1001}, "100 à 1000"),
        ({"target": "500"}, "100 à 1000"),
        ({"target": True}, "100 à 1000"),
        ({"target": 500.0}, "100 à 1000"),
        ({"cumul": "yes"}, "cumul"),
        ({"annonce": 1}, "annonce"),
        ({"single_round": None}, "single_round"),
    ],
)
def test_bad_options_say_why(raw: dict[str, Any], reason: str) -> None:
    with pytest.raises(BadOptions, match=reason):
        GAME.options(raw)
    with pytest.raises(BadOptions, match=reason):
        GAME.new_game(4, raw, 1)


@pytest.mark.parametrize("seats", [0, 1, 11, "4", True, 2.0])
def test_seat_counts_outside_2_to_10_are_refused(seats: Any) -> None:
    with pytest.raises(BadOptions, match="2 à 10"):
        GAME.new_game(seats, {}, 1)


def test_the_same_seed_deals_the_same_game() -> None:
    assert GAME.new_game(4, {}, 42).snapshot() == GAME.new_game(4, {}, 42).snapshot()
    assert GAME.new_game(4, {}, 42).hands != GAME.new_game(4, {}, 43).hands


# --- wire format ------------------------------------------------------------------------------


def test_every_action_round_trips_through_the_wire() -> None:
    for action in EVERY_ACTION:
        wire = GAME.action_to_wire(action)
        assert isinstance(wire, list) and isinstance(wire[0], str)
        assert GAME.action_from_wire(wire) == action
        assert GAME.action_from_wire(tuple(wire)) == action  # msgpack may give either


@pytest.mark.parametrize(
    "data",
    [
        None, "draw", 3, {}, [], [1], ["nope"], ["play"], ["play", 5, None],
        ["play", 108, None, False], ["play", -1, None, False], ["play", True, None, False],
        ["play", 5, 2, False],
        ["play", 100, None, False], ["play", 100, 4, False], ["play", 5, None, 1],
        ["play", 5.0, None, False], ["draw", 1], ["keep", None], ["colour"], ["colour", 4],
        ["colour", "rouge"], ["catch", 10], ["catch", -1], ["catch", False], ["catch", 1, 2],
    ],
)  # fmt: skip
def test_malformed_wire_actions_raise_value_error(data: Any) -> None:
    with pytest.raises(ValueError):
        GAME.action_from_wire(data)


def test_to_wire_refuses_what_is_not_an_action() -> None:
    with pytest.raises(TypeError):
        GAME.action_to_wire("draw")  # type: ignore[arg-type]


# --- views and events -------------------------------------------------------------------------


def test_a_player_sees_their_hand_and_the_others_counts() -> None:
    p = Pool()
    mine = p.many("9 bleu", "2 rouge", "Joker", "Passe rouge")
    state = rig(3, [mine, p.many("4 jaune"), p.many("5 jaune", "6 vert")], p("7 rouge"))
    state.scores = [10, 0, 30]
    view = GAME.view(state, 0)
    assert view.seat == 0 and view.hand == tuple(sorted(mine))
    assert [card_name(c) for c in view.hand] == ["2 rouge", "Passe rouge", "9 bleu", "Joker"]
    assert view.legal == tuple(GAME.legal_actions(state, 0))
    assert view.counts == (4, 1, 2) and view.scores == (10, 0, 30)
    assert (view.top, view.colour, view.direction, view.current) == (state.discard[-1], 0, 1, 0)
    assert (view.phase, view.draw_size, view.discard_size) == ("play", 108 - 8, 1)
    assert (view.dealer, view.round, view.target, view.pending) == (0, 1, 500, 0)
    assert view.catchable is None and view.last_round is None and view.outcome is None
    assert view.announced == (False, False, False) and view.drawn is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.hand = ()  # type: ignore[misc]


def test_a_spectator_sees_counts_only() -> None:
    state = GAME.new_game(5, {}, 3)
    view = GAME.view(state, None)
    assert view.seat is None and view.hand == () and view.legal == ()
    assert view.counts == (7,) * 5
    assert GAME.view(state, 9).hand == ()  # no such seat: a spectator's view


def test_a_drawn_card_appears_only_in_the_drawers_events_and_view() -> None:
    p = Pool()
    drawn = p("5 rouge")
    state = rig(3, [p.many("9 bleu"), p.many("4 jaune"), p.many("5 jaune")], p("7 rouge"),
                draw=[drawn])  # fmt: skip
    events = GAME.apply(state, 0, Draw())
    assert events_seen_by(events, 0)[-1].secret == (drawn,)
    for viewer in (None, 1, 2):
        seen = events_seen_by(events, viewer)
        assert seen[-1].kind == "draw" and seen[-1].args == (1,) and seen[-1].secret == ()
        assert GAME.view(state, viewer).drawn is None
    assert state.phase == AFTER_DRAW and GAME.view(state, 0).drawn == drawn
    assert GAME.view(state, 0).legal == (Play(drawn), Keep())


def test_dealt_hands_are_secret_to_their_seat() -> None:
    state = rigged_deal(3, [Pool()("5 rouge")])
    deals = [e for e in state.opening if e.kind == "deal"]
    assert [e.seat for e in deals] == [0, 1, 2]
    for e in deals:
        assert list(e.secret) == state.hand(e.seat)
        assert e.seen_by(None).secret == () and e.seen_by((e.seat + 1) % 3).secret == ()


# --- bots -------------------------------------------------------------------------------------


def basic_choice(state: Any, seat: int) -> Any:
    return GAME.bot("basic").choose(
        state, seat, GAME.legal_actions(state, seat), random.Random(0)
    )


def test_basic_keeps_its_jokers_while_another_card_fits() -> None:
    p = Pool()
    joker, four, red2 = p.many("Joker", "Joker +4", "2 rouge")
    state = rig(2, [[joker, four, red2, p("9 bleu")], p.many("4 jaune", "5 jaune", "6 jaune")],
                p("7 rouge"))  # fmt: skip
    assert basic_choice(state, 0) == Play(red2)
    state = rig(2, [[joker, p("9 bleu"), p("8 bleu")], p.many("4 jaune", "5 jaune", "6 jaune")],
                p("7 rouge"))  # fmt: skip
    assert basic_choice(state, 0) == Play(joker, BLEU)  # nothing else fits: the colour it holds


def test_basic_attacks_a_player_about_to_go_out() -> None:
    p = Pool()
    plus2 = p("+2 rouge")
    green5 = p("5 vert")
    hand = [plus2, green5, *p.many("3 vert", "4 vert")]
    top = p("+2 vert")
    calm = rig(3, [hand, p.many("4 jaune", "5 jaune", "6 jaune"), p.many("1 bleu")], top)
    assert basic_choice(calm, 0) == Play(green5)  # stays in green, highest points first
    threat = rig(3, [hand, p.many("4 bleu"), p.many("1 jaune", "2 jaune", "3 jaune")], top)
    assert basic_choice(threat, 0) == Play(plus2)


def test_basic_announces_and_catches() -> None:
    p = Pool()
    red2 = p("2 rouge")
    state = rig(3, [[red2, p("9 bleu")], p.many("4 jaune"), p.many("5 jaune")], p("7 rouge"),
                options={"annonce": True})  # fmt: skip
    assert basic_choice(state, 0) == Play(red2, None, True)
    GAME.apply(state, 0, Play(red2))  # a player who forgot
    bot = GAME.bot("basic")
    assert basic_choice(state, 1) == Catch(0)
    assert bot.interject(state, 2, GAME.legal_actions(state, 2), random.Random(0)) == Catch(0)


def test_basic_chooses_the_colour_it_holds_most() -> None:
    p = Pool()
    state = rigged_deal(3, [p("Joker")])
    hand = state.hand(1)
    action = basic_choice(state, 1)
    assert isinstance(action, ChooseColour)
    counts = [sum(1 for c in hand if COLOUR[c] == k) for k in range(4)]
    assert counts[action.colour] == max(counts)


def test_basic_beats_random_clearly() -> None:
    result = simulate(GAME, 2, 200, 11, ["basic", "random"], {"single_round": True})
    assert result.wins_by_bot()["basic"] > 0.8 * 200
