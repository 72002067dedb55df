"""The 108 cards of Défausse as small ints, with lookup tuples.

A card is an int from 0 to 107, never mutated. Ids run colour by colour (rouge, jaune, vert, bleu;
25 cards each, by rank) and end with the 4 Jokers and the 4 Jokers +4, so sorting ids sorts a hand
by colour then rank. Everything about a card is read from the tuples below, built from one table.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

COLOURS = ("rouge", "jaune", "vert", "bleu")
"""The four colours, by index. Colour index 4 (:data:`WILD`) means "no colour" (the Jokers)."""
WILD = 4

# Ranks: 0–9 are the number cards; then the symbols and the Jokers.
PASSE, INVERSE, PLUS2, JOKER, JOKER4 = 10, 11, 12, 13, 14


class Kind(NamedTuple):
    name: str  # French, as printed on the card
    per_colour: int  # copies in each colour (0 for the Jokers)
    wild: int  # copies without colour (the Jokers only)
    points: int  # worth in a hand at the end of a round


KINDS: tuple[Kind, ...] = (
    Kind("0", 1, 0, 0),
    *(Kind(str(n), 2, 0, n) for n in range(1, 10)),
    Kind("Passe", 2, 0, 20),
    Kind("Inverse", 2, 0, 20),
    Kind("+2", 2, 0, 20),
    Kind("Joker", 0, 4, 50),
    Kind("Joker +4", 0, 4, 50),
)
"""Every kind by rank (its index): the deck's counts and the scoring in one place."""


def _build() -> tuple[tuple[int, ...], tuple[int, ...]]:
    colours: list[int] = []
    ranks: list[int] = []
    for colour in range(len(COLOURS)):
        for rank, kind in enumerate(KINDS):
            colours += [colour] * kind.per_colour
            ranks += [rank] * kind.per_colour
    for rank, kind in enumerate(KINDS):
        colours += [WILD] * kind.wild
        ranks += [rank] * kind.wild
    return tuple(colours), tuple(ranks)


COLOUR, RANK = _build()
"""``COLOUR[card]`` (0–3, or WILD) and ``RANK[card]`` (0–14) for every card id."""
POINTS: tuple[int, ...] = tuple(KINDS[r].points for r in RANK)
DECK_SIZE = len(RANK)
assert DECK_SIZE == 108

CARDS = tuple(range(DECK_SIZE))


def is_wild(card: int) -> bool:
    """A Joker or a Joker +4: the player who lays it chooses the colour."""
    return COLOUR[card] == WILD


def describe(card: int) -> tuple[int | None, str, int]:
    """``(colour or None, kind name, points)``: what a screen needs to draw the card."""
    colour = COLOUR[card]
    return (None if colour == WILD else colour), KINDS[RANK[card]].name, POINTS[card]


def card_name(card: int) -> str:
    """The card in French words: "7 rouge", "Passe bleu", "Joker +4"."""
    colour, name, _ = describe(card)
    return name if colour is None else f"{name} {COLOURS[colour]}"


# A set of cards (a hand) is an int whose bit ``card`` is set for each card it holds: the engine
# then finds the playable cards of a hand with one ``&``, whatever the hand's history.
BIT = tuple(1 << c for c in CARDS)


def mask_of(cards: Iterable[int]) -> int:
    """The set of ``cards`` as a bit mask."""
    mask = 0
    for c in cards:
        mask |= BIT[c]
    return mask


def cards_of(mask: int) -> list[int]:
    """The cards of a bit mask, in id order (colour, then rank)."""
    cards = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    return cards


def mask_points(mask: int) -> int:
    """What the cards of a bit mask are worth at the end of a round."""
    return sum(POINTS[c] for c in cards_of(mask))
