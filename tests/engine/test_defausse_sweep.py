"""Seeded sweeps of whole games over every seat count and option: games end, no card is lost or
duplicated, round scores add up, views and events leak nothing, and a log replays exactly."""

from __future__ import annotations

import copy
import itertools
import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pioche_tui.engine.base import Bot, Event, IllegalAction
from pioche_tui.engine.defausse import GAME, State
from pioche_tui.engine.defausse.cards import POINTS, cards_of
from pioche_tui.engine.defausse.rules import CATCH, CHOOSE, DRAW, KEEP, PLAYS_OR_ANNOUNCE, Action

from .defausse_rig import check_cards, check_events_hide, check_view_hides

FLAGS = ("annonce", "cumul", "pioche_jusqua_jouer")
OPTION_SETS = [
    dict(zip(FLAGS, values, strict=True)) for values in itertools.product((False, True), repeat=3)
]
EVERY_ACTION: list[Action] = [
    *(a for plays in PLAYS_OR_ANNOUNCE for a in plays), DRAW, KEEP, *CHOOSE, *CATCH
]
MAX_ACTIONS = 200_000  # far above any real game: reaching it means a game that never ends


def points(cards: Any) -> int:
    return sum(POINTS[c] for c in cards)


def check_round_end(before: Sequence[int], events: Sequence[Event], state: State) -> None:
    """The round's result matches the hands (``before``: their bit masks before the action):
    what each held, plus the penalty it just drew."""
    if not any(event.kind == "round_end" for event in events):
        return  # (the hands' points are counted only then: this runs after every action)
    expected = [points(cards_of(h)) for h in before]
    for event in events:
        if event.kind == "round_end":
            break
        if event.kind in ("penalty", "draw") and event.seat is not None:
            expected[event.seat] += points(event.secret)
        if event.kind == "play" and event.seat is not None:
            expected[event.seat] -= POINTS[event.args[0]]
    else:
        return
    result = state.last_round
    assert result is not None and event.seat == result.winner
    assert list(result.hand_points) == expected and expected[result.winner] == 0
    assert result.gained == sum(expected) == event.args[1]


def play_checked(
    seats: int,
    options: dict[str, Any],
    seed: int,
    bot_names: Sequence[str],
    *,
    view_every: int = 7,
    probe_every: int = 3,
) -> tuple[State, list[tuple[int, Any]]]:
    """Play one game with bots, checking everything along the way; return the final state and
    its log of ``(seat, wire action)``."""
    state = GAME.new_game(seats, options, seed)
    bots: list[Bot] = [GAME.bot(bot_names[s % len(bot_names)]) for s in range(seats)]
    rng = random.Random(seed)
    log: list[tuple[int, Any]] = []
    check_cards(state)
    check_events_hide(state.opening, seats)
    scores = list(state.scores)
    for step in range(MAX_ACTIONS):
        actors = GAME.to_act(state)
        if not actors:
            break
        seat = actors[0]
        legal = GAME.legal_actions(state, seat)
        assert legal and len(set(legal)) == len(legal)
        if step % probe_every == 0:
            probe(state, rng)
        if step % view_every == 0:
            check_view_hides(state, rng.choice([None, *range(seats)]), rng)
        turns = [(seat, bots[seat].choose(state, seat, legal, rng))]
        while turns:
            actor, action = turns.pop()
            before = list(state.hands)  # (bit masks: read only if the round ends)
            round_before = state.round
            events = GAME.apply(state, actor, action)
            log.append((actor, GAME.action_to_wire(action)))
            check_cards(state)
            check_events_hide(events, seats)
            check_round_end(before, events, state)
            if state.round != round_before or GAME.outcome(state) is not None:
                assert state.last_round is not None
                gained = [b - a for a, b in zip(scores, state.scores, strict=True)]
                assert gained == [
                    state.last_round.gained if s == state.last_round.winner else 0
                    for s in range(seats)
                ]
                scores = list(state.scores)
            for other in GAME.interjectors(state):  # as the simulator does
                extra = bots[other].interject(state, other, GAME.legal_actions(state, other), rng)
                if extra is not None:
                    turns.append((other, extra))
                    break
    else:
        pytest.fail(f"no end after {MAX_ACTIONS} actions (seats {seats}, {options}, seed {seed})")
    outcome = GAME.outcome(state)
    assert outcome is not None and list(outcome.scores) == state.scores
    assert outcome.winners and outcome.rounds == state.round
    if options.get("single_round"):
        assert outcome.rounds == 1
    else:
        assert max(outcome.scores) >= GAME.options(options)["target"]
        assert all(outcome.scores[w] == max(outcome.scores) for w in outcome.winners)
    # Places (what the ratings read): the winners first, then by score, ties shared.
    keys = [(s in outcome.winners, score) for s, score in enumerate(outcome.scores)]
    assert [s for s, p in enumerate(outcome.places) if p == 1] == list(outcome.winners)
    assert all((outcome.places[a] < outcome.places[b]) == (keys[a] > keys[b])
               for a in range(len(keys)) for b in range(len(keys)))
    return state, log


