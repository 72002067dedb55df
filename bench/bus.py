"""What the bus costs (issue 16): CPU per subscriber per move, the coordinator's process and
nats-server counted, against the same in one process. Never part of the test run; results go to
docs/performance.md (« Every core », « The bus's cost »).

    uv run --group bench python bench/bus.py [--subscribers 0,50,200] [--seconds 10]

One table of Défausse, four bots (``--bot-delay``: a few dozen moves a second, no turn timer),
watched by N spectator sessions. Two modes:

- ``bus``: this process runs the coordinator and its ``CoordinatorHost``; a real nats-server
  child (``NatsServer``) carries everything; the N sessions are ``RemoteClient``s of one front,
  a process of its own (multiprocessing, spawn), each read at once as an app would.
- ``inprocess``: this process runs the coordinator and N ``InProcessClient`` sessions, each
  read at once by a task (the embedded mode's part of a spectator, without its app).

Measured over ``--seconds`` after a warm-up: this process's CPU (``time.process_time``), the
nats-server's (/proc/PID/stat, through psutil) and the front's, and the table's moves. Per
subscriber per move: (CPU per move with N − CPU per move with 0) / N, the coordinator's side
(coordinator process + nats-server) apart from the front's. ``--profile FILE``: pyinstrument
of this process in the bus mode at the largest N. ``--per-session-updates``: as at a table with
a turn timer, whose update differs in each mail (its ``time_left``): only its parts are shared;
``--no-sharing``: nothing is (every mail encoded whole, as before the memo).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import multiprocessing.connection
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.measure import cpu_seconds, load_average  # noqa: E402
from pioche_tui import bus  # noqa: E402
from pioche_tui.bus.natsd import NatsServer  # noqa: E402
from pioche_tui.coordinator.core import Coordinator, Settings  # noqa: E402
from pioche_tui.coordinator.host import CoordinatorHost  # noqa: E402
from pioche_tui.coordinator.inprocess import InProcessClient  # noqa: E402
from pioche_tui.coordinator.model import Player  # noqa: E402
from pioche_tui.engine.defausse.rules import TARGET_RANGE  # noqa: E402

WARM_UP = 2.0  # seconds of play before the window


def watcher(i: int) -> Player:
    return Player(f"SHA256:bench-watcher-{i}", f"regard{i}", watch_only=True, address="127.0.0.1")


async def read_all(client: Any) -> None:
    """An app's reading of its news, without the app: take each mail as it comes."""
    while True:
        mail = await client.mail()
        if mail.closed:
            return


# --- the front (its own process) ---------------------------------------------------------------

def front_main(url: str, table: str, n: int, conn: multiprocessing.connection.Connection
               ) -> None:
    asyncio.run(_front(url, table, n, conn))


async def _front(url: str, table: str, n: int, conn: multiprocessing.connection.Connection
                 ) -> None:
    from pioche_tui.coordinator.remote import Remote

    nc = await bus.connect(url, "bench-front")
    remote = Remote(nc, "benchfront")
    await remote.start()
    readers = []
    for i in range(n):
        client = remote.client()
        await client.connect(watcher(i))
        await client.watch(table)
        readers.append(asyncio.create_task(read_all(client)))
    loop = asyncio.get_running_loop()
    conn.send("ready")
    await loop.run_in_executor(None, conn.recv)  # "start"
    start = time.process_time()
    await loop.run_in_executor(None, conn.recv)  # "stop"
    conn.send(time.process_time() - start)
    for reader in readers:
        reader.cancel()
    await remote.stop()
    await nc.close()


# --- the coordinator (this process) ------------------------------------------------------------

