"""Widgets made of lines of ``Text``, drawn with Textual's line API.

Repainting a row of a widget costs about 0.3 ms of CPU on a shared server, and a table update
reaches every player and spectator: so these widgets repaint only the rows whose text changed
(a seat whose card count moved, the prompt), not the whole widget, and never lay the screen
out again. Text is given as ``rich.text.Text``: user text (names, chat) is never markup.

The players and spectators of a table mostly see the same rows (the title, the log's lines,
the prompt, most of the board), so a row is turned into a ``Strip`` once for the whole process
and shared: the apps of one table render each such row once per move, not once each.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text
from textual import events
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

PLAIN = Style()
StripKey = tuple[str, tuple[Span, ...], str | Style, int]
_strips: LRUCache[StripKey, Strip] = LRUCache(2048)
"""Rows rendered, for every app of the process: a row is its text, spans, base style and
width. (A shared Strip also keeps the bytes it was first turned into, which holds for apps of
different colour depths only because ``server.driver.configure_textual`` keeps those bytes per
depth.) A row of the board is some 2.5 KiB: the cache holds at most about 5 MiB, a few seconds
of a busy server's new rows, which is when the other apps of the same table ask for them."""


class TextLines(Widget):
    """Shows ``lines``, one per row, clipped to the widget (an ellipsis marks a cut line).

    With ``height: auto`` the widget is as tall as its lines."""

    DEFAULT_CSS = """
    TextLines { height: auto; }
    """

    lines: reactive[tuple[Text, ...]] = reactive((), repaint=False)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._strips: dict[int, Strip] = {}
        self._width = -1

    def watch_lines(self, old: tuple[Text, ...], new: tuple[Text, ...]) -> None:
        if len(old) != len(new):
            self._strips.clear()
            self.refresh(layout=self.styles.height is not None and self.styles.height.is_auto)
            return
        # Text's own == ignores the base style: compare it too. (The same object given again
        # is unchanged: screens that keep the rows a move did not touch pay nothing for them.)
        changed = [y for y, (a, b) in enumerate(zip(old, new, strict=True))
                   if a is not b and (a != b or a.style != b.style)]
        for y in changed:
            self._strips.pop(y, None)
        width = self.content_size.width
        if changed and width:
            self.refresh(*(Region(0, y, width, 1) for y in changed))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines)

    def on_resize(self, event: events.Resize) -> None:
        self._strips.clear()

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        if width != self._width:
            self._strips.clear()
            self._width = width
        strip = self._strips.get(y)
        if strip is None:
            lines = self.lines
            strip = self._strip(lines[y] if y < len(lines) else Text(), width)
            self._strips[y] = strip
        return strip

    def _strip(self, text: Text, width: int) -> Strip:
        key = (text.plain, tuple(text.spans), text.style, width)
        strip = _strips.get(key)
        if strip is None:
            strip = _strips[key] = self._render_strip(text, width)
        return strip

    def _render_strip(self, text: Text, width: int) -> Strip:
        line = text.copy()
        if line.style:  # Text.render ignores a base style when there are no spans
            line.stylize(line.style)
            line.style = ""
        line.truncate(width, overflow="ellipsis")
        # Every segment gets a style: Textual's line filters (NO_COLOR's) expect one.
        segments = [Segment(text, style or PLAIN) for text, style, _ in
                    line.render(self.app.console)]
        cells = line.cell_len
        if cells < width:
            segments.append(Segment(" " * (width - cells), PLAIN))
        return Strip(segments, width)


class CursorLines(TextLines, can_focus=True):
    """Lines with a ``cursor``, drawn by the subclass's ``_draw`` whenever what they show may
    change: the cursor moves, the widget is resized, gains or loses the focus. The mouse
    wheel moves the cursor (``action_move``)."""

    cursor: reactive[int] = reactive(0, repaint=False, bindings=True)

    def _draw(self) -> None:
        raise NotImplementedError

    def action_move(self, step: int) -> None:
        raise NotImplementedError

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self.action_move(1)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self.action_move(-1)

    def watch_cursor(self) -> None:
        self._draw()

    def on_resize(self, event: events.Resize) -> None:
        super().on_resize(event)
        self._draw()

    def on_focus(self) -> None:
        self._draw()

    def on_blur(self) -> None:
        self._draw()


class TextLine(TextLines):
    """One line, ``text``."""

    DEFAULT_CSS = """
    TextLine { height: 1; padding: 0 1; }
    """

    text: reactive[Text] = reactive(Text, repaint=False)

    def watch_text(self, text: Text) -> None:
        self.lines = (text,)


def fit(text: Text | str, width: int) -> Text:
    """``text`` cut (with …) or padded to exactly ``width`` cells (a copy)."""
    line = text.copy() if isinstance(text, Text) else Text(text)
    line.truncate(width, overflow="ellipsis", pad=True)
    return line


def join_columns(left: Sequence[Text], right: Sequence[Text], left_width: int,
                 gap: int = 2) -> tuple[Text, ...]:
    """Two columns of lines side by side: ``left`` cut or padded to ``left_width`` cells."""
    rows = []
    for y in range(max(len(left), len(right))):
        line = fit(left[y] if y < len(left) else Text(), left_width)
        line.append(" " * gap)
        if y < len(right):
            line.append_text(right[y])
        rows.append(line)
    return tuple(rows)
