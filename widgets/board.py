"""The top of a Défausse table, in one widget: the seats on the left, one row each; on the
right the discard's top card and beside it the lines the screen writes (the active colour, the
direction of play, the draw pile). A move repaints only the rows it changed."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import events

from .defausse_cards import top_card
from .lines import TextLines, join_columns

PILE_WIDTH = 33  # the card (9 cells), a gap (2), the information lines


class DefausseBoard(TextLines):
    """Call :meth:`show` with the seats' rows, the discard's top card and the lines beside it.
    ``letters`` are the colour letters ("RJVB")."""

    DEFAULT_CSS = """
    DefausseBoard { height: auto; min-height: 3; padding: 0 1; }
    """

    def __init__(self, letters: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.letters = letters
        self._shown: tuple[tuple[Text, ...], int | None, tuple[Text, ...]] = ((), None, ())

    def show(self, seats: Sequence[Text], top: int | None, info: Sequence[Text]) -> None:
        self._shown = (tuple(seats), top, tuple(info))
        self._draw()

    def on_resize(self, event: events.Resize) -> None:
        super().on_resize(event)
        self._draw()

    def _draw(self) -> None:
        seats, top, info = self._shown
        card = top_card(top, self.letters) if top is not None else []
        pile = []
        for row in range(max(len(card), len(info))):
            line = card[row].copy() if row < len(card) else Text(" " * 9)
            line.append("  ")
            if row < len(info):
                line.append_text(info[row])
            pile.append(line)
        left = max(10, self.content_size.width - PILE_WIDTH - 2)
        self.lines = join_columns(seats, pile, left)
