"""A table's title bar: what the table is, and on the right the seconds left to the player
whose turn it is, while a turn timer runs: by steps of STEP seconds (« 60 s », « 55 s »…), then
every second in the last URGENT seconds. Each change repaints the title on every screen at the
table; a countdown by the second would cost as many repaints as the moves themselves, for a
precision nobody needs until the end of the turn. Nor does it wake every second to look: it
wakes when what it shows next is due (every STEP seconds, then every second), a fifth of the
wake-ups of every app at a table with a turn timer."""

from __future__ import annotations

import asyncio
import math

from rich.text import Text
from textual import events
from textual.reactive import reactive
from textual.timer import Timer

from .lines import TextLines

URGENT = 10  # seconds: from here on the timer counts every second, and stands out
STEP = 5  # seconds between two changes of the timer before that
WAKE_MARGIN = 0.01  # seconds after a change is due: the clock has passed it when we look


class TitleBar(TextLines):
    """``title`` on the left; ``deadline`` is the event loop's time when the turn runs out (None:
    no timer; the table screen makes it of the time left it receives). ``template`` formats the
    seconds left ("{n} s")."""

    DEFAULT_CSS = """
    TitleBar { height: 1; padding: 0 1; background: $primary-background; }
    """

    title: reactive[Text] = reactive(Text, repaint=False)
    deadline: reactive[float | None] = reactive(None, repaint=False)

    def __init__(self, template: str = "{n} s", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.template = template
        self._ticker: Timer | None = None
        self._shown: int | None = None  # the seconds drawn last

    def watch_title(self) -> None:
        self._draw()

    def on_resize(self, event: events.Resize) -> None:
        super().on_resize(event)
        self._draw()

    def watch_deadline(self) -> None:
        self._draw()
        self._wake_next()

    def _wake_next(self, covered: bool = False) -> None:
        """Wake when the seconds shown change next (under a window: in a second, to look
        again once it is gone); not at all without a deadline or at zero."""
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
        if self.deadline is None:
            return
        if covered:
            wait = 1.0
        else:
            shown = self.seconds_shown()
            if shown <= 0:
                return
            # Shown goes from `shown` to the next value when the time left reaches it.
            following = shown - STEP if shown > URGENT else shown - 1
            now = asyncio.get_running_loop().time()
            wait = max(0.0, self.deadline - now - following) + WAKE_MARGIN
        self._ticker = self.set_timer(wait, self._tick)

    def _tick(self) -> None:
        # Only on top: under a window (a dialog shows the screen beneath it), a repaint redraws
        # the whole stack of screens.
        on_top = self.screen is self.app.screen
        if on_top and self.seconds_shown() != self._shown:
            self._draw()
        self._wake_next(covered=not on_top)

    def seconds_left(self) -> int:
        if self.deadline is None:
            return 0
        return max(0, math.ceil(self.deadline - asyncio.get_running_loop().time()))

    def seconds_shown(self) -> int:
        """The seconds left, rounded up to a multiple of STEP until the last URGENT ones."""
        left = self.seconds_left()
        return left if left <= URGENT else math.ceil(left / STEP) * STEP

    def _draw(self) -> None:
        line = self.title.copy()
        if self.deadline is not None:
            left = self._shown = self.seconds_shown()
            timer = Text(self.template.format(n=left), "bold reverse" if left <= URGENT else "")
            room = self.content_size.width - line.cell_len - timer.cell_len
            if room < 1:
                line.truncate(max(0, line.cell_len + room - 1), overflow="ellipsis")
            line.append(" " * max(1, room))
            line.append_text(timer)
        self.lines = (line,)
