"""What an append to a table's log costs (issue 18): the file log (``store/log.py``: write and
fsync) against the JetStream log (``store/jslog.py``: a publish with the expected last subject
sequence, answered once the stream holds it), on one node. Never part of the test run; results
go to docs/performance.md (« Several machines (issue 18) », « A table's log in JetStream »).

    uv run --group bench python bench/jslog.py [--appends 2000] [--tables 1,8] [--url nats://…]

A table appends one record at a time (each move waits for the one before it to be durable):
``--tables N`` runs N such tables at once, each its own writer, as a coordinator does. Each
record is a Défausse move as the log holds it (some 20 bytes). Measured:

- the latency of each append, from the call to its record being durable (wall clock:
  latency is waiting, not work; the other core's load is printed beside it);
- the CPU per append of this process (``time.process_time``) and of nats-server (psutil);
- ``--games N``: the coordinator's CPU per move of whole games (four bots, Défausse to 200
  points, the same seeded deals), files against JetStream: what a move costs with its log,
  the engine, the bots and the copy of the state a JetStream table's move waits on;
- ``--restore N``: what reading a table's log back costs (``jslog.read_table``, every restore
  of a table from the stream: a failover, a restart), for ``--tables`` tables of N records
  each, all read at once as a coordinator brings a dead one's tables back: the time to read
  one table, this process's and nats-server's CPU per table, the messages sent (requests).

``--url``: a running nats-server with JetStream (a cluster's node, when ``cluster`` lands: the
stream then needs ``--replicas 3``); without it a ``NatsServer(jetstream=…)`` child is started
on a temporary directory. ``--sync always``: that child fsyncs each message (``sync_interval:
always``) instead of every 2 minutes, JetStream's default.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
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
from pioche_tui.coordinator.model import Player  # noqa: E402
from pioche_tui.store import jslog  # noqa: E402
from pioche_tui.store.log import LogWriter  # noqa: E402

HEADER = {"game": "defausse", "options": {"target": 500}, "seed": 1, "seats": []}


def percentiles(samples: list[float]) -> str:
    cuts = statistics.quantiles(samples, n=100)
    return (f"p50 {cuts[49] * 1e3:.3f} ms, p99 {cuts[98] * 1e3:.3f} ms, "
            f"max {max(samples) * 1e3:.3f} ms")


def file_log(directory: Path, appends: int) -> tuple[list[float], float]:
    writer = LogWriter.create(directory / "BENCH.log", {"table": "BENCH", **HEADER})
    samples = []
    cpu = time.process_time()
    for i in range(appends):
        start = time.perf_counter()
        writer.append_action(i % 4, ["draw", i % 3])
        samples.append(time.perf_counter() - start)
    cpu = time.process_time() - cpu
    writer.close()
    return samples, cpu / appends


async def table(js: jslog.JetStreamContext, table_id: str, appends: int,
                samples: list[float]) -> None:
    writer, written = jslog.JetStreamLog.create(js, table_id, {"table": table_id, **HEADER})
    await written
    for i in range(appends):
        start = time.perf_counter()
        await writer.append_action(i % 4, ["draw", i % 3])
        samples.append(time.perf_counter() - start)


async def stream_log(url: str, server: psutil.Process | None, tables: int, appends: int,
                     replicas: int, run: int) -> tuple[list[float], float, float | None]:
    client = await bus.connect(url, "bench-jslog")
    js = client.jetstream()
    await jslog.ensure_stream(js, replicas)
    samples: list[float] = []
    ids = [f"B{run}T{n}" for n in range(tables)]
    await asyncio.gather(*(table(js, tid, 50, []) for tid in (f"W{run}T{n}"
                                                               for n in range(tables))))
    server_cpu = cpu_seconds(server) if server is not None else 0.0
    cpu = time.process_time()
    await asyncio.gather(*(table(js, tid, appends // tables, samples) for tid in ids))
    cpu = time.process_time() - cpu
    server_share = ((cpu_seconds(server) - server_cpu) / len(samples)
                    if server is not None else None)
    for tid in ids:
        await jslog.remove(js, tid)
    await client.close()
    return samples, cpu / len(samples), server_share


async def restore(url: str, server: psutil.Process | None, tables: int, records: int,
                  replicas: int, rounds: int = 5) -> None:
    """``--restore``: write ``tables`` logs of ``records`` records, then read them all back
    at once, ``rounds`` times; print the read's figures per table."""
    client = await bus.connect(url, "bench-jslog-restore")
    js = client.jetstream(timeout=jslog.READ_TIMEOUT)
    await jslog.ensure_stream(js, replicas)
    ids = [f"R{records}T{n}" for n in range(tables)]
    await asyncio.gather(*(table(js, tid, records, []) for tid in ids))
    waits: list[float] = []
    cpu = server_cpu = 0.0
    sent = client.stats["out_msgs"]
    for _ in range(rounds):
        server_before = cpu_seconds(server) if server is not None else 0.0
        before = time.process_time()

        async def read(tid: str) -> None:
            start = time.perf_counter()
            contents = await jslog.read_table(js, tid)
            waits.append(time.perf_counter() - start)
            assert len(contents.records) == records, (tid, len(contents.records))

        await asyncio.gather(*(read(tid) for tid in ids))
        cpu += time.process_time() - before
        if server is not None:
            server_cpu += cpu_seconds(server) - server_before
    reads = rounds * tables
    print(f"restore, {tables} table(s) of {records} records read at once: per table "
          f"median {statistics.median(waits) * 1e3:.1f} ms, max {max(waits) * 1e3:.1f} ms; "
          f"CPU {cpu / reads * 1e3:.2f} ms here"
          + (f", nats-server {server_cpu / reads * 1e3:.2f} ms" if server is not None else "")
          + f"; {(client.stats['out_msgs'] - sent) / reads:.1f} messages sent per table")
    for tid in ids:
        await jslog.remove(js, tid)
    await client.close()


