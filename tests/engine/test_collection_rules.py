"""Collection's rules, one scenario per line of docs/rules/collection.md.

Each scenario deals by hand (``rig``): the draw piles top first, then each seat's pile, reserve
and collection; every other card of the deck goes to the discard, so that each card is still in
exactly one place (``assert_conserved``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import pytest

from pioche_tui.engine.base import BadOptions, IllegalAction
from pioche_tui.engine.collection import GAME
from pioche_tui.engine.collection.actions import (
    DRAWS,
    KEEP_PILE,
    LOCK,
    NEW_PILE,
    PLAY_JOKER,
    RESERVE,
    STOP,
    VALIDATE_NOTHING,
    Action,
    Activate,
    Keep,
    Validate,
)
from pioche_tui.engine.collection.cards import (
    CARD_COUNT,
    DECKS,
    DOUBLE,
    FLIP,
    JOKER,
    KIND,
    PASSE,
    QUANTIQUE,
    RAINBOW,
    SHADOW,
    SPECIAL,
    SUITE_SHADOW_POINTS,
    SWIPE,
)
from pioche_tui.engine.collection.objectives import Combination, points_of
from pioche_tui.engine.collection.rules import (
    OVER,
    QUANTIQUE_CHOICE,
    SHADOW_CHOICE,
    SKIP,
    SPECIAL_CHOICE,
    TURN,
    VALIDATION,
    State,
    bust_odds,
)

from .test_collection_objectives import P, card

A, B = DRAWS
RAINBOWS = [c for c in range(CARD_COUNT) if KIND[c] == RAINBOW]
SHADOWS = [c for c in range(CARD_COUNT) if KIND[c] == SHADOW]
R1, R2, R3 = RAINBOWS[:3]
S1, S2, S3 = SHADOWS[:3]
# Cards that never meet a STOP condition one after the other: values and colours all differ.
SAFE = [card(1, "rouge"), card(2, "jaune"), card(3, "vert"), card(4, "bleu"), card(5, "violet")]


def table(seats: int = 2, mode: str = "classique", seed: int = 1) -> State:
    state: State = GAME.new_game(seats, {"mode": mode}, seed)
    return state


def rig(
    state: State,
    a: Sequence[int] = (),
    b: Sequence[int] = (),
    piles: Mapping[int, Sequence[int]] | None = None,
    reserves: Mapping[int, Sequence[int]] | None = None,
    collections: Mapping[int, Sequence[int]] | None = None,
    current: int = 0,
) -> State:
    """Deal by hand (draw piles given top first); the rest of the deck goes to the discard."""
    piles, reserves, collections = piles or {}, reserves or {}, collections or {}
    placed = [*a, *b]
    for where in (piles, reserves, collections):
        for cards in where.values():
            placed += cards
    assert len(placed) == len(set(placed)), "a card dealt twice"
    state.draw = [list(reversed(a)), list(reversed(b))]
    for seat in range(state.seats):
        state.piles[seat][:] = piles.get(seat, [])
        state.reserves[seat][:] = reserves.get(seat, [])
        state.collections[seat][:] = collections.get(seat, [])
    state.discard[:] = [c for c in state.deck if c not in placed]
    state.held.clear()
    state.current, state.phase = current, TURN
    state.owed, state.rainbow, state.drawn, state.flipped = 0, False, False, False
    assert_conserved(state)
    return state


def places(state: State) -> list[int]:
    found = [*state.draw[0], *state.draw[1], *state.held, *state.discard, *state.scored]
    for lists in (state.piles, state.collections, state.reserves):
        for cards in lists:
            found += cards
    return found


def assert_conserved(state: State) -> None:
    found = places(state)
    assert sorted(found) == sorted(state.deck), "a card lost or in two places"


def play(state: State, *moves: tuple[int, Action]) -> list[str]:
    """Apply moves; return the kinds of the events; check the cards after each."""
    kinds: list[str] = []
    for seat, action in moves:
        kinds += [e.kind for e in GAME.apply(state, seat, action)]
        assert_conserved(state)
    return kinds


def refused(state: State, seat: int, action: Action) -> str:
    """The action is refused with a message and changes nothing."""
    before = snapshot(state)
    with pytest.raises(IllegalAction) as error:
        GAME.apply(state, seat, action)
    assert snapshot(state) == before
    assert action not in GAME.legal_actions(state, seat)
    return str(error.value)


def snapshot(state: State) -> str:
    """Everything in the state, as text (lists compare by value, the generator by its state)."""
    return repr([
        getattr(state, name) if name != "rng" else state.rng.getstate()
        for name in State.__slots__
    ])


def finish_round(state: State, seat: int, last: Iterable[int] = ()) -> None:
    """Empty the draw piles but ``last`` (top of A), then ``seat`` draws it: the round ends."""
    state.discard += state.draw[0] + state.draw[1]
    state.draw = [list(reversed(list(last))), []]
    for c in last:
        state.discard.remove(c)
    state.current, state.phase = seat, TURN
    GAME.apply(state, seat, A)


# --- Players, material, modes ---------------------------------------------------------------


def test_two_to_six_seats() -> None:
    for seats in range(2, 7):
        assert GAME.to_act(table(seats)) == (0,)
    for seats in (1, 7):
        with pytest.raises(BadOptions):
            table(seats)


def test_options_are_checked() -> None:
    assert GAME.options({}) == {"mode": "classique", "single_round": False}
    assert GAME.options({"mode": "decouverte", "single_round": True})["single_round"] is True
    for bad in ({"mode": "turbo"}, {"rounds": 3}, {"single_round": "yes"}):
        with pytest.raises(BadOptions):
            GAME.options(bad)


def test_neighbours() -> None:
    assert table(2).neighbours(0) == (1,)
    assert table(4).neighbours(0) == (1, 3)
    assert table(4).neighbours(2) == (1, 3)


def test_the_decks() -> None:
    classique, decouverte = DECKS["classique"], DECKS["decouverte"]
    assert len(classique) == 78 and len(decouverte) == 72
    kinds = [KIND[c] for c in classique]
    assert kinds.count(0) == 60 and kinds.count(RAINBOW) == 6 and kinds.count(SHADOW) == 6
    assert kinds.count(SPECIAL) == 6
    assert not any(KIND[c] == SPECIAL for c in decouverte)
    for mode, deck in (("classique", classique), ("decouverte", decouverte)):
        state = table(3, mode)
        assert sorted(state.draw[0] + state.draw[1]) == sorted(deck)
        assert len(state.draw[0]) == len(state.draw[1]) == len(deck) // 2
        assert state.max_rounds == (5 if mode == "classique" else 3)


# --- A round -----------------------------------------------------------------------------------


def test_round_set_up_and_starting_seat_moves() -> None:
    state = table(3)
    assert state.round == 1 and state.current == 0
    assert not any(state.piles) and not any(state.collections) and not any(state.reserves)
    rig(state, a=[SAFE[0]], reserves={2: [DOUBLE]})
    play(state, (0, A))  # the last card: nobody has anything to validate
    assert state.round == 2 and state.current == 1  # the next seat starts
    assert not any(state.reserves)  # emptied at the new round
    assert_conserved(state)


def test_round_ends_when_both_piles_are_empty_and_unlocked_piles_are_lost() -> None:
    state = rig(
        table(2), a=[SAFE[0]], piles={1: [SAFE[3]]},
        collections={0: [card(6, "rouge"), card(6, "vert")]},
    )
    kinds = play(state, (0, A))
    assert "lost" in kinds and "round_end" in kinds
    assert not state.piles[0] and not state.piles[1]
    assert state.phase is VALIDATION
    assert GAME.to_act(state) == (0,)  # seat 1 has nothing to validate: done at once
    assert state.validations[1] == ()


def test_a_shadow_as_last_card_is_still_resolved() -> None:
    state = rig(table(2), a=[S1], piles={0: [SAFE[0]]})
    play(state, (0, A))
    assert state.phase is SHADOW_CHOICE
    kinds = play(state, (0, NEW_PILE))
    assert "round_end" in kinds and state.round == 2


# --- A turn ------------------------------------------------------------------------------------


def test_lock_is_the_whole_turn_and_needs_a_pile() -> None:
    state = rig(table(2), a=SAFE, piles={0: [card(6, "rouge")]})
    assert LOCK in GAME.legal_actions(state, 0)
    play(state, (0, LOCK))
    assert state.collections[0] == [card(6, "rouge")] and not state.piles[0]
    assert state.current == 1
    assert LOCK not in GAME.legal_actions(state, 1)
    assert "vide" in refused(state, 1, LOCK)


def test_draw_from_either_pile_but_not_an_empty_one() -> None:
    state = rig(table(2), a=[SAFE[0], SAFE[1]], b=[])
    assert GAME.legal_actions(state, 0)[:1] == (A,)
    assert "vide" in refused(state, 0, B)
    play(state, (0, A))
    assert state.piles[0] == [SAFE[0]]


def test_stop_secures_nothing_and_needs_a_draw() -> None:
    state = rig(table(2), a=SAFE)
    assert "début de tour" in refused(state, 0, STOP)
    play(state, (0, A), (0, STOP))
    assert state.piles[0] == [SAFE[0]] and not state.collections[0]  # unlocked
    assert state.current == 1
    refused(state, 0, A)  # not seat 0's turn any more


def test_after_a_draw_one_may_draw_again_but_not_lock() -> None:
    state = rig(table(2), a=SAFE)
    play(state, (0, A))
    legal = GAME.legal_actions(state, 0)
    assert A in legal and STOP in legal and LOCK not in legal
    refused(state, 0, LOCK)
    play(state, (0, A), (0, A))
    assert state.piles[0] == SAFE[:3]


def test_rainbow_forces_another_draw() -> None:
    state = rig(table(2), a=[R1, SAFE[0], SAFE[1]])
    play(state, (0, A))
    assert state.piles[0] == [R1]
    assert GAME.legal_actions(state, 0) == (A,)
    assert "Rainbow" in refused(state, 0, STOP)
    play(state, (0, A), (0, STOP))
    assert state.piles[0] == [R1, SAFE[0]]


def test_shadow_keep_the_pile_or_start_again_with_the_shadow() -> None:
    state = rig(table(2), a=[S1, S2, SAFE[2]], piles={0: [SAFE[0]], 1: [SAFE[1]]})
    play(state, (0, A))
    assert state.phase is SHADOW_CHOICE and state.held == [S1]
    assert set(GAME.legal_actions(state, 0)) == {KEEP_PILE, NEW_PILE}
    play(state, (0, KEEP_PILE))
    assert state.piles[0] == [SAFE[0]] and S1 in state.discard and state.current == 1
    play(state, (1, A), (1, NEW_PILE))
    assert state.piles[1] == [S2] and SAFE[1] in state.discard


def test_joker_answers_a_shadow_and_the_turn_goes_on() -> None:
    state = rig(table(2), a=[S1, SAFE[1], SAFE[2]], piles={0: [SAFE[0]]}, reserves={0: [JOKER]})
    play(state, (0, A))
    assert PLAY_JOKER in GAME.legal_actions(state, 0)
    kinds = play(state, (0, PLAY_JOKER))
    assert "joker" in kinds
    assert state.phase is TURN and state.current == 0
    assert state.piles[0] == [SAFE[0]] and {S1, JOKER} <= set(state.discard)
    assert STOP in GAME.legal_actions(state, 0) and A in GAME.legal_actions(state, 0)


def test_joker_needs_a_shadow_and_otherwise_does_nothing() -> None:
    state = rig(table(2), a=SAFE, reserves={0: [JOKER]})
    refused(state, 0, PLAY_JOKER)
    play(state, (0, Activate(JOKER)))
    assert JOKER in state.discard and state.phase is TURN and state.current == 0
    play(state, (0, A))  # the turn goes on


def test_special_card_activate_or_reserve() -> None:
    state = rig(table(3), a=[DOUBLE, SAFE[0], PASSE, SAFE[1]])
    play(state, (0, A))
    assert state.phase is SPECIAL_CHOICE and state.held == [DOUBLE]
    legal = GAME.legal_actions(state, 0)
    assert RESERVE in legal and Activate(DOUBLE, 1) in legal and Activate(DOUBLE, 2) in legal
    assert "autre joueur" in refused(state, 0, Activate(DOUBLE, 0))
    play(state, (0, RESERVE))
    assert state.reserves[0] == [DOUBLE] and state.phase is TURN
    play(state, (0, A), (0, A), (0, Activate(PASSE, 2)))
    assert state.skips[2] == 1 and PASSE in state.discard and state.phase is TURN


def test_full_reserve_makes_room_or_activates_the_new_card() -> None:
    state = rig(
        table(2), a=[FLIP, *SAFE], reserves={0: [DOUBLE, SWIPE]}, piles={1: [card(6, "violet")]}
    )
    play(state, (0, A))
    legal = GAME.legal_actions(state, 0)
    assert RESERVE not in legal
    assert "pleine" in refused(state, 0, RESERVE)
    assert Activate(FLIP) in legal and Activate(DOUBLE, 1) in legal and Activate(SWIPE, 1) in legal
    play(state, (0, Activate(DOUBLE, 1)))  # makes room: the Flip takes the freed slot
    assert state.reserves[0] == [SWIPE, FLIP] and state.doubles[1] == 1
    assert state.phase is TURN


# --- STOP conditions ---------------------------------------------------------------------------


def test_two_cards_of_one_value_lose_the_pile() -> None:
    state = rig(table(2), a=[card(4, "vert"), SAFE[0]], piles={0: [SAFE[1], card(4, "rouge")]})
    kinds = play(state, (0, A))
    assert "bust" in kinds and not state.piles[0] and state.current == 1
    assert card(4, "rouge") in state.discard


def test_three_cards_of_one_colour_lose_the_pile() -> None:
    reds = [card(1, "rouge"), card(3, "rouge"), card(5, "rouge")]
    state = rig(table(2), a=[reds[2], SAFE[1]], piles={0: reds[:2]})  # across turns
    assert "bust" in play(state, (0, A))
    assert not state.piles[0]


def test_rainbow_and_shadow_break_a_run() -> None:
    state = rig(table(2), a=[card(4, "vert"), card(5, "rouge"), SAFE[2]],
                piles={0: [card(4, "rouge"), R1], 1: [card(1, "rouge"), card(2, "rouge"), S1]})
    assert "bust" not in play(state, (0, A), (0, STOP))
    assert state.piles[0] == [card(4, "rouge"), R1, card(4, "vert")]
    assert "bust" not in play(state, (1, A))  # rouge, rouge, Shadow, rouge
    assert len(state.piles[1]) == 4


def test_odds_of_losing_the_pile_from_unseen_cards() -> None:
    state = rig(table(2), a=[card(6, "vert"), card(2, "bleu")], b=[card(4, "rouge")],
                piles={0: [card(6, "rouge")]})
    # Unseen: 6 vert, 2 bleu, 4 rouge; only the 6 ends the pile (one red is not a run).
    assert bust_odds(state, 0) == (pytest.approx(1 / 3), pytest.approx(1 / 3))
    assert bust_odds(rig(table(2), a=[card(6, "vert")]), 0) == (0.0, None)  # empty pile


def test_odds_forget_no_card_the_seat_has_seen_leave() -> None:
    """Seat 0's Flip shows 6 vert on top of A; seat 1's Quantique takes it and discards it face
    down. Seat 0 still knows it is out of the draw piles: its odds do not count it."""
    state = rig(table(2), a=[card(6, "vert"), card(1, "jaune"), card(2, "bleu"), card(3, "vert"),
                             card(5, "jaune")],
                b=[card(4, "rouge"), card(1, "violet")],
                piles={0: [card(6, "rouge")]}, reserves={0: [FLIP], 1: [QUANTIQUE]})
    play(state, (0, Activate(FLIP)), (0, STOP), (1, Activate(QUANTIQUE, None, 0)),
         (1, Keep(card(2, "bleu"))))
    assert state.current == 0 and card(6, "vert") in state.private_discards[1]
    # Unseen by seat 0: 3 vert and 5 jaune (A), 1 violet (B, under the 4 rouge it saw), 1 jaune
    # (discarded by the Quantique): none is a 6. B's top is the 4 rouge it saw.
    assert bust_odds(state, 0) == (0.0, 0.0)


# --- Special cards -----------------------------------------------------------------------------


def test_double_forces_two_draws_and_no_lock() -> None:
    state = rig(table(2), a=[*SAFE, card(6, "violet")], piles={1: [card(6, "jaune")]},
                reserves={0: [DOUBLE]})
    play(state, (0, Activate(DOUBLE, 1)), (0, A), (0, STOP))
    assert state.current == 1 and state.owed == 2
    assert LOCK not in GAME.legal_actions(state, 1)
    assert "Double" in refused(state, 1, LOCK)
    play(state, (1, A))
    assert "Double" in refused(state, 1, STOP)
    play(state, (1, A), (1, STOP))
    assert state.current == 0


def test_doubles_add_up_and_a_rainbow_draw_counts() -> None:
    state = rig(table(2), a=[SAFE[0], R1, *SAFE[1:]], reserves={0: [DOUBLE]})
    state.doubles[1] = 1
    play(state, (0, Activate(DOUBLE, 1)), (0, A), (0, STOP))
    assert state.owed == 4
    play(state, (1, A))  # a Rainbow: counts, and forces one more
    assert state.owed == 3 and GAME.legal_actions(state, 1) == (A,)
    play(state, (1, A), (1, A))
    assert STOP not in GAME.legal_actions(state, 1)
    play(state, (1, A))
    assert STOP in GAME.legal_actions(state, 1)


def test_a_bust_cancels_the_double() -> None:
    state = rig(table(2), a=[SAFE[0], card(1, "vert"), *SAFE[1:]], reserves={0: [DOUBLE]},
                piles={1: [card(1, "jaune")]})
    play(state, (0, Activate(DOUBLE, 1)), (0, A), (0, STOP))
    assert "bust" in play(state, (1, A))
    assert state.current == 0 and state.owed == 0


def test_passe_skips_the_next_turn_reserve_still_usable() -> None:
    state = rig(table(3), a=SAFE, piles={1: [card(6, "vert")]},
                reserves={0: [PASSE], 1: [DOUBLE, JOKER]})
    kinds = play(state, (0, Activate(PASSE, 1)), (0, A), (0, STOP))
    assert "skip" in kinds and state.phase is SKIP and state.current == 1
    legal = GAME.legal_actions(state, 1)
    assert A not in legal and LOCK not in legal
    assert Activate(DOUBLE, 0) in legal and Activate(JOKER) not in legal  # the Joker waits
    assert "Joker" in refused(state, 1, Activate(JOKER))
    play(state, (1, Activate(DOUBLE, 2)))
    assert state.current == 2 and state.piles[1] == [card(6, "vert")]  # pile unchanged
    assert state.reserves[1] == [JOKER]


def test_a_skipped_turn_with_nothing_to_play_passes_by_itself() -> None:
    state = rig(table(2), a=SAFE, reserves={0: [PASSE]})
    state.skips[0] = 1
    kinds = play(state, (0, Activate(PASSE, 1)), (0, A), (0, STOP))
    assert kinds.count("skip") == 2  # seat 1 skipped, then seat 0's own pending skip
    assert state.current == 1 and state.phase is TURN


def test_double_on_a_player_who_then_skips_waits_for_the_played_turn() -> None:
    state = rig(table(2), a=SAFE, reserves={0: [DOUBLE, PASSE]})
    play(state, (0, Activate(DOUBLE, 1)), (0, Activate(PASSE, 1)), (0, A), (0, STOP))
    # Seat 1's turn is skipped; seat 0 plays again; then seat 1 plays under the Double.
    assert state.current == 0 and state.doubles[1] == 1
    play(state, (0, A), (0, STOP))
    assert state.current == 1 and state.owed == 2 and state.doubles[1] == 0


def test_flip_shows_the_tops_to_its_player_alone_then_draw_or_stop() -> None:
    state = rig(table(3), a=[SAFE[0], SAFE[1]], b=[SAFE[2]], reserves={0: [FLIP, DOUBLE]})
    events = GAME.apply(state, 0, Activate(FLIP))
    flip = next(e for e in events if e.kind == "flip")
    assert flip.secret == (SAFE[0], SAFE[2])
    assert flip.seen_by(1).secret == () and flip.seen_by(None).secret == ()
    assert GAME.view(state, 0).peek == (SAFE[0], SAFE[2])
    assert GAME.view(state, 1).peek == (None, None) == GAME.view(state, None).peek
    assert set(GAME.legal_actions(state, 0)) == {A, B, STOP}  # no lock, no other card
    refused(state, 0, Activate(DOUBLE, 1))
    play(state, (0, B))
    assert GAME.view(state, 0).peek == (SAFE[0], None)  # B's top is gone; A's still known


def test_swipe_exchanges_piles_with_a_neighbour_without_stop_check() -> None:
    reds = [card(2, "rouge"), card(4, "rouge")]
    state = rig(table(4), a=SAFE, piles={0: [card(3, "rouge")], 1: reds, 2: [card(6, "vert")]},
                reserves={0: [SWIPE]})
    assert Activate(SWIPE, 2) not in GAME.legal_actions(state, 0)  # not a neighbour
    assert "voisin" in refused(state, 0, Activate(SWIPE, 2))
    play(state, (0, Activate(SWIPE, 1)))
    assert state.piles[0] == reds and state.piles[1] == [card(3, "rouge")]
    locked = snapshot(state)
    play(state, (0, LOCK))  # before the lock/draw choice: the swapped pile may be locked
    assert state.collections[0] == reds and locked != snapshot(state)


def test_the_stop_check_spans_a_swapped_pile() -> None:
    reds = [card(2, "rouge"), card(4, "rouge")]
    state = rig(table(2), a=[card(6, "rouge"), *SAFE[1:]], piles={1: reds}, reserves={0: [SWIPE]})
    assert "bust" in play(state, (0, Activate(SWIPE, 1)), (0, A))


def test_swipe_with_an_empty_pile() -> None:
    state = rig(table(2), a=SAFE, piles={1: [card(6, "vert")]}, reserves={0: [SWIPE]})
    play(state, (0, Activate(SWIPE, 1)))
    assert state.piles[0] == [card(6, "vert")] and state.piles[1] == []
    both_empty = rig(table(2), a=SAFE, reserves={0: [SWIPE]})
    assert "vides" in refused(both_empty, 0, Activate(SWIPE, 1))


def test_quantique_three_cards_keep_one() -> None:
    state = rig(table(2), a=[SAFE[0], SAFE[1], SAFE[2], SAFE[3]], piles={0: [card(6, "rouge")]},
                reserves={0: [QUANTIQUE]})
    events = GAME.apply(state, 0, Activate(QUANTIQUE, pile=0))
    quantique = next(e for e in events if e.kind == "quantique")
    assert quantique.secret == (SAFE[0], SAFE[1], SAFE[2]) and quantique.seen_by(1).secret == ()
    assert state.phase is QUANTIQUE_CHOICE
    assert GAME.view(state, 0).quantique == (SAFE[0], SAFE[1], SAFE[2])
    assert GAME.view(state, 1).quantique == () and GAME.view(state, 1).held == ()
    assert "pas partie" in refused(state, 0, Keep(SAFE[3]))
    play(state, (0, Keep(SAFE[1])))
    assert state.piles[0] == [card(6, "rouge"), SAFE[1]]
    assert {SAFE[0], SAFE[2]} <= set(state.discard) and state.current == 1  # the turn ended


def test_quantique_kept_cards_follow_their_rules() -> None:
    # A classic card that busts, a Rainbow with no extra draw, a Shadow's choice (no Joker).
    six = card(6, "rouge")
    bust = rig(table(2), a=[card(6, "vert"), *SAFE], piles={0: [six]}, reserves={0: [QUANTIQUE]})
    assert "bust" in play(bust, (0, Activate(QUANTIQUE, pile=0)), (0, Keep(card(6, "vert"))))
    rainbow = rig(table(2), a=[R1, *SAFE], reserves={0: [QUANTIQUE]})
    play(rainbow, (0, Activate(QUANTIQUE, pile=0)), (0, Keep(R1)))
    assert rainbow.piles[0] == [R1] and rainbow.current == 1
    shadow = rig(table(2), a=[S1, *SAFE], piles={0: [six]}, reserves={0: [QUANTIQUE, JOKER]})
    play(shadow, (0, Activate(QUANTIQUE, pile=0)), (0, Keep(S1)))
    assert shadow.phase is SHADOW_CHOICE and PLAY_JOKER not in GAME.legal_actions(shadow, 0)
    play(shadow, (0, NEW_PILE))
    assert shadow.piles[0] == [S1] and shadow.current == 1


def test_quantique_keeps_a_special_card_only_into_a_free_slot() -> None:
    state = rig(table(2), a=[FLIP, *SAFE], reserves={0: [QUANTIQUE, DOUBLE]})
    play(state, (0, Activate(QUANTIQUE, pile=0)))
    assert Keep(FLIP) in GAME.legal_actions(state, 0)  # the Quantique freed its slot
    play(state, (0, Keep(FLIP)))
    assert state.reserves[0] == [DOUBLE, FLIP]
    # A Quantique just drawn, the reserve full: a special card among its three stays out.
    full = rig(table(2), a=[QUANTIQUE, FLIP, *SAFE], reserves={0: [DOUBLE, SWIPE]})
    play(full, (0, A), (0, Activate(QUANTIQUE, pile=0)))
    assert Keep(FLIP) not in GAME.legal_actions(full, 0)
    assert "pleine" in refused(full, 0, Keep(FLIP))


def test_quantique_near_the_end_of_the_piles() -> None:
    state = rig(table(2), a=[SAFE[0]], b=[SAFE[1]], reserves={0: [QUANTIQUE]},
                collections={0: [card(6, "rouge"), card(6, "vert")]})
    events = GAME.apply(state, 0, Activate(QUANTIQUE, pile=0))
    assert next(e for e in events if e.kind == "quantique").secret == (SAFE[0], SAFE[1])
    assert not state.draw[0] and not state.draw[1]
    kinds = play(state, (0, Keep(SAFE[1])))
    assert "round_end" in kinds  # both piles emptied: the round ends after the choice
    assert "Quantique" in refused(rig(table(2), a=[], b=SAFE, reserves={0: [QUANTIQUE]}), 0,
                                  Activate(QUANTIQUE, pile=0))


def test_reserve_cards_only_in_their_owners_turn() -> None:
    state = rig(table(2), a=SAFE, reserves={1: [DOUBLE]})
    assert GAME.legal_actions(state, 1) == ()
    assert "pas votre tour" in refused(state, 1, Activate(DOUBLE, 0))


# --- Validation and the scorecard ----------------------------------------------------------


def pair_of(value: int) -> list[int]:
    return [card(value, "rouge"), card(value, "vert")]


def test_validation_is_simultaneous_and_hidden_until_all_chose() -> None:
    state = rig(table(3), a=[SAFE[0]], collections={0: pair_of(2), 1: pair_of(3), 2: pair_of(4)})
    play(state, (0, A))
    assert state.phase is VALIDATION and GAME.to_act(state) == (0, 1, 2)
    mine = Validate((Combination(1, tuple(sorted(pair_of(3))), 10),))
    kinds = play(state, (1, mine))
    assert kinds == ["validated"]
    assert GAME.view(state, 0).seats[1].validated and not GAME.view(state, 0).seats[0].validated
    assert state.scorecards[1][0] == 0  # not scored before everybody has chosen
    assert "déjà" in refused(state, 1, VALIDATE_NOTHING)
    play(state, (0, VALIDATE_NOTHING), (2, Validate(GAME.view(state, 2).best)))
    assert state.scorecards[1][0] == 10 and state.scorecards[2][0] == 10
    assert state.scorecards[0][0] == 0  # refused: open for later
    assert state.last_results[1] == mine.combos and state.round == 2


def test_any_valid_selection_and_only_valid_ones() -> None:
    cards = [*pair_of(2), card(2, "bleu"), *pair_of(5)]
    state = rig(table(2), a=[SAFE[0]], collections={0: cards})
    state.round = state.max_rounds  # the last round: the cards stay where scoring put them
    play(state, (0, A))
    brelan = Combination(3, tuple(sorted(cards[:3])), P[3])
    paire = Combination(1, tuple(sorted(pair_of(5))), P[1])
    overlap = Combination(1, tuple(sorted(pair_of(2))), P[1])
    assert "une carte" in refused(state, 0, Validate((brelan, overlap)))
    assert "une fois" in refused(state, 0, Validate((paire, overlap)))
    assert f"vaut {P[1]}" in refused(state, 0, Validate((Combination(1, paire.cards, 20),)))
    not_mine = Combination(1, tuple(sorted([card(6, "rouge"), card(6, "vert")])), P[1])
    assert "collection" in refused(state, 0, Validate((not_mine,)))
    wrong = Combination(8, tuple(sorted(cards[:4])), P[8])
    assert "remplissent" in refused(state, 0, Validate((wrong,)))
    play(state, (0, Validate((brelan, paire))))
    assert state.scorecards[0][:3] == [P[1], 0, P[3]]
    assert sorted(state.scored) == sorted(cards)  # used cards set aside
    assert SAFE[0] in state.discard  # the lost pile (and any unused card) discarded


def test_a_validated_objective_is_fixed() -> None:
    state = rig(table(2), a=[SAFE[0]], collections={0: [*pair_of(2), S1]})
    state.scorecards[0][0] = 10
    play(state, (0, A))
    paire = Combination(1, tuple(sorted([card(2, "rouge"), S1])), P[1] + 10)
    assert "ouvert" in refused(state, 0, Validate((paire,)))


def test_wild_cards_in_the_scorecard() -> None:
    assert points_of(1, [card(2, "rouge"), S1]) == P[1] + 10
    assert points_of(1, [card(2, "rouge"), R1]) == P[1]
    assert points_of(10, [S1, S2, S3]) == SUITE_SHADOW_POINTS
    assert points_of(10, [R1, R2, R3]) == P[10]


# --- End of the game ---------------------------------------------------------------------------


def test_completing_the_scorecard_ends_the_game_after_the_round() -> None:
    state = rig(table(2), a=[SAFE[0]], collections={0: pair_of(2)})
    state.scorecards[0][1:] = [20, 25, 30, 35, 40, 45, 50, 60, 50]
    state.scorecards[1][:] = [10, 20, 25, 30, 35, 40, 45, 50, 60, 0]
    play(state, (0, A))
    play(state, (0, Validate(GAME.view(state, 0).best)))
    assert state.phase is OVER and GAME.to_act(state) == ()
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (0,) and outcome.rounds == 1
    assert outcome.scores == (sum(state.scorecards[0]), sum(state.scorecards[1]))
    assert "complet" in outcome.reason
    refused(state, 0, A)


def test_the_game_ends_after_the_last_round() -> None:
    state = table(2, "decouverte")
    for _ in range(3):
        finish_round(state, state.current, [SAFE[0]])
        while state.phase is VALIDATION:  # (nothing to fill: done at once)
            GAME.apply(state, GAME.to_act(state)[0], VALIDATE_NOTHING)
    assert state.phase is OVER and state.round == 3
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (0, 1)  # all even: shared


@pytest.mark.parametrize(
    ("mode", "cards", "winners"),
    [
        ("classique", ([60, 0, 0], [10, 10, 10]), (0,)),  # points first
        ("decouverte", ([60, 0, 0], [10, 10, 10]), (1,)),  # objectives first
        ("classique", ([30, 0, 0], [10, 10, 10]), (1,)),  # even points: more objectives
        ("decouverte", ([20, 20, 0], [10, 10, 0]), (0,)),  # even objectives: points
        ("classique", ([10, 20, 0], [20, 10, 0]), (0, 1)),  # all even: shared
    ],
)
def test_winners_and_tie_breaks(
    mode: str, cards: tuple[list[int], list[int]], winners: tuple[int, ...]
) -> None:
    state = table(2, mode)
    for seat in (0, 1):
        state.scorecards[seat][:3] = cards[seat]
    state.round = state.max_rounds
    finish_round(state, 0, [SAFE[0]])
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == winners


def test_a_special_card_with_nothing_to_act_on_is_played_for_nothing() -> None:
    # The last card is a Quantique, the reserve full of cards that cannot act either.
    state = rig(table(2), a=[QUANTIQUE], reserves={0: [FLIP, SWIPE]})
    play(state, (0, A))
    assert GAME.legal_actions(state, 0) == [Activate(QUANTIQUE)]
    assert "rien" in refused(state, 0, Activate(QUANTIQUE, pile=0))
    kinds = play(state, (0, Activate(QUANTIQUE)))
    assert kinds[0] == "activate"
    assert "round_end" in kinds and state.round == 2  # nothing to validate: the next round
    # A Swipe when every pile is empty: played for nothing, or kept.
    swipe = rig(table(2), a=[SWIPE, *SAFE])
    play(swipe, (0, A))
    assert set(GAME.legal_actions(swipe, 0)) == {Activate(SWIPE), RESERVE}
