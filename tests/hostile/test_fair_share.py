"""An address's CPU budget follows the server's load (issue 12, item 1: other players' p95 while
eight connections of one address attack), against ``pioche serve`` running the real app with
its default limits.

Eight sessions of one address send 64 KB of random bytes a second each (from their own process,
``tests/hostile/input_attacks.py``): more than their address's budget allows. Alone on the
server, the address is held back at its full budget (0.15 CPU second a second), never cut:
nobody else is waiting. Then four players of other addresses get busy (they resize their own
terminals): the server cuts the attacker to the average other address's spending (at least
0.08), and over that stretch the attacker spends no more than its share allowed (plus what its
bucket held when the share began). Once they stop, the attacker gets its full budget back. What
is checked is what the server says in its log: its own accounting, not a stopwatch.
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
ALONE = 3.0
"""Seconds the attacker is alone: some looks at the load (two a second)."""
BUSY_FOR = 3.0
"""Seconds the others stay busy once the attacker's share is cut: at its full budget it would
spend 0.45 s more than its share allows (``SLACK`` is less)."""
BUSY = re.compile(r"address 127\.0\.0\.1: the server is busy .*its CPU budget is ([0-9.]+) s")
CALM = re.compile(r"address 127\.0\.0\.1: the server is calm again, its CPU budget is ([0-9.]+) "
                  r"s a second \(over [0-9.]+ s it spent ([0-9.]+) s; its share allowed ([0-9.]+),"
                  r" and it had ([0-9.]+) saved")
SLACK = 0.2
"""CPU seconds an address may spend beyond its allowance: the last input it was given (costed
once it is handled) and what was held from its bucket for input not handled yet."""


async def logged(served: ServeProcess, found: Callable[[str], object], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not found(served.log_text()):
        assert time.monotonic() < deadline, f"not in the log:\n{served.log_text()[-3000:]}"
        await asyncio.sleep(0.1)


def said(served: ServeProcess) -> str:
    """What the server said of addresses' budgets, for a failure's message."""
    return "\n".join(line for line in served.log_text().splitlines()
                     if "address " in line or "over its CPU budget" in line)


async def keep_resizing(chan: asyncssh.SSHClientChannel[bytes], stop: asyncio.Event) -> None:
    """A player's terminal resized, five times a second (each is a repaint)."""
    size = (100, 30)
    while not stop.is_set():
        size = (240 - size[0], 70 - size[1])  # 100 × 30, 140 × 40
        chan.change_terminal_size(*size)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.2)


async def test_an_address_keeps_its_budget_alone_and_gets_a_share_when_others_are_busy(
    tmp_path: Path,
) -> None:
    with serve_process(tmp_path, *REAL_APP) as served:
        async with attacker(served.port, "random", 8):
            await asyncio.sleep(ALONE)  # its burst spent, then held at its budget
            assert not BUSY.search(served.log_text()), said(served)  # its full budget, held at it

            players = [await sink(served.port, f"player{n}", f"127.0.0.{n + 2}")
                       for n in range(4)]
            stop = asyncio.Event()
            busy = [asyncio.create_task(keep_resizing(session.chan, stop))
                    for _conn, session in players if session.chan is not None]
            try:
                await logged(served, BUSY.search, 15)
                await asyncio.sleep(BUSY_FOR)
            finally:
                stop.set()
                await asyncio.gather(*busy)
            share = float(BUSY.findall(served.log_text())[0])
            assert share < FULL, said(served)

            await logged(served, CALM.search, 15)
            found = CALM.search(served.log_text())
            assert found is not None
            back, spent, allowed, saved = (float(value) for value in found.groups())
            assert back == FULL, said(served)
            assert spent <= allowed + saved + SLACK, said(served)
            for conn, _session in players:
                conn.close()
        assert served.process.poll() is None
