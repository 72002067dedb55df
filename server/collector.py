"""The cyclic garbage collector in a process of many apps.

Each Textual app is some 30,000 objects the collector tracks (widgets, styles, cached lines of
text), and most of them live as long as the session. Python's full collection looks at every one
of them: about 1 s with 50 sessions on a small machine, during which no session gets a frame —
and with apps making objects at every frame, it came every few seconds.

So what survives a full collection is frozen (``gc.freeze``): the collector no longer looks at
it, and the next full collections only look at what came since (tens of milliseconds). Frozen
objects are still freed when nothing refers to them any more; only cycles among them are not.
That is safe only if what a session drops — a closed window, a toast, the whole app when the
player leaves — is freed by reference counting alone: ``server/cycles.py`` breaks the cycles
Textual leaves in it, and ``start()`` installs those fixes. Before them each help opened and
closed left 1 MiB frozen for good, and only a sweep (everything unfrozen and collected: a pause
of a second or more on a busy server) got it back.

The sweep stays, as a safety net for cycles nobody has found yet, but it never stops the world
for long: it runs once some sessions have ended and only when it fits in its pause budget — the
frozen generation's size times the collection speed measured at start and at each sweep. On a
busy server it waits for a quieter moment. Each sweep logs what it freed: much means a new
cycle to break.
"""

from __future__ import annotations

import gc
import logging
import time
from typing import Any

from . import cycles

log = logging.getLogger("pioche.server")

SWEEP_MIN_ENDED = 20
"""Sessions that must have ended since the last sweep before the next one is considered."""
SWEEP_PAUSE = 0.05
"""Seconds a sweep may stop the process for: one is run only when its estimate fits."""
HEADROOM = 1 / 2
"""A sweep is estimated from the last collection's speed, which the machine's load moves (an
estimate of 33 ms took up to 48 ms on the loaded machine), and counting the frozen generation
first takes some milliseconds too: a sweep is run only when its estimate takes at most this
share of ``SWEEP_PAUSE``."""
APP_OBJECTS = 30_000
"""Objects the collector tracks per running app, about (docs/performance.md): counting the
frozen generation takes a walk through it, so it is not counted when the apps alone make a
sweep too long."""


class Collector:
    """``start()`` once the process is ready, ``session_ended()`` after each session,
    ``stop()`` at the end."""

    def __init__(self, min_ended: int = SWEEP_MIN_ENDED, pause: float = SWEEP_PAUSE) -> None:
        self.min_ended = min_ended
        self.pause = pause
        self.ended = 0  # sessions ended since the last sweep
        self.live = 0  # sessions running when the last one ended
        self.sweeps = 0
        self.seconds_per_object = 0.0
        """How long a full collection takes per object it looks at, as last measured."""
        self._running = False
        self._sweeping = False

    def start(self) -> None:
        """Freeze what the process holds now (modules, classes, the store) and from now on
        what survives each full collection."""
        if self._running:
            return
        self._running = True
        cycles.install()
        self._collect_all(len(gc.get_objects()) + gc.get_freeze_count())
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

    def _collect_all(self, objects: int) -> tuple[int, float]:
        """Unfreeze, collect everything, freeze what is left: objects freed and seconds taken.
        ``objects``, about how many there are, gives the collection's speed."""
        self._sweeping = True
        try:
            started = time.perf_counter()
            gc.unfreeze()
            found = gc.collect()
            gc.freeze()
            took = time.perf_counter() - started
        finally:
            self._sweeping = False
        self.seconds_per_object = took / max(objects, 1)
        return found, took

    def sweep_estimate(self) -> float:
        """Seconds a sweep would take now (counting the frozen generation takes a few
        milliseconds per 100,000 objects)."""
        return gc.get_freeze_count() * self.seconds_per_object

    def session_ended(self, live: int) -> None:
        """A session ended; ``live`` are still running. Sweeps when enough have ended and the
        sweep fits in its pause budget."""
        self.ended += 1
        self.live = live
        if not self._running or self.ended < self.min_ended:
            return
        budget = self.pause * HEADROOM
        if live * APP_OBJECTS * self.seconds_per_object > budget:
            return  # a busy server: not now (nor worth counting)
        if self.sweep_estimate() <= budget:
            self.sweep()

    def sweep(self) -> None:
        """Collect everything, frozen or not, then freeze what is left."""
        found, took = self._collect_all(gc.get_freeze_count())  # (the young ones: few)
        self.sweeps += 1
        log.info("garbage sweep after %d sessions ended (%d live): %d objects freed in %.0f ms",
                 self.ended, self.live, found, took * 1000)
        self.ended = 0
