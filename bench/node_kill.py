"""A NATS node killed under play, as the players see it (issue 18's target: no table stops for
more than 2 s). Never part of the test run; results go to docs/performance.md (« Several
machines (issue 18) », « A NATS node killed, as players see it »).

    uv run --group bench python bench/node_kill.py [--tables 8] [--kills 3]
        [--cases follower,follower-coordinator,follower-front,leader,leader-stop]

A three-node ``NatsCluster`` (JetStream, the tables' logs in ``PIOCHE_LOGS`` with three
replicas, the lobby's buckets with three); a coordinator (``--logs jetstream``) and a front's
``Remote``, each on its own connection with the three URLs, in this process. ``--tables``
players each at a Défausse table of two with a bot (0.05–0.1 s to think), playing their first
legal action as soon as it is their turn (a move refused « paused » or « unavailable » is made
again 0.1 s later, as a player presses again); a table whose game ends is replaced. Each
acknowledged move (``act`` returned) is timed (wall clock: what a player waits).

Each kill: steady play for ``SETTLE`` s, the node killed, play goes on for ``WINDOW`` s, the
node restarted and its replicas caught up. A table's stall is the longest time between two of
its acknowledged moves around the kill (the gap across it included), against the same
measure over the steady seconds before it (a bot's think and the round trips). The cases:

- ``follower``: a node that leads no stream of the logs, and neither the coordinator nor the
  front is connected to (SIGKILL);
- ``follower-coordinator``: the node the coordinator is connected to, not the logs' leader;
- ``follower-front``: the node the front is connected to, not the logs' leader;
- ``leader``: the node leading ``PIOCHE_LOGS`` (SIGKILL; neither client connected to it);
- ``leader-stop``: that node stopped cleanly (SIGTERM: an operator's restart).

A case's roles are arranged before each kill by moving the logs' leader (a step-down request,
then ``2 × SETTLE`` s of play: the step-down's own pause is not measured); the clients stay
where nats-py put them, so a case whose roles cannot be arranged this round is skipped.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nats.aio.client import Client  # noqa: E402

from pioche_tui import bus  # noqa: E402
from pioche_tui.bus.directory import buckets_of  # noqa: E402
from pioche_tui.bus.natsd import NatsCluster  # noqa: E402
from pioche_tui.coordinator.core import Coordinator, Settings  # noqa: E402
from pioche_tui.coordinator.host import CoordinatorHost  # noqa: E402
from pioche_tui.coordinator.model import Player, Refused, TableUpdate  # noqa: E402
from pioche_tui.coordinator.remote import Remote, RemoteClient  # noqa: E402

SETTLE = 3.0  # seconds of steady play before a kill (the baseline) and after the catch-up
WINDOW = 12.0  # seconds of play after a kill before the node is started again
CASES = ("follower", "follower-coordinator", "follower-front", "leader", "leader-stop")


@dataclass
class Table:
    """One player at a table with a bot: the times of their acknowledged moves."""

    client: RemoteClient
    acked: list[float] = field(default_factory=list)
    refused: dict[str, int] = field(default_factory=dict)

    async def play(self) -> None:
        update: TableUpdate | None = None
        while True:
            if update is None or self.client.pending:
                mail = await self.client.mail()
                if mail.closed:
                    raise RuntimeError(f"session ended: {mail.notices}")
                if mail.table is None:
                    continue
                update = mail.table
            if update.table.status != "playing":
                with contextlib.suppress(Refused):
                    await self.client.leave()
                await self.client.create_table("defausse", seats=2, bots={1: "random"},
                                               timer=None)
                update = None
                continue
            if update.seat in update.to_act and update.view is not None and update.view.legal:
                try:
                    await self.client.act(update.view.legal[0], update.step)
                except Refused as refusal:
                    self.refused[refusal.code] = self.refused.get(refusal.code, 0) + 1
                    if refusal.code != "stale":  # (paused, unavailable: pressed again soon,
                        await asyncio.sleep(0.1)  # unless news came meanwhile)
                        continue
                else:
                    self.acked.append(time.monotonic())
            update = None

    def longest_gap(self, start: float, end: float) -> float:
        """The longest time between two acknowledged moves, the later one after ``start``
        and the earlier one before ``end`` (the gap across ``start`` counts)."""
        gaps = [b - a for a, b in zip(self.acked, self.acked[1:], strict=False)
                if b > start and a < end]
        return max(gaps, default=end - start)


def node_of(nc: Client, cluster: NatsCluster) -> int:
    url = nc.connected_url
    assert url is not None
    return [node.port for node in cluster.nodes].index(url.port)


async def leader_of(nc: Client, cluster: NatsCluster) -> int:
    js = nc.jetstream(timeout=2.0)
    while True:
        with contextlib.suppress(Exception):
            info = await js.stream_info(bus.LOG_STREAM)
            if info.cluster is not None and info.cluster.leader:
                return cluster.node_named(info.cluster.leader)
        await asyncio.sleep(0.1)


async def caught_up(nc: Client) -> None:
    """Until every replica of the logs' stream is current."""
    js = nc.jetstream(timeout=2.0)
    while True:
        with contextlib.suppress(Exception):
            info = await js.stream_info(bus.LOG_STREAM)
            replicas = info.cluster.replicas if info.cluster is not None else None
            if replicas and len(replicas) == 2 and all(
                    peer.current and not peer.offline for peer in replicas):
                return
        await asyncio.sleep(0.1)


