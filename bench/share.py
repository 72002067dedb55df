"""Spectators sharing a screen (server/share.py): what an extra spectator of a table costs.
Never part of the test run; results go to docs/performance.md (« Cheaper screens »).

    uv run --group bench python bench/share.py [--spectators 1,10,40] [--seconds 20]

For each N in ``--spectators`` and each layout, a fresh ``pioche serve`` (the real app, ``--trace``
on) runs as its own process on 127.0.0.1. One guest plays a quick game of Défausse against three
bots (``p``; the turn timer's stand-in plays the guest's turns: ``--turn-timer``, the bots
think ``--bot-delay``: about two moves a second); N guests watch it
(``ssh … watch TABLE``), from this process, over real SSH:

- ``same``: every spectator's terminal is 100 × 30: they share one screen;
- ``distinct``: each has its own width (100, 101, …): one screen each, as without sharing.

Measured over ``--seconds`` of play: the server's CPU (psutil: all of it, the player's app, the
bots, SSH) per move, and from it the CPU each spectator beyond the first adds per move (against
N = 1 of the same layout); move to frame per spectator (the server's trace line for a move to
the first bytes showing its number « coup N » on that spectator's screen), p50 and p95.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import asyncssh
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load import TABLE_TITLE, Screen, read_trace  # noqa: E402
from bench.measure import cpu_seconds, load_average, ms, percentiles  # noqa: E402
from tests.server.process import LikeOpenSSH, loopback, serve_process  # noqa: E402

WIDTH, HEIGHT = 100, 30
_addresses = itertools.count()


async def session(port: int, name: str, size: tuple[int, int], command: str | None,
                  marker: str) -> tuple[asyncssh.SSHClientConnection, Screen]:
    conn = await asyncssh.connect(
        "127.0.0.1", port, username=name, known_hosts=None, client_keys=None,
        agent_path=None, config=None, client_factory=LikeOpenSSH,
        local_addr=(loopback(next(_addresses)), 0),
    )
    _chan, screen = await conn.create_session(
        Screen, command, term_type="xterm-256color", term_size=size, encoding=None)
    await screen.wait_for(marker, timeout=60)
    return conn, screen


async def run(args: argparse.Namespace, spectators: int, layout: str) -> dict[str, Any]:
    cap = str(spectators + 20)
    with tempfile.TemporaryDirectory(prefix="pioche-share-") as tmp:
        trace = Path(tmp) / "trace.txt"
        extra = ["--max-sessions", cap, "--max-pending", cap, "--max-per-address", cap,
                 "--trace", str(trace), "--turn-timer", str(args.turn_timer),
                 "--bot-delay", args.bot_delay]
        python: tuple[str, ...] = (sys.executable,)
        if args.profile:  # the play window only (bench/profiled.py)
            args.profile.mkdir(parents=True, exist_ok=True)
            python = (sys.executable, str(ROOT / "bench" / "profiled.py"),
                      str(args.profile / f"share-{layout}-{spectators}.txt"))
        with serve_process(Path(tmp), *extra, app="pioche_tui.app:open_service",
                           python=python) as served:
            server = psutil.Process(served.process.pid)
            conns = []
            conn, player = await session(served.port, "p0", (WIDTH, HEIGHT), None,
                                         "Bonjour p0 !")
            conns.append(conn)
            player.send("p")
            table_id = await player.wait_for(TABLE_TITLE)
            watchers: list[Screen] = []
            for number in range(spectators):
                width = WIDTH + (number if layout == "distinct" else 0)
                conn, screen = await session(served.port, f"w{number}", (width, HEIGHT),
                                             f"watch {table_id}", "Vous regardez")
                conns.append(conn)
                watchers.append(screen)
            await asyncio.sleep(args.warmup)
            if args.profile:
                server.send_signal(signal.SIGUSR1)
            cpu0, start = cpu_seconds(server), time.monotonic()
            rss0 = server.memory_info().rss
            await asyncio.sleep(args.seconds)
            cpu1, end = cpu_seconds(server), time.monotonic()
            if args.profile:
                server.send_signal(signal.SIGUSR2)
                report = args.profile / f"share-{layout}-{spectators}.html"
                for _ in range(600):  # written after the text one: wait for both
                    if report.exists():
                        break
                    await asyncio.sleep(0.1)
            rss1 = server.memory_info().rss
            await asyncio.sleep(1.0)  # the window's last moves reach the screens
            moves = [(when, step) for when, table, step in read_trace(trace)
                     if table == table_id and start <= when < end]
            delays = [at - when for when, step in moves for screen in watchers
                      if (at := screen.delivered(step)) is not None]
            missed = sum(screen.delivered(step) is None for _when, step in moves
                         for screen in watchers)
            for conn in conns:
                conn.close()
            cpu = cpu1 - cpu0
            return {
                "spectators": spectators, "layout": layout, "moves": len(moves),
                "cpu_s": round(cpu, 3),
                "cpu_per_move_ms": ms(cpu / len(moves)) if moves else None,
                "move_to_frame_ms": percentiles(delays), "missed": missed,
                "rss_mib": round(rss1 / 2**20, 1),
                "rss_growth_mib": round((rss1 - rss0) / 2**20, 1),
                "load_average": load_average(),
            }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spectators", default="1,10,40")
    parser.add_argument("--layouts", default="same,distinct")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--turn-timer", type=float, default=1.0)
    parser.add_argument("--bot-delay", default="0.2,0.4")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--profile", type=Path,
                        help="directory for pyinstrument profiles of the play window")
    args = parser.parse_args()
    results = []
    for layout in args.layouts.split(","):
        base: float | None = None
        for count in (int(n) for n in args.spectators.split(",")):
            result = await run(args, count, layout)
            per_move = result["cpu_per_move_ms"]
            if count == 1:
                base = per_move
            elif base is not None and per_move is not None:
                result["extra_spectator_per_move_ms"] = round((per_move - base) / (count - 1), 3)
            print(json.dumps(result), flush=True)
            results.append(result)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    asyncio.run(main())
