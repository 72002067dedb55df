"""Seeded sweeps of whole Collection games over every seat count and both modes.

After every action: each card is in exactly one place, the seats to act and their legal actions
make sense, no view shows a seat a card it may not see, every event's secret is its own seat's,
every action survives the wire. At the end: the game ended within its rounds, the scores are the
validated objectives, and replaying the seed and the actions gives the very same state. Illegal
actions are refused and change nothing. The default run is quick; ``-m slow`` sweeps more.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pioche_tui.engine.base import IllegalAction, derive_seed, new_rng
from pioche_tui.engine.collection import GAME
from pioche_tui.engine.collection.actions import (
    DRAWS,
    KEEP_PILE,
    LOCK,
    NEW_PILE,
    PLAY_JOKER,
    RESERVE,
    STOP,
    Action,
    Activate,
    Keep,
    Validate,
)
from pioche_tui.engine.collection.cards import (
    CARD_COUNT,
    FIRST_SPECIAL,
    MODES,
    OBJECTIVES,
    SUITE_SHADOW_POINTS,
)
from pioche_tui.engine.collection.objectives import Combination, points_of
from pioche_tui.engine.collection.rules import (
    OVER,
    QUANTIQUE_CHOICE,
    VALIDATION,
    State,
    known_tops,
)
from pioche_tui.engine.collection.views import CollectionView, SeatView

from .test_collection_rules import assert_conserved, snapshot

CONFIGS = [(seats, mode) for seats in range(2, 7) for mode in MODES]
MAX_ACTIONS = 20_000  # far more than any game takes: a game that does not end fails


def every_action(state: State) -> Iterator[Action]:
    """Every action a seat could send outside validation (legal or not)."""
    yield from (LOCK, STOP, RESERVE, KEEP_PILE, NEW_PILE, PLAY_JOKER, *DRAWS, Keep(None))
    for card in range(FIRST_SPECIAL, CARD_COUNT):
        yield Activate(card)
        yield from (Activate(card, target) for target in range(state.seats))
        yield from (Activate(card, None, pile) for pile in (0, 1))
    yield from (Keep(card) for card in state.held)


def hidden_from(state: State, viewer: int | None) -> set[int]:
    """The cards ``viewer`` must not see: the draw piles (less the tops its Flip showed) and
    another seat's Quantique cards while it chooses."""
    hidden = set(state.draw[0]) | set(state.draw[1])
    if viewer is not None:
        hidden -= set(known_tops(state, viewer))
    if state.phase is QUANTIQUE_CHOICE and viewer != state.current:
        hidden |= set(state.held)
    return hidden


def cards_in(value: Any) -> Iterator[int]:
    """Every card id a view carries as where it is now (the last round's results name cards
    that everybody saw validated, since dealt again: history, not places)."""
    if isinstance(value, Combination):
        yield from value.cards
    elif isinstance(value, Validate):
        for combo in value.combos:
            yield from combo.cards
    elif isinstance(value, Activate | Keep):
        if value.card is not None:
            yield value.card
    elif isinstance(value, SeatView):
        yield from (*value.pile, *value.collection, *value.reserve)
    elif isinstance(value, CollectionView):
        yield from (*value.held, *value.quantique, *(c for c in value.peek if c is not None))
        for item in (*value.seats, *value.legal, *value.combinations, *value.best):
            yield from cards_in(item)


def check_views(state: State) -> None:
    for viewer in [None, *range(state.seats)]:
        view = GAME.view(state, viewer)
        hash(view)  # frozen dataclasses of tuples, all the way down
        leaked = set(cards_in(view)) & hidden_from(state, viewer)
        assert not leaked, f"seat {viewer} sees hidden cards {leaked}"
        if viewer is None:
            assert view.legal == () and view.risk is None and view.combinations == ()
        elif state.phase is VALIDATION:
            assert view.combinations == state.offers[viewer]
            assert bool(view.best) == bool(view.combinations)
        if viewer != state.current or state.phase in (VALIDATION, OVER):
            assert view.risk is None


def check_state(state: State) -> None:
    assert_conserved(state)
    actors = GAME.to_act(state)
    assert GAME.interjectors(state) == ()
    if state.phase is OVER:
        assert actors == () and GAME.outcome(state) is not None
        return
    assert actors, "nobody to act in a game not over"
    if state.phase is not VALIDATION:
        assert actors == (state.current,)
    for seat in range(state.seats):
        legal = GAME.legal_actions(state, seat)
        assert bool(legal) == (seat in actors)


def check_end(state: State) -> None:
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert 1 <= outcome.rounds == state.round <= MODES[state.mode].max_rounds
    for seat, card in enumerate(state.scorecards):
        assert outcome.scores[seat] == sum(card)
        for objective, points in enumerate(card, 1):
            possible = {0, OBJECTIVES[objective - 1].points, OBJECTIVES[objective - 1].points + 10}
            if objective == 10:
                possible = {0, OBJECTIVES[9].points, SUITE_SHADOW_POINTS}
            assert points in possible
    complete = any(all(card) for card in state.scorecards)
    assert complete or outcome.rounds == MODES[state.mode].max_rounds
    # Places (what the podium and the ratings read): by the mode's order, ties shared.
    done = state.objectives_done()
    keys = [(outcome.scores[s], done[s]) for s in range(state.seats)]
    if MODES[state.mode].ranking != "points":
        keys = [(objectives, points) for points, objectives in keys]
    assert [s for s, p in enumerate(outcome.places) if p == 1] == list(outcome.winners)
    assert all((outcome.places[a] < outcome.places[b]) == (keys[a] > keys[b])
               for a in range(state.seats) for b in range(state.seats))
    for combos in state.last_results:
        for combo in combos:
            assert points_of(combo.objective, combo.cards) == combo.points


