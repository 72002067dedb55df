"""What SSH sessions cost the server: start-up CPU, memory per idle session, CPU per key and per
resize. Never part of the test run.

    uv run --group bench python bench/ssh_sessions.py [--sessions 30] [--app MODULE:FUNCTION]

Runs ``pioche serve`` as its own process (on 127.0.0.1, port 0) serving the test suite's demo app
by default, drives it with asyncssh clients from this process, and reads the server's CPU time
and memory with psutil. Results go to docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import asyncssh
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.measure import cpu_seconds, settle  # noqa: E402
from tests.server.process import LikeOpenSSH, loopback, serve_process  # noqa: E402


class Counting(asyncssh.SSHClientSession[bytes]):
    def __init__(self) -> None:
        self.data = bytearray()
        self.changed = asyncio.Event()

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        self.data += data
        self.changed.set()

    async def wait_for(self, text: bytes, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.data:
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), deadline - time.monotonic())


_addresses = itertools.count()


async def open_session(port: int, name: str, size: tuple[int, int]) -> tuple[Any, Counting]:
    conn = await asyncssh.connect(
        "127.0.0.1", port, username=name, known_hosts=None, client_keys=None, agent_path=None,
        config=None, client_factory=LikeOpenSSH, local_addr=(loopback(next(_addresses)), 0),
    )
    chan, session = await conn.create_session(
        Counting, term_type="xterm-256color", term_size=size, encoding=None
    )
    return (conn, chan), session


async def measure(port: int, process: psutil.Process, sessions: int) -> dict[str, Any]:
    await settle(process)
    rss_before = process.memory_info().rss
    cpu_before = cpu_seconds(process)
    started = time.monotonic()
    opened = []
    for index in range(sessions):
        opened.append(await open_session(port, f"p{index:03d}", (100, 30)))
    for index, (_handles, session) in enumerate(opened):
        await session.wait_for(f"pseudo : p{index:03d}".encode())
    wall = time.monotonic() - started
    await settle(process)
    startup_cpu = (cpu_seconds(process) - cpu_before) / sessions
    rss_idle = (process.memory_info().rss - rss_before) / sessions

    (conn, chan), session = opened[0]
    keys = 300
    await settle(process)
    cpu_before = cpu_seconds(process)
    for index in range(keys):
        chan.write(b"abcdeghijk"[index % 10 : index % 10 + 1])  # keys the demo app only shows
        await asyncio.sleep(0.005)  # typed, not pasted
    await session.wait_for(b"touche : k")
    await settle(process)
    key_cpu = (cpu_seconds(process) - cpu_before) / keys

    resize_cpu = {}
    for width, height in ((80, 24), (200, 60), (400, 200)):
        samples = []
        for index in range(6):
            await settle(process)
            cpu_before = cpu_seconds(process)
            chan.change_terminal_size(width - index % 2, height)
            await session.wait_for(f"taille : {width - index % 2}x{height}".encode())
            await settle(process)
            samples.append(cpu_seconds(process) - cpu_before)
        resize_cpu[f"{width}x{height}"] = round(statistics.median(samples) * 1000, 1)

    for (conn, _chan), _session in opened:
        conn.close()
    return {
        "sessions": sessions,
        "open_all_wall_s": round(wall, 2),
        "startup_cpu_ms_per_session": round(startup_cpu * 1000, 1),
        "idle_rss_kib_per_session": round(rss_idle / 1024),
        "cpu_ms_per_key": round(key_cpu * 1000, 3),
        "cpu_ms_per_resize_median": resize_cpu,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--app", default="tests.server.demo_app:open_service")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as tmp,
        serve_process(
            Path(tmp), "--app", args.app, "--max-sessions", "1000", "--max-per-address", "1000"
        ) as served,
    ):
        process = psutil.Process(served.process.pid)
        result = await measure(served.port, process, args.sessions)
        result["server_rss_mib_after"] = round(process.memory_info().rss / 2**20, 1)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
