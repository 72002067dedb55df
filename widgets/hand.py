"""The player's Défausse hand: one widget, four lines, every card drawn as a small box.

When the player may play, the playable cards stand one line higher; the others stay low, faded
and dimmed, in a dashed border (the height and the dashes say it without colour). The chosen
card has a heavy border; the card just drawn a ``↓`` in its top border; each card's number (1–9)
is in its bottom border. Enter on a card that may not be played posts :class:`Hand.Refused`
(the screen says why). The hand scrolls sideways when it is wider than the screen (‹ and › say
more cards are hidden).

With the mouse: a click chooses a card, a second click on it plays it (as Enter does); the
wheel moves along the hand.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message

from pioche_tui.engine.defausse.cards import COLOUR, WILD

from .defausse_cards import colour_style, face
from .lines import CursorLines

CARD_WIDTH = 5
HEIGHT = 4
DRAWN_MARK = "↓"  # in the top border of the card just drawn
# A box's corners and edges: top left, top right, bottom left, bottom right, across, down;
# by (heavy: the chosen card, dashed: a card that may not be played now).
BORDERS: dict[tuple[bool, bool], tuple[str, ...]] = {
    (False, False): tuple("╭╮╰╯─│"), (True, False): tuple("┏┓┗┛━┃"),
    (False, True): tuple("╭╮╰╯┄┆"), (True, True): tuple("┏┓┗┛┅┇"),
}


class Hand(CursorLines):
    """``cards`` in hand (sorted), ``playable`` among them, ``active`` while the player may play
    (only then are playable cards raised). ``letters`` are the colour letters ("RJVB")."""

    DEFAULT_CSS = """
    Hand { height: 4; width: 1fr; }
    """
    # Four rows: a playable card stands one row higher than the others.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "key.choose"),
        Binding("right", "move(1)", "key.choose"),
        Binding("home", "jump(0)", "key.choose", show=False),
        Binding("end", "jump(-1)", "key.choose", show=False),
        *(Binding(str(n), f"jump({n - 1})", "key.digits", show=False) for n in range(1, 10)),
        Binding("enter", "play", "key.play", tooltip="help.play"),
        Binding("enter", "refused", "key.why", show=False, tooltip="help.why"),  # (not "play")
    ]

    # Whether Enter plays depends on the card chosen: the key bar follows the cursor. (When
    # the cards change, the screen refreshes the keys itself, and only when they change.)

    class Play(Message):
        """The player chose ``card`` to play."""

        def __init__(self, card: int) -> None:
            super().__init__()
            self.card = card

    class Refused(Message):
        """The player chose ``card``, which may not be played now."""

        def __init__(self, card: int) -> None:
            super().__init__()
            self.card = card

    def __init__(self, letters: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.letters = letters
        self.cards: tuple[int, ...] = ()
        self.playable: frozenset[int] = frozenset()
        self.active = False
        self.drawn: int | None = None  # the card just drawn, marked
        self._first = 0  # the first card shown when the hand is wider than the widget
        self._clicked: int | None = None  # the card a click chose (a second click plays it)

    @property
    def selected(self) -> int | None:
        """The card under the cursor."""
        return self.cards[self.cursor] if 0 <= self.cursor < len(self.cards) else None

    def show(self, cards: tuple[int, ...], playable: frozenset[int], active: bool,
             chosen: int | None = None) -> None:
        """The hand, the cards that may be played, whether the player may play now; the cursor
        goes to ``chosen`` (a card just drawn, marked), stays on the same card, or on a new
        turn moves to a playable one."""
        if (cards, playable, active, chosen) == (
                self.cards, self.playable, self.active, self.drawn) and (
                chosen is None or chosen == self.selected):
            return  # another player's move: nothing here changed
        card = chosen if chosen in cards else self.selected
        turn_starts = active and not self.active
        self.cards, self.playable, self.active = cards, playable, active
        self.drawn = chosen
        if card in cards and not (turn_starts and card not in playable and chosen is None):
            cursor = cards.index(card)
        else:
            cursor = next((i for i, c in enumerate(cards) if active and c in playable),
                          min(self.cursor, max(0, len(cards) - 1)))
        if cursor == self.cursor:
            self._draw()
        else:
            self.cursor = cursor  # draws

    def select(self, card: int) -> None:
        """Put the cursor on ``card``."""
        if card in self.cards:
            self.cursor = self.cards.index(card)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "play":
            return self.active and self.selected in self.playable
        if action == "refused":
            return self.selected is not None and not (
                self.active and self.selected in self.playable)
        return bool(self.cards)

    def action_move(self, step: int) -> None:
        self._clicked = None
        if self.cards:
            self.cursor = (self.cursor + step) % len(self.cards)

    def action_jump(self, index: int) -> None:
        self._clicked = None
        if self.cards and -len(self.cards) <= index < len(self.cards):
            self.cursor = index % len(self.cards)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.x < 1:
            return
        index = self._first + (offset.x - 1) // CARD_WIDTH
        room = max(1, (self.content_size.width - 2) // CARD_WIDTH)
        if not self._first <= index < min(len(self.cards), self._first + room):
            return
        card = self.cards[index]
        if self._clicked == card and self.selected == card:
            self.action_play()
        else:
            self.cursor = index
            self._clicked = card

    def action_play(self) -> None:
        card = self.selected
        if card is not None and self.active and card in self.playable:
            self.post_message(self.Play(card))

    def action_refused(self) -> None:
        card = self.selected
        if card is not None and not (self.active and card in self.playable):
            self.post_message(self.Refused(card))

    def _draw(self) -> None:
        cards = self.cards
        room = max(1, (self.content_size.width - 2) // CARD_WIDTH)
        # Scroll so the cursor stays in view.
        if self.cursor < self._first:
            self._first = self.cursor
        elif self.cursor >= self._first + room:
            self._first = self.cursor - room + 1
        self._first = max(0, min(self._first, max(0, len(cards) - room)))
        shown = range(self._first, min(len(cards), self._first + room))
        lines = [Text(" ") for _ in range(HEIGHT)]
        for index in shown:
            card = cards[index]
            raised = self.active and card in self.playable
            top = 0 if raised else 1
            box = self._box(card, index)
            for row in range(HEIGHT):
                part = box[row - top] if 0 <= row - top < len(box) else Text(" " * CARD_WIDTH)
                lines[row].append_text(part)
        if self._first > 0:
            lines[2] = Text("‹", "bold") + lines[2][1:]
        if shown and shown[-1] < len(cards) - 1:
            lines[2].append("›", "bold")
        self.lines = tuple(lines)

    def _box(self, card: int, index: int) -> list[Text]:
        colour = COLOUR[card]
        refused = self.active and card not in self.playable
        style = colour_style(None if colour == WILD else colour, muted=refused)
        chosen = index == self.cursor and self.has_focus
        if chosen:
            style += Style(bold=True, underline=False)
        tl, tr, bl, br, across, down = BORDERS[chosen, refused]
        mark = DRAWN_MARK if card == self.drawn else across
        number = str(index + 1) if index < 9 else across
        rows = [f"{tl}{across}{mark}{across}{tr}", f"{down}{face(card, self.letters)}{down}",
                f"{bl}{across}{number}{across}{br}"]
        return [Text(row, style) for row in rows]
