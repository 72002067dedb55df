"""Shown over everything while the terminal is smaller than the game needs."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Static

from .base import KeyBarMixin

MIN_WIDTH, MIN_HEIGHT = 80, 24


def too_small(width: int, height: int) -> bool:
    return width < MIN_WIDTH or height < MIN_HEIGHT


class TooSmallScreen(KeyBarMixin, ModalScreen[None]):
    """No key acts here but Ctrl+Q; the app removes this screen once the terminal is large
    enough again."""

    CSS_PATH = "too_small.tcss"

    def compose(self) -> ComposeResult:
        yield Static(id="too-small-title", markup=False)
        yield Static(id="too-small-body", markup=False)

    def on_mount(self) -> None:
        self._show(self.app.size.width, self.app.size.height)

    def on_resize(self, event: events.Resize) -> None:
        self._show(event.size.width, event.size.height)

    def _show(self, width: int, height: int) -> None:
        self.query_one("#too-small-title", Static).update(self.t("too_small.title"))
        self.query_one("#too-small-body", Static).update(self.t(
            "too_small.body", min_w=MIN_WIDTH, min_h=MIN_HEIGHT, w=width, h=height))
