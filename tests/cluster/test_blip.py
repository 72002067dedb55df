"""A front that loses its NATS node keeps its sessions (issue 18): on the three-node cluster,
the front's node dies, nats-py reconnects to another, and the front asks each session's state
again instead of ending it; cut off longer than ``bus.SILENCE``, its sessions, closed by the
coordinator meanwhile, are connected again, unseen. The players see a pause, not a farewell."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path

import asyncssh
import pytest
import pytest_asyncio

from pioche_tui import bus
from pioche_tui.bus.directory import buckets_of
from pioche_tui.bus.natsd import NatsCluster
from pioche_tui.coordinator.core import Coordinator, Settings
from pioche_tui.coordinator.host import CoordinatorHost
from pioche_tui.coordinator.model import Player, Refused
from server.keys import fingerprint
from tests.bus.test_liveness import plays_on
from tests.bus.world import coordinator_on, front_on, until
from tests.contract.conftest import update_until
from tests.coordinator.test_jslog import a_move, two_players
from tests.hostile.conftest import coordinator_settings
from tests.server.test_front_process import World, front_process, log_in, quick_game
from tests.server.test_front_process import a_move as a_move_over_ssh

pytestmark = pytest.mark.asyncio(loop_scope="module")



def node_of(pid: int, cluster: NatsCluster) -> int | None:
    """The node the process ``pid`` is connected to (its TCP sockets, matched in
    /proc/net/tcp to a node's client port), None while it is connected to none."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        link = os.readlink(fd) if fd.is_symlink() else ""
        if found := re.fullmatch(r"socket:\[(\d+)\]", link):
            inodes.add(found[1])
    ports = {node.port: index for index, node in enumerate(cluster.nodes)}
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        remote_port = int(fields[2].rpartition(":")[2], 16)
        if fields[9] in inodes and remote_port in ports and fields[3] == "01":  # ESTABLISHED
            return ports[remote_port]
    return None


async def test_a_front_cut_off_past_the_silence_gets_its_session_back_unseen(
        cluster: NatsCluster, tmp_path: Path) -> None:
    """Both nodes the front may reach die; the coordinator's lives. Bob's move (Alice's turn)
    is lost on the way, the coordinator takes the front for dead and closes Alice's session
    (her seat waits its grace, her stand-in for her turn's timer). A node back, the front
    connects her session again: she plays her turn at her seat, never told goodbye."""
    async with coordinator_on(cluster.urls[0], tmp_path / "data") as host, \
            front_on(",".join(cluster.urls[1:]), "fronta") as front:
        alice = front.client()
        await alice.connect(Player("SHA256:alice-key", "Alice"))
        bob = host.coordinator.client()
        await bob.connect(Player("SHA256:bob-key", "Bob"))
        table_id = await alice.create_table("toy", seats=2, timer=60.0, options={"goal": 10})
        await bob.join(table_id)
        update = await update_until(alice, lambda u: u.view is not None and u.to_act == (0,))
        await alice.act(1, update.step)
        await update_until(alice, lambda u: u.to_act == (1,))
        table = host.coordinator.tables[table_id]
        cluster.kill(1)
        cluster.kill(2)
        await until(lambda: not front.nc.is_connected, "the front cut off")
        await bob.act(1, table.step)  # (its news to Alice: lost)
        await until(lambda: table.seats[0].away, "Alice's session closed by the coordinator")
        await cluster.nodes[2].start()  # (accepting clients; JetStream's quorum not needed)
        await plays_on(alice)
        assert not table.seats[0].away and table.seat_of("SHA256:alice-key") == 0


@pytest_asyncio.fixture(loop_scope="module")
async def world(cluster: NatsCluster, tmp_path: Path) -> AsyncIterator[World]:
    """A ``pioche front`` process reaching nodes 2 and 3; its coordinator (with the lobby's
    buckets, three replicas) in this process, on node 1."""
    coordinator = Coordinator(coordinator_settings(tmp_path / "data"))
    await coordinator.start()
    nc = await bus.connect(cluster.urls[0], "test-coordinator", bus.COORDINATOR)
    host = CoordinatorHost(coordinator, nc, await buckets_of(nc, replicas=3))
    await host.start()
    log = tmp_path / "front.log"
    try:
        async with front_process(",".join(cluster.urls[1:]), tmp_path / "keys", log) as (
                process, port):
            yield World(coordinator, process, port, log, cluster.urls[0])
    finally:
        coordinator.stop()
        await host.stop()
        await nc.close()


async def test_a_player_plays_on_through_the_death_of_the_fronts_node(
        cluster: NatsCluster, world: World) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    alice = await log_in(world, "alice", key=key)
    table_id = await quick_game(alice, "alice")
    seat = world.table(table_id).seat_of(fingerprint(key))
    assert seat is not None
    await a_move_over_ssh(world, alice, table_id, seat)
    killed = node_of(world.process.pid, cluster)
    assert killed in (1, 2)
    cluster.kill(killed)
    await until(lambda: node_of(world.process.pid, cluster) not in (None, killed),
                "the front on another node")
    await a_move_over_ssh(world, alice, table_id, seat)
    await a_move_over_ssh(world, alice, table_id, seat)
    assert "Le serveur redémarre" not in alice.screen.text()
    assert not world.table(table_id).seats[seat].away
    assert "sessions end" not in world.log.read_text()


async def logs_leader(nc: bus.Client, cluster: NatsCluster, avoid: int) -> int:
    """The node leading the logs' stream, asked to step down while it is ``avoid``."""
    js = nc.jetstream(timeout=2.0)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            info = await js.stream_info(bus.LOG_STREAM)
            if info.cluster is not None and info.cluster.leader:
                leader = cluster.node_named(info.cluster.leader)
                if leader != avoid:
                    return leader
                await nc.request(f"$JS.API.STREAM.LEADER.STEPDOWN.{bus.LOG_STREAM}", b"",
                                 timeout=2.0)
        await asyncio.sleep(0.2)
    raise AssertionError("the logs' leader never moved")


async def test_a_move_in_flight_when_the_coordinators_node_dies_is_taken_without_a_pause(
        cluster: NatsCluster, tmp_path: Path) -> None:
    """The coordinator's node (a follower of the logs' stream) stops answering, then dies,
    with a move's append on its way: nats-py keeps that request waiting for its time-out
    while it reconnects to another node; the record sent again there lands, and the table
    never pauses (before: it waited 2 s, paused, and tried again 2 s later)."""
    nc = await bus.connect(cluster.url, "test-coordinator", bus.COORDINATOR)
    c = Coordinator(Settings(tmp_path / "data", bot_delay=(0.0, 0.0), turn_timer=None,
                             grace=60.0, logs="jetstream", log_replicas=3))
    try:
        await c.start(nc)
        table, mover, _other = await two_players(c)
        assert nc.connected_url is not None
        mine = [node.port for node in cluster.nodes].index(nc.connected_url.port)
        await logs_leader(nc, cluster, avoid=mine)
        paused: list[str] = []
        table.tell = lambda code, text: paused.append(code)  # type: ignore[method-assign]
        step = table.step
        pid = cluster.nodes[mine].pid
        assert pid is not None
        os.kill(pid, signal.SIGSTOP)  # (the append below is sent, never answered)
        acting = asyncio.ensure_future(mover.act(a_move(table, mover), step))  # type: ignore[arg-type]
        await asyncio.sleep(0.1)
        cluster.kill(mine)
        await asyncio.wait_for(acting, 10.0)
        assert table.step == step + 1 and not table.paused and paused == []
    finally:
        c.stop()
        await nc.close()


async def test_a_request_on_its_way_when_the_fronts_node_dies_is_refused_once_back(
        cluster: NatsCluster, tmp_path: Path) -> None:
    """The front's node stops answering, then dies, with a request on its way: nats-py keeps
    it waiting for its whole time-out (60 s here) though it is connected to another node
    within milliseconds; the front gives it up once connected again (« unavailable »: the
    player may try again), and the session goes on."""
    async with coordinator_on(cluster.urls[0], tmp_path / "data"), \
            front_on(",".join(cluster.urls[1:]), "fronta") as front:
        front.timeout = 60.0
        client = front.client()
        await client.connect(Player("SHA256:alice-key", "Alice"))
        assert front.nc.connected_url is not None
        mine = [node.port for node in cluster.nodes].index(front.nc.connected_url.port)
        pid = cluster.nodes[mine].pid
        assert pid is not None
        os.kill(pid, signal.SIGSTOP)
        asking = asyncio.ensure_future(client.server_info())
        await asyncio.sleep(0.1)
        cluster.kill(mine)
        with pytest.raises(Refused) as refused:
            await asyncio.wait_for(asking, 10.0)
        assert refused.value.code == "unavailable"
        assert (await client.server_info()).grace == 60.0 and client.open


async def test_a_front_that_starts_while_jetstream_has_no_quorum_waits_for_it(
        cluster: NatsCluster, tmp_path: Path) -> None:
    """What a front started again in the middle of a node's death can meet (the chaos test
    did, at its seed 5, on a loaded machine): JetStream without a leader, its requests timing
    out. The front asks again until the cluster answers, instead of exiting."""
    nc = await bus.connect(cluster.urls[0], "test-coordinator", bus.COORDINATOR)
    try:
        await buckets_of(nc, replicas=3)  # (the coordinator's: made before the deaths)
        cluster.kill(1)
        cluster.kill(2)  # (one node of three: no quorum)
        log = tmp_path / "front.log"

        async def quorum_back_once_the_front_waits() -> None:
            await until(lambda: log.exists() and "asked again" in log.read_text(),
                        "the front waiting for JetStream")
            await cluster.restart(1)

        back = asyncio.create_task(quorum_back_once_the_front_waits())
        try:
            async with front_process(cluster.urls[0], tmp_path / "keys", log):
                await back
        finally:
            back.cancel()
        assert "cannot open" not in log.read_text()
    finally:
        await nc.close()
