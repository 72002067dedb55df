"""A three-node NATS cluster with JetStream on loopback (issue 18): what an append to a
replicated stream costs, and how long a steady writer stalls when a node dies. Never part of
the test run; results go to docs/performance.md (« Several machines (issue 18) », « The
cluster »).

    uv run --group bench python bench/cluster.py [--appends 2000] [--loads 1:0,20:0,200:1]
        [--kills 5] [--interval 0.02] [--parts latency,stall] [--syncs default,always]

``latency``: ``--appends`` appends to one stream by several writers at once (each a table: its
own subject ``pioche.log.<n>``, one append in flight, the next sent when the last is
acknowledged, as a table's log is written), records of 120 bytes (about a move's), after a
warm-up. ``--loads``: TABLES:PACE, the writers and the seconds between two appends of one table
(0: back to back, the most the set-up can take; 200:1 is 200 tables each moving once a second,
a busy server's play). Wall-clock latency of each append (send to acknowledgement),
p50/p99/max, and the CPU per append of the nats-server nodes (/proc, through psutil) and of
this process (``time.process_time``). Four set-ups, each on fresh servers: one node, R1 (what
``pioche serve --workers`` has), and three nodes, R3; each with nats-server's default flush
(``sync_interval`` 2 min) and with ``sync_interval: always`` (a flush before each
acknowledgement).

``stall``: one writer appends every ``--interval`` seconds (the next one waits for the last
acknowledgement, then for its tick); an append that fails (no answer in 0.5 s, JetStream
unavailable, the connection lost) is sent again at once with the same ``Nats-Msg-Id`` (so a
first attempt that did land is not stored twice). Then a node is killed, the writer goes on,
the node is restarted and its replica caught up; ``--kills`` times per case. The stall of a
kill is the longest time between two acknowledgements from the kill until 3 s after the
node's replica is current again (the restart included). The cases: the stream's leader
(SIGKILL), with the writer connected elsewhere and connected to it; a follower (SIGKILL),
with the writer connected to it and elsewhere; the leader stopped cleanly (SIGTERM: an
operator's restart, an upgrade).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nats
import psutil
from nats.aio.client import Client
from nats.js import JetStreamContext
from nats.js.api import StorageType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.measure import cpu_seconds, load_average, ms, percentiles  # noqa: E402
from pioche_tui import bus  # noqa: E402
from pioche_tui.bus.natsd import NatsCluster, NatsServer  # noqa: E402

STREAM = "BENCH"
RECORD = bytes(120)  # about a move's record (msgpack: the action, the seat, the time)
WARM_UP = 200  # appends before the measure
ATTEMPT = 0.5  # seconds an append waits for its acknowledgement before it is sent again
SETTLE = 3.0  # seconds of steady appends before a kill and after the replica caught up
WAIT = 60.0  # seconds anything in the benchmark may take before it is called a failure


# --- latency --------------------------------------------------------------------------------

async def make_stream(js: JetStreamContext, replicas: int) -> None:
    await js.add_stream(name=STREAM, subjects=["pioche.log.>"], num_replicas=replicas,
                        storage=StorageType.FILE)


async def writer(js: JetStreamContext, table: int, count: int, latencies: list[float],
                 pace: float = 0.0) -> None:
    """``count`` appends to ``pioche.log.<table>``, one in flight; with ``pace``, one every
    ``pace`` seconds (from a random phase: tables do not move together), else back to back."""
    subject = f"pioche.log.{table}"
    tick = time.perf_counter() + random.uniform(0, pace)
    for _ in range(count):
        if pace:
            await asyncio.sleep(max(0.0, tick - time.perf_counter()))
            tick += pace
        start = time.perf_counter()
        await js.publish(subject, RECORD, timeout=5.0)
        latencies.append(time.perf_counter() - start)


async def latency(url: str, pids: Sequence[int], replicas: int, tables: int, appends: int,
                  pace: float) -> dict[str, Any]:
    client = await bus.connect(url, "bench-latency")
    try:
        js = client.jetstream(timeout=5.0)
        await make_stream(js, replicas)
        await asyncio.gather(*(writer(js, t, WARM_UP // tables + 1, []) for t in range(tables)))
        servers = [psutil.Process(pid) for pid in pids]
        server_cpu = sum(cpu_seconds(p) for p in servers)
        own_cpu = time.process_time()
        latencies: list[float] = []
        start = time.perf_counter()
        per_table = appends // tables
        await asyncio.gather(*(writer(js, t, per_table, latencies, pace)
                               for t in range(tables)))
        wall = time.perf_counter() - start
        server_cpu = sum(cpu_seconds(p) for p in servers) - server_cpu
        own_cpu = time.process_time() - own_cpu
        await js.delete_stream(STREAM)
    finally:
        await client.close()
    n = len(latencies)
    return {**percentiles(latencies), "appends_per_s": round(n / wall),
            "servers_cpu_ms_per_append": round(server_cpu / n * 1000, 3),
            "client_cpu_ms_per_append": round(own_cpu / n * 1000, 3)}


def flush(sync: str | None) -> str:
    return "default flush" if sync is None else f"sync_interval {sync}"


async def latency_part(loads: Sequence[tuple[int, float]], appends: int,
                       syncs: Sequence[str | None]) -> list[dict[str, Any]]:
    """For each load (tables, pace), each set-up on fresh servers: one node then three, with
    each ``sync_interval`` (None: nats-server's default)."""
    rows = []
    for tables, pace in loads:
        load = {"tables": tables, "pace_s": pace}
        for sync in syncs:
            label = f"one node, R1, {flush(sync)}"
            with tempfile.TemporaryDirectory(prefix="pioche-bench-js-") as store:
                one = NatsServer(jetstream=Path(store), sync_interval=sync)
                await one.start()
                try:
                    assert one.pid is not None
                    rows.append({"setup": label, **load, **await latency(
                        one.url, [one.pid], 1, tables, appends, pace)})
                finally:
                    await one.stop()
        for sync in syncs:
            label = f"three nodes, R3, {flush(sync)}"
            cluster = NatsCluster(sync_interval=sync)
            await cluster.start()
            try:
                pids = [node.pid for node in cluster.nodes if node.pid is not None]
                rows.append({"setup": label, **load,
                             **await latency(cluster.url, pids, 3, tables, appends, pace)})
            finally:
                await cluster.stop()
        for row in rows[-2 * len(syncs):]:
            print(json.dumps(row), flush=True)
    return rows


# --- stall ----------------------------------------------------------------------------------

@dataclass
class Steady:
    """Appends every ``interval`` s, each sent again until acknowledged; ``acks`` holds the
    time of each acknowledgement (perf_counter)."""

    js: JetStreamContext
    interval: float
    acks: list[float] = field(default_factory=list)
    retries: int = 0
    stopping: bool = False
    number: int = 0

    async def run(self) -> None:
        next_tick = time.perf_counter()
        while not self.stopping:
            self.number += 1
            msg_id = f"bench-{self.number}"
            while not self.stopping:
                try:
                    await self.js.publish("pioche.log.steady", RECORD, timeout=ATTEMPT,
                                          headers={"Nats-Msg-Id": msg_id})
                    break
                except nats.errors.Error:
                    self.retries += 1
                    await asyncio.sleep(0.01)  # (no responders comes back at once)
            self.acks.append(time.perf_counter())
            next_tick = max(next_tick + self.interval, time.perf_counter())
            await asyncio.sleep(next_tick - time.perf_counter())

    def longest_gap(self, since: float) -> float:
        times = [t for t in self.acks if t >= since]
        before = [t for t in self.acks if t < since]
        if before:
            times.insert(0, before[-1])
        return max((b - a for a, b in itertools.pairwise(times)), default=0.0)


async def connect_first(cluster: NatsCluster, index: int) -> Client:
    """A client whose first server is node ``index`` (then the others): bus.connect's options,
    the pool kept in that order."""
    order = [cluster.urls[index], *(u for i, u in enumerate(cluster.urls) if i != index)]

    async def quiet(error: Exception) -> None:  # (the kills' errors are the point)
        pass

    return await nats.connect(
        servers=order, error_cb=quiet, dont_randomize=True, allow_reconnect=True,
        max_reconnect_attempts=-1,
        reconnect_time_wait=bus.RECONNECT_WAIT,  # type: ignore[arg-type,unused-ignore]
        connect_timeout=bus.CONNECT_TIMEOUT, ping_interval=5, max_outstanding_pings=2,
        name="bench-steady")


async def stream_state(js: JetStreamContext, cluster: NatsCluster) -> tuple[int, bool]:
    """The leader's index and whether every replica is current (caught up)."""
    info = await js.stream_info(STREAM)
    assert info.cluster is not None and info.cluster.leader
    replicas = info.cluster.replicas or []
    current = len(replicas) == cluster.size - 1 and all(
        p.current and not p.offline and not p.lag for p in replicas)
    return cluster.node_named(info.cluster.leader), current


async def until_current(js: JetStreamContext, cluster: NatsCluster) -> int:
    deadline = time.monotonic() + WAIT
    while True:
        with contextlib.suppress(nats.errors.Error, AssertionError):
            leader, current = await stream_state(js, cluster)
            if current:
                return leader
        if time.monotonic() > deadline:
            raise RuntimeError("the stream's replicas did not catch up")
        await asyncio.sleep(0.05)


Case = Callable[[int], tuple[int, int]]  # leader → (node the writer connects to, node killed)


def _other(leader: int, *not_these: int) -> int:
    return next(i for i in range(3) if i != leader and i not in not_these)


CASES: dict[str, tuple[Case, bool]] = {  # name → (choice, SIGTERM instead of SIGKILL)
    "leader, writer elsewhere": (lambda leader: (_other(leader), leader), False),
    "leader, writer on it": (lambda leader: (leader, leader), False),
    "follower, writer on it": (lambda leader: (_other(leader), _other(leader)), False),
    "follower, writer elsewhere": (
        lambda leader: (leader, _other(leader)), False),
    "leader stopped cleanly (SIGTERM), writer elsewhere": (
        lambda leader: (_other(leader), leader), True),
}


async def one_kill(cluster: NatsCluster, control: JetStreamContext, case: str,
                   interval: float) -> dict[str, Any]:
    choose, clean = CASES[case]
    leader = await until_current(control, cluster)
    home, victim = choose(leader)
    client = await connect_first(cluster, home)
    steady = Steady(client.jetstream(timeout=5.0), interval)
    task = asyncio.create_task(steady.run())
    try:
        await asyncio.sleep(SETTLE)
        assert client.connected_url is not None
        on = [n.port for n in cluster.nodes].index(client.connected_url.port or 0)
        killed_at = time.perf_counter()
        if clean:
            await cluster.nodes[victim].stop()
        else:
            cluster.kill(victim)
        # Until the writer is acknowledged again, then the node back and caught up.
        deadline = time.monotonic() + WAIT
        while not steady.acks or steady.acks[-1] < killed_at:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{case}: no acknowledgement {WAIT:.0f} s after the kill")
            await asyncio.sleep(0.01)
        resumed = steady.acks[-1] - killed_at
        await cluster.restart(victim)
        await until_current(control, cluster)
        await asyncio.sleep(SETTLE)
    finally:
        steady.stopping = True
        await asyncio.wait_for(task, WAIT)
        await client.close()
    return {"case": case, "writer_on": on, "killed": victim, "leader": leader,
            "stall_ms": ms(steady.longest_gap(killed_at)), "resumed_ms": ms(resumed),
            "retries": steady.retries}


async def stall_part(kills: int, interval: float) -> list[dict[str, Any]]:
    cluster = NatsCluster()
    await cluster.start()
    rows = []
    try:
        control = await bus.connect(cluster.url, "bench-control")
        js = control.jetstream(timeout=5.0)
        await make_stream(js, 3)
        for _ in range(kills):
            for case in CASES:
                row = await one_kill(cluster, js, case, interval)
                print(json.dumps(row), flush=True)
                rows.append(row)
        await control.close()
    finally:
        await cluster.stop()
    return rows


def summary(rows: list[dict[str, Any]]) -> None:
    for case in CASES:
        stalls = [r["stall_ms"] for r in rows if r["case"] == case]
        if stalls:
            print(f"{case}: stall median {statistics.median(stalls):.0f} ms, "
                  f"max {max(stalls):.0f} ms over {len(stalls)} kills "
                  f"({', '.join(f'{s:.0f}' for s in stalls)})")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--appends", type=int, default=2000)
    parser.add_argument("--loads", default="1:0,20:0,200:1",
                        help="TABLES:PACE,…: writers at once, seconds between a table's "
                             "appends (0: back to back)")
    parser.add_argument("--kills", type=int, default=5, help="kills per case")
    parser.add_argument("--interval", type=float, default=0.02)
    parser.add_argument("--parts", default="latency,stall")
    parser.add_argument("--syncs", default="default,always",
                        help="sync_interval values of the latency part (default: the server's)")
    args = parser.parse_args()
    parts = args.parts.split(",")
    print(json.dumps({"load_average": load_average(), "cpus": os.cpu_count()}), flush=True)
    if "latency" in parts:
        loads = [(int(t), float(p)) for t, p in (x.split(":") for x in args.loads.split(","))]
        syncs = [None if x == "default" else x for x in args.syncs.split(",")]
        await latency_part(loads, args.appends, syncs)
    if "stall" in parts:
        summary(await stall_part(args.kills, args.interval))
    print(json.dumps({"load_average": load_average()}), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
