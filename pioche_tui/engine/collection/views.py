"""What one seat (or a spectator) sees of a Collection game: frozen dataclasses of tuples.

Public: every seat's pile, collection, reserve and scorecard, the draw piles' sizes, the discard's
size, the Shadow or special card a player just drew, what each seat has waiting (Doubles,
Passes). Private, in the viewer's own view only: the tops its Flip showed (while still on top),
the Quantique's cards it is choosing from, the risk of each draw pile when it is its turn, its
combinations in validation. Nobody sees the order of the draw piles; what a seat validates stays
hidden until everybody has chosen.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..base import Outcome
from .actions import Action
from .objectives import Combination, best_selection, total_points
from .rules import (
    OVER,
    QUANTIQUE_CHOICE,
    TURN,
    VALIDATION,
    State,
    bust_odds,
    known_tops,
    legal_actions,
)


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    pile: tuple[int, ...]  # oldest card first
    collection: tuple[int, ...]
    reserve: tuple[int, ...]
    scorecard: tuple[int, ...]  # points of objectives 1..10; 0: still open
    total: int
    objectives: int  # how many validated
    doubles: int  # Doubles waiting for this seat's next played turn
    skips: int  # turns this seat will skip
    validated: bool  # in validation: has chosen (what, nobody sees before the end)


@dataclass(frozen=True, slots=True)
class CollectionView:
    viewer: int | None  # None: a spectator
    mode: str
    phase: str  # turn, skip, shadow, special, quantique, validation, over (see rules.py)
    current: int | None  # whose turn; None in validation and once over
    round: int
    max_rounds: int
    draw_sizes: tuple[int, int]
    discard_size: int
    seats: tuple[SeatView, ...]
    held: tuple[int, ...]  # the Shadow or special card the current seat is deciding on
    held_count: int  # how many cards it holds (a Quantique's cards stay hidden)
    must_draw: int  # draws the current seat still owes this turn (Double, Rainbow)
    legal: tuple[Action, ...]  # the viewer's (in validation: a representative set)
    peek: tuple[int | None, int | None]  # the viewer's Flip: each draw pile's top, if known
    quantique: tuple[int, ...]  # the viewer's Quantique cards to choose from
    risk: tuple[float | None, float | None] | None  # the viewer's odds of losing its pile
    combinations: tuple[Combination, ...]  # validation: what the viewer can fill (matcher)
    best: tuple[Combination, ...]  # validation: the viewer's best selection (solver)
    best_points: int
    last_results: tuple[tuple[Combination, ...], ...]  # by seat: validated last round
    outcome: Outcome | None


def view(state: State, viewer: int | None) -> CollectionView:
    """What ``viewer`` sees; a seat number not at the table gets a spectator's view."""
    if viewer is not None and not (type(viewer) is int and 0 <= viewer < state.seats):
        viewer = None
    phase = state.phase
    acting = phase not in (VALIDATION, OVER)
    current = state.current if acting else None
    seats = tuple(
        SeatView(
            seat=s,
            pile=tuple(state.piles[s]),
            collection=tuple(state.collections[s]),
            reserve=tuple(state.reserves[s]),
            scorecard=tuple(state.scorecards[s]),
            total=sum(state.scorecards[s]),
            objectives=sum(1 for p in state.scorecards[s] if p),
            doubles=state.doubles[s],
            skips=state.skips[s],
            validated=phase is VALIDATION and state.validations[s] is not None,
        )
        for s in range(state.seats)
    )
    mine = viewer is not None and viewer == current
    hidden = phase is QUANTIQUE_CHOICE
    tops = known_tops(state, viewer) if viewer is not None else (-1, -1)
    in_validation = viewer is not None and phase is VALIDATION
    best: tuple[Combination, ...] = ()
    if in_validation and viewer is not None and state.offers[viewer]:
        best = best_selection(state.collections[viewer], state.open_objectives(viewer))
    return CollectionView(
        viewer=viewer,
        mode=state.mode,
        phase=phase,
        current=current,
        round=state.round,
        max_rounds=state.max_rounds,
        draw_sizes=(len(state.draw[0]), len(state.draw[1])),
        discard_size=len(state.discard),
        seats=seats,
        held=() if hidden or not acting else tuple(state.held),
        held_count=len(state.held),
        must_draw=max(state.owed, int(state.rainbow)) if acting else 0,
        legal=tuple(legal_actions(state, viewer)) if viewer is not None else (),
        peek=(tops[0] if tops[0] >= 0 else None, tops[1] if tops[1] >= 0 else None),
        quantique=tuple(state.held) if hidden and mine else (),
        risk=bust_odds(state, current) if mine and phase is TURN and current is not None else None,
        combinations=state.offers[viewer] if in_validation and viewer is not None else (),
        best=best,
        best_points=total_points(best),
        last_results=state.last_results,
        outcome=state.outcome,
    )
