"""Défausse's bots: ``random`` (uniform over the legal actions) and ``basic``.

Bots read the state only as their seat could see it: their own hand and the public table (top
card, active colour, direction, card counts, pending cards, who may be caught).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence

from ..base import Bot, RandomBot
from .cards import COLOUR, COLOURS, INVERSE, JOKER4, PASSE, PLUS2, POINTS, RANK, WILD
from .rules import (
    AFTER_DRAW,
    CHOOSE,
    CHOOSE_COLOUR,
    DRAW,
    KEEP,
    Action,
    Catch,
    Play,
    State,
)

THREAT = 2
"""A player holding this many cards or fewer is about to go out: worth attacking."""


def _by_colour(hand: Collection[int]) -> list[tuple[int, int]]:
    """For each colour, how many cards of it ``hand`` holds and their points."""
    counts = [0] * len(COLOURS)
    points = [0] * len(COLOURS)
    for c in hand:
        if COLOUR[c] != WILD:
            counts[COLOUR[c]] += 1
            points[COLOUR[c]] += POINTS[c]
    return list(zip(counts, points, strict=True))


def _best_colour(weights: list[tuple[int, int]]) -> int:
    """The colour the hand holds most of (ties: the one worth most in points)."""
    return max(range(len(COLOURS)), key=weights.__getitem__)


class BasicBot:
    """A sensible player.

    It catches every missed announcement and always announces its own; keeps its Jokers until
    nothing else can be laid; when the next player is close to going out it attacks with a
    Joker +4 (if allowed), a +2, a Passe or an Inverse; otherwise it lays the card that keeps it
    in the colour it holds most, high points first; a Joker's colour is the one it holds most.
    After a draw it lays the drawn card, unless it is a Joker it can keep for later.
    """

    name = "basic"

    def choose(
        self, state: State, seat: int, legal: Sequence[Action], rng: random.Random
    ) -> Action:
        for action in legal:
            if type(action) is Catch:
                return action
        hand = state.hand(seat)
        weights = _by_colour(hand)
        colour = _best_colour(weights)
        if state.phase is CHOOSE_COLOUR:
            return CHOOSE[colour]
        plays = [a for a in legal if type(a) is Play and a.colour in (None, colour)]
        if any(a.announce for a in plays):
            plays = [a for a in plays if a.announce]
        if not plays:  # nothing to lay: draw, or keep the card just drawn
            return KEEP if state.phase is AFTER_DRAW else DRAW
        n = state.seats
        nxt = (seat + state.direction) % n
        threat = state.hand_size(nxt) <= THREAT
        counts = [count for count, _ in weights]

        def worth(action: Play) -> float:
            card = action.card
            rank = RANK[card]
            if COLOUR[card] == WILD:  # keep Jokers for need: worth less than any other card
                score = -100.0
                if rank == JOKER4:
                    score += 10
            else:
                score = 3 * counts[COLOUR[card]] + POINTS[card] / 10
            if threat:
                if rank == JOKER4:
                    score += 300
                elif rank == PLUS2:
                    score += 250
                elif rank == PASSE or (rank == INVERSE and n == 2):
                    score += 200
                elif rank == INVERSE:
                    score += 150
            return score

        best = max(plays, key=worth)
        if state.phase is AFTER_DRAW and COLOUR[best.card] == WILD and not threat and len(hand) > 2:
            return KEEP
        return best

    def interject(
        self, state: State, seat: int, legal: Sequence[Action], rng: random.Random
    ) -> Action | None:
        """Catch every missed announcement."""
        for action in legal:
            if type(action) is Catch:
                return action
        return None


BOTS: dict[str, Bot] = {"random": RandomBot(), "basic": BasicBot()}
