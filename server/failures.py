"""Failed connection attempts, told to the operator: a warning each, a few per reason.

A client that cannot get in (no common key exchange, an authentication it gives up, a refusal)
would otherwise leave no trace: asyncssh's own log is kept to warnings, and it logs none of
these. One line per failure shows a whole class of clients failing (the line names the client's
software); a limit per reason keeps a flood of failing clients from flooding the log, and a count
of what was left out follows.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter

from pioche_tui.coordinator.text import RateLimiter, sanitise

DETAIL_MAX = 300  # characters of an error's text kept (a key exchange failure lists algorithms)
CLIENT_MAX = 80  # characters of the client's version string kept


class FailureLog:
    """At most ``burst`` lines per ``window`` seconds for each reason; past it failures are
    counted, and the count is logged ``window`` seconds after the first one left out."""

    def __init__(self, logger: logging.Logger, burst: int, window: float) -> None:
        self._log = logger
        self._window = window
        self._limiter = RateLimiter(burst, window)
        self._untold: Counter[str] = Counter()
        self._timers: dict[str, asyncio.TimerHandle] = {}  # per reason, when a count waits
        self._levels: dict[str, int] = {}  # per reason, the level of its lines
        self._since: dict[str, float] = {}  # per reason, when the first untold one came

    def failed(
        self, reason: str, peer: str, client: str | None, detail: str,
        level: int = logging.WARNING,
    ) -> None:
        """One failed attempt from ``peer``, whose SSH version string is ``client`` (None when it
        sent none). ``client`` and ``detail`` may hold what the client sent: they are made
        printable and cut."""
        loop = asyncio.get_running_loop()
        self._levels[reason] = level
        if self._limiter.allow(reason, loop.time()):
            self._log.log(
                level, "%s from %s (%s): %s", reason, peer,
                sanitise(client, CLIENT_MAX) if client else "no SSH version",
                sanitise(detail, DETAIL_MAX),
            )
            return
        self._untold[reason] += 1
        if reason not in self._timers:
            self._since[reason] = loop.time()
            self._timers[reason] = loop.call_later(self._window, self._tell_count, reason)

    def _tell_count(self, reason: str) -> None:
        del self._timers[reason]
        seconds = asyncio.get_running_loop().time() - self._since.pop(reason)
        self._log.log(self._levels[reason], "%s: %d more in the last %.0f s, not logged one by one",
                      reason, self._untold.pop(reason), seconds)

    def flush(self) -> None:
        """Log the counts still waiting for their time (the server is stopping)."""
        for reason, timer in list(self._timers.items()):
            timer.cancel()
            self._tell_count(reason)