async def trial(mode: str, n: int, seconds: float, bot_delay: float,
                profile: str | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="pioche-bench-bus-") as data:
        coordinator = Coordinator(Settings(Path(data), bot_delay=(bot_delay, bot_delay),
                                           turn_timer=None, seed=5))
        await coordinator.start()
        creator = InProcessClient(coordinator)
        await creator.connect(Player("SHA256:bench-creator", "Createur", address="127.0.0.1"))
        table_id = await creator.create_table(
            "defausse", seats=4, bots=dict.fromkeys(range(4), "basic"),
            options={"target": TARGET_RANGE[1]}, timer=None, sit=False)
        reader_tasks = [asyncio.create_task(read_all(creator))]
        server = host = nc = front = conn = None
        try:
            if mode == "bus":
                server = NatsServer()
                await server.start()
                nc = await bus.connect(server.url, "bench-coordinator")
                host = CoordinatorHost(coordinator, nc)
                await host.start()
                conn, child = multiprocessing.get_context("spawn").Pipe()
                front = multiprocessing.get_context("spawn").Process(
                    target=front_main, args=(server.url, table_id, n, child))
                front.start()
                await asyncio.get_running_loop().run_in_executor(None, conn.recv)
            else:
                for i in range(n):
                    client = InProcessClient(coordinator)
                    await client.connect(watcher(i))
                    await client.watch(table_id)
                    reader_tasks.append(asyncio.create_task(read_all(client)))
            await asyncio.sleep(WARM_UP)
            nats = psutil.Process(server.pid) if server is not None and server.pid else None
            table = coordinator.tables[table_id]
            profiler = None
            if profile is not None:
                from pyinstrument import Profiler

                profiler = Profiler(async_mode="disabled")
                profiler.start()
            if conn is not None:
                conn.send("start")
            step0, cpu0 = table.step, time.process_time()
            nats0 = cpu_seconds(nats) if nats is not None else 0.0
            await asyncio.sleep(seconds)
            step1, cpu1 = table.step, time.process_time()
            nats1 = cpu_seconds(nats) if nats is not None else 0.0
            front_cpu = 0.0
            if conn is not None:
                conn.send("stop")
                front_cpu = await asyncio.get_running_loop().run_in_executor(None, conn.recv)
            if profiler is not None and profile is not None:
                profiler.stop()
                Path(profile).write_text(profiler.output_text(unicode=True, show_all=False))
            assert table.status == "playing", "the game ended in the window: lower --seconds"
            moves = step1 - step0
            return {"mode": mode, "n": n, "moves": moves,
                    "coordinator_ms": 1000 * (cpu1 - cpu0) / moves,
                    "nats_ms": 1000 * (nats1 - nats0) / moves,
                    "front_ms": 1000 * front_cpu / moves}
        finally:
            for task in reader_tasks:
                task.cancel()
            if front is not None:
                front.join(10)
                if front.is_alive():
                    front.kill()
            coordinator.stop()
            if host is not None:
                await host.stop()
            if nc is not None:
                await nc.close()
            if server is not None:
                await server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--subscribers", default="0,50,200")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--bot-delay", type=float, default=0.03)
    parser.add_argument("--modes", default="inprocess,bus")
    parser.add_argument("--profile", help="pyinstrument's text of the bus mode at the largest N")
    parser.add_argument("--per-session-updates", action="store_true",
                        help="encode each session's table update apart, but its parts (as at a "
                             "table with a turn timer, where each mail's time_left differs)")
    parser.add_argument("--no-sharing", action="store_true",
                        help="encode every mail whole (as before the host's memo)")
    args = parser.parse_args()
    from pioche_tui import wire

    if args.per_session_updates:
        wire.SHARED.discard("TableUpdate")
    if args.no_sharing:
        wire.SHARED.clear()
    counts = [int(n) for n in args.subscribers.split(",")]
    print(f"# load average before: {load_average()}, cores: {os.cpu_count()}")
    results: dict[tuple[str, int], dict[str, Any]] = {}
    for mode in args.modes.split(","):
        for n in counts:
            profile = args.profile if mode == "bus" and n == max(counts) else None
            result = asyncio.run(trial(mode, n, args.seconds, args.bot_delay, profile))
            results[mode, n] = result
            base = results.get((mode, 0))
            extra = ""
            if base is not None and n:
                side = (result["coordinator_ms"] + result["nats_ms"]
                        - base["coordinator_ms"] - base["nats_ms"]) / n
                front = (result["front_ms"] - base["front_ms"]) / n
                extra = (f"  per subscriber per move: coordinator side {side:.3f} ms"
                         + (f", front {front:.3f} ms" if mode == "bus" else ""))
            print(f"{mode:9} N={n:4}  {result['moves']:4} moves  per move: coordinator "
                  f"{result['coordinator_ms']:.2f} ms, nats-server {result['nats_ms']:.2f} ms, "
                  f"front {result['front_ms']:.2f} ms{extra}", flush=True)
    print(f"# load average after: {load_average()}")


if __name__ == "__main__":
    main()
