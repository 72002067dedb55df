"""A checkbox whose state reads without colour: its box holds X when on, nothing when off."""

from __future__ import annotations

from textual.widgets import Checkbox


class Toggle(Checkbox):
    def __init__(self, label: str, value: bool = False, *, id: str | None = None) -> None:
        super().__init__(label, value, id=id, compact=True)
        self.BUTTON_INNER = "X" if value else " "

    def watch_value(self) -> None:
        self.BUTTON_INNER = "X" if self.value else " "
        super().watch_value()
