"""A scrolling log of sentences and chat lines, newest at the bottom."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.text import Text
from textual.widgets import RichLog

MAX_LINES = 200  # enough to scroll back through a round; bounded memory per session


class GameLog(RichLog):
    """Lines are appended, never re-rendered: adding one repaints only this widget."""

    DEFAULT_CSS = """
    GameLog {
        background: $surface;
        scrollbar-size-vertical: 1;
        padding: 0 1;
    }
    GameLog > .gamelog--name { text-style: bold; color: $accent; }
    GameLog > .gamelog--notice { color: $text-muted; text-style: italic; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"gamelog--name", "gamelog--notice"}

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(max_lines=MAX_LINES, wrap=True, markup=False, highlight=False,
                         auto_scroll=True, id=id, classes=classes)

    def add_lines(self, lines: Iterable[str | Text]) -> None:
        for line in lines:
            self.write(line if isinstance(line, Text) else Text(line))

    def add_chat(self, name: str, text: str, separator: str = " : ") -> None:
        """A chat line; ``name`` and ``text`` are user text, shown as they are (never markup)."""
        line = Text()
        line.append(name, self.get_component_rich_style("gamelog--name", partial=True))
        line.append(separator)
        line.append(text)
        self.write(line)

    def add_notice(self, text: str) -> None:
        self.write(Text(text, self.get_component_rich_style("gamelog--notice", partial=True)))
