"""How a Défausse card looks: a colour letter and a number or symbol, on the card's colour.

The letter and symbol carry everything, so the game reads without colour (NO_COLOR, a
monochrome terminal). Glyphs are single-width in every terminal (no emoji, no variation
selector): ⊘ Passe, ⇄ Inverse, +2, ★ Joker, ★+4 Joker +4.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from pioche_tui.engine.defausse.cards import (
    COLOUR,
    INVERSE,
    JOKER,
    JOKER4,
    PASSE,
    PLUS2,
    RANK,
    WILD,
)

SYMBOLS = {PASSE: "⊘", INVERSE: "⇄", PLUS2: "+2", JOKER: "★", JOKER4: "★+4"}

# Background of each colour (rouge, jaune, vert, bleu), then the Jokers'; text on them.
BACKGROUNDS = ("#c62828", "#f9d71c", "#2e7d32", "#1565c0", "#303030")
FOREGROUNDS = ("#ffffff", "#000000", "#ffffff", "#ffffff", "#ffffff")


# The same, muted: a card that may not be played now, its colour faded into a dark screen's.
MUTED_BACKGROUNDS = ("#4f1f1f", "#5e5420", "#22391f", "#1d3450", "#262626")
MUTED_FOREGROUND = "#9e9e9e"


def colour_style(colour: int | None, bold: bool = True, muted: bool = False) -> Style:
    """The style of a card (or a colour swatch) of ``colour`` (None: the Jokers'); ``muted``
    for a card that may not be played now (dim, on a faded background)."""
    index = WILD if colour is None else colour
    if muted:
        return Style(color=MUTED_FOREGROUND, bgcolor=MUTED_BACKGROUNDS[index], dim=True)
    return Style(color=FOREGROUNDS[index], bgcolor=BACKGROUNDS[index], bold=bold)


def text_colour(colour: int | None) -> Style:
    """A colour as text on the screen's own background (readable on a dark theme)."""
    if colour is None:
        return Style(bold=True)
    return Style(color=("#ef5350", "#fdd835", "#66bb6a", "#42a5f5")[colour], bold=True)


def symbol(card: int) -> str:
    rank = RANK[card]
    return SYMBOLS.get(rank, str(rank))


def face(card: int, letters: str) -> str:
    """Three cells: the colour letter then the number or symbol ("R 7", "B+2", " ★ ", "★+4")."""
    colour = COLOUR[card]
    mark = symbol(card)
    if colour == WILD:
        return f"{mark:^3}"
    return f"{letters[colour]}{mark:>2}"


def card_text(card: int, letters: str) -> Text:
    """The card on one line, as in the log or a summary: " R 7 " on its colour."""
    colour = COLOUR[card]
    return Text(f" {face(card, letters)} ", colour_style(None if colour == WILD else colour))


def top_card(card: int, letters: str) -> list[Text]:
    """The discard's top card, 9 cells by 3 lines: "│  R 7  │" between its edges."""
    colour = COLOUR[card]
    style = colour_style(None if colour == WILD else colour)
    return [Text(row, style) for row in
            ("╭───────╮", f"│{face(card, letters):^7}│", "╰───────╯")]
