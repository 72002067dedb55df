"""Input that costs the server CPU (issue 12, items 1 and 9), as clients send it: for the hostile
tests (``tests/hostile/test_input_cost.py``) and the benchmarks (``bench/input_cost.py``).

    python -m tests.hostile.input_attacks PORT ATTACK [--sessions 8] [--seconds 30]
                                          [--address 127.0.0.1]

runs ``--sessions`` guest sessions from one address against ``pioche serve`` on 127.0.0.1:PORT,
says ``ready`` on stdout once every one is in the lobby, attacks for ``--seconds`` and exits (or
at once when its stdin closes). Attackers run in their own process, as real ones do: they do not
slow down the test's or the benchmark's own clients.

Each attack writes to one session until ``stop`` is set. A client's SSH layer queues what the
server does not read; an attack keeps at most ``QUEUED`` bytes queued (the server takes nothing
faster for queuing more).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import sys
from collections.abc import AsyncIterator, Callable, Coroutine

import asyncssh
from asyncssh.constants import MSG_IGNORE
from asyncssh.packet import String

from tests.server.process import ROOT, LikeOpenSSH

QUEUED = 256 * 1024
FOCUS_REPORTS = b"\x1b[O\x1b[I" * 2000
"""Focus out, focus in: 4,000 reports in 12 KB, in one write (each restyled the whole screen)."""
RANDOM_BYTES = 64 * 1024
# Random bytes, less those that end the session (Ctrl+Q, q): the attacker stays.
_QUITS = bytes.maketrans(b"\x11q", b"\x00Q")
SIZE = (100, 30)

Channel = asyncssh.SSHClientChannel[bytes]
Attack = Callable[[Channel, asyncio.Event, random.Random], Coroutine[None, None, None]]


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


async def ignore_packets(chan: Channel, stop: asyncio.Event, rng: random.Random) -> None:
    """SSH packets no app ever sees (SSH_MSG_IGNORE), as fast as the server takes them: the SSH
    layer's own work, before any channel."""
    conn = chan.get_extra_info("connection")
    transport = conn._transport  # (asyncssh does not say how much waits to be sent)
    while True:
        if not chan.is_closing() and transport.get_write_buffer_size() < QUEUED:
            for _packet in range(100):
                conn.send_packet(MSG_IGNORE, String(b"x" * 16))
        if not await _every(0.002, stop):
            return


ATTACKS: dict[str, Attack] = {
    "focus": focus_reports,
    "random": random_bytes,
    "mouse": mouse_moves,
    "resize": resizes,
    "help": help_toggles,
    "ignore": ignore_packets,
}

MIXED = "mixed"  # every attack at once, one per session in turn (focus, help, ignore, …)


class Sink(asyncssh.SSHClientSession[bytes]):
    """An attacker's session: reads what the server sends (it does not stall) and looks only
    for the lobby's greeting."""

    def __init__(self) -> None:
        self.greeted = asyncio.Event()
        self.closed = asyncio.Event()
        self.chan: Channel | None = None
        self.received = 0  # bytes
        self._tail = b""

    def connection_made(self, chan: Channel) -> None:
        self.chan = chan

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        self.received += len(data)
        if not self.greeted.is_set():
            self._tail = self._tail[-64:] + data
            if b"Bonjour" in self._tail:
                self.greeted.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed.set()


async def sink(port: int, name: str, address: str) -> tuple[asyncssh.SSHClientConnection, Sink]:
    """A guest session from ``address``, in the lobby."""
    conn = await asyncssh.connect(
        "127.0.0.1", port, username=name, known_hosts=None, client_keys=None, agent_path=None,
        config=None, client_factory=LikeOpenSSH, local_addr=(address, 0),
    )
    _chan, session = await conn.create_session(
        Sink, term_type="xterm-256color", term_size=SIZE, encoding=None)
    await asyncio.wait_for(session.greeted.wait(), 60)
    return conn, session


@contextlib.asynccontextmanager
async def attacker(
    port: int, attack: str, sessions: int, seconds: float = 60.0, address: str = "127.0.0.1"
) -> AsyncIterator[dict[str, int]]:
    """This module as a process attacking ``pioche serve`` on ``port``: entered once its
    sessions are in the lobby and attacking; stopped on leaving (or after ``seconds``). What
    it yields is filled as it stops: ``received``, the bytes the server sent its sessions
    meanwhile, ``closed``, how many the server closed, and ``cpu_ms``, the CPU it used itself
    (on one machine, the attacker's CPU is taken from the server's)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.hostile.input_attacks", str(port), attack,
        "--sessions", str(sessions), "--seconds", str(seconds), "--address", address,
        cwd=ROOT, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    report: dict[str, int] = {}
    try:
        ready = await asyncio.wait_for(process.stdout.readline(), 120)
        assert ready == b"ready\n", f"the attacker did not start: {ready!r}"
        yield report
    finally:
        process.stdin.close()
        try:
            done = await asyncio.wait_for(process.stdout.read(), 30)
            report.update((key, int(value)) for key, value in
                          (word.split("=") for word in done.decode().split() if "=" in word))
            await process.wait()
        except TimeoutError:
            process.kill()
            await process.wait()


async def _stdin_closed() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    await reader.read()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("port", type=int)
    parser.add_argument("attack", choices=[*sorted(ATTACKS), MIXED])
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--address", default="127.0.0.1")
    args = parser.parse_args()
    opened = [await sink(args.port, f"mallory{n}", args.address) for n in range(args.sessions)]
    print("ready", flush=True)
    stop = asyncio.Event()
    rng = random.Random(12)
    kinds = sorted(ATTACKS) if args.attack == MIXED else [args.attack]
    attacks = [asyncio.create_task(ATTACKS[kinds[n % len(kinds)]](session.chan, stop, rng))
               for n, (_conn, session) in enumerate(opened) if session.chan is not None]
    closed = asyncio.create_task(_stdin_closed())
    await asyncio.wait([closed], timeout=args.seconds)
    stop.set()
    closed.cancel()
    await asyncio.gather(*attacks)
    gone = sum(1 for _conn, session in opened if session.closed.is_set())
    received = sum(session.received for _conn, session in opened)
    times = os.times()
    cpu_ms = round(1000 * (times.user + times.system))
    print(f"done: closed={gone} received={received} cpu_ms={cpu_ms}", flush=True)
    for conn, _session in opened:
        conn.close()


if __name__ == "__main__":
    asyncio.run(main())
