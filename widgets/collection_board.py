"""The top of a Collection table, in one widget: the draw piles' line, one row per seat, then
one seat in detail (its pile, what would stop it, its reserve, its collection) beside its
scorecard. The screen writes the lines; this widget lays them out for its width (a long pile
shows its last cards, a long collection goes on over the next rows, a colour's cards never cut
across two rows), always on the same number of rows, so that a move repaints only the rows it
changed and never lays the screen out again.
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
EMPTY = Text()
INDENT = "  "  # before the collection's next rows, which read as its own
GAPS = ("  ", " ")  # between two colours of the collection: the narrower one if it saves a row


class CollectionBoard(TextLines):
    """Call :meth:`show` with the lines and the detailed seat's pile; ``collection`` (its label,
    then one part per colour) fills the rows the other lines leave free, beside the scorecard.
    ``letters`` are the colour letters ("RJVBP").

    The seat in detail is laid out again only when one of its parts changed (the screen gives
    again the very objects a move did not touch, so that this check costs little)."""

    DEFAULT_CSS = """
    CollectionBoard { height: auto; padding: 0 1; }
    """

    def __init__(self, letters: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.letters = letters
        self._top: tuple[Text, Text] = (Text(), Text())
        self._seats: tuple[Text, ...] = ()
        self._detail: tuple[Any, ...] = ()  # label, pile, detail lines, collection, scorecard
        self._block: tuple[Text, ...] = ()  # the detailed seat's rows, laid out
        self._block_width = -1
        # What a move seldom changes, kept: the collection wrapped, and each row of the block
        # as (left part, right part, the two joined).
        self._wrapped: tuple[Sequence[Text] | None, tuple[int, int], list[Text]] = (
            None, (-1, -1), [])
        self._joined: dict[int, tuple[Text, Text | None, Text]] = {}

    def show(self, top: tuple[Text, Text], seats: Sequence[Text], label: Text,
             pile: tuple[int, ...], detail: Sequence[Text], collection: Sequence[Text],
             scorecard: Sequence[Text]) -> None:
        """``top`` is the first line and what ends it when there is room (else it is left
        out, not cut); ``label`` starts the pile's line (« Votre pile : »), ``detail`` the
        lines under it."""
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
        self._joined.clear()
        self._draw()

    def _draw(self) -> None:
        width = self.content_size.width
        if width <= 0 or not self._detail:
            return  # not laid out yet: on_resize draws
        if width != self._block_width:
            self._block = self._layout(width)
            self._block_width = width
        first, extra = self._top
        if first.cell_len + extra.cell_len <= width:
            first = first + extra
        self.lines = (first, *self._seats, *self._block)

    def _layout(self, width: int) -> tuple[Text, ...]:
        """The detailed seat: its pile, the lines under it and its collection on the left,
        its scorecard on the right."""
        label, pile, detail, collection, scorecard = self._detail
        right = max((cell_len(line.plain) for line in scorecard), default=0)
        left_width = max(MIN_LEFT, width - right - 2)
        pile_line = label.copy().append_text(
            last_chips(pile, self.letters, left_width - label.cell_len))
        rows = [pile_line, *detail][:DETAIL_ROWS]
        rows += self._wrap(collection, left_width, DETAIL_ROWS - len(rows))
        rows += [EMPTY] * (DETAIL_ROWS - len(rows))
        block = []
        for y, left in enumerate(rows):
            right_part = scorecard[y] if y < len(scorecard) else None
            known = self._joined.get(y)
            if known is None or known[0] is not left or known[1] is not right_part:
                joined = join_columns([left], [right_part] if right_part else [], left_width)
                known = self._joined[y] = (left, right_part, joined[0])
            block.append(known[2])
        return tuple(block)

    def _wrap(self, collection: Sequence[Text], width: int, rows: int) -> list[Text]:
        """The collection on at most ``rows`` rows of ``width`` (… when cut)."""
        if rows <= 0 or not collection:
            return []
        parts, known_size, wrapped = self._wrapped
        if parts is not collection or known_size != (width, rows):
            wrapped = self._flow(collection, width, GAPS[0])
            if len(wrapped) > rows:
                wrapped = min(wrapped, self._flow(collection, width, GAPS[1]), key=len)
            self._wrapped = (collection, (width, rows), wrapped)
        if len(wrapped) <= rows:
            return wrapped
        cut = wrapped[:rows]
        cut[-1] = cut[-1].copy()
        cut[-1].truncate(width - 1)
        cut[-1].append("…")
        return cut

    def _flow(self, collection: Sequence[Text], width: int, gap: str) -> list[Text]:
        """The label, then each colour's part where it fits whole: on the same row after
        ``gap``, else on the next, indented. (Only a part wider than a whole row is cut across
        rows.)"""
        label, *parts = collection
        rows = [label.copy()]
        for n, part in enumerate(parts):
            row = rows[-1]
            between = gap if n else ""
            if row.cell_len + len(between) + part.cell_len <= width:
                row.append(between).append_text(part)
                continue
            for piece in part.wrap(self.app.console, width - len(INDENT)):
                rows.append(Text(INDENT).append_text(piece))
        return rows
