"""What the benchmarks over SSH share: a process's CPU time, latency percentiles, the load."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Sequence
from pathlib import Path

import psutil


def cpu_seconds(process: psutil.Process) -> float:
    """User and system CPU time of ``process`` so far (10-ms ticks on Linux)."""
    times = process.cpu_times()
    return float(times.user + times.system)


def ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def percentiles(values: Sequence[float]) -> dict[str, float]:
    """How many, p50, p95, p99 and max of ``values`` (seconds) in milliseconds (nearest rank);
    empty for no values."""
    if not values:
        return {}
    ordered = sorted(values)

    def at(fraction: float) -> float:
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]

    return {"n": len(ordered), "p50": ms(at(0.50)), "p95": ms(at(0.95)), "p99": ms(at(0.99)),
            "max": ms(ordered[-1])}


def load_average() -> list[float]:
    """The machine's load average (1, 5, 15 minutes): what else was running."""
    return [round(x, 2) for x in os.getloadavg()]


async def settle(process: psutil.Process, quiet: float = 0.3, timeout: float = 30.0) -> None:
    """Wait until ``process`` has used no CPU for ``quiet`` seconds (at most ``timeout``)."""
    deadline = time.monotonic() + timeout
    before = cpu_seconds(process)
    while time.monotonic() < deadline:
        await asyncio.sleep(quiet)
        now = cpu_seconds(process)
        if now - before < 0.01:
            return
        before = now


def cpu_wait_seconds(process: psutil.Process) -> float:
    """How long ``process``'s threads have waited for a CPU while ready to run (Linux's
    /proc/PID/task/*/schedstat): on a shared machine, the part of a latency that was the
    machine's, not the process's."""
    waited = 0
    for thread in Path(f"/proc/{process.pid}/task").iterdir():
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            waited += int((thread / "schedstat").read_text().split()[1])
    return waited / 1e9
