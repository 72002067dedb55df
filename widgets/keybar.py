"""The key bar: the keys that act now, on one line at the bottom of a screen."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.reactive import reactive

from .lines import TextLine


class KeyBar(TextLine):
    """Shows ``keys``: pairs of (key as displayed, what it does), in order."""

    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
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

    def watch_keys(self, keys: tuple[tuple[str, str], ...]) -> None:
        key_style = self.get_component_rich_style("keybar--key")
        text = Text(" ")
        for key, description in keys:
            text.append(key, key_style)
            text.append(f" {description}  ")
        self.text = text
