"""A nats-server that stops answering for a while (SIGSTOP, then SIGCONT): what a stalled or
overloaded node does to its clients. ``stalled`` returns once every thread of the server is
stopped (the signal reaches a busy process's threads one by one)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pioche_tui.bus.natsd import NatsServer

STOP_WAIT = 5.0  # seconds at most for every thread to stop


def _all_stopped(pid: int) -> bool:
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            state = (task / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in ("T", "t"):
            return False
    return True


@contextmanager
def stalled(server: NatsServer) -> Iterator[None]:
    pid = server.pid
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)
    try:
        end = time.monotonic() + STOP_WAIT
        while not _all_stopped(pid):
            if time.monotonic() > end:
                raise AssertionError("nats-server did not stop")
            time.sleep(0.001)
        yield
    finally:
        os.kill(pid, signal.SIGCONT)
