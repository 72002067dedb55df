"""Collection's cards, and the one table that holds every count and every point of the game.

A card is a small int, its stable id; what it is lives in the lookup tuples below (``KIND``,
``COLOUR``, ``VALUE``…), indexed by id. Ids are laid out so that the Découverte deck (no special
cards) is simply ``range(72)``: classic cards first, then Rainbows, Shadows, and the six specials.
"""

from __future__ import annotations

from dataclasses import dataclass

# --- The table: every deck count and every point of the game (rules/collection.md) ----------


@dataclass(frozen=True, slots=True)
class Objective:
    number: int  # 1..10, the line on the scorecard
    name: str
    points: int  # Suite pure: the Suite Rainbow's; the Suite Shadow's is SUITE_SHADOW_POINTS


@dataclass(frozen=True, slots=True)
class Mode:
    name: str
    title: str
    specials: bool  # the six special cards are in the deck
    max_rounds: int
    ranking: str  # "points" (most points, then objectives) or "objectives" (the other way)


COLOURS = ("rouge", "jaune", "vert", "bleu", "violet")
VALUES = (1, 2, 3, 4, 5, 6)
COPIES = 2  # of each classic card (colour, value)
RAINBOWS = 6
SHADOWS = 6
SPECIALS = ("Joker", "Double", "Passe Ton Tour", "Flip", "Swipe", "Quantique")  # one of each
RESERVE_SLOTS = 2
DOUBLE_DRAWS = 2  # cards a Double forces its target to draw
QUANTIQUE_CARDS = 3  # cards a Quantique takes
SUITE_LENGTH = 3  # Rainbow or Shadow cards in a Suite pure
SHADOW_WILD_BONUS = 10  # a Shadow standing for a classic card in objectives 1-9
SUITE_SHADOW_POINTS = 170

# The barème is priced by measured difficulty (docs/rules/collection.md, « The scorecard »):
# 10 + 65.2 × the mean, over 2, 4 and 6 seats in both modes, of −ln(the chance that a round's
# collection can make the objective), rounded to 5; Suite pure capped at 170 (twice Couleur's).
OBJECTIVES = (
    Objective(1, "Paire", 10),
    Objective(2, "Double paire", 20),
    Objective(3, "Brelan", 20),
    Objective(4, "Petite suite", 20),
    Objective(5, "Full", 30),
    Objective(6, "Couleur", 85),
    Objective(7, "Grande suite", 30),
    Objective(8, "Carré", 55),
    Objective(9, "Arc-en-ciel", 45),
    Objective(10, "Suite pure", 145),
)

MODES = {
    "classique": Mode("classique", "Classique", specials=True, max_rounds=5, ranking="points"),
    "decouverte": Mode(
        "decouverte", "Découverte", specials=False, max_rounds=3, ranking="objectives"
    ),
}

# --- Card ids and what they are ------------------------------------------------------------

CLASSIC, RAINBOW, SHADOW, SPECIAL = 0, 1, 2, 3

_kinds: list[int] = []
_colours: list[int] = []
_values: list[int] = []
for _c in range(len(COLOURS)):
    for _v in VALUES:
        for _ in range(COPIES):
            _kinds.append(CLASSIC)
            _colours.append(_c)
            _values.append(_v)
_kinds += [RAINBOW] * RAINBOWS + [SHADOW] * SHADOWS + [SPECIAL] * len(SPECIALS)
_colours += [-1] * (RAINBOWS + SHADOWS + len(SPECIALS))
_values += [0] * (RAINBOWS + SHADOWS + len(SPECIALS))

KIND: tuple[int, ...] = tuple(_kinds)
COLOUR: tuple[int, ...] = tuple(_colours)  # 0..4, or -1: no colour
VALUE: tuple[int, ...] = tuple(_values)  # 1..6, or 0: no value
CLASSIC_TYPES = len(COLOURS) * len(VALUES)
TYPE: tuple[int, ...] = tuple(
    c * len(VALUES) + v - 1 if k == CLASSIC else CLASSIC_TYPES + k - 1
    for k, c, v in zip(KIND, COLOUR, VALUE, strict=True)
)
"""A card's type: 0..29 for a classic card (colour × 6 + value − 1; the two copies share it),
30 Rainbow, 31 Shadow, 32 any special card. Cards of one type are interchangeable."""
RAINBOW_TYPE, SHADOW_TYPE = CLASSIC_TYPES, CLASSIC_TYPES + 1

CARD_COUNT = len(KIND)
DECOUVERTE_COUNT = CARD_COUNT - len(SPECIALS)
FIRST_SPECIAL = DECOUVERTE_COUNT
JOKER, DOUBLE, PASSE, FLIP, SWIPE, QUANTIQUE = range(FIRST_SPECIAL, CARD_COUNT)

DECKS = {
    name: tuple(range(CARD_COUNT if mode.specials else DECOUVERTE_COUNT))
    for name, mode in MODES.items()
}


def card_name(card: int) -> str:
    """The card in words, as the game log and help show it: « 3 rouge », « Rainbow », « Flip »."""
    kind = KIND[card]
    if kind == CLASSIC:
        return f"{VALUE[card]} {COLOURS[COLOUR[card]]}"
    if kind == RAINBOW:
        return "Rainbow"
    if kind == SHADOW:
        return "Shadow"
    return SPECIALS[card - FIRST_SPECIAL]


def objective_name(number: int) -> str:
    return OBJECTIVES[number - 1].name
