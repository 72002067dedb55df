"""Both engines: ``apply`` accepts exactly what ``legal_actions`` lists, for every seat number
(out-of-range ones too) and every kind of action, in every phase, over random play.

At each probed moment every candidate action is tried for every seat: a listed one must be
accepted (tried on a copy of the state), anything else refused with IllegalAction and the state
left as it was. Collection's validation is the one place where the legal list is a documented
representative set (any disjoint selection is legal): there a selection is judged by this
file's own reading of the rules (the brute-force checker of test_collection_objectives), and
everything listed must be legal by it.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pioche_tui.engine.base import IllegalAction, derive_seed, new_rng
from pioche_tui.engine.collection import GAME as COLLECTION
from pioche_tui.engine.collection import rules as collection_rules
from pioche_tui.engine.collection.actions import Validate
from pioche_tui.engine.collection.cards import MODES
from pioche_tui.engine.collection.objectives import (
    ALL_OBJECTIVES,
    Combination,
    best_selection,
    combinations,
)
from pioche_tui.engine.defausse import GAME as DEFAUSSE
from pioche_tui.engine.defausse import rules as defausse_rules

from .test_collection_objectives import reference_points
from .test_collection_rules import snapshot
from .test_collection_sweep import every_action
from .test_defausse_sweep import EVERY_ACTION, OPTION_SETS

MAX_ACTIONS = 20_000  # a Collection game ends well before
DEFAUSSE_ACTIONS = 3_000


def seats_to_try(seats: int) -> list[int]:
    return [-1, *range(seats), seats, 99]


def check_exact(
    game: Any,
    state: Any,
    seat: int,
    candidates: Sequence[Any],
    legal: Sequence[Any],
    judge: Callable[[Any], bool],
    freeze: Callable[[Any], Any],
) -> None:
    """Each candidate: accepted if ``judge`` says it is legal (on a copy), else refused with the
    state unchanged."""
    before = freeze(state)
    for action in candidates:
        if judge(action):
            game.apply(copy.deepcopy(state), seat, action)
        else:
            with pytest.raises(IllegalAction):
                game.apply(state, seat, action)
    assert freeze(state) == before, f"a refused action of seat {seat} changed the state"
    for action in legal:
        assert judge(action), f"seat {seat}: {action!r} is listed but not legal"


# --- Défausse -------------------------------------------------------------------------------


def probe_defausse(state: defausse_rules.State, rng: random.Random) -> None:
    for seat in seats_to_try(state.seats):
        legal = DEFAUSSE.legal_actions(state, seat)
        if not 0 <= seat < state.seats:
            assert legal == ()
        candidates = rng.sample(EVERY_ACTION, 25) + list(legal)
        check_exact(DEFAUSSE, state, seat, candidates, legal, legal.__contains__,
                    lambda s: s.snapshot())


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seats=st.integers(2, 10), options=st.sampled_from(OPTION_SETS),
       seed=st.integers(0, 2**32), basic=st.booleans())
def test_defausse_apply_accepts_exactly_the_legal_actions(
    seats: int, options: dict[str, Any], seed: int, basic: bool
) -> None:
    state = DEFAUSSE.new_game(seats, {**options, "single_round": True}, seed)
    rng = random.Random(seed)
    bot = DEFAUSSE.bot("basic" if basic else "random")
    for _ in range(DEFAUSSE_ACTIONS):  # random bots can make a round very long: enough of it
        actors = DEFAUSSE.to_act(state)
        if not actors:
            break
        rare = state.phase is not defausse_rules.PLAY or state.culprit >= 0 or state.pending
        if rng.random() < (0.3 if rare else 0.03):
            probe_defausse(state, rng)
        seat = actors[0]
        DEFAUSSE.apply(state, seat, bot.choose(state, seat, DEFAUSSE.legal_actions(state, seat),
                                               rng))
    probe_defausse(state, rng)  # over (nothing is legal), or where the bots stopped


def test_defausse_out_of_range_seats_are_refused() -> None:
    state = DEFAUSSE.new_game(3, {}, 5)
    for seat in (-1, 3, 99):
        assert DEFAUSSE.legal_actions(state, seat) == ()
        for action in DEFAUSSE.legal_actions(state, state.current):
            before = state.snapshot()
            with pytest.raises(IllegalAction, match="Siège inconnu"):
                DEFAUSSE.apply(state, seat, action)
            assert state.snapshot() == before


# --- Collection -----------------------------------------------------------------------------


def legal_selection(state: collection_rules.State, seat: int, combos: Sequence[Combination]
                    ) -> bool:
    """The rules read again: disjoint cards of the seat's collection, each objective open and
    once, each combination filling its objective for exactly the points it says."""
    if state.phase is not collection_rules.VALIDATION or state.validations[seat] is not None:
        return False
    used: set[int] = set()
    objectives = set()
    for combo in combos:
        if (combo.objective in objectives or not 1 <= combo.objective <= len(ALL_OBJECTIVES)
                or state.scorecards[seat][combo.objective - 1]):
            return False
        if not set(combo.cards) <= set(state.collections[seat]) or used & set(combo.cards):
            return False
        if len(set(combo.cards)) != len(combo.cards):
            return False
        if reference_points(combo.objective, combo.cards) != combo.points:
            return False
        used |= set(combo.cards)
        objectives.add(combo.objective)
    return True


def selections(state: collection_rules.State, seat: int, rng: random.Random
               ) -> Iterator[Validate]:
    """Selections to try for ``seat`` in any phase: good, bad and borderline."""
    yield Validate(())
    mine = state.collections[seat % state.seats]
    every = list(combinations(mine, ALL_OBJECTIVES))  # open or not
    if state.phase is not collection_rules.VALIDATION:
        yield from (Validate((combo,)) for combo in every[:2])
        return
    for combo in every[:12]:
        yield Validate((combo,))
        yield Validate((Combination(combo.objective, combo.cards, combo.points + 5),))
    if len(every) >= 2:
        for _ in range(6):
            yield Validate(tuple(rng.sample(every, rng.randint(2, min(4, len(every))))))
    best = best_selection(mine, ALL_OBJECTIVES)
    yield Validate(best)
    if best:
        yield Validate((*best, best[0]))  # an objective twice
    for other in range(state.seats):  # someone else's cards
        for combo in combinations(state.collections[other], ALL_OBJECTIVES)[:2]:
            yield Validate((combo,))


def probe_collection(state: collection_rules.State, rng: random.Random) -> None:
    for seat in seats_to_try(state.seats):
        legal = COLLECTION.legal_actions(state, seat)
        if not 0 <= seat < state.seats:
            assert legal == ()
        candidates = [*every_action(state), *selections(state, seat, rng)]

        def judge(action: Any, seat: int = seat, legal: Sequence[Any] = legal) -> bool:
            if isinstance(action, Validate) and 0 <= seat < state.seats:
                return legal_selection(state, seat, action.combos)
            return action in legal

        check_exact(COLLECTION, state, seat, candidates, legal, judge, snapshot)


def sweep_collection(seats: int, mode: str, seed: int, basic: int, rare: float = 0.3) -> set[str]:
    """Play one game, probing as it goes; return the phases probed. Random bots try
    everything; the seats below ``basic`` are basic bots, which fill scorecards (so that later
    rounds have closed objectives). States outside a turn are probed at the rate ``rare``."""
    state = COLLECTION.new_game(seats, {"mode": mode}, seed)
    rng = random.Random(seed)
    bots = [COLLECTION.bot("basic" if s < basic else "random") for s in range(seats)]
    rngs = [new_rng(derive_seed(seed, s)) for s in range(seats)]
    phases = set()
    for _ in range(MAX_ACTIONS):
        actors = COLLECTION.to_act(state)
        if not actors:
            break
        rate = {collection_rules.TURN: 0.03, collection_rules.SKIP: 1.0}.get(state.phase, rare)
        if rng.random() < rate:
            phases.add(state.phase)
            probe_collection(state, rng)
        seat = actors[0]
        legal = COLLECTION.legal_actions(state, seat)
        COLLECTION.apply(state, seat, bots[seat].choose(state, seat, legal, rngs[seat]))
    probe_collection(state, rng)
    assert COLLECTION.outcome(state) is not None
    return phases


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seats=st.integers(2, 6), mode=st.sampled_from(sorted(MODES)),
       seed=st.integers(0, 2**32), basic=st.integers(0, 6))
def test_collection_apply_accepts_exactly_the_legal_actions(
    seats: int, mode: str, seed: int, basic: int
) -> None:
    sweep_collection(seats, mode, seed, basic)


def test_collection_probes_reach_every_phase() -> None:
    """Fixed games that go through every phase, probed the same way."""
    phases = sweep_collection(4, "classique", 3, 2, rare=1.0)  # a seed with a skipped turn
    assert phases >= {"turn", "skip", "shadow", "special", "quantique", "validation"}


def test_collection_validate_is_refused_outside_validation() -> None:
    """The defect found: a Validate in a turn was accepted, and once every seat had sent one
    the round was scored with cards still in the draw piles."""
    state = COLLECTION.new_game(2, {}, 3)
    for seat in (0, 1):
        before = snapshot(state)
        with pytest.raises(IllegalAction):
            COLLECTION.apply(state, seat, Validate(()))
        assert snapshot(state) == before
    assert state.round == 1 and state.phase is collection_rules.TURN


def test_collection_out_of_range_seats_are_refused() -> None:
    """-1 used to act for the last seat, a seat past the last to raise IndexError."""
    state = COLLECTION.new_game(3, {}, 8)
    while state.phase is not collection_rules.VALIDATION:  # every seat locks what it can
        seat = state.current
        legal = COLLECTION.legal_actions(state, seat)
        COLLECTION.apply(state, seat, legal[0])
    for seat in (-1, 3, 99):
        assert COLLECTION.legal_actions(state, seat) == ()
        assert COLLECTION.view(state, seat).viewer is None  # a spectator's view
        before = snapshot(state)
        with pytest.raises(IllegalAction, match="Siège inconnu"):
            COLLECTION.apply(state, seat, Validate(()))
        assert snapshot(state) == before
