"""Input that costs the server CPU (issue 12, items 1 and 9), as a client sends it: for the
hostile tests (``tests/hostile/test_input_cost.py``) and the benchmarks (``bench/input_cost.py``,
``bench/load.py --attack``).

Each attack writes to one session's channel until ``stop`` is set. None of them waits for the
server: a client's SSH layer queues what the server does not read, so an attack keeps at most
``QUEUED`` bytes queued in its client (a real attacker would not queue more either: the server
takes nothing faster for it).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Awaitable, Callable

import asyncssh

QUEUED = 256 * 1024
FOCUS_REPORTS = b"\x1b[O\x1b[I" * 2000
"""Focus out, focus in: 4,000 reports in 12 KB, in one write (each restyled the whole screen)."""
RANDOM_BYTES = 64 * 1024
# Random bytes, less those that end the session (Ctrl+Q, q): the attacker stays.
_QUITS = bytes.maketrans(b"\x11q", b"\x00Q")

Channel = asyncssh.SSHClientChannel[bytes]
Attack = Callable[[Channel, asyncio.Event, random.Random], Awaitable[None]]


async def _every(seconds: float, stop: asyncio.Event) -> bool:
    """Wait ``seconds`` or until stopped; True if the attack goes on."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)
    return not stop.is_set()


def _write(chan: Channel, data: bytes) -> None:
    if not chan.is_closing() and chan.get_write_buffer_size() < QUEUED:
        chan.write(data)


async def focus_reports(chan: Channel, stop: asyncio.Event, rng: random.Random) -> None:
    """12 KB of focus reports in one write, every second."""
    while True:
        _write(chan, FOCUS_REPORTS)
        if not await _every(1.0, stop):
            return


async def random_bytes(chan: Channel, stop: asyncio.Event, rng: random.Random) -> None:
    """64 KB of random bytes in one write, every second."""
    while True:
        _write(chan, rng.randbytes(RANDOM_BYTES).translate(_QUITS))
        if not await _every(1.0, stop):
            return


async def mouse_moves(chan: Channel, stop: asyncio.Event, rng: random.Random) -> None:
    """Any-motion mouse reports (SGR) all over a 100 × 30 screen, 64 KB a second."""
    while True:
        moves = b"".join(b"\x1b[<35;%d;%dM" % (rng.randint(1, 100), rng.randint(1, 30))
                         for _move in range(RANDOM_BYTES // 12))
        _write(chan, moves)
        if not await _every(1.0, stop):
            return


async def resizes(chan: Channel, stop: asyncio.Event, rng: random.Random) -> None:
    """Window changes at the largest size (400 × 200, one column less every other time), 100 a
    second."""
    for index in range(1_000_000):
        if not chan.is_closing():
            chan.change_terminal_size(400 - index % 2, 200)
        if not await _every(0.01, stop):
            return


async def help_toggles(chan: Channel, stop: asyncio.Event, rng: random.Random) -> None:
    """The help screen opened and closed (« ? », Esc), 50 times a second."""
    for index in range(1_000_000):
        _write(chan, b"\x1b" if index % 2 else b"?")
        if not await _every(0.01, stop):
            return


ATTACKS: dict[str, Attack] = {
    "focus": focus_reports,
    "random": random_bytes,
    "mouse": mouse_moves,
    "resize": resizes,
    "help": help_toggles,
}
