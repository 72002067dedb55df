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
- the CPU per append of this process (``time.process_time``) and of nats-server (psutil).

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

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.measure import cpu_seconds, load_average  # noqa: E402
from pioche_tui import bus  # noqa: E402
from pioche_tui.bus.natsd import NatsServer  # noqa: E402
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


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--appends", type=int, default=2000)
    parser.add_argument("--tables", default="1,8")
    parser.add_argument("--url", default=None)
    parser.add_argument("--replicas", type=int, default=1)
    parser.add_argument("--sync", choices=("default", "always"), default="default")
    args = parser.parse_args()
    print(f"load average before: {load_average()}")
    with tempfile.TemporaryDirectory() as tmp:
        samples, cpu = file_log(Path(tmp), args.appends)
        print(f"file log, 1 table: {percentiles(samples)}; CPU {cpu * 1e3:.3f} ms per append")
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
            for run, tables in enumerate(int(n) for n in args.tables.split(",")):
                samples, cpu, server_cpu = await stream_log(url, process, tables, args.appends,
                                                            args.replicas, run)
                served = (f", nats-server {server_cpu * 1e3:.3f} ms"
                          if server_cpu is not None else "")
                print(f"JetStream log ({args.sync} sync), {tables} table(s) at once: "
                      f"{percentiles(samples)}; CPU {cpu * 1e3:.3f} ms per append here{served}")
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
