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
    letters ("RJVBP")."""

    DEFAULT_CSS = """
    CollectionBoard { height: auto; padding: 0 1; }
    """

    def __init__(self, letters: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.letters = letters
        self._shown: tuple[Any, ...] = (Text(), (), Text(), (), (), Text(), ())

    def show(self, top: Text, seats: Sequence[Text], label: Text, pile: Sequence[int],
             detail: Sequence[Text], collection: Text, scorecard: Sequence[Text]) -> None:
        """``label`` starts the pile's line (« Votre pile : »), ``detail`` the lines under it."""
        self._shown = (top, tuple(seats), label, tuple(pile), tuple(detail), collection,
                       tuple(scorecard))
        self._draw()

    def on_resize(self, event: events.Resize) -> None:
        super().on_resize(event)
        self._draw()

    def _draw(self) -> None:
        top, seats, label, pile, detail, collection, scorecard = self._shown
        width = self.content_size.width
        if width <= 0:
            return  # not laid out yet: on_resize draws
        right = max((cell_len(line.plain) for line in scorecard), default=0)
        left_width = max(MIN_LEFT, width - right - 2)
        pile_line = label.copy().append_text(
            last_chips(pile, self.letters, left_width - label.cell_len))
        rows = [pile_line, *detail][:DETAIL_ROWS]
        free = DETAIL_ROWS - len(rows)
        if free > 0 and collection:
            wrapped = collection.wrap(self.app.console, left_width)
            if len(wrapped) > free:
                wrapped = wrapped[:free]
                wrapped[-1].truncate(left_width - 1)
                wrapped[-1].append("…")
            rows += wrapped
        rows += [Text() for _ in range(DETAIL_ROWS - len(rows))]
        self.lines = (top, *seats, *join_columns(rows, scorecard, left_width))
