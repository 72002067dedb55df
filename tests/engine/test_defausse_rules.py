"""One scenario per line of docs/rules/defausse.md: tables set up card by card."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from pioche_tui.engine.base import IllegalAction, events_seen_by
from pioche_tui.engine.defausse import GAME, Catch, ChooseColour, Draw, Keep, Play
from pioche_tui.engine.defausse.cards import (
    COLOUR,
    COLOURS,
    JOKER4,
    KINDS,
    POINTS,
    RANK,
    WILD,
    card_name,
    describe,
)
from pioche_tui.engine.defausse.rules import (
    AFTER_DRAW,
    CHOOSE_COLOUR,
    HAND_SIZE,
    OVER,
    PLAY,
    State,
)

from .defausse_rig import Pool, check_cards, rig, rigged_deal

ROUGE, JAUNE, VERT, BLEU = range(4)


def refused(state: State, seat: int, action: object, match: str = "") -> None:
    """The action raises IllegalAction with a French sentence and changes nothing."""
    before = state.snapshot()
    with pytest.raises(IllegalAction, match=match) as info:
        GAME.apply(state, seat, action)  # type: ignore[arg-type]
    assert str(info.value)
    assert state.snapshot() == before


def kinds(events: list) -> list[str]:
    return [e.kind for e in events]


# --- material ---------------------------------------------------------------------------------


def test_the_deck_has_108_cards_as_the_rules_count_them() -> None:
    names = Counter(card_name(c) for c in range(108))
    for colour in COLOURS:
        assert names[f"0 {colour}"] == 1
        for n in range(1, 10):
            assert names[f"{n} {colour}"] == 2
        for symbol in ("Passe", "Inverse", "+2"):
            assert names[f"{symbol} {colour}"] == 2
    assert names["Joker"] == 4 and names["Joker +4"] == 4
    assert sum(names.values()) == 108


def test_points_in_a_hand() -> None:
    p = Pool()
    assert [POINTS[c] for c in p.many("0 rouge", "7 bleu", "9 vert")] == [0, 7, 9]
    assert {POINTS[c] for c in p.many("Passe jaune", "Inverse rouge", "+2 vert")} == {20}
    assert {POINTS[c] for c in p.many("Joker", "Joker +4")} == {50}
    assert describe(p("Joker +4")) == (None, "Joker +4", 50)
    assert describe(p("5 bleu")) == (BLEU, "5", 5)
    assert [k.name for k in KINDS][-2:] == ["Joker", "Joker +4"]


# --- dealing ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 4, 10])
def test_deal_seven_cards_each_dealer_seat_0_first_player_next(seats: int) -> None:
    five = Pool()("5 rouge")
    state = rigged_deal(seats, [five])
    assert [state.hand_size(s) for s in range(state.seats)] == [HAND_SIZE] * seats
    assert state.dealer == 0 and state.round == 1 and state.discard == [five]
    assert state.current == 1 and state.colour == ROUGE and state.phase == PLAY
    assert len(state.draw) == 108 - HAND_SIZE * seats - 1


def test_first_card_joker4_goes_back_and_another_is_turned() -> None:
    p = Pool()
    four = p("Joker +4")
    state = rigged_deal(4, [four, p("3 vert")])
    assert RANK[state.discard[-1]] != JOKER4
    assert four in state.draw and len(state.discard) == 1
    events = kinds(list(state.opening))
    assert events.count("flip") >= 2 and "reshuffle" in events


def test_first_card_joker_the_first_player_chooses_the_colour_then_plays() -> None:
    p = Pool()
    state = rigged_deal(3, [p("Joker")])
    assert state.phase == CHOOSE_COLOUR and state.current == 1
    assert list(GAME.legal_actions(state, 1)) == [ChooseColour(c) for c in range(4)]
    assert GAME.view(state, 1).colour is None
    refused(state, 1, Draw(), "couleur")
    refused(state, 2, ChooseColour(VERT), "tour")
    events = GAME.apply(state, 1, ChooseColour(VERT))
    assert kinds(events) == ["colour"]
    assert state.colour == VERT and state.phase == PLAY and state.current == 1


def test_first_card_passe_the_first_player_loses_their_turn() -> None:
    p = Pool()
    state = rigged_deal(4, [p("Passe bleu")])
    assert state.current == 2 and "skip" in kinds(list(state.opening))


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_first_card_inverse_reverses_and_the_dealer_plays_first(seats: int) -> None:
    p = Pool()
    state = rigged_deal(seats, [p("Inverse jaune")])
    assert state.current == 0 == state.dealer and state.direction == -1
    GAME.apply(state, 0, Draw())
    if state.phase == AFTER_DRAW:
        GAME.apply(state, 0, Keep())
    assert state.current == seats - 1  # to the dealer's right: the direction is reversed


def test_first_card_plus2_the_first_player_draws_two_and_loses_their_turn() -> None:
    p = Pool()
    state = rigged_deal(4, [p("+2 rouge")], {"cumul": True})  # no answering the first card
    assert [state.hand_size(s) for s in range(state.seats)] == [7, 9, 7, 7]
    assert state.current == 2 and state.pending == 0
    penalty = [e for e in state.opening if e.kind == "penalty"]
    assert penalty[0].seat == 1 and len(penalty[0].secret) == 2


def test_the_dealer_moves_one_seat_each_round() -> None:
    p = Pool()
    last = p("3 rouge")
    state = rig(3, [[last], p.many("5 bleu"), p.many("6 bleu")], p("7 rouge"))
    events = GAME.apply(state, 0, Play(last))
    assert "round_end" in kinds(events) and "round" in kinds(events)
    assert state.round == 2 and state.dealer == 1
    assert [state.hand_size(s) for s in range(state.seats)] == [7, 7, 7]
    check_cards(state)


# --- a turn -----------------------------------------------------------------------------------


def test_match_by_colour_number_or_symbol_or_lay_a_joker() -> None:
    p = Pool()
    red2, blue7, green_passe, joker, blue2 = p.many(
        "2 rouge", "7 bleu", "Passe vert", "Joker", "2 bleu"
    )
    state = rig(2, [[red2, blue7, green_passe, joker, blue2], p.many("4 jaune")], p("7 rouge"))
    legal = GAME.legal_actions(state, 0)
    plays = {a.card for a in legal if isinstance(a, Play)}
    assert plays == {red2, blue7, joker}
    assert [a.colour for a in legal if isinstance(a, Play) and a.card == joker] == [0, 1, 2, 3]
    assert Draw() in legal
    refused(state, 0, Play(green_passe), "ne va pas")
    refused(state, 0, Play(blue2), "ne va pas")
    refused(state, 1, Play(p("4 jaune")), "tour")
    symbol = rig(2, [[green_passe], [blue2]], p("Passe jaune"))
    assert list(GAME.legal_actions(symbol, 0)) == [Play(green_passe), Draw()]


def test_a_joker_needs_a_colour_and_only_a_joker_changes_it() -> None:
    p = Pool()
    joker, red3 = p.many("Joker", "3 rouge")
    state = rig(2, [[joker, red3], p.many("4 jaune")], p("7 rouge"))
    refused(state, 0, Play(joker), "couleur")
    refused(state, 0, Play(joker, 7), "couleur")
    refused(state, 0, Play(red3, BLEU), "Seul un Joker")
    events = GAME.apply(state, 0, Play(joker, JAUNE))
    assert state.colour == JAUNE and state.current == 1
    assert events[0].kind == "play" and events[0].args == (joker, JAUNE)


def test_joker4_only_without_a_card_of_the_active_colour() -> None:
    p = Pool()
    four, red2, blue7 = p.many("Joker +4", "2 rouge", "7 bleu")
    with_red = rig(2, [[four, red2, blue7], p.many("4 jaune")], p("7 rouge"))
    assert all(a.card != four for a in GAME.legal_actions(with_red, 0) if isinstance(a, Play))
    refused(with_red, 0, Play(four, BLEU), "aucune carte de la couleur demandée")
    # a card that matches by number only (blue 7 on red 7) does not forbid the +4
    no_red = rig(2, [[four, blue7], p.many("4 jaune", "5 jaune")], p("7 rouge"))
    legal = GAME.legal_actions(no_red, 0)
    assert Play(four, VERT) in legal and Play(blue7) in legal
    events = GAME.apply(no_red, 0, Play(four, VERT))
    assert kinds(events) == ["play", "penalty"]
    assert no_red.hand_size(1) == 6 and no_red.current == 0 and no_red.colour == VERT


def test_draw_allowed_with_a_playable_card_then_play_the_drawn_card() -> None:
    p = Pool()
    red2, red9 = p.many("2 rouge", "9 rouge")
    drawn = p("5 rouge")
    state = rig(2, [[red2, red9], p.many("4 jaune")], p("7 rouge"), draw=[drawn])
    events = GAME.apply(state, 0, Draw())
    assert events[-1].kind == "draw" and events[-1].secret == (drawn,)
    assert state.phase == AFTER_DRAW and state.current == 0
    assert list(GAME.legal_actions(state, 0)) == [Play(drawn), Keep()]
    refused(state, 0, Play(red2), "seule la carte piochée")
    refused(state, 0, Draw(), "déjà pioché")
    GAME.apply(state, 0, Play(drawn))
    assert state.discard[-1] == drawn and state.current == 1 and state.phase == PLAY


def test_after_a_draw_the_player_may_keep_the_card() -> None:
    p = Pool()
    drawn = p("5 rouge")
    state = rig(2, [p.many("2 bleu"), p.many("4 jaune")], p("7 rouge"), draw=[drawn])
    GAME.apply(state, 0, Draw())
    events = GAME.apply(state, 0, Keep())
    assert kinds(events) == ["keep"] and drawn in state.hand(0) and state.current == 1
    refused(state, 1, Keep(), "rien à garder")


def test_a_drawn_card_that_cannot_be_laid_is_kept() -> None:
    """The drawer still has the turn, with one move: keep it (so nobody else can tell)."""
    p = Pool()
    drawn = p("5 vert")
    state = rig(2, [p.many("2 bleu"), p.many("4 jaune")], p("7 rouge"), draw=[drawn])
    GAME.apply(state, 0, Draw())
    assert state.phase == AFTER_DRAW and state.current == 0 and state.drawn == drawn
    assert list(GAME.legal_actions(state, 0)) == [Keep()]
    refused(state, 0, Play(drawn), "ne va pas")
    events = GAME.apply(state, 0, Keep())
    assert kinds(events) == ["keep"] and state.phase == PLAY and state.current == 1
    assert state.hand_size(0) == 2


@pytest.mark.parametrize("options", [{}, {"annonce": True}, {"cumul": True}])
def test_what_others_see_after_a_draw_does_not_say_whether_the_card_fits(
    options: dict[str, bool],
) -> None:
    """Two tables alike but for the drawn card, one that fits and one that does not: every other
    seat and a spectator see the same events and the same view, draw then keep. (With pioche
    jusqu'à jouer the number of cards drawn is public, and says it: that is the option.)"""
    p = Pool()
    hands = [p.many("2 bleu", "9 jaune"), p.many("4 jaune"), p.many("6 vert")]
    top = p("7 rouge")
    fits, misses = p("5 rouge"), p("5 vert")
    tables = [rig(3, hands, top, draw=[card], options=options) for card in (fits, misses)]
    for action in (Draw(), Keep()):
        events = [GAME.apply(state, 0, action) for state in tables]
        for viewer in (None, 1, 2):
            seen = [events_seen_by(e, viewer) for e in events]
            assert seen[0] == seen[1]
            views = [GAME.view(state, viewer) for state in tables]
            assert views[0] == views[1]
    assert [GAME.view(state, 0).legal for state in tables] == [(), ()]  # seat 1's turn now


def test_a_drawn_joker4_is_playable_only_without_the_active_colour() -> None:
    p = Pool()
    four = p("Joker +4")
    state = rig(2, [p.many("2 rouge"), p.many("4 jaune")], p("7 rouge"), draw=[four])
    GAME.apply(state, 0, Draw())
    assert list(GAME.legal_actions(state, 0)) == [Keep()]  # holds a red card: no +4
    state = rig(2, [p.many("2 bleu"), p.many("4 jaune")], p("7 rouge"), draw=[p("Joker +4")])
    GAME.apply(state, 0, Draw())
    assert state.phase == AFTER_DRAW and len(GAME.legal_actions(state, 0)) == 5


# --- effects ----------------------------------------------------------------------------------


def test_passe_the_next_player_loses_their_turn() -> None:
    p = Pool()
    passe = p("Passe rouge")
    state = rig(3, [[passe, p("1 bleu")], p.many("4 jaune"), p.many("5 jaune")], p("7 rouge"))
    events = GAME.apply(state, 0, Play(passe))
    assert kinds(events) == ["play", "skip"] and events[1].seat == 1 and state.current == 2


def test_inverse_changes_the_direction() -> None:
    p = Pool()
    inverse = p("Inverse rouge")
    hands = [[inverse, p("1 bleu")], p.many("4 jaune"), p.many("5 jaune"), p.many("6 jaune")]
    state = rig(4, hands, p("7 rouge"), current=0)
    events = GAME.apply(state, 0, Play(inverse))
    assert kinds(events) == ["play", "reverse"]
    assert state.direction == -1 and state.current == 3


def test_inverse_with_two_players_acts_as_passe() -> None:
    p = Pool()
    inverse = p("Inverse rouge")
    state = rig(2, [[inverse, p("1 bleu")], p.many("4 jaune")], p("7 rouge"))
    events = GAME.apply(state, 0, Play(inverse))
    assert kinds(events) == ["play", "skip"] and state.current == 0 and state.direction == 1


def test_plus2_the_next_player_draws_two_and_loses_their_turn() -> None:
    p = Pool()
    plus2 = p("+2 rouge")
    drawn = p.many("8 vert", "9 vert")
    state = rig(3, [[plus2, p("1 bleu")], p.many("4 jaune"), p.many("5 jaune")], p("7 rouge"),
                draw=drawn)  # fmt: skip
    events = GAME.apply(state, 0, Play(plus2))
    assert kinds(events) == ["play", "penalty"]
    assert events[1].seat == 1 and events[1].secret == tuple(drawn)
    assert set(state.hand(1)) >= set(drawn) and state.current == 2


def test_joker4_the_next_player_draws_four_and_loses_their_turn() -> None:
    p = Pool()
    four = p("Joker +4")
    state = rig(3, [[four, p("1 bleu")], p.many("4 jaune"), p.many("5 jaune")], p("7 rouge"))
    GAME.apply(state, 0, Play(four, JAUNE))
    assert state.hand_size(1) == 5 and state.current == 2 and state.colour == JAUNE


# --- empty draw pile --------------------------------------------------------------------------


def test_reshuffle_keeps_the_discard_top() -> None:
    p = Pool()
    top = p("7 rouge")
    state = rig(2, [p.many("2 bleu"), p.many("4 jaune")], top, rest="discard")
    assert state.draw == []
    under = set(state.discard[:-1])
    events = GAME.apply(state, 0, Draw())
    assert kinds(events)[0] == "reshuffle"
    assert state.discard == [top]
    drawn = events[-1].secret[0]
    assert drawn in under and set(state.draw) | {drawn} == under
    check_cards(state)


def test_reshuffle_in_the_middle_of_a_penalty() -> None:
    p = Pool()
    plus2, last = p.many("+2 rouge", "8 bleu")
    state = rig(2, [[plus2, p("1 bleu")], p.many("4 jaune")], p("7 rouge"), draw=[last],
                rest="discard")  # fmt: skip
    events = GAME.apply(state, 0, Play(plus2))
    assert kinds(events) == ["play", "reshuffle", "penalty"]
    assert last in events[-1].secret and len(events[-1].secret) == 2
    assert state.discard == [plus2]
    check_cards(state)


def nothing_left(p: Pool, seats: int, hands: list[list[int]], top: int) -> State:
    """Every card in a hand but the top: ``hands`` are completed with the rest, split evenly."""
    placed = {c for h in hands for c in h} | {top}
    rest = [c for c in range(108) if c not in placed]
    full = [list(h) for h in hands]
    for i, card in enumerate(rest):
        full[1 + i % (seats - 1)].append(card)
    return rig(seats, full, top)


def test_nothing_to_draw_a_player_who_can_play_must_play() -> None:
    p = Pool()
    red2 = p("2 rouge")
    state = nothing_left(p, 2, [[red2], []], p("7 rouge"))
    assert state.draw == [] and state.discard == [state.discard[-1]]
    assert list(GAME.legal_actions(state, 0)) == [Play(red2)]
    refused(state, 0, Draw(), "plus rien à piocher")


def test_nothing_to_draw_a_player_who_cannot_play_passes() -> None:
    p = Pool()
    blue2 = p("2 bleu")
    state = nothing_left(p, 2, [[blue2], []], p("7 rouge"))
    assert list(GAME.legal_actions(state, 0)) == [Draw()]
    events = GAME.apply(state, 0, Draw())
    assert kinds(events) == ["pass"] and state.current == 1


def test_with_nothing_left_to_draw_somebody_can_always_play() -> None:
    """Why no round can get stuck: every card but the top is in a hand, so the active colour's
    other cards (24 or 25) are too, and whoever holds one can lay it."""
    rng = random.Random(7)
    for _ in range(300):
        seats = rng.randint(2, 10)
        cards = list(range(108))
        rng.shuffle(cards)
        top = cards.pop()
        hands = [cards[s::seats] for s in range(seats)]
        colour = rng.randrange(4) if COLOUR[top] == WILD else COLOUR[top]
        state = rig(seats, hands, top, colour=colour)
        assert state.draw == [] and len(state.discard) == 1
        playable = []
        for seat in range(seats):
            state.current = seat
            playable += [a for a in GAME.legal_actions(state, seat) if isinstance(a, Play)]
        assert playable


# --- end of a round and score -----------------------------------------------------------------


def test_round_ends_on_the_last_card_and_scores_the_other_hands() -> None:
    p = Pool()
    last = p("3 rouge")
    hand1 = p.many("5 bleu", "Passe vert", "Joker")  # 5 + 20 + 50
    hand2 = p.many("9 jaune", "0 jaune")  # 9 + 0
    state = rig(3, [[last], hand1, hand2], p("7 rouge"))
    state.scores = [10, 20, 30]
    events = GAME.apply(state, 0, Play(last))
    end = next(e for e in events if e.kind == "round_end")
    assert end.seat == 0 and end.args == ((0, 75, 9), 84)
    assert state.scores == [94, 20, 30]
    assert state.last_round is not None and state.last_round.winner == 0
    assert state.last_round.hand_points == (0, 75, 9) and state.last_round.gained == 84


@pytest.mark.parametrize(("last_name", "drawn"), [("+2 rouge", 2), ("Joker +4", 4)])
def test_a_last_plus2_or_joker4_is_still_drawn_and_scored(last_name: str, drawn: int) -> None:
    p = Pool()
    last = p(last_name)
    extra = p.many("9 vert", "9 vert", "8 vert", "8 vert")[:drawn]
    state = rig(2, [[last], p.many("5 bleu")], p("7 rouge"), draw=extra,
                options={"single_round": True})  # fmt: skip
    events = GAME.apply(state, 0, Play(last, None if COLOUR[last] != WILD else BLEU))
    assert kinds(events) == ["play", "penalty", "round_end", "game_end"]
    assert state.last_round is not None
    assert state.last_round.gained == 5 + sum(POINTS[c] for c in extra)


def test_the_game_ends_when_a_score_reaches_the_target() -> None:
    p = Pool()
    last = p("3 rouge")
    state = rig(2, [[last], p.many("Joker", "Joker")], p("7 rouge"), options={"target": 150})
    state.scores = [60, 140]
    events = GAME.apply(state, 0, Play(last))
    assert kinds(events)[-2:] == ["round_end", "game_end"]
    assert state.phase == OVER and GAME.to_act(state) == ()
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.scores == (160, 140) and outcome.winners == (0,) and outcome.rounds == 1
    assert outcome.reason
    for seat in (0, 1):
        assert list(GAME.legal_actions(state, seat)) == []
    refused(state, 1, Draw(), "terminée")
    assert GAME.view(state, None).current is None and GAME.view(state, 0).outcome == outcome


def test_below_the_target_a_new_round_is_dealt() -> None:
    p = Pool()
    last = p("3 rouge")
    state = rig(2, [[last], p.many("Joker", "Joker")], p("7 rouge"), options={"target": 150})
    state.scores = [40, 140]
    GAME.apply(state, 0, Play(last))
    assert GAME.outcome(state) is None and state.round == 2 and state.scores == [140, 140]
    assert GAME.to_act(state) == (state.current,)


def test_single_round_ends_the_game_after_one_round() -> None:
    p = Pool()
    last = p("3 rouge")
    state = rig(3, [[last], p.many("5 bleu"), p.many("6 bleu")], p("7 rouge"),
                options={"single_round": True})  # fmt: skip
    GAME.apply(state, 0, Play(last))
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (0,) and outcome.scores == (11, 0, 0)


# --- option annonce ---------------------------------------------------------------------------

ANNONCE = {"annonce": True}


def test_annonce_offers_both_ways_of_laying_the_second_to_last_card() -> None:
    p = Pool()
    red2, blue9 = p.many("2 rouge", "9 bleu")
    state = rig(3, [[red2, blue9], p.many("4 jaune"), p.many("5 jaune")], p("7 rouge"),
                options=ANNONCE)  # fmt: skip
    legal = GAME.legal_actions(state, 0)
    assert Play(red2) in legal and Play(red2, None, True) in legal
    without = rig(3, [[red2, blue9], p.many("4 vert"), p.many("5 vert")], p("7 rouge"))
    assert Play(red2, None, True) not in GAME.legal_actions(without, 0)
    refused(without, 0, Play(red2, None, True), "pas en jeu")


def test_announcing_at_the_wrong_time_is_refused() -> None:
    p = Pool()
    red2 = p("2 rouge")
    state = rig(2, [[red2, *p.many("9 bleu", "9 bleu")], p.many("4 jaune")], p("7 rouge"),
                options=ANNONCE)  # fmt: skip
    refused(state, 0, Play(red2, None, True), "avant-dernière")


def test_an_announced_last_card_cannot_be_caught() -> None:
    p = Pool()
    red2 = p("2 rouge")
    state = rig(3, [[red2, p("9 bleu")], p.many("4 jaune"), p.many("5 jaune")], p("7 rouge"),
                options=ANNONCE)  # fmt: skip
    events = GAME.apply(state, 0, Play(red2, None, True))
    assert kinds(events) == ["play", "announce"]
    assert state.announced[0] and GAME.view(state, 2).announced == (True, False, False)
    assert GAME.interjectors(state) == () and GAME.view(state, 1).catchable is None
    refused(state, 2, Catch(0), "personne")


def test_a_missing_announcement_is_caught_and_the_culprit_draws_two() -> None:
    p = Pool()
    red2 = p("2 rouge")
    state = rig(4, [[red2, p("9 bleu")], *[p.many(f"{n} jaune") for n in (4, 5, 6)]],
                p("7 rouge"), options=ANNONCE)  # fmt: skip
    GAME.apply(state, 0, Play(red2))
    assert state.current == 1 and GAME.to_act(state) == (1,)
    assert GAME.interjectors(state) == (2, 3)
    assert list(GAME.legal_actions(state, 2)) == [Catch(0)]
    assert Catch(0) in GAME.legal_actions(state, 1)  # the player to act may catch too
    assert list(GAME.legal_actions(state, 0)) == []
    assert GAME.view(state, None).catchable == 0
    refused(state, 0, Catch(0), "vous-même")
    refused(state, 2, Catch(1), "pas oublié")
    events = GAME.apply(state, 3, Catch(0))
    assert kinds(events) == ["catch", "penalty"] and events[0].args == (3,)
    assert state.hand_size(0) == 3 and state.current == 1
    assert GAME.interjectors(state) == () and Catch(0) not in GAME.legal_actions(state, 1)


def test_the_catch_window_closes_when_the_next_player_acts() -> None:
    p = Pool()
    red2 = p("2 rouge")
    state = rig(3, [[red2, p("9 bleu")], p.many("4 jaune"), p.many("5 jaune")], p("7 rouge"),
                options=ANNONCE)  # fmt: skip
    GAME.apply(state, 0, Play(red2))
    assert GAME.interjectors(state) == (2,)
    GAME.apply(state, 1, Draw())
    assert GAME.interjectors(state) == () and GAME.view(state, 2).catchable is None
    refused(state, 2, Catch(0), "personne")


def test_a_culprit_who_plays_again_and_goes_out_can_no_longer_be_caught() -> None:
    """With 2 players a Passe gives the turn back: laying the last card closes the window."""
    p = Pool()
    passe, red9 = p.many("Passe rouge", "9 rouge")
    state = rig(2, [[passe, red9], p.many("4 jaune")], p("7 rouge"),
                options={**ANNONCE, "single_round": True})  # fmt: skip
    GAME.apply(state, 0, Play(passe))
    assert state.current == 0 and GAME.interjectors(state) == (1,)
    GAME.apply(state, 0, Play(red9))
    assert state.phase == OVER and GAME.interjectors(state) == ()


# --- option cumul -----------------------------------------------------------------------------

CUMUL = {"cumul": True}


def test_cumul_a_plus2_answers_a_plus2_and_the_next_draws_the_total() -> None:
    p = Pool()
    red_plus2, blue_plus2 = p.many("+2 rouge", "+2 bleu")
    joker = p("Joker")
    hands = [[red_plus2, p("1 vert")], [blue_plus2, joker, p("7 bleu")], p.many("5 jaune")]
    state = rig(3, hands, p("7 rouge"), options=CUMUL)
    GAME.apply(state, 0, Play(red_plus2))
    assert state.pending == 2 and state.current == 1 and GAME.view(state, 2).pending == 2
    assert list(GAME.legal_actions(state, 1)) == [Play(blue_plus2), Draw()]  # no Joker on a +2
    refused(state, 1, Play(joker, BLEU), "répondez par un \\+2")
    GAME.apply(state, 1, Play(blue_plus2))
    assert state.pending == 4 and state.current == 2
    assert list(GAME.legal_actions(state, 2)) == [Draw()]
    events = GAME.apply(state, 2, Draw())
    assert kinds(events) == ["penalty"] and len(events[0].secret) == 4
    assert state.hand_size(2) == 5 and state.pending == 0 and state.current == 0


@pytest.mark.parametrize("other", ["2 bleu", "2 jaune"])
def test_cumul_a_joker4_answers_a_joker4_without_the_active_colour(other: str) -> None:
    """The +4's own rule still holds when it answers: yellow is asked, so no yellow in hand."""
    p = Pool()
    four_a, four_b = p.many("Joker +4", "Joker +4")
    hands = [[four_a, p("1 vert")], [four_b, p(other)], p.many("5 jaune")]
    state = rig(3, hands, p("7 rouge"), options=CUMUL)
    GAME.apply(state, 0, Play(four_a, JAUNE))
    assert state.pending == 4
    if other == "2 jaune":
        assert list(GAME.legal_actions(state, 1)) == [Draw()]
        return
    assert list(GAME.legal_actions(state, 1)) == [*(Play(four_b, c) for c in range(4)), Draw()]
    GAME.apply(state, 1, Play(four_b, VERT))
    GAME.apply(state, 2, Draw())
    assert state.hand_size(2) == 9 and state.current == 0


def test_cumul_a_last_plus2_passes_on_the_whole_total() -> None:
    p = Pool()
    plus2_a, plus2_b = p.many("+2 rouge", "+2 bleu")
    hands = [[plus2_a, p("1 vert")], [plus2_b], p.many("5 jaune")]
    state = rig(3, hands, p("7 rouge"), options={**CUMUL, "single_round": True})
    GAME.apply(state, 0, Play(plus2_a))
    events = GAME.apply(state, 1, Play(plus2_b))
    penalty = next(e for e in events if e.kind == "penalty")
    assert penalty.seat == 2 and len(penalty.secret) == 4 and state.hand_size(2) == 5


# --- option pioche jusqu'à jouer --------------------------------------------------------------

PIOCHE = {"pioche_jusqua_jouer": True}


def test_pioche_jusqua_jouer_draws_until_a_card_can_be_laid() -> None:
    p = Pool()
    misses = p.many("1 vert", "2 vert", "3 jaune")
    hit = p("5 rouge")
    state = rig(2, [p.many("9 bleu"), p.many("4 jaune")], p("7 rouge"), draw=[*misses, hit],
                options=PIOCHE)  # fmt: skip
    events = GAME.apply(state, 0, Draw())
    assert events[-1].kind == "draw" and events[-1].secret == (*misses, hit)
    assert state.phase == AFTER_DRAW and state.drawn == hit
    assert list(GAME.legal_actions(state, 0)) == [Play(hit), Keep()]
    GAME.apply(state, 0, Keep())
    assert state.hand_size(0) == 5 and state.current == 1


def test_pioche_jusqua_jouer_stops_when_nothing_is_left() -> None:
    p = Pool()
    top = p("7 rouge")
    # seat 1 holds every card that could be laid on a red 7 but those drawn
    misses = p.many("1 vert", "2 vert")
    layable = [c for c in range(108) if c != top and (COLOUR[c] in (ROUGE, WILD) or RANK[c] == 7)]
    rest = [c for c in range(108) if c not in layable and c not in misses and c != top]
    state = rig(2, [rest, layable], top, draw=misses, options=PIOCHE)
    assert state.draw == list(reversed(misses))
    events = GAME.apply(state, 0, Draw())
    assert events[-1].secret == tuple(misses) and list(GAME.legal_actions(state, 0)) == [Keep()]
    GAME.apply(state, 0, Keep())
    assert state.current == 1 and state.phase == PLAY


# --- bad actions ------------------------------------------------------------------------------


def test_bad_actions_are_refused_and_change_nothing() -> None:
    p = Pool()
    red2 = p("2 rouge")
    state = rig(2, [[red2, p("9 bleu")], p.many("4 jaune")], p("7 rouge"))
    refused(state, 1, Draw(), "tour")
    refused(state, 7, Draw(), "Siège inconnu")
    refused(state, 0, Play(p("3 rouge")), "pas cette carte")
    refused(state, 0, Play(500), "inconnue")
    refused(state, 0, Play(red2, None, 1), "Annonce")  # type: ignore[arg-type]
    refused(state, 0, Keep(), "rien à garder")
    refused(state, 0, ChooseColour(BLEU), "pas de couleur")
    refused(state, 0, Catch(1), "personne")
    refused(state, 0, "draw", "inconnue")
