"""A player who connects while a NATS node's death has a bucket elect a leader (issue 18): the
coordinator waits through the election (``directory.CLAIM_WAIT`` at most), and the front waits
for the coordinator's answer, instead of refusing them. (The chaos bench: an SSH player's
connect at a node's kill was refused « Le serveur ne répond pas » by the online bucket, and
« Erreur interne du serveur » when the owners' bucket did not answer; their new table stood
still until they connected again.)"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from pioche_tui import bus
from pioche_tui.bus import owners as kv
from pioche_tui.bus.directory import CLAIM_WAIT, buckets_of, online_key
from pioche_tui.bus.natsd import NatsCluster
from pioche_tui.coordinator.core import Coordinator, Settings
from pioche_tui.coordinator.host import CoordinatorHost
from pioche_tui.coordinator.model import Player, Refused
from pioche_tui.coordinator.remote import Remote
from pioche_tui.coordinator.text import name_key
from tests.bus.several import Seat, a_remote
from tests.cluster.conftest import REPLICAS
from tests.cluster.test_leases import lead, led

pytestmark = pytest.mark.asyncio(loop_scope="module")

DOOMED = 0  # the node that dies; every process here is on the other two


def others(cluster: NatsCluster) -> str:
    return ",".join(node.url for i, node in enumerate(cluster.nodes) if i != DOOMED)


@contextlib.asynccontextmanager
async def coordinator(cluster: NatsCluster, data: Path) -> AsyncIterator[CoordinatorHost]:
    """A coordinator of several (R3 logs and buckets) in this process, off the doomed node."""
    core = Coordinator(Settings(data, bot_delay=(0.5, 1.0), turn_timer=None,
                                logs="jetstream", log_replicas=REPLICAS))
    nc = await bus.connect(others(cluster), f"test-{data.name}", bus.COORDINATOR)
    host: CoordinatorHost | None = None
    try:
        await core.start(nc, restore=False)
        buckets = await buckets_of(nc, REPLICAS)
        assert buckets is not None
        host = CoordinatorHost(core, nc, buckets, await kv.open_owner_buckets(nc, REPLICAS))
        await led(nc, bus.LOG_STREAM, *(f"KV_{b}" for b in (
            bus.LEASES_BUCKET, bus.OWNERS_BUCKET, bus.KEYS_BUCKET, bus.ONLINE_BUCKET)))
        await host.start()
        yield host
    finally:
        core.stop()
        if host is not None:
            await host.stop()
        await nc.close()


@contextlib.asynccontextmanager
async def front(cluster: NatsCluster) -> AsyncIterator[Remote]:
    nc = await bus.connect(others(cluster), "test-front", bus.FRONT)
    remotes: list[Remote] = []
    try:
        yield await a_remote(nc, remotes, "f1")
    finally:
        for one in remotes:
            await one.stop()
        await nc.close()


async def kill_the_leader_of(cluster: NatsCluster, host: CoordinatorHost, bucket: str) -> None:
    await lead(host.nc, f"KV_{bucket}",
               cluster.nodes[DOOMED].cluster.server_name)  # type: ignore[union-attr]
    cluster.kill(DOOMED)


async def test_a_player_who_connects_while_the_online_bucket_elects_a_leader_gets_in(
        cluster: NatsCluster, tmp_path: Path) -> None:
    """The node leading the online bucket dies. Kim connects at once: she is in, her name
    held in the bucket (she was refused « Le serveur ne répond pas »)."""
    async with coordinator(cluster, tmp_path / "c") as host, front(cluster) as remote:
        await kill_the_leader_of(cluster, host, bus.ONLINE_BUCKET)
        kim = remote.client()
        started = time.monotonic()
        place = await kim.connect(Player("SHA256:kim", "kim"))
        waited = time.monotonic() - started
        assert place.table is None and kim.open
        assert host.names is not None
        assert list(host.names.held.values()) == [online_key(name_key("kim"))]
        print(f"connected {waited:.1f} s after the leader's death")


async def test_a_player_seated_elsewhere_who_connects_while_the_owners_bucket_elects_is_sent_there(
        cluster: NatsCluster, tmp_path: Path) -> None:
    """Kim holds a seat at a table of coordinator A and has dropped; the node leading the
    owners' bucket dies; her connect reaches coordinator B, which must ask the bucket who owns
    her table: it waits through the election and sends her to A (``elsewhere``). (It answered
    « Erreur interne du serveur », the bucket's time-out taken for a bug: the 50-kill chaos
    bench, seed 13.)"""
    async with coordinator(cluster, tmp_path / "a") as a, \
            coordinator(cluster, tmp_path / "b") as b, front(cluster) as remote:
        kim, who = remote.client(), Player("SHA256:kim", "kim")
        await kim.connect(who)
        table = await kim.create_table("defausse", seats=2, bots={1: "random"})
        home, away = (a, b) if table in a.coordinator.tables else (b, a)
        assert await Seat(kim).play(1)  # (a table no player moved at closes as they go)
        await kim.close()  # (her connection dropped: her seat is held for her)
        assert away.cross is not None
        deadline = time.monotonic() + 10
        while away.cross.seat_elsewhere(who.identity) is None:  # (the lobby's bucket)
            assert time.monotonic() < deadline, "B never saw Kim's seat at A"
            await asyncio.sleep(0.1)
        await kill_the_leader_of(cluster, home, bus.OWNERS_BUCKET)
        with pytest.raises(Refused) as refused:
            await remote.ask("connect", {"player": who, "guest_pass": None}, "kim-2",
                             away.boot, remote.timeout + CLAIM_WAIT)
        assert refused.value.code == "elsewhere", refused.value
        assert refused.value.params.get("home") == home.boot


async def test_a_session_moving_while_the_online_bucket_elects_moves_once(
        cluster: NatsCluster, tmp_path: Path) -> None:
    """Kim plays at A's table; A dies as the node leading the online bucket does. Her session
    moves to B, whose connect waits through the election: the front waits for that answer
    (its request time-out is 1 s here) instead of asking again while the first connect goes
    on, which then replaced her session by its own copy: « Vous vous êtes connecté ailleurs »,
    the session ended (the 50-kill chaos bench, seed 13: bus7 at LDMZ)."""
    async with coordinator(cluster, tmp_path / "a") as a, \
            coordinator(cluster, tmp_path / "b") as b, front(cluster) as remote:
        remote.timeout = 1.0
        kim = Seat(remote.client())
        await kim.client.connect(Player("SHA256:kim", "kim"))
        table = await kim.client.create_table("defausse", seats=2, bots={1: "random"})
        assert await kim.play(1)
        home, away = (a, b) if table in a.coordinator.tables else (b, a)
        await kill_the_leader_of(cluster, home, bus.ONLINE_BUCKET)
        await home.nc.close()  # (A dies too: no lease, no heartbeat)
        deadline = time.monotonic() + 40
        while kim.client._link.home != away.boot or not kim.client._link.settled.is_set():
            assert time.monotonic() < deadline, "Kim's session did not move"
            while kim.client.pending:
                mail = await kim.client.mail()
                assert not mail.closed, mail.notices
            await asyncio.sleep(0.1)
        assert kim.client.open
        assert await kim.play(1)  # (served by B)
