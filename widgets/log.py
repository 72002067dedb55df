"""The log: sentences and chat lines, newest at the bottom, and the table's history above them.

It keeps its size (a scrolling log's growing height would lay the whole screen out again at
every line) and fills from the top. Once full, the view follows the newest line: each new line
moves the rows up by one (one repaint of the log's rows). PageUp/PageDown (``page``) and the
mouse wheel go back through what it keeps; while the player reads back there, new lines do not
move the view, and its bottom row says how many wait below. Back at the bottom, it follows again.

What it keeps is bounded (``HISTORY`` entries per screen: a whole game of either game, most of
the time), oldest dropped first, so a session's memory does not grow with a long game.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events

from .lines import TextLines

HISTORY = 1500
"""Entries (sentences, chat lines) kept per log. A whole game of four is some 710 lines of
Défausse to 500 points (1,290 at most in 30 games) and 580 of Collection (650 at most). Kept
as the plain strings most of them are, 1,500 lines take some 250 KiB (as `Text`, 570)."""
WHEEL = 3  # rows per notch of the mouse wheel
ROLES = frozenset({"name", "time", "private", "mention", "info"})  # a chat line's styled parts


class GameLog(TextLines):
    DEFAULT_CSS = """
    GameLog {
        height: 1fr;
        background: $surface;
        padding: 0 1;
    }
    GameLog > .gamelog--name { text-style: bold; color: $accent; }
    GameLog > .gamelog--below { text-style: reverse; }
    GameLog > .gamelog--time { color: $text-muted; }
    GameLog > .gamelog--private { color: $secondary; text-style: italic; }
    GameLog > .gamelog--mention { color: $warning; text-style: bold; }
    GameLog > .gamelog--info { color: $text-muted; text-style: italic; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "gamelog--name", "gamelog--below", "gamelog--time", "gamelog--private",
        "gamelog--mention", "gamelog--info"}

    def __init__(self, below: Callable[[int], str] | None = None, *, id: str | None = None,
                 classes: str | None = None) -> None:
        """``below(n)`` says that ``n`` rows wait below the view (the player's language)."""
        super().__init__(id=id, classes=classes)
        self.below = below or (lambda n: f"↓ {n}")
        # Plain lines stay strings (a third of a Text's memory); a Text only where styled.
        self.entries: deque[str | Text] = deque(maxlen=HISTORY)
        self._heights: deque[int] = deque(maxlen=HISTORY)  # rows of each entry
        self._rows: list[str | Text] = []  # the entries wrapped to the width, oldest first
        self._wrapped_at = -1  # the width _rows were last wrapped to as a whole (on_resize)
        self._top = 0  # the first row shown
        self.following = True  # the view is at the bottom and follows new lines

    # --- lines in -------------------------------------------------------------------------

    def add_lines(self, lines: Iterable[str | Text]) -> None:
        width = self.content_size.width
        for entry in lines:
            if len(self.entries) == HISTORY:  # the oldest goes, with its rows
                gone = self._heights[0]
                del self._rows[:gone]
                self._top = max(0, self._top - gone)
            rows = self._wrap(entry, width) if width > 0 else []
            self.entries.append(entry)
            self._heights.append(len(rows))
            self._rows += rows
        self._show()

    def clear(self) -> None:
        """Empty the log (a replay going back tells its round again)."""
        self.entries.clear()
        self._heights.clear()
        self._rows = []
        self._top = 0
        self.following = True
        self._show()

    def add_chat(self, parts: Iterable[tuple[str, str]]) -> None:
        """A chat line from its parts: (text, role), the role "" or one of ``ROLES``, each
        styled by its component class (``gamelog--ROLE``). The text is user text, shown as it
        is (never markup)."""
        line = Text()
        for text, role in parts:
            line.append(text, self.get_component_rich_style(f"gamelog--{role}", partial=True)
                        if role in ROLES else "")
        self.add_lines([line])

    # --- moving through it ----------------------------------------------------------------

    @property
    def _bottom(self) -> int:
        """The first row shown when the view is at the bottom."""
        return max(0, len(self._rows) - self.content_size.height)

    def page(self, pages: int) -> None:
        """Move the view by ``pages`` pages (negative: back in time); a page keeps a row of
        the one before."""
        self.scroll_rows(pages * max(1, self.content_size.height - 1))

    def scroll_rows(self, rows: int) -> None:
        self._top = max(0, min(self._bottom, self._top + rows))
        self.following = self._top >= self._bottom
        self._show()

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self.scroll_rows(-WHEEL)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self.scroll_rows(WHEEL)

    # --- drawing --------------------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        super().on_resize(event)
        width = self.content_size.width
        # The rows depend on the width alone: a change of height (the chat line, a hint, the
        # key bar's second line) re-wraps nothing, up to HISTORY entries.
        if width != self._wrapped_at:
            self._wrapped_at = width
            self._heights.clear()
            self._rows = []
            if width > 0:
                for entry in self.entries:
                    rows = self._wrap(entry, width)
                    self._heights.append(len(rows))
                    self._rows += rows
            else:
                self._heights.extend(0 for _ in self.entries)
        if self.following:
            self._top = self._bottom
        self._show()

    def _wrap(self, entry: str | Text, width: int) -> list[str | Text]:
        """``entry`` cut into rows of ``width`` cells. Most lines fit in one row as they are,
        and Rich's word wrapping costs more than the rest of adding a line."""
        plain = entry.plain if isinstance(entry, Text) else entry
        if cell_len(plain) <= width and "\n" not in plain and "\t" not in plain:
            return [entry]
        text = entry if isinstance(entry, Text) else Text(entry)
        return list(text.wrap(self.app.console, width))

    def _show(self) -> None:
        height = self.content_size.height
        if height <= 0:
            return  # not laid out yet: on_resize shows it
        if self.following:
            self._top = self._bottom
        self._top = min(self._top, self._bottom)
        shown = [row if isinstance(row, Text) else Text(row)
                 for row in self._rows[self._top:self._top + height]]
        waiting = len(self._rows) - self._top - height
        if waiting > 0 and not self.following:  # the bottom row says what waits below
            style = self.get_component_rich_style("gamelog--below", partial=True)
            shown = [*shown[:height - 1], Text(self.below(waiting + 1), style)]
        self.lines = (*shown, *(Text() for _ in range(height - len(shown))))
