"""Table churn against a real ``pioche serve`` (issue 12, item 10): one address opening quick
games and dropping, ``--parallel`` connections at a time, for ``--seconds``. Never part of the
test run; results go to docs/reliability.md.

    uv run --group bench python bench/churn.py [--seconds 60] [--parallel 8] [--after 10]

Each attacker is a guest under a new name (a new identity each time) from 127.0.0.1: it logs in,
waits for the lobby, presses « p » (a quick game of Défausse against three bots), waits for the
table or a refusal, then drops the connection with a TCP reset. The server runs the real app
with its default settings (bots think 0.8–2 s, a 60 s turn timer, a 300 s grace), from the
current directory's code (run it from another checkout to measure that one).

It prints one JSON line: quick games opened and refused, the server's CPU (user + system
seconds, from /proc through psutil) during the attack and during the ``--after`` seconds that
follow, the tables still being played then (logs that grew during those seconds), and the files
the attack left in the data directory.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import asyncssh
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.measure import cpu_seconds  # noqa: E402
from tests.server.process import LikeOpenSSH, reset, serve_process  # noqa: E402

TABLE_TITLE = re.compile(r"Défausse · table ([A-Z2-9]{4})\b")
REFUSED = "une autre dans"  # the end of the refusal (« … vous pourrez en créer une autre dans »)
ESCAPES = re.compile(r"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b.")


class Screen(asyncssh.SSHClientSession[bytes]):
    def __init__(self) -> None:
        self.text = ""
        self.changed = asyncio.Event()

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        self.text = (self.text + ESCAPES.sub("", data.decode("utf-8", "replace")))[-4000:]
        self.changed.set()

    async def wait(self, test: object, timeout: float) -> bool:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not test(self.text):  # type: ignore[operator]
            self.changed.clear()
            if loop.time() > deadline:
                return False
            try:
                await asyncio.wait_for(self.changed.wait(), deadline - loop.time())
            except TimeoutError:
                return False
        return True


async def hit_and_run(port: int, name: str, counts: dict[str, int]) -> None:
    try:
        conn = await asyncssh.connect(
            "127.0.0.1", port, username=name, known_hosts=None, client_keys=None,
            agent_path=None, config=None, client_factory=LikeOpenSSH)
    except (OSError, asyncssh.Error):
        counts["connect_failed"] += 1
        return
    try:
        _chan, screen = await conn.create_session(
            Screen, term_type="xterm-256color", term_size=(120, 30), encoding=None)
        if not await screen.wait(lambda text: "Bonjour" in text, 20.0):
            counts["no_lobby"] += 1
            return
        _chan.write(b"p")
        await screen.wait(lambda text: TABLE_TITLE.search(text) or REFUSED in text, 10.0)
        if TABLE_TITLE.search(screen.text):
            counts["opened"] += 1
        elif REFUSED in screen.text:
            counts["refused"] += 1
        else:
            counts["no_answer"] += 1
    finally:
        reset(conn)


async def attack(port: int, seconds: float, parallel: int) -> dict[str, int]:
    counts = dict.fromkeys(("opened", "refused", "connect_failed", "no_lobby", "no_answer"), 0)
    end = time.monotonic() + seconds
    serial = 0

    async def worker() -> None:
        nonlocal serial
        while time.monotonic() < end:
            serial += 1
            await hit_and_run(port, f"churn{serial}", counts)

    await asyncio.gather(*(worker() for _ in range(parallel)))
    return counts


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--parallel", type=int, default=8)
    parser.add_argument("--after", type=float, default=10.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pioche-churn-") as tmp:
        base = Path(tmp)
        tables = base / "data" / "tables"
        with serve_process(base, "--app", "pioche_tui.app:open_service") as served:
            server = psutil.Process(served.process.pid)
            start = cpu_seconds(server)
            counts = await attack(served.port, args.seconds, args.parallel)
            attack_cpu = cpu_seconds(server) - start
            await asyncio.sleep(1.0)  # the last resets reach the server
            sizes = {p.name: p.stat().st_size for p in tables.iterdir()}
            start = cpu_seconds(server)
            await asyncio.sleep(args.after)
            after_cpu = cpu_seconds(server) - start
            grew = sum(1 for p in tables.iterdir() if p.stat().st_size > sizes.get(p.name, 0))
            files = sorted(tables.iterdir())
        print(json.dumps({
            "seconds": args.seconds, "parallel": args.parallel, **counts,
            "server_cpu_percent_attack": round(100 * attack_cpu / args.seconds, 1),
            "server_cpu_percent_after": round(100 * after_cpu / args.after, 1),
            "tables_still_played_after": grew,
            "files_left": len(files),
            "bytes_left": sum(p.stat().st_size for p in files if p.exists()),
            "load": os.getloadavg()[0],
        }))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