def probe(state: State, rng: random.Random) -> None:
    """Actions not listed as legal are refused and change nothing; listed ones are accepted."""
    seat = rng.randrange(state.seats)
    legal = GAME.legal_actions(state, seat)
    before = state.snapshot()
    for action in rng.sample(EVERY_ACTION, 12):
        if action not in legal:
            with pytest.raises(IllegalAction):
                GAME.apply(state, seat, action)
            assert state.snapshot() == before
    if legal:
        trial = copy.deepcopy(state)
        GAME.apply(trial, seat, rng.choice(legal))


def replay(seats: int, options: dict[str, Any], seed: int, log: list[tuple[int, Any]]) -> State:
    state = GAME.new_game(seats, options, seed)
    for seat, wire in log:
        GAME.apply(state, seat, GAME.action_from_wire(wire))
    return state


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "+".join(k for k in o if o[k]))
def test_every_seat_count_and_option_single_rounds(options: dict[str, Any]) -> None:
    """Every seat count 2–10 with this option set: one round, random bots mixed with basic."""
    for seats in range(2, 11):
        opts = {**options, "single_round": True}
        state, log = play_checked(seats, opts, seed=seats, bot_names=["random", "basic"])
        assert replay(seats, opts, seats, log).snapshot() == state.snapshot()


@settings(
    max_examples=25, derandomize=True, deadline=None, database=None,
    suppress_health_check=[HealthCheck.too_slow],
)  # fmt: skip
@given(
    seats=st.integers(2, 10),
    options=st.sampled_from(OPTION_SETS),
    single=st.booleans(),
    seed=st.integers(0, 2**63 - 1),
    bots=st.lists(st.sampled_from(["random", "basic"]), min_size=1, max_size=3),
)
def test_random_games_keep_every_invariant(
    seats: int, options: dict[str, Any], single: bool, seed: int, bots: list[str]
) -> None:
    opts = {**options, "single_round": single, "target": 100}
    state, log = play_checked(seats, opts, seed, bots, view_every=11, probe_every=7)
    assert replay(seats, opts, seed, log).snapshot() == state.snapshot()


@pytest.mark.parametrize("seats", range(2, 11))
@pytest.mark.parametrize("everything", [False, True], ids=["no option", "every option"])
def test_full_games_to_500_end(seats: int, everything: bool) -> None:
    """Whole games at the default target, basic and random bots."""
    opts = {flag: everything for flag in FLAGS}
    state, log = play_checked(seats, opts, 1000 + seats, ["basic", "random"],
                              view_every=101, probe_every=53)  # fmt: skip
    assert replay(seats, opts, 1000 + seats, log).snapshot() == state.snapshot()


@pytest.mark.slow
@pytest.mark.parametrize("seats", range(2, 11))
@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "+".join(k for k in o if o[k]))
def test_full_random_games(seats: int, options: dict[str, Any]) -> None:
    """Random bots play the longest games (they draw when they could lay a card): several
    rounds each, to a lower target so that the sweep stays under a minute."""
    opts = {**options, "target": 250}
    play_checked(seats, opts, seats, ["random"], view_every=97, probe_every=41)
