"""The cyclic garbage collector in a process of many apps.

Each Textual app is some 30,000 objects the collector tracks (widgets, styles, cached lines of
text), and most of them live as long as the session. Python's full collection looks at every one
of them: about 1 s with 50 sessions on a small machine, during which no session gets a frame —
and with apps making objects at every frame, it came every few seconds.

So what survives a full collection is frozen (``gc.freeze``): the collector no longer looks at
it, and the next full collections only look at what came since (tens of milliseconds). Frozen
objects are still freed when nothing refers to them any more; only cycles among them are not.
An app that ends leaves such cycles behind (a widget and its parent refer to each other), so
once enough sessions have ended since the last time, a sweep unfreezes everything and collects
it all: a pause as long as an old full collection, rare, and logged with its length.
"""

from __future__ import annotations

import gc
import logging
import time
from typing import Any

log = logging.getLogger("pioche.server")

SWEEP_MIN_ENDED = 20
"""Sessions that must have ended since the last sweep before the next one; with many sessions
live, at least half as many as are live (their leftovers are then at most half the heap)."""


class Collector:
    """``start()`` once the process is ready, ``session_ended()`` after each session,
    ``stop()`` at the end."""

    def __init__(self, min_ended: int = SWEEP_MIN_ENDED) -> None:
        self.min_ended = min_ended
        self.ended = 0  # sessions ended since the last sweep
        self.sweeps = 0
        self._running = False
        self._sweeping = False

    def start(self) -> None:
        """Freeze what the process holds now (modules, classes, the store) and from now on
        what survives each full collection."""
        if self._running:
            return
        self._running = True
        gc.collect()
        gc.freeze()
        gc.callbacks.append(self._after_collection)

    def stop(self) -> None:
        if not self._running:
            return
        self._running = False
        gc.callbacks.remove(self._after_collection)
        gc.unfreeze()

    def _after_collection(self, phase: str, info: dict[str, Any]) -> None:
        # Right after a full collection everything left is alive: freeze it.
        if phase == "stop" and info["generation"] == 2 and not self._sweeping:
            gc.freeze()

    def session_ended(self, live: int) -> None:
        """A session ended; ``live`` are still running. Sweeps when enough have ended."""
        self.ended += 1
        if self._running and self.ended >= max(self.min_ended, live // 2):
            self.sweep()

    def sweep(self) -> None:
        """Collect everything, frozen or not, then freeze what is left."""
        started = time.perf_counter()
        self._sweeping = True
        try:
            gc.unfreeze()
            found = gc.collect()
            gc.freeze()
        finally:
            self._sweeping = False
        self.sweeps += 1
        log.info("garbage sweep after %d sessions ended: %d objects freed in %.0f ms",
                 self.ended, found, (time.perf_counter() - started) * 1000)
        self.ended = 0
