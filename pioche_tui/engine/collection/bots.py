"""Collection's bots: ``random`` (uniform over the legal actions) and ``basic``.

``basic`` plays what a careful beginner would: it draws while the risk of losing its pile is
low and the pile is worth little, locks a good pile, answers Shadows with a Joker, aims Double
and Passe Ton Tour at the leader, Swipes a richer neighbour's pile, and validates the solver's
best selection — but keeps Suite pure open for a Suite Shadow when one is close and rounds are
left. It reads only what its seat may see (bust_odds works from the unseen cards).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from ..base import Bot, RandomBot
from .actions import (
    KEEP_PILE,
    LOCK,
    NEW_PILE,
    PLAY_JOKER,
    RESERVE,
    STOP,
    Action,
    Activate,
    Draw,
    Keep,
    Validate,
)
from .cards import (
    CLASSIC,
    DOUBLE,
    FLIP,
    JOKER,
    KIND,
    MODES,
    PASSE,
    QUANTIQUE,
    RAINBOW,
    SHADOW,
    SPECIAL,
    SUITE_SHADOW_POINTS,
    SWIPE,
)
from .objectives import SUITE_PURE, best_selection
from .rules import (
    QUANTIQUE_CHOICE,
    SHADOW_CHOICE,
    SKIP,
    SPECIAL_CHOICE,
    VALIDATION,
    State,
    bust_odds,
    stop_reason,
)

DRAW_RISK = 0.25  # draw again while the safer draw pile's risk is at most this…
GOOD_PILE = 4  # …and the pile is worth less than this; lock a pile worth this much
LOCK_RISK = 0.4  # lock a smaller pile too when even the safer draw pile is this risky
ENDGAME_CARDS = 6  # this few cards left in the draw piles: lock whatever is there
SHADOWS_FOR_SUITE = 2  # Shadows collected that make a Suite Shadow "close"


def worth(pile: Sequence[int]) -> int:
    """A pile's worth to the basic bot: its cards, a Shadow counting double (it stands in for
    any card, +10, and three make the best objective)."""
    return len(pile) + sum(1 for c in pile if KIND[c] == SHADOW)


def _leader(state: State, seat: int) -> int:
    """The opponent ahead by the mode's ranking (points or objectives); the next one on ties."""
    totals, done = state.totals(), state.objectives_done()
    by_points = MODES[state.mode].ranking == "points"
    others = [(seat + k) % state.seats for k in range(1, state.seats)]
    return max(
        others,
        key=lambda s: ((totals[s], done[s]) if by_points else (done[s], totals[s])),
    )


def _or_worst(risk: float | None) -> float:
    return 1.0 if risk is None else risk


def _busts(pile: Sequence[int], card: int) -> bool:
    """Would ``card`` added to ``pile`` meet a STOP condition?"""
    return KIND[card] == CLASSIC and stop_reason(pile, card) is not None


class BasicBot:
    name = "basic"

    def choose(self, state: State, seat: int, legal: Sequence[Any], rng: random.Random) -> Any:
        phase = state.phase
        if phase is VALIDATION:
            return self._validate(state, seat, legal)
        if phase is SHADOW_CHOICE:
            return self._shadow(state, seat, legal)
        if phase is QUANTIQUE_CHOICE:
            return self._keep(state, seat, legal)
        aimed = self._aimed(state, seat, legal)
        if phase is SPECIAL_CHOICE:
            return self._special(state, seat, legal, aimed)
        if aimed is not None:
            return aimed
        if phase is SKIP:
            return STOP
        return self._turn(state, seat, legal)

    def interject(
        self, state: State, seat: int, legal: Sequence[Any], rng: random.Random
    ) -> Any | None:
        return None  # Collection has no out-of-turn actions

    def _aimed(self, state: State, seat: int, legal: Sequence[Any]) -> Activate | None:
        """A Double or Passe at the leader, or a Swipe of a richer neighbour's pile, if legal."""
        leader = _leader(state, seat)
        mine = worth(state.piles[seat])
        for action in legal:
            if not isinstance(action, Activate):
                continue
            if action.card in (DOUBLE, PASSE) and action.target == leader:
                return action
            if (
                action.card == SWIPE
                and action.target is not None
                and worth(state.piles[action.target]) > mine + 1
            ):
                return action
        return None

    def _turn(self, state: State, seat: int, legal: Sequence[Any]) -> Action:
        pile = state.piles[seat]
        odds = bust_odds(state, seat)
        safest = min(_or_worst(r) for r in odds)
        left = len(state.draw[0]) + len(state.draw[1])
        if LOCK in legal and (
            worth(pile) >= GOOD_PILE or safest >= LOCK_RISK or left <= ENDGAME_CARDS
        ):
            return LOCK
        draws = [a for a in legal if isinstance(a, Draw)]
        quantique = next(
            (a for a in legal if isinstance(a, Activate) and a.card == QUANTIQUE), None
        )
        small = worth(pile) < GOOD_PILE
        if STOP in legal and not (small and safest <= DRAW_RISK):
            # Done, unless only the risk stops a small pile: then a Flip may show a safe top
            # card (bust_odds then knows it), or a Quantique offers three to choose from.
            if small and Activate(FLIP) in legal:
                return Activate(FLIP)
            if small and quantique:
                return quantique
            return STOP
        if safest > DRAW_RISK and quantique:
            return quantique  # made to draw, and it is risky: three cards to choose from
        return min(draws, key=lambda d: _or_worst(odds[d.pile]))

    def _shadow(self, state: State, seat: int, legal: Sequence[Any]) -> Action:
        pile = state.piles[seat]
        if PLAY_JOKER in legal and len(pile) >= 2:
            return PLAY_JOKER
        return KEEP_PILE if worth(pile) >= 2 else NEW_PILE

    def _special(
        self, state: State, seat: int, legal: Sequence[Any], aimed: Activate | None
    ) -> Action:
        card = state.held[0]
        if aimed is not None and aimed.card == card:
            return aimed
        if RESERVE in legal:
            return RESERVE
        # A full reserve: spend a Double or Passe from it (at the leader) if there is one,
        # else the new card.
        if aimed is not None:
            return aimed
        own = [a for a in legal if isinstance(a, Activate) and a.card == card]
        if card == JOKER:
            spare = [a for a in legal if isinstance(a, Activate) and a.card != JOKER]
            if spare:
                return spare[0]
        return own[0] if own else legal[0]

    def _keep(self, state: State, seat: int, legal: Sequence[Any]) -> Action:
        pile = state.piles[seat]

        def score(action: Keep) -> float:
            card = action.card
            if card is None:
                return 0.5
            kind = KIND[card]
            if kind == CLASSIC:
                return 0.0 if _busts(pile, card) else 1.0
            if kind == RAINBOW:
                return 2.0
            if kind == SPECIAL:
                return 1.5
            return 0.0  # a Shadow would only make us choose again

        return max((a for a in legal if isinstance(a, Keep)), key=score)

    def _validate(self, state: State, seat: int, legal: Sequence[Any]) -> Action:
        best = best_selection(state.collections[seat], state.open_objectives(seat))
        rounds_left = state.round < state.max_rounds
        shadows = sum(1 for c in state.collections[seat] if KIND[c] == SHADOW)
        if rounds_left and MODES[state.mode].ranking == "points" and shadows >= SHADOWS_FOR_SUITE:
            best = tuple(
                c for c in best
                if not (c.objective == SUITE_PURE and c.points < SUITE_SHADOW_POINTS)
            )
        return Validate(best)


BOTS: dict[str, Callable[[], Bot]] = {"random": RandomBot, "basic": BasicBot}
