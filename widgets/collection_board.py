"""The top of a Collection table, in one widget: the draw piles' line, one row per seat, then
one seat in detail (its pile, what would stop it, its reserve, its collection) beside its
scorecard. The screen writes the lines; this widget lays them out for its width (a long pile
shows its last cards, a long collection wraps), always on the same number of rows, so that a
move repaints only the rows it changed and never lays the screen out again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import events

from .collection_cards import last_chips
from .lines import TextLines, join_columns

DETAIL_ROWS = 6  # the scorecard's height: a title and two columns of five objectives
MIN_LEFT = 24  # cells left of the scorecard at the least


class CollectionBoard(TextLines):
    """Call :meth:`show` with the lines and the detailed seat's pile; ``collection`` is wrapped
    into the rows the other lines leave free, beside the scorecard. ``letters`` are the colour
    letters ("RJVBP").

    The seat in detail is laid out again only when one of its parts changed (the screen gives
    again the very objects a move did not touch, so that this check costs little)."""

    DEFAULT_CSS = """
    CollectionBoard { height: auto; padding: 0 1; }
    """

    def __init__(self, letters: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.letters = letters
        self._top = Text()
        self._seats: tuple[Text, ...] = ()
        self._detail: tuple[Any, ...] = ()  # label, pile, detail lines, collection, scorecard
        self._block: tuple[Text, ...] = ()  # the detailed seat's rows, laid out
        self._block_width = -1

    def show(self, top: Text, seats: Sequence[Text], label: Text, pile: tuple[int, ...],
             detail: Sequence[Text], collection: Text, scorecard: Sequence[Text]) -> None:
        """``label`` starts the pile's line (« Votre pile : »), ``detail`` the lines under it."""
        parts = (label, pile, detail, collection, scorecard)
        if len(parts) != len(self._detail) or any(
                a is not b and a != b for a, b in zip(parts, self._detail, strict=True)):
            self._detail = parts
            self._block_width = -1  # to lay out again
        self._top = top
        self._seats = tuple(seats)
        self._draw()

    def on_resize(self, event: events.Resize) -> None:
        super().on_resize(event)
        self._block_width = -1
        self._draw()

    def _draw(self) -> None:
        width = self.content_size.width
        if width <= 0 or not self._detail:
            return  # not laid out yet: on_resize draws
        if width != self._block_width:
            self._block = self._layout(width)
            self._block_width = width
        self.lines = (self._top, *self._seats, *self._block)

    def _layout(self, width: int) -> tuple[Text, ...]:
        """The detailed seat: its pile, the lines under it and its collection on the left,
        its scorecard on the right."""
        label, pile, detail, collection, scorecard = self._detail
        right = max((cell_len(line.plain) for line in scorecard), default=0)
        left_width = max(MIN_LEFT, width - right - 2)
        pile_line = label.copy().append_text(
            last_chips(pile, self.letters, left_width - label.cell_len))
        rows = [pile_line, *detail][:DETAIL_ROWS]
        free = DETAIL_ROWS - len(rows)
        if free > 0 and collection:
            wrapped = list(collection.wrap(self.app.console, left_width))
            if len(wrapped) > free:
                wrapped = wrapped[:free]
                wrapped[-1].truncate(left_width - 1)
                wrapped[-1].append("…")
            rows += wrapped
        rows += [Text() for _ in range(DETAIL_ROWS - len(rows))]
        return join_columns(rows, scorecard, left_width)
