"""Leases across a NATS node's death (issue 18): on the three-node cluster, two coordinators of
several, each serving a table; the node leading the leases' bucket dies. Every coordinator's
lease puts fail while the bucket's stream elects another leader (4–9 s), and every lease may
expire meanwhile: neither coordinator may take that for the other's death. No table changes
owner; each goes on being served where it was."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import nats.errors
import pytest
from nats.aio.client import Client

from pioche_tui import bus
from pioche_tui.bus import owners as kv
from pioche_tui.bus.natsd import NatsCluster
from pioche_tui.coordinator.core import Coordinator, Settings
from pioche_tui.coordinator.host import CoordinatorHost
from pioche_tui.coordinator.model import Player
from tests.cluster.conftest import REPLICAS

pytestmark = pytest.mark.asyncio(loop_scope="module")


@contextlib.asynccontextmanager
async def several(url: str, data: Path, name: str
                  ) -> AsyncIterator[tuple[CoordinatorHost, str]]:
    """A coordinator of several on the cluster at ``url`` (R3 logs and buckets), in this
    process, and a table in play there (``name`` and two bots)."""
    core = Coordinator(Settings(data, bot_delay=(0.5, 1.0), turn_timer=None, grace=120.0,
                                logs="jetstream", log_replicas=REPLICAS, seed=len(name)))
    nc = await bus.connect(url, f"test-{name}", bus.COORDINATOR)
    try:
        await core.start(nc, restore=False)
        host = CoordinatorHost(core, nc, None, await kv.open_owner_buckets(nc, REPLICAS))
        await led(nc, bus.LOG_STREAM, *(f"KV_{b}" for b in (
            bus.LEASES_BUCKET, bus.OWNERS_BUCKET, bus.KEYS_BUCKET)))
        await host.start()
        try:
            session = core.connect(Player(f"SHA256:{name}", name))
            table = session.create_table("defausse", seats=3, bots={1: "random", 2: "random"})
            yield host, table
        finally:
            core.stop()
            await host.stop()
    finally:
        await nc.close()


async def led(nc: Client, *streams: str) -> None:
    """Until each stream, just made, has elected its leader (its first put would find none)."""
    js = nc.jetstream(timeout=2.0)
    deadline = time.monotonic() + 30
    for stream in streams:
        while True:
            with contextlib.suppress(nats.errors.Error):
                info = await js.stream_info(stream)
                if info.cluster is not None and info.cluster.leader:
                    break
            assert time.monotonic() < deadline, f"{stream} has no leader"
            await asyncio.sleep(0.1)


def node_of(host: CoordinatorHost, cluster: NatsCluster) -> int:
    """The node the coordinator's client is connected to."""
    url = host.nc.connected_url
    assert url is not None
    return next(i for i, node in enumerate(cluster.nodes) if node.port == url.port)


async def lead(nc: Client, stream: str, node: str) -> None:
    """The stream's leader moved to the node named ``node`` (a step-down asking for it)."""
    js = nc.jetstream(timeout=2.0)
    deadline = time.monotonic() + 30
    while True:
        with contextlib.suppress(nats.errors.Error):  # (an election under way)
            if (await js.stream_info(stream)).cluster.leader == node:  # type: ignore[union-attr]
                return
            await nc.request(f"$JS.API.STREAM.LEADER.STEPDOWN.{stream}",
                             json.dumps({"placement": {"preferred": node}}).encode(), 2.0)
        assert time.monotonic() < deadline, f"{stream}'s leader not moved to {node}"
        await asyncio.sleep(0.5)


async def test_the_leases_leaders_death_moves_no_table(cluster: NatsCluster,
                                                       tmp_path: Path) -> None:
    """Alice's coordinator is connected to the node leading the leases' bucket, Bruno's to
    another; that node dies. (Before: Bruno's claimed Alice's table, its lease missing for the
    5 s her put in flight to the dead node waited, after Bruno's own was back.)"""
    async with several(cluster.url, tmp_path / "a", "alice") as (first, mine):
        there = node_of(first, cluster)
        others = ",".join(node.url for i, node in enumerate(cluster.nodes) if i != there)
        async with several(others, tmp_path / "b", "bruno") as (second, yours):
            await lead(second.nc, f"KV_{bus.LEASES_BUCKET}",
                       cluster.nodes[there].cluster.server_name)  # type: ignore[union-attr]
            await survive(cluster, first, mine, second, yours)


async def survive(cluster: NatsCluster, first: CoordinatorHost, mine: str,
                  second: CoordinatorHost, yours: str) -> None:
    """The leases' leader killed: until the bucket has a leader again and both leases are
    back, then as long again as a lease lives and two beats (a claim would have happened by
    then), no table moves."""
    assert first.owners is not None and second.owners is not None
    buckets = second.owners.buckets  # (Bruno's client: on a node that stays)
    expected = {mine: first.boot, yours: second.boot}

    async def owners_now() -> dict[str, str]:
        return {tid: cid for tid, (cid, _rev) in (await kv.owners(buckets)).items()
                if tid in expected}

    deadline = time.monotonic() + 20
    while await owners_now() != expected or len(await kv.alive(buckets)) < 2:
        assert time.monotonic() < deadline, await owners_now()
        await asyncio.sleep(0.2)
    cluster.kill(node_of(first, cluster))
    back = None
    deadline = time.monotonic() + 45
    while back is None or time.monotonic() < back + kv.LEASE_MAX_AGE + 2 * kv.LEASE_EVERY:
        assert time.monotonic() < deadline, "the leases' bucket did not come back"
        if back is None:
            with contextlib.suppress(Exception):
                if len(await kv.alive(buckets)) == 2:
                    back = time.monotonic()
        await asyncio.sleep(0.5)
    while True:  # (the owners' bucket may still be electing its leader: its listing then
        try:  # fails, or finds no key at all: CI, on a loaded machine)
            now = await owners_now()
            if now:
                break
        except nats.errors.Error:
            pass
        assert time.monotonic() < deadline, "the owners' bucket did not come back"
        await asyncio.sleep(0.5)
    assert now == expected
    assert mine in first.coordinator.tables and yours in second.coordinator.tables
    assert yours not in first.coordinator.tables and mine not in second.coordinator.tables
    assert first.owners.claimed == second.owners.claimed == 0
