"""How a Collection card looks: a colour letter and a value, on the card's colour.

The letter and the glyph carry everything, so the game reads the same without colour
(NO_COLOR, 16 colours): ``R3`` is a red 3 (the letters come from the catalogue: « RJVBP » in
French, P for pourpre, the violet; « RYGBP » in English), ``◇`` a Rainbow, ``◆`` a Shadow, and
the special cards have short names (``Dbl`` Double, ``PTT`` Passe Ton Tour...). Every glyph is
one cell wide in every terminal (no emoji, no variation selector).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text

from pioche_tui.engine.collection.cards import (
    CLASSIC,
    COLOUR,
    COLOURS,
    FIRST_SPECIAL,
    KIND,
    RAINBOW,
    SHADOW,
    SPECIALS,
    VALUE,
)

RAINBOW_GLYPH = "◇"
SHADOW_GLYPH = "◆"
SHORT_SPECIALS = ("Jok", "Dbl", "PTT", "Flip", "Swp", "Qtq")
"""The special cards' short names, in the order of cards.SPECIALS."""

# Background of each colour (rouge, jaune, vert, bleu, violet); text on them.
BACKGROUNDS = ("#c62828", "#f9d71c", "#2e7d32", "#1565c0", "#7b1fa2")
FOREGROUNDS = ("#ffffff", "#000000", "#ffffff", "#ffffff", "#ffffff")
TEXT_COLOURS = ("#ef5350", "#fdd835", "#66bb6a", "#42a5f5", "#ce93d8")
RAINBOW_STYLE = Style(color="#000000", bgcolor="#e0e0e0", bold=True)
SHADOW_STYLE = Style(color="#ffffff", bgcolor="#212121", bold=True)
SPECIAL_STYLE = Style(color="#ffffff", bgcolor="#546e7a", bold=True)


def card_style(card: int) -> Style:
    """A card's chip: its colour's background, or the Rainbow's, the Shadow's, the specials'."""
    kind = KIND[card]
    if kind == CLASSIC:
        colour = COLOUR[card]
        return Style(color=FOREGROUNDS[colour], bgcolor=BACKGROUNDS[colour], bold=True)
    if kind == RAINBOW:
        return RAINBOW_STYLE
    if kind == SHADOW:
        return SHADOW_STYLE
    return SPECIAL_STYLE


def colour_text_style(colour: int) -> Style:
    """A colour as text on the screen's own background (readable on a dark theme)."""
    return Style(color=TEXT_COLOURS[colour], bold=True)


def special_name(card: int, short: bool = False) -> str:
    index = card - FIRST_SPECIAL
    return SHORT_SPECIALS[index] if short else SPECIALS[index]


def face(card: int, letters: str, short: bool = True) -> str:
    """The card's face: « R3 », « ◇ », « ◆ », « Dbl » (``short``) or « Double »."""
    kind = KIND[card]
    if kind == CLASSIC:
        return f"{letters[COLOUR[card]]}{VALUE[card]}"
    if kind == RAINBOW:
        return RAINBOW_GLYPH
    if kind == SHADOW:
        return SHADOW_GLYPH
    return special_name(card, short)


def chip(card: int, letters: str, short: bool = True) -> Text:
    """The card as a chip on its colour."""
    return Text(face(card, letters, short), card_style(card))


def chips(cards: Iterable[int], letters: str, short: bool = True) -> Text:
    """Cards as chips, a space apart."""
    text = Text()
    for i, card in enumerate(cards):
        if i:
            text.append(" ")
        text.append_text(chip(card, letters, short))
    return text


def by_value(cards: Iterable[int]) -> list[int]:
    """Cards in the order a combination reads best: by value, then colour; wild cards last."""
    return sorted(cards, key=lambda c: (KIND[c] != CLASSIC, VALUE[c], COLOUR[c], KIND[c]))


def last_chips(cards: Sequence[int], letters: str, width: int) -> Text:
    """The last cards that fit in ``width`` cells, « … » first when some are left out (a
    pile's last cards are the ones that matter)."""
    sizes = [cell_len(face(card, letters)) + 1 for card in cards]  # each with its space
    if sum(sizes) - 1 <= width:
        return chips(cards, letters)
    room = width - 2  # for « … »
    first = len(cards)
    while first > 0 and sizes[first - 1] <= room:
        first -= 1
        room -= sizes[first]
    return Text("… ").append_text(chips(cards[first:], letters))


def grouped(cards: Iterable[int], letters: str) -> Text:
    """A collection, compact: by colour, each colour's letter then its values in order, then
    the Rainbows and the Shadows (« R1 3 3  J2 5  ◇◇  ◆ »)."""
    return Text("  ").join(colour_groups(cards, letters))


def colour_groups(cards: Iterable[int], letters: str) -> list[Text]:
    """The parts of :func:`grouped`: one per colour held (« R1 3 3 »), then the Rainbows
    (« ◇◇ ») and the Shadows."""
    by_colour: list[list[int]] = [[] for _ in COLOURS]
    wild = {RAINBOW: 0, SHADOW: 0}
    for card in cards:
        if KIND[card] == CLASSIC:
            by_colour[COLOUR[card]].append(VALUE[card])
        else:  # a pile, so a collection, holds no special card
            wild[KIND[card]] += 1
    parts = [Text(letters[colour] + " ".join(map(str, sorted(values))),
                  colour_text_style(colour))
             for colour, values in enumerate(by_colour) if values]
    parts += [Text(glyph * wild[kind], "bold")
              for kind, glyph in ((RAINBOW, RAINBOW_GLYPH), (SHADOW, SHADOW_GLYPH)) if wild[kind]]
    return parts
