"""The key bar: the keys that act now, on one line at the bottom of a screen."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget


class KeyBar(Widget):
    """Shows ``keys``: pairs of (key as displayed, what it does), in order."""

    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        width: 1fr;
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

    keys: reactive[tuple[tuple[str, str], ...]] = reactive((), layout=False)

    def render(self) -> Text:
        key_style = self.get_component_rich_style("keybar--key")
        text = Text(" ", no_wrap=True, overflow="ellipsis", end="")
        for key, description in self.keys:
            text.append(key, key_style)
            text.append(f" {description}  ")
        return text
