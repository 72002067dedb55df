"""An address's CPU budget follows the server's load (issue 12, item 1: other players' p95 while
eight connections of one address attack), against ``pioche serve`` running the real app with
its default limits.

One address resizes its sessions at 400 × 200 as fast as the server lets it (from its own
process, ``tests/hostile/input_attacks.py``). Alone on the server, it is held back at its full
budget (0.15 CPU second a second), never cut: nobody else is waiting. Then three players of other
addresses get busy (they resize their own terminals): the server cuts the attacker to the
average other address's spending (at least 0.02), and over that stretch the attacker spends no
more than its share allowed. Once they stop, the attacker gets its full budget back. What is
checked is what the server says in its log: its own accounting, not a stopwatch.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Callable
from pathlib import Path

import asyncssh

from tests.hostile.input_attacks import attacker, sink
from tests.server.process import ServeProcess, serve_process

REAL_APP = ("--app", "pioche_tui.app:open_service")
FULL = 0.15  # CPU seconds a second, an address's budget (Limits.address_cpu_rate)
ALONE = 4.0
"""Seconds the attacker is alone: its burst spent (1.5 s, at 0.5 to 1 CPU second a second),
then some looks at the load (two a second)."""
BUSY = re.compile(r"address 127\.0\.0\.1: the server is busy .*its CPU budget is ([0-9.]+) s")
CALM = re.compile(r"address 127\.0\.0\.1: the server is calm again, its CPU budget is ([0-9.]+) "
                  r"s a second \(it spent ([0-9.]+) s of the ([0-9.]+) its share allowed")
SLACK = 0.2
"""CPU seconds an address may spend beyond its allowance: what it had left when the share began
(it was in debt: nothing), and the last input it was given (costed once it is handled)."""


async def logged(served: ServeProcess, found: Callable[[str], object], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not found(served.log_text()):
        assert time.monotonic() < deadline, f"not in the log:\n{served.log_text()[-3000:]}"
        await asyncio.sleep(0.1)


async def keep_resizing(chan: asyncssh.SSHClientChannel[bytes], stop: asyncio.Event) -> None:
    """A player's terminal resized by a column, five times a second (each is a repaint)."""
    width = 100
    while not stop.is_set():
        width = 201 - width
        chan.change_terminal_size(width, 30)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.2)


async def test_an_address_keeps_its_budget_alone_and_gets_a_share_when_others_are_busy(
    tmp_path: Path,
) -> None:
    with serve_process(tmp_path, *REAL_APP) as served:
        async with attacker(served.port, "resize", 4):
            await asyncio.sleep(ALONE)  # its burst spent, then held at its budget
            assert not BUSY.search(served.log_text())  # its full budget, held at it

            players = [await sink(served.port, f"player{n}", f"127.0.0.{n + 2}")
                       for n in range(3)]
            stop = asyncio.Event()
            busy = [asyncio.create_task(keep_resizing(session.chan, stop))
                    for _conn, session in players if session.chan is not None]
            try:
                await logged(served, BUSY.search, 15)
                await asyncio.sleep(3.0)
            finally:
                stop.set()
                await asyncio.gather(*busy)
            share = float(BUSY.findall(served.log_text())[0])
            assert share < FULL

            await logged(served, CALM.search, 15)
            found = CALM.search(served.log_text())
            assert found is not None
            back, spent, allowed = (float(value) for value in found.groups())
            assert back == FULL
            assert spent <= allowed + SLACK, f"spent {spent} s, its share allowed {allowed}"
            for conn, _session in players:
                conn.close()
        assert served.process.poll() is None