def play_game(
    seats: int, mode: str, seed: int, bots: list[str], checks: bool = True
) -> tuple[State, list[tuple[int, Any]]]:
    """Play to the end, checking as it goes; return the state and the log (seat, wire)."""
    state: State = GAME.new_game(seats, {"mode": mode}, seed)
    players = [GAME.bot(name) for name in bots]
    rngs = [new_rng(derive_seed(seed, 1000 + s)) for s in range(seats)]
    probe = random.Random(seed)
    log: list[tuple[int, Any]] = []
    for _ in range(MAX_ACTIONS):
        if checks:
            check_state(state)
            check_views(state)
        actors = GAME.to_act(state)
        if not actors:
            break
        seat = actors[0]
        legal = GAME.legal_actions(state, seat)
        action = players[seat].choose(state, seat, legal, rngs[seat])
        if state.phase is not VALIDATION:
            assert action in legal, f"{bots[seat]} chose an illegal {action}"
        if checks and probe.random() < 0.05 and state.phase is not VALIDATION:
            refuse_everything_else(state, seat, legal)
        wire = GAME.action_to_wire(action)
        assert GAME.action_from_wire(wire) == action
        for event in GAME.apply(state, seat, action):
            for viewer in [None, *range(seats)]:
                seen = event.seen_by(viewer)
                assert not seen.secret or viewer == event.seat
        log.append((seat, wire))
    else:
        pytest.fail("the game did not end")
    check_end(state)
    return state, log


def refuse_everything_else(state: State, seat: int, legal: Any) -> None:
    """Outside validation the legal list is exact: anything else is refused, changing nothing;
    and nobody else may act."""
    before = snapshot(state)
    for action in every_action(state):
        if action not in legal:
            with pytest.raises(IllegalAction):
                GAME.apply(state, seat, action)
    for other in range(state.seats):
        if other != seat:
            with pytest.raises(IllegalAction):
                GAME.apply(state, other, legal[0])
    assert snapshot(state) == before


def replay(seats: int, mode: str, seed: int, log: list[tuple[int, Any]]) -> State:
    state: State = GAME.new_game(seats, {"mode": mode}, seed)
    for seat, wire in log:
        GAME.apply(state, seat, GAME.action_from_wire(wire))
    return state


def bots_for(seats: int, seed: int) -> list[str]:
    """Mostly random (they try everything), one basic seat in odd seeds."""
    return ["basic" if seed % 2 and seat == 0 else "random" for seat in range(seats)]


@pytest.mark.parametrize(("seats", "mode"), CONFIGS)
def test_sweep(seats: int, mode: str) -> None:
    seed = derive_seed(seats, len(mode))
    state, log = play_game(seats, mode, seed, bots_for(seats, seed))
    assert snapshot(replay(seats, mode, seed, log)) == snapshot(state)


@pytest.mark.slow
@pytest.mark.parametrize(("seats", "mode"), CONFIGS)
def test_long_sweep(seats: int, mode: str) -> None:
    for i in range(6):
        seed = derive_seed(seats, len(mode), i)
        state, log = play_game(seats, mode, seed, bots_for(seats, i))
        assert snapshot(replay(seats, mode, seed, log)) == snapshot(state)


@pytest.mark.parametrize("seats", [2, 4, 6])
def test_basic_bots_play_legal_games(seats: int) -> None:
    for mode in MODES:
        play_game(seats, mode, derive_seed(7, seats), ["basic"] * seats, checks=False)


def test_same_seed_same_game() -> None:
    a, log_a = play_game(3, "classique", 99, ["random"] * 3, checks=False)
    b, log_b = play_game(3, "classique", 99, ["random"] * 3, checks=False)
    assert log_a == log_b and snapshot(a) == snapshot(b)
    _, log_c = play_game(3, "classique", 100, ["random"] * 3, checks=False)
    assert log_c != log_a


# --- The wire: untrusted logs ------------------------------------------------------------------

WIRE_ATOMS = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 100), st.text(max_size=8), st.floats(allow_nan=False)
)
WIRE = st.recursive(WIRE_ATOMS, lambda inner: st.lists(inner, max_size=5), max_leaves=20)
NAMES = st.sampled_from(
    ["lock", "draw", "stop", "activate", "reserve", "shadow", "joker", "keep", "validate"]
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(WIRE, st.tuples(NAMES, WIRE, WIRE, WIRE).map(list), st.lists(NAMES, max_size=2)))
def test_from_wire_refuses_anything_malformed(data: Any) -> None:
    """Either a well-formed action (that goes back to the same wire) or a ValueError."""
    try:
        action = GAME.action_from_wire(data)
    except ValueError:
        return
    assert GAME.action_from_wire(GAME.action_to_wire(action)) == action


def test_from_wire_examples() -> None:
    assert GAME.action_from_wire(["draw", 1]) == DRAWS[1]
    assert GAME.action_from_wire(["activate", FIRST_SPECIAL, None, None]) == Activate(FIRST_SPECIAL)
    assert GAME.action_from_wire(["validate", [[1, [0, 2], 10]]]) == Validate(
        (Combination(1, (0, 2), 10),)
    )
    malformed = (
        ["draw", True], ["draw", 2], ["shadow", 1], ["keep", 78], ["validate", [[11, [], 0]]],
        ["lock", 1], [], "lock", None, ["validate", [[1, [0, 2]]]], ["activate", 72, "1", None],
    )
    for bad in malformed:
        with pytest.raises(ValueError):
            GAME.action_from_wire(bad)

