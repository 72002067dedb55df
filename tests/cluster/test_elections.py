"""A player who connects while a NATS node's death has the online bucket elect a leader
(issue 18): the coordinator's claim of their name waits through the election, and the front
waits for the coordinator's answer, instead of refusing them « Le serveur ne répond pas ». (It
was refused: the chaos bench, an SSH player's connect at a node's kill, its new table standing
still for the 20 s the player then took to connect again.)"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from pioche_tui import bus
from pioche_tui.bus import owners as kv
from pioche_tui.bus.directory import buckets_of, online_key
from pioche_tui.bus.natsd import NatsCluster
from pioche_tui.coordinator.core import Coordinator, Settings
from pioche_tui.coordinator.host import CoordinatorHost
from pioche_tui.coordinator.model import Player
from pioche_tui.coordinator.remote import Remote
from pioche_tui.coordinator.text import name_key
from tests.bus.several import a_remote
from tests.cluster.conftest import REPLICAS
from tests.cluster.test_leases import lead, led

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_a_player_who_connects_while_the_online_bucket_elects_a_leader_gets_in(
        cluster: NatsCluster, tmp_path: Path) -> None:
    """The node leading the online bucket dies; the coordinator and the front are on the
    other two. Kim connects at once: she is in, her name held in the bucket."""
    doomed = 0
    others = ",".join(node.url for i, node in enumerate(cluster.nodes) if i != doomed)
    core = Coordinator(Settings(tmp_path / "c", bot_delay=(0.5, 1.0), turn_timer=None,
                                logs="jetstream", log_replicas=REPLICAS))
    nc = await bus.connect(others, "test-coordinator", bus.COORDINATOR)
    front = await bus.connect(others, "test-front", bus.FRONT)
    remotes: list[Remote] = []
    host: CoordinatorHost | None = None
    try:
        await core.start(nc, restore=False)
        buckets = await buckets_of(nc, REPLICAS)
        assert buckets is not None
        host = CoordinatorHost(core, nc, buckets, await kv.open_owner_buckets(nc, REPLICAS))
        await led(nc, bus.LOG_STREAM, *(f"KV_{b}" for b in (
            bus.LEASES_BUCKET, bus.OWNERS_BUCKET, bus.KEYS_BUCKET, bus.ONLINE_BUCKET)))
        await host.start()
        remote = await a_remote(front, remotes, "f1")
        await lead(nc, f"KV_{bus.ONLINE_BUCKET}",
                   cluster.nodes[doomed].cluster.server_name)  # type: ignore[union-attr]
        cluster.kill(doomed)
        kim = remote.client()
        started = time.monotonic()
        place = await kim.connect(Player("SHA256:kim", "kim"))
        waited = time.monotonic() - started
        assert place.table is None and kim.open
        assert host.names is not None
        assert list(host.names.held.values()) == [online_key(name_key("kim"))]
        print(f"connected {waited:.1f} s after the leader's death")
    finally:
        for one in remotes:
            await one.stop()
        core.stop()
        if host is not None:
            await host.stop()
        await front.close()
        await nc.close()
