"""The log: sentences and chat lines, newest at the bottom.

It keeps its size (a scrolling log's growing height would lay the whole screen out again at
every line) and fills from the top, a new line repainting only its own rows. When it is full it
moves up by half its height at once, like a pager: the newest half stays in view and the next
lines again repaint only their rows — rather than every row at every line, which cost several
times more than the rest of a table update.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import ClassVar

from rich.text import Text
from textual import events

from .lines import TextLines

MAX_LINES = 100  # entries kept (to wrap again on a resize): bounded memory per session


class GameLog(TextLines):
    DEFAULT_CSS = """
    GameLog {
        height: 1fr;
        background: $surface;
        padding: 0 1;
    }
    GameLog > .gamelog--name { text-style: bold; color: $accent; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"gamelog--name"}

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.entries: deque[Text] = deque(maxlen=MAX_LINES)
        self._rows: list[Text] = []  # the entries wrapped to the width, oldest first
        self._top = 0  # the first row shown

    def add_lines(self, lines: Iterable[str | Text]) -> None:
        width = self.content_size.width
        for line in lines:
            entry = line if isinstance(line, Text) else Text(line)
            self.entries.append(entry)
            if width > 0:
                self._rows += self._wrap(entry, width)
        self._show()

    def add_chat(self, name: str, text: str, separator: str = " : ") -> None:
        """A chat line; ``name`` and ``text`` are user text, shown as they are (never markup)."""
        line = Text()
        line.append(name, self.get_component_rich_style("gamelog--name", partial=True))
        line.append(separator)
        line.append(text)
        self.add_lines([line])

    def on_resize(self, event: events.Resize) -> None:
        super().on_resize(event)
        width = self.content_size.width
        self._rows = [row for entry in self.entries
                      for row in self._wrap(entry, width)] if width > 0 else []
        self._top = max(0, len(self._rows) - self.content_size.height)
        self._show()

    def _wrap(self, entry: Text, width: int) -> list[Text]:
        """``entry`` cut into rows of ``width`` cells. Most lines fit in one row as they are,
        and Rich's word wrapping costs more than the rest of adding a line."""
        plain = entry.plain
        if entry.cell_len <= width and "\n" not in plain and "\t" not in plain:
            return [entry]
        return list(entry.wrap(self.app.console, width))

    def _show(self) -> None:
        height = self.content_size.height
        if height <= 0:
            return  # not laid out yet: on_resize shows it
        if len(self._rows) - self._top > height:  # full: up by half a page
            self._top = len(self._rows) - (height + 1) // 2
        if self._top > 4 * MAX_LINES:  # forget what can no longer be shown
            del self._rows[:self._top]
            self._top = 0
        shown = self._rows[self._top:self._top + height]
        self.lines = (*shown, *(Text() for _ in range(height - len(shown))))
