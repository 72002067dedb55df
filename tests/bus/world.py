"""A coordinator and fronts on a real nats-server, in the test's process: the pieces of
``pioche serve --workers N`` without its processes (tests/bus/)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from nats.aio.client import Client

from pioche_tui import bus
from pioche_tui.bus.directory import Buckets, buckets_of
from pioche_tui.coordinator.client import CoordinatorClient
from pioche_tui.coordinator.core import Coordinator, Settings
from pioche_tui.coordinator.host import CoordinatorHost
from pioche_tui.coordinator.model import Player, TableUpdate
from pioche_tui.coordinator.remote import Remote
from pioche_tui.engine import GAMES
from tests.app.toy import TOY
from tests.contract.conftest import update_until
from tests.wire.through import register_toy

WAIT = 10.0  # seconds a test waits for what must happen (the bus's silence is 3 s)


def make_coordinator(data: Path) -> Coordinator:
    register_toy()
    return Coordinator(
        Settings(data, bot_delay=(0, 0), turn_timer=None, grace=60.0, seed=11,
                 lobby_interval=0, table_rate=(1000, 1000)),
        games={**GAMES, "toy": TOY})


async def buckets_on(nc: Client, wanted: bool, create: bool = True) -> Buckets | None:
    """The lobby's and the online names' buckets when ``wanted`` (the bus runs JetStream);
    ``create``: a coordinator's (a front's binds to them)."""
    if not wanted:
        return None
    buckets = await buckets_of(nc, create=create)
    assert buckets is not None, "the bus runs JetStream"
    return buckets


@asynccontextmanager
async def coordinator_on(url: str, data: Path, tls: bus.BusTLS | None = None, *,
                         buckets: bool = False
                         ) -> AsyncIterator[CoordinatorHost]:
    """A coordinator served on the bus; stopped as the coordinator process stops (its sessions
    told, their last mail sent, then the host). ``buckets``: the lobby and the online names in
    JetStream's buckets (bus/directory.py)."""
    coordinator = make_coordinator(data)
    await coordinator.start()
    nc = await bus.connect(url, "test-coordinator", bus.COORDINATOR, tls)
    host = CoordinatorHost(coordinator, nc, await buckets_on(nc, buckets))
    await host.start()
    try:
        yield host
    finally:
        if coordinator.db is not None:
            coordinator.stop()
        await host.stop()
        await nc.close()


async def vanish(host: CoordinatorHost) -> None:
    """The coordinator's process dies: nothing more comes from it (no last mail), then its
    files are closed (as the kernel would) so that another may open them."""
    await host.stop()
    await host.nc.close()
    host.coordinator.stop()


@asynccontextmanager
async def front_on(url: str, front_id: str, tls: bus.BusTLS | None = None, *,
                   buckets: bool = False) -> AsyncIterator[Remote]:
    nc = await bus.connect(url, f"test-{front_id}", bus.FRONT, tls)
    remote = Remote(nc, front_id, buckets=await buckets_on(nc, buckets, create=False),
                    name=bus.bus_name(url))
    await remote.start()
    try:
        yield remote
    finally:
        await remote.stop()
        await nc.close()


async def die(remote: Remote) -> None:
    """The front's process dies: its heartbeat stops, its connection drops, no goodbye."""
    for task in remote._tasks:
        task.cancel()
    await asyncio.gather(*remote._tasks, return_exceptions=True)
    remote._tasks = []
    await remote.nc.close()


async def until(condition: Callable[[], bool], what: str) -> None:
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.05)

    try:
        await asyncio.wait_for(poll(), WAIT)
    except TimeoutError:
        raise AssertionError(f"not within {WAIT:.0f} s: {what}") from None


async def seated(remote: Remote, name: str) -> tuple[CoordinatorClient, str]:
    """``name`` at a toy table of two against a bot, after a move of theirs (a table where a
    player moved is kept when they drop)."""
    client = remote.client()
    await client.connect(Player(f"SHA256:{name}-key", name, address="192.0.2.1"))
    table = await client.quick_play("toy", seats=2)

    def my_turn(update: TableUpdate) -> bool:
        return update.view is not None and update.seat is not None \
            and update.seat in update.to_act

    update = await update_until(client, my_turn)
    await client.act(1, update.step)
    await update_until(client, lambda u: u.step > update.step)
    return client, table
