"""A long text (the help's keys and rules, in Markdown), rendered once for the whole process.

Rendering the help's Markdown took some 200 ms of CPU each time a player pressed « ? » (the
rules of both games: hundreds of lines, parsed, laid out, turned into rows, twice — once to
measure its height), and a server runs many players' apps. Here a document's rows are
rendered once per width and style for the process, shared by every app that shows it, and a
frame draws only the rows on screen (Textual's line API). The rows are exactly those a
``Static`` holding the same Markdown would draw, but that a no-break space (U+00A0) never
breaks a line (French puts one before « : » and « ; », which Rich would otherwise start a line
with).
"""

from __future__ import annotations

from rich.markdown import Markdown
from rich.segment import Segment
from rich.style import Style
from textual.cache import LRUCache
from textual.geometry import Size
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

RowsKey = tuple[str, int, Style]
_rows: LRUCache[RowsKey, tuple[Strip, ...]] = LRUCache(16)
"""Documents rendered, for every app of the process: the Markdown, the width, the base style.
A help page is 20 (keys) to 200 rows (rules) at 80 columns, up to about 0.5 MiB; a few pages
(the keys of each screen, the rules of each game), languages and widths are in use at a time."""
NO_BREAK = "\u00a0"
_HELD = "\ue000"
"""Stands for a no-break space while Rich lays the text out: Rich breaks lines at any Unicode
space, and this private-use character is one cell wide and no space."""


def _released(segment: Segment) -> Segment:
    """The segment with the no-break spaces held during the layout shown as spaces."""
    text, style, control = segment
    return Segment(text.replace(_HELD, " "), style, control) if _HELD in text else segment


class MarkdownPage(Widget):
    """``markdown`` as rows of text, as tall as it is (put it in a scrolling container)."""

    DEFAULT_CSS = """
    MarkdownPage { height: auto; }
    """

    markdown: reactive[str] = reactive("", layout=True)

    def __init__(self, markdown: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.set_reactive(MarkdownPage.markdown, markdown)

    def rows(self, width: int) -> tuple[Strip, ...]:
        style = self.visual_style.rich_style
        key = (self.markdown, width, style)
        rows = _rows.get(key)
        if rows is None:
            rows = _rows[key] = self._render_rows(width, style)
        return rows

    def _render_rows(self, width: int, style: Style) -> tuple[Strip, ...]:
        # As textual.visual.RichVisual renders a Static's content (its base style applied).
        app = self.app
        options = app.console_options.update(highlight=False, width=width)
        markdown = Markdown(self.markdown.replace(NO_BREAK, _HELD))
        segments = app.console.render(self.post_render(markdown, style), options)
        lines = Segment.split_and_crop_lines(segments, width, include_new_lines=False, pad=False)
        return tuple(Strip([_released(segment) for segment in line]) for line in lines)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.rows(width))

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        rows = self.rows(width)
        return rows[y] if y < len(rows) else Strip.blank(width)