async def step_down(nc: Client, cluster: NatsCluster, avoid: set[int]) -> int:
    """Ask the logs' leader to step down until the leader is not in ``avoid``."""
    for _ in range(10):
        now = await leader_of(nc, cluster)
        if now not in avoid:
            return now
        with contextlib.suppress(Exception):
            await nc.request(f"$JS.API.STREAM.LEADER.STEPDOWN.{bus.LOG_STREAM}", b"",
                             timeout=2.0)
        await asyncio.sleep(1.0)
    return await leader_of(nc, cluster)


async def victim_for(case: str, coordinator: Client, front: Client, cluster: NatsCluster
                     ) -> int | None:
    c, f = node_of(coordinator, cluster), node_of(front, cluster)
    if case == "follower-coordinator":
        return c if await step_down(coordinator, cluster, {c}) != c else None
    if case == "follower-front":
        return f if await step_down(coordinator, cluster, {f}) != f else None
    if case == "follower":
        free = set(range(cluster.size)) - {c, f}
        if not free:
            return None
        leader = await step_down(coordinator, cluster, free if len(free) == 1 else set())
        rest = free - {leader}
        return min(rest) if rest else None
    leader = await step_down(coordinator, cluster, {c, f})
    return leader if leader not in (c, f) else None


async def run(args: argparse.Namespace) -> None:
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")
    cases = args.cases.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        cluster = NatsCluster(workdir=Path(tmp) / "cluster")
        await cluster.start()
        coordinator = Coordinator(Settings(
            Path(tmp) / "data", bot_delay=(0.05, 0.1), turn_timer=None, grace=300.0,
            lobby_interval=0.5, table_rate=(1000, 1000), logs="jetstream", log_replicas=3))
        nc_c = await bus.connect(cluster.url, "bench-coordinator", bus.COORDINATOR)
        nc_f = await bus.connect(cluster.url, "bench-front", bus.FRONT)
        await coordinator.start(bus=nc_c)
        host = CoordinatorHost(coordinator, nc_c, await buckets_of(nc_c, replicas=3))
        await host.start()
        remote = Remote(nc_f, "bench", buckets=await buckets_of(nc_f, create=False))
        await remote.start()
        tables = []
        for n in range(args.tables):
            client = remote.client()
            await client.connect(Player(f"SHA256:bench{n}", f"bench{n}"))
            await client.create_table("defausse", seats=2, bots={1: "random"}, timer=None)
            tables.append(Table(client))
        players = [asyncio.create_task(table.play()) for table in tables]
        results: dict[str, list[dict[str, float]]] = {case: [] for case in cases}
        try:
            await asyncio.sleep(SETTLE)
            for round_no in range(args.kills):
                for case in cases:
                    victim = await victim_for(case, nc_c, nc_f, cluster)
                    if victim is None:
                        print(f"{case}: roles not arranged this round, skipped", flush=True)
                        continue
                    await caught_up(nc_c)
                    await asyncio.sleep(2 * SETTLE)  # (a step-down's own pause, then steady)
                    killed = time.monotonic()
                    base = [t.longest_gap(killed - SETTLE + 0.5, killed) for t in tables]
                    if case == "leader-stop":
                        await cluster.nodes[victim].stop()
                    else:
                        cluster.kill(victim)
                    await asyncio.sleep(WINDOW)
                    stalls = [t.longest_gap(killed, killed + WINDOW) for t in tables]
                    for player in players:
                        if player.done():
                            player.result()
                    await cluster.restart(victim)
                    stalls.sort()
                    one = {"max": stalls[-1], "median": statistics.median(stalls),
                           "over_2s": sum(1 for s in stalls if s > 2.0),
                           "baseline_max": max(base)}
                    results[case].append(one)
                    print(f"round {round_no + 1} {case} (node n{victim + 1}): stall max "
                          f"{one['max']:.2f} s, median {one['median']:.2f} s, "
                          f"{one['over_2s']} of {len(tables)} tables over 2 s "
                          f"(steady: {one['baseline_max']:.2f} s)", flush=True)
        finally:
            for player in players:
                player.cancel()
            await asyncio.gather(*players, return_exceptions=True)
            refused: dict[str, int] = {}
            for table in tables:
                for code, count in table.refused.items():
                    refused[code] = refused.get(code, 0) + count
            print("refused:", refused, "moves:", sum(len(t.acked) for t in tables))
            coordinator.stop()
            await remote.stop()
            await host.stop()
            for nc in (nc_f, nc_c):
                with contextlib.suppress(Exception):
                    await nc.close()
            await cluster.stop()
    print(json.dumps(results))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args()
    random.seed(1)
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