async def games(directory: Path, count: int, nc: Any = None) -> tuple[int, float]:
    """Moves of ``count`` games of four bots and this process's CPU per move (``nc``: the
    logs in its JetStream)."""
    c = Coordinator(Settings(directory, bot_delay=(0.0, 0.0), turn_timer=None, seed=3,
                             logs="jetstream" if nc is not None else "files"))
    await c.start(nc)
    watcher = c.connect(Player("SHA256:bench", "Banc"))
    moves, cpu = 0, 0.0
    for _ in range(count):
        tid = watcher.create_table("defausse", seats=4, bots={i: "basic" for i in range(4)},
                                   options={"target": 200}, sit=False)
        table = c.tables[tid]
        start = time.process_time()
        while table.status == "playing":  # (not a busy loop: its CPU would be counted)
            await asyncio.sleep(0.005)
        cpu += time.process_time() - start
        moves += table.step
        watcher.leave()
    c.stop()
    return moves, cpu / moves


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--appends", type=int, default=2000)
    parser.add_argument("--tables", default="1,8")
    parser.add_argument("--url", default=None)
    parser.add_argument("--replicas", type=int, default=1)
    parser.add_argument("--sync", choices=("default", "always"), default="default")
    parser.add_argument("--games", type=int, default=0)
    parser.add_argument("--restore", default="",
                        help="records per log, e.g. 100,500: only the restore's read")
    args = parser.parse_args()
    print(f"load average before: {load_average()}")
    with tempfile.TemporaryDirectory() as tmp:
        if not args.restore:
            samples, cpu = file_log(Path(tmp), args.appends)
            print(f"file log, 1 table: {percentiles(samples)}; CPU {cpu * 1e3:.3f} ms per "
                  "append")
        server = None
        url = args.url
        if url is None:
            server = NatsServer(jetstream=Path(tmp) / "js")
            if args.sync == "always":
                config = server._write_config
                server._write_config = lambda: _always(config())  # type: ignore[method-assign]
            await server.start()
            url = server.url
        try:
            process = psutil.Process(server.pid) if server is not None else None
            for records in (int(n) for n in args.restore.split(",") if n):
                for tables in (int(n) for n in args.tables.split(",")):
                    await restore(url, process, tables, records, args.replicas)
            for run, tables in enumerate(int(n) for n in args.tables.split(",")
                                         if not args.restore):
                samples, cpu, server_cpu = await stream_log(url, process, tables, args.appends,
                                                            args.replicas, run)
                served = (f", nats-server {server_cpu * 1e3:.3f} ms"
                          if server_cpu is not None else "")
                print(f"JetStream log ({args.sync} sync), {tables} table(s) at once: "
                      f"{percentiles(samples)}; CPU {cpu * 1e3:.3f} ms per append here{served}")
            for round_ in range(args.games and 3):  # (alternating: the load changes)
                moves, per_move = await games(Path(tmp) / f"files{round_}", args.games)
                print(f"games, file log: {moves} moves, {per_move * 1e6:.0f} µs CPU per move")
                client = await bus.connect(url, "bench-jslog-games")
                await client.jetstream().purge_stream(bus.LOG_STREAM)  # (no table to restore)
                moves, per_move = await games(Path(tmp) / f"js{round_}", args.games, client)
                await asyncio.sleep(0.5)  # (the last end records on their way)
                await client.close()
                print(f"games, JetStream log: {moves} moves, {per_move * 1e6:.0f} µs CPU per "
                      "move")
        finally:
            if server is not None:
                await server.stop()
    print(f"load average after: {load_average()}")


def _always(path: Path) -> Path:
    """The child's config with ``sync_interval: always`` in its jetstream block."""
    text = path.read_text().replace("jetstream {", "jetstream {\n  sync_interval: always")
    path.write_text(text)
    return path


if __name__ == "__main__":
    asyncio.run(main())
