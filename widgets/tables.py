"""The lobby's list of tables: one row per table, a cursor, Enter to choose."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.widgets import DataTable


@dataclass(frozen=True, slots=True)
class TableRow:
    """One table as the lobby shows it: ``key`` identifies it, ``cells`` follow the columns."""

    key: str
    cells: tuple[str | Text, ...]


class TablesList(DataTable[str | Text]):
    """``set_rows`` replaces the rows and keeps the cursor on the same table.

    ``columns`` are (title, width) pairs; a width of 0 takes the room the others leave."""

    DEFAULT_CSS = """
    TablesList { height: 1fr; }
    """

    def __init__(self, columns: Sequence[tuple[str, int]], *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True, show_cursor=True)
        self._column_specs = tuple(columns)
        self._rows: tuple[TableRow, ...] = ()
        self._width = 0

    def on_mount(self) -> None:
        self._build_columns()

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._width:
            self._build_columns()
            self._fill()

    def _build_columns(self) -> None:
        self._width = self.size.width
        fixed = sum(w for _, w in self._column_specs)
        # cell padding (1 each side) and the vertical scrollbar's column
        free = max(8, self._width - fixed - 2 * len(self._column_specs) - 1)
        self.clear(columns=True)
        for title, width in self._column_specs:
            self.add_column(title, width=width or free)

    def set_rows(self, rows: Sequence[TableRow]) -> None:
        rows = tuple(rows)
        if rows == self._rows:
            return
        self._rows = rows
        self._fill()

    def _fill(self) -> None:
        selected = self.selected_key()
        self.clear()
        for row in self._rows:
            self.add_row(*row.cells, key=row.key)
        if selected is not None:
            for index, row in enumerate(self._rows):
                if row.key == selected:
                    self.move_cursor(row=index, animate=False)
                    break

    def selected_key(self) -> str | None:
        """The key of the row under the cursor, None when there are no rows."""
        if not self._rows or not 0 <= self.cursor_row < len(self._rows):
            return None
        return self._rows[self.cursor_row].key
