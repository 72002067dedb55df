"""The lobby's bucket (issue 18, bus/directory.py): from a table's change, as its owner writes
it, to a front's lobby snapshot built with it; and what one change costs on the bus. Never part
of the test run; results go to docs/performance.md (« Several machines (issue 18) »).

    uv run python bench/directory.py [--tables 100] [--changes 300] [--every 0.02]

A real nats-server with JetStream (a temporary store). The owner (``LobbyBoard``, one NATS
connection) holds a lobby of ``--tables`` tables of four seats; it changes one table at a time
(a spectator more), ``--every`` seconds apart, and writes each snapshot as the coordinator's
host does. The front (``LobbyWatch``, another connection) builds its lobby from the bucket and
notes when the change first appears in a snapshot it built. Two rounds:

- ``quiet``: changes ``--quiet-every`` apart (0.6 s), more than ``BUILD_INTERVAL``: each is built
  at once (the bucket's latency alone);
- ``busy``: changes ``--every`` apart: the front builds at most every ``BUILD_INTERVAL`` (0.5 s),
  so a change waits up to that for the next build.

Then 300 names held one after another, as at login (``OnlineNames.claim``: an atomic create).

Printed: p50/p99/max of change → snapshot, the bytes of one change on the bus (its value, and the
message as JetStream stores it: subject and headers), against one whole snapshot (what
``pioche.lobby`` carried per change), and this process's CPU per change (owner and front both).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pioche_tui import bus, wire  # noqa: E402
from pioche_tui.bus.directory import (  # noqa: E402
    BUILD_INTERVAL,
    ONLINE_MAX_AGE,
    LobbyBoard,
    LobbyWatch,
    OnlineNames,
    online_key,
    open_buckets,
)
from pioche_tui.bus.natsd import NatsServer  # noqa: E402
from pioche_tui.coordinator.model import (  # noqa: E402
    LobbySnapshot,
    OnlineEntry,
    SeatInfo,
    TableSummary,
)
from pioche_tui.coordinator.text import name_key  # noqa: E402


def lobby(tables: int) -> LobbySnapshot:
    summaries = tuple(
        TableSummary(
            f"T{n:03d}", "defausse", "Défausse", (("target", 500),),
            tuple(SeatInfo("player", f"joueur{n}_{s}", identity=f"SHA256:{'x' * 43}{n}{s}")
                  for s in range(4)),
            "playing", 0, False, 30.0, f"joueur{n}_0")
        for n in range(tables))
    online = tuple(OnlineEntry(seat.name, False, t.id) for t in summaries for seat in t.seats)
    return LobbySnapshot(summaries, online, "Bienvenue sur Pioche !")


async def round_(url: str, snapshot: LobbySnapshot, changes: int, every: float
                 ) -> tuple[list[float], float]:
    owner_nc = await bus.connect(url, "bench-owner")
    front_nc = await bus.connect(url, "bench-front")
    board = LobbyBoard((await open_buckets(owner_nc)).lobby)
    await board.write(snapshot)
    seen: dict[int, float] = {}
    target = snapshot.tables[0].id

    def built(lobby: LobbySnapshot) -> None:
        now = time.perf_counter()
        for table in lobby.tables:
            if table.id == target and table.spectators not in seen:
                seen[table.spectators] = now

    watch = LobbyWatch(await open_buckets(front_nc), built)
    await watch.start()
    sent: dict[int, float] = {}
    cpu = time.process_time()
    current = snapshot
    for n in range(1, changes + 1):
        table = replace(current.tables[0], spectators=n)
        current = replace(current, tables=(table, *current.tables[1:]))
        sent[n] = time.perf_counter()
        await board.write(current)
        await asyncio.sleep(every)
    deadline = time.perf_counter() + 2 * BUILD_INTERVAL + 1
    while changes not in seen and time.perf_counter() < deadline:
        await asyncio.sleep(0.01)
    cpu = time.process_time() - cpu
    await watch.stop()
    await owner_nc.close()
    await front_nc.close()
    # A change built over by a later one before the front built it is never shown alone: its
    # latency is that of the snapshot that first holds it or a later one.
    latencies = []
    for n, at in sent.items():
        shown = min((t for m, t in seen.items() if m >= n), default=None)
        if shown is not None:
            latencies.append(shown - at)
    return latencies, cpu / changes


def summary(name: str, latencies: list[float], cpu: float) -> None:
    ms = sorted(1000 * x for x in latencies)
    p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))]
    print(f"{name:6s} n={len(ms):4d} p50={statistics.median(ms):7.1f} ms p99={p99:7.1f} ms "
          f"max={ms[-1]:7.1f} ms  CPU/change={cpu * 1e6:6.0f} µs")


async def claims(url: str, count: int) -> list[float]:
    """A player's name held at login (``OnlineNames.claim``: an atomic create), one after
    another: each one's time."""
    nc = await bus.connect(url, "bench-names")
    names = OnlineNames((await open_buckets(nc)).online, ONLINE_MAX_AGE)
    times = []
    for n in range(count):
        entry = wire.Online(f"joueur{n}", f"SHA256:{n}", False, None, "f", f"s{n}")
        start = time.perf_counter()
        await names.claim(online_key(name_key(entry.name)), entry)
        times.append(time.perf_counter() - start)
    await names.close()
    await nc.close()
    return times


async def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=100)
    p.add_argument("--changes", type=int, default=300)
    p.add_argument("--every", type=float, default=0.02)
    p.add_argument("--quiet-changes", type=int, default=60)
    p.add_argument("--quiet-every", type=float, default=0.6)
    args = p.parse_args()
    snapshot = lobby(args.tables)
    value = wire.encode(snapshot.tables[0])
    subject = f"$KV.{bus.LOBBY_BUCKET}.{snapshot.tables[0].id}"
    print(f"one change: value {len(value)} B, message ~{len(value) + len(subject) + 40} B "
          f"(subject, headers); a whole snapshot of {args.tables} tables and "
          f"{len(snapshot.online)} online: {len(wire.encode(snapshot))} B")
    with tempfile.TemporaryDirectory() as tmp:
        server = NatsServer(jetstream=Path(tmp) / "js")
        await server.start()
        try:
            summary("quiet", *await round_(server.url, snapshot, args.quiet_changes,
                                           args.quiet_every))
            summary("busy", *await round_(server.url, snapshot, args.changes, args.every))
            ms = sorted(1000 * x for x in await claims(server.url, 300))
            print(f"claim  n={len(ms):4d} p50={statistics.median(ms):7.2f} ms "
                  f"p99={ms[int(0.99 * len(ms))]:7.2f} ms max={ms[-1]:7.2f} ms")
        finally:
            await server.stop()


if __name__ == "__main__":
    asyncio.run(main())
