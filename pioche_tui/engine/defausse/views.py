"""What one seat (or a spectator) sees of a Défausse table: everything a screen needs, nothing of
another seat's hand nor of the draw pile's order."""

from __future__ import annotations

from dataclasses import dataclass

from ..base import Outcome
from .cards import WILD
from .rules import OVER, Action, RoundResult, State, legal_actions


@dataclass(frozen=True, slots=True)
class DefausseView:
    """A frozen picture of the table for ``seat`` (None: a spectator).

    ``hand`` is the viewer's own hand sorted by colour then rank (empty for a spectator);
    ``legal`` what the viewer may do now (a screen marks playable cards and offers the catch
    from it); ``drawn`` the card the viewer just drew, to lay if it fits or keep (else None).
    ``colour`` is None while a first-card Joker waits for its colour; ``current`` None once the
    game is over. ``pending`` counts the cards waiting for the next player (option cumul);
    ``catchable`` the seat that laid its second-to-last card without announcing (option
    annonce); ``announced[s]`` whether seat s announced its last card. ``last_round`` is the
    previous round's result (None in round 1).
    """

    seat: int | None
    hand: tuple[int, ...]
    legal: tuple[Action, ...]
    top: int
    colour: int | None
    direction: int
    current: int | None
    phase: str
    drawn: int | None
    counts: tuple[int, ...]
    scores: tuple[int, ...]
    announced: tuple[bool, ...]
    draw_size: int
    discard_size: int
    dealer: int
    round: int
    target: int
    pending: int
    catchable: int | None
    last_round: RoundResult | None
    outcome: Outcome | None


def view(state: State, seat: int | None) -> DefausseView:
    me: int | None = None
    hand: tuple[int, ...] = ()
    legal: tuple[Action, ...] = ()
    drawn: int | None = None
    if seat in range(state.seats):
        assert seat is not None
        me = seat
        hand = tuple(state.hand(seat))
        legal = tuple(legal_actions(state, seat))
        if seat == state.current and state.drawn >= 0:
            drawn = state.drawn
    return DefausseView(
        seat=me,
        hand=hand,
        legal=legal,
        top=state.discard[-1],
        colour=None if state.colour == WILD else state.colour,
        direction=state.direction,
        current=None if state.phase is OVER else state.current,
        phase=state.phase,
        drawn=drawn,
        counts=tuple(h.bit_count() for h in state.hands),
        scores=tuple(state.scores),
        announced=tuple(state.announced),
        draw_size=len(state.draw),
        discard_size=len(state.discard),
        dealer=state.dealer,
        round=state.round,
        target=state.target,
        pending=state.pending,
        catchable=state.culprit if state.culprit >= 0 else None,
        last_round=state.last_round,
        outcome=state.result,
    )
