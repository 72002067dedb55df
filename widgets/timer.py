"""The turn timer: seconds left before the stand-in plays, ticking once a second."""

from __future__ import annotations

import asyncio
import math

from rich.text import Text
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

URGENT = 10  # seconds: from here on the timer stands out


class TurnTimer(Widget):
    """``deadline`` is the event loop's time when the turn runs out (None: no timer shown).
    ``template`` formats the seconds left ("{n} s")."""

    DEFAULT_CSS = """
    TurnTimer { width: 8; height: 1; padding: 0 1; content-align: right middle; }
    TurnTimer.-urgent { background: $error; color: $text; text-style: bold; }
    """

    deadline: reactive[float | None] = reactive(None, layout=True)

    def __init__(self, template: str = "{n} s", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.template = template
        self._ticker: Timer | None = None

    def watch_deadline(self, deadline: float | None) -> None:
        if deadline is None:
            if self._ticker is not None:
                self._ticker.stop()
                self._ticker = None
        elif self._ticker is None:
            self._ticker = self.set_interval(1.0, self._tick)
        self.display = deadline is not None
        self._tick()

    def _tick(self) -> None:
        self.set_class(self.deadline is not None and self.seconds_left() <= URGENT, "-urgent")
        self.refresh()

    def seconds_left(self) -> int:
        if self.deadline is None:
            return 0
        return max(0, math.ceil(self.deadline - asyncio.get_running_loop().time()))

    def render(self) -> Text:
        return Text(self.template.format(n=self.seconds_left()), no_wrap=True, end="")
