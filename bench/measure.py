"""What the benchmarks over SSH share: a process's CPU time and CPU wait, latency percentiles,
waiting for an idle server, the load average."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import psutil


def cpu_seconds(process: psutil.Process) -> float:
    """User and system CPU time of ``process`` so far (10-ms ticks on Linux); of a ``Tree``,
    of all its processes."""
    times = process.cpu_times()
    return float(times.user + times.system)


class Tree(psutil.Process):
    """A process and its descendants, measured as one: ``pioche serve --workers N`` is a
    supervisor, nats-server, the coordinator and N fronts. Their CPU times and memory are
    summed over the processes alive when asked (a child restarted meanwhile loses what its
    predecessor used); ``roles`` splits the CPU by role, read from each command line."""

    def members(self) -> list[psutil.Process]:
        with contextlib.suppress(psutil.NoSuchProcess):
            return [psutil.Process(self.pid), *self.children(recursive=True)]
        return []

    def cpu_times(self) -> Any:
        user = system = 0.0
        for member in self.members():
            with contextlib.suppress(psutil.NoSuchProcess):
                times = member.cpu_times()
                user, system = user + times.user, system + times.system
        return SimpleNamespace(user=user, system=system)

    def memory_info(self) -> Any:
        rss = 0
        for member in self.members():
            with contextlib.suppress(psutil.NoSuchProcess):
                rss += member.memory_info().rss
        return SimpleNamespace(rss=rss)

    def roles(self) -> dict[str, float]:
        """CPU seconds so far by role: ``nats-server``, ``coordinator``, ``front`` (all the
        fronts together), ``supervisor``."""
        found: dict[str, float] = {}
        for member in self.members():
            with contextlib.suppress(psutil.NoSuchProcess):
                words = member.cmdline()
                role = ("nats-server" if words and words[0].endswith("nats-server") else
                        next((w for w in ("coordinator", "front") if w in words), "supervisor"))
                found[role] = found.get(role, 0.0) + cpu_seconds(member)
        return found


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
    members = process.members() if isinstance(process, Tree) else [process]
    for member in members:
        with contextlib.suppress(OSError):  # a process that ended meanwhile
            for thread in Path(f"/proc/{member.pid}/task").iterdir():
                with contextlib.suppress(OSError):  # a thread that ended meanwhile
                    waited += int((thread / "schedstat").read_text().split()[1])
    return waited / 1e9
