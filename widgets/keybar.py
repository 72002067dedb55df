"""The key bar: the keys that act now, at the bottom of a screen, on one line or two.

Keys wrap to a second line, between two keys (never inside one), when one line is not wide
enough; a second line only when needed, so that most screens keep their room. A click on a key
presses it (its first key, when several do the same)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.reactive import reactive

from .lines import TextLines

MAX_LINES = 2


class KeyBar(TextLines):
    """Shows ``keys``: pairs of (key as displayed, what it does), in order."""

    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: auto;
        max-height: 2;
        width: 1fr;
        padding: 0;
        background: $footer-background;
        color: $footer-description-foreground;
    }
    KeyBar > .keybar--key {
        color: $footer-key-foreground;
        background: $footer-key-background;
        text-style: bold;
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"keybar--key"}

    keys: reactive[tuple[tuple[str, str], ...]] = reactive((), repaint=False)
    presses: tuple[str, ...] = ()
    """For each of ``keys``, the key a click presses (as Textual names it: "question_mark");
    set before ``keys``."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._spans: list[tuple[int, int, int, int]] = []  # (line, first cell, end, key index)

    def watch_keys(self) -> None:
        self._draw()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        for line, start, end, index in self._spans:
            if line == offset.y and start <= offset.x < end and index < len(self.presses):
                event.stop()
                self.app.simulate_key(self.presses[index])
                return

    def on_resize(self, event: events.Resize) -> None:
        super().on_resize(event)
        self._draw()

    def _draw(self) -> None:
        width = self.content_size.width or self.app.size.width
        key_style = self.get_component_rich_style("keybar--key")
        lines = [Text(" ")]
        self._spans = []
        for index, (key, description) in enumerate(self.keys):
            item = Text().append(key, key_style).append(f" {description}")
            line = lines[-1]
            if line.cell_len > 1 and line.cell_len + 2 + item.cell_len > width and (
                    len(lines) < MAX_LINES):
                line = Text(" ")
                lines.append(line)
            elif line.cell_len > 1:
                line.append("  ")
            self._spans.append((len(lines) - 1, line.cell_len, line.cell_len + item.cell_len,
                                index))
            line.append_text(item)
        self.lines = tuple(lines)
