"""What hostile input costs the server, and another player meanwhile. Never part of the test run;
results go to docs/reliability.md (issue 12, items 1 and 9).

    uv run --group bench python bench/input_cost.py [--attackers 1] [--seconds 20] [--warmup 10]
                                    [--attacks focus,random,mouse,resize,help,ignore] [--json FILE]

For each attack (``tests/hostile/input_attacks.py``) a fresh ``pioche serve`` (the real app,
default limits) runs as its own process on 127.0.0.1, port 0. A victim connects from 127.0.0.2,
opens the lobby's chat line and types a word of six letters every half second
(in one write, as a fast typist's burst), then erases it: the time until the word shows on its
screen is its latency. The server's CPU time (psutil) is read over two windows of ``--seconds``:
the victim alone, then the victim while ``--attackers`` guest sessions from 127.0.0.1 attack
(from another process: the attacker module's), after ``--warmup`` seconds of attack, which are
measured too (``attack_start``): a connection's budget lets it spend a burst at first, so the
first seconds show what an attack costs at once, the window after them what it costs for as
long as it goes on. (The server before the budget paused a session's reading after the fact,
for as long as the events it had already taken would have taken at 50 a second: its cost came
all at the start.)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import asyncssh
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.measure import cpu_seconds, load_average, percentiles  # noqa: E402
from tests.hostile.input_attacks import ATTACKS, attacker  # noqa: E402
from tests.server.conftest import Client  # noqa: E402
from tests.server.process import LikeOpenSSH, serve_process  # noqa: E402

SIZE = (100, 30)
WAIT = 60.0
TYPE_EVERY = 0.5


async def connect(port: int, name: str, source: str) -> Client:
    conn = await asyncssh.connect(
        "127.0.0.1", port, username=name, known_hosts=None, client_keys=None, agent_path=None,
        config=None, client_factory=LikeOpenSSH, local_addr=(source, 0),
    )
    _chan, client = await conn.create_session(
        Client, term_type="xterm-256color", term_size=SIZE, encoding=None)
    client.conn = conn
    client.screen.resize(*SIZE)
    await client.wait_for(f"Bonjour {name}", WAIT)
    return client


async def type_words(victim: Client, seconds: float) -> list[float]:
    """Type a word, wait until it shows, erase it, every TYPE_EVERY; the latencies."""
    latencies = []
    end = time.monotonic() + seconds
    for n in range(1_000_000):
        if time.monotonic() >= end:
            break
        word = "".join(chr(ord("a") + int(d)) for d in f"{n:06d}")
        started = time.monotonic()
        victim.send(word)
        await victim.wait_for(word, WAIT)
        latencies.append(time.monotonic() - started)
        victim.send("\x7f" * len(word))
        await victim.wait_for(lambda screen, word=word: word not in screen, WAIT)
        await asyncio.sleep(max(0.0, started + TYPE_EVERY - time.monotonic()))
    return latencies


async def run_attack(name: str, args: argparse.Namespace) -> dict[str, Any]:
    with (tempfile.TemporaryDirectory(prefix="pioche-input-") as tmp,
          serve_process(Path(tmp), "--app", "pioche_tui.app:open_service") as served):
        server = psutil.Process(served.process.pid)
        victim = await connect(served.port, "victim", "127.0.0.2")
        victim.send("c")  # the chat line
        await asyncio.sleep(1.0)
        windows: dict[str, Any] = {}

        async def window(phase: str, seconds: float) -> None:
            cpu0, started = cpu_seconds(server), time.monotonic()
            latencies = await type_words(victim, seconds)
            elapsed = time.monotonic() - started
            windows[phase] = {
                "server_cpu_ms_per_s": round(1000 * (cpu_seconds(server) - cpu0) / elapsed),
                "victim_word_to_screen_ms": percentiles(latencies),
                "seconds": round(elapsed, 1),
            }

        await window("alone", args.seconds)
        async with attacker(served.port, name, args.attackers,
                            args.warmup + args.seconds + 60) as report:
            await window("attack_start", args.warmup)
            await window("attacked", args.seconds)
        if victim.conn is not None:
            victim.conn.close()
    alone = windows["alone"]["server_cpu_ms_per_s"]
    return {
        "attack": name, "attackers": args.attackers, **windows,
        "attack_cpu_ms_per_s": {
            phase: windows[phase]["server_cpu_ms_per_s"] - alone
            for phase in ("attack_start", "attacked")},
        "attackers_received_mib": round(report.get("received", 0) / 2**20, 1),
        "attackers_closed_by_the_server": report.get("closed"),
        "attackers_own_cpu_s": report.get("cpu_ms", 0) / 1000,
        "load_average": load_average(),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attacks", default=",".join(ATTACKS))
    parser.add_argument("--attackers", type=int, default=1,
                        help="attacking sessions, all from one address (at most 8 by default)")
    parser.add_argument("--seconds", type=float, default=20.0, help="each window's length")
    parser.add_argument("--warmup", type=float, default=10.0,
                        help="seconds of attack before its window opens (measured too)")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    args = parser.parse_args()
    results = []
    for name in args.attacks.split(","):
        result = await run_attack(name, args)
        print(json.dumps(result), flush=True)
        results.append(result)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())
