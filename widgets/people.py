"""A plain list of lines (who is online): names are user text, rendered as Text."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget


class LineList(Widget):
    """Shows ``lines``, one per row, clipped to the widget's size."""

    DEFAULT_CSS = """
    LineList { height: 1fr; padding: 0 1; overflow: hidden; }
    """

    lines: reactive[tuple[Text, ...]] = reactive((), layout=False)

    def render(self) -> Text:
        return Text("\n", no_wrap=True, overflow="ellipsis", end="").join(self.lines)
