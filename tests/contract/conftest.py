"""The contract of ``CoordinatorClient`` (pioche_tui/coordinator/client.py): what any client
must do, whatever carries its requests and news.

Every test gets ``connector``: something that opens clients of one running coordinator, on a
temporary data directory (a real SQLite file, real logs), with bots that answer at once and no
turn timer. ``IMPLEMENTATIONS`` lists the ways to build one; a new client (issue 16's, over a
message bus; a variant sending every value through the msgpack codecs) adds its own and the
whole suite runs against it. The tests use the client and nothing else: no table, no session,
no database of the coordinator's. ``Crossing`` wraps a client so that every value crossing the
seam is ``cross(value)``: the msgpack codecs' round trip (``in_process_wire``:
tests/wire/through.py), so nothing may rely on sharing an object with the coordinator, and
everything must survive the wire.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, cast

import pytest

from pioche_tui import wire
from pioche_tui.coordinator.client import Connector, CoordinatorClient, Mail
from pioche_tui.coordinator.core import Coordinator, Settings
from pioche_tui.coordinator.model import Player, Refused, TableUpdate
from pioche_tui.engine import GAMES
from tests.app.toy import TOY

NEWS_TIMEOUT = 5.0  # seconds a test waits for news that must come


@asynccontextmanager
async def in_process(data: Path, bus_client: Any = None, **settings: Any
                     ) -> AsyncIterator[Connector]:
    """The embedded mode: the apps' clients call the coordinator of their own process
    (``bus_client`` and ``settings``: over_nats_jetstream's)."""
    coordinator = Coordinator(
        Settings(data, bot_delay=(0, 0), turn_timer=None, grace=60.0, seed=11,
                 lobby_interval=0, table_rate=(1000, 1000), **settings),
        games={**GAMES, "toy": TOY})
    await coordinator.start(bus_client)
    try:
        yield coordinator
    finally:
        coordinator.stop()


class Crossing:
    """A client whose every request, answer, refusal and mail crosses a boundary: the request
    is sent as a ``wire.Call`` (every argument by name, defaults included, as the protocol
    declares them), its answer comes back as a ``wire.Answer`` (the mail is ``mail``'s) and a
    refusal as its ``Refused``, each one ``cross(value)`` on the other side, never the object
    itself. With the msgpack codecs (``cross = lambda v: decode(encode(v))``), nothing may
    rely on sharing an object with the coordinator, and everything must survive the wire."""

    def __init__(self, inner: CoordinatorClient, cross: Callable[[Any], Any]) -> None:
        self._inner = inner
        self._cross = cross

    @property
    def player(self) -> Player | None:
        player = self._inner.player
        return None if player is None else cast(Player, self._cross(player))

    @property
    def open(self) -> bool:
        return self._inner.open

    @property
    def pending(self) -> bool:
        return self._inner.pending

    def __getattr__(self, name: str) -> Any:
        signature = inspect.signature(getattr(CoordinatorClient, name))
        cross = self._cross

        async def crossed(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(self, *args, **kwargs)
            bound.apply_defaults()
            arguments = dict(bound.arguments)
            del arguments["self"]
            call = cross(wire.Call(name, arguments))
            try:
                answer = await getattr(self._inner, call.name)(**call.args)
            except Refused as refusal:
                raise cross(refusal) from None
            return cross(wire.Answer(call.name, answer)).value

        return crossed


class CrossingConnector:
    def __init__(self, inner: Connector, cross: Callable[[Any], Any]) -> None:
        self._inner = inner
        self._cross = cross

    def client(self) -> CoordinatorClient:
        return cast(CoordinatorClient, Crossing(self._inner.client(), self._cross))


@asynccontextmanager
async def in_process_wire(data: Path) -> AsyncIterator[Connector]:
    """The embedded mode, every value that crosses the seam encoded and decoded by the msgpack
    codecs (pioche_tui/wire.py; the toy game's view registered for the purpose)."""
    from tests.wire.through import crossed, register_toy

    register_toy()
    async with in_process(data) as inner:
        yield CrossingConnector(inner, crossed)


@asynccontextmanager
async def hosted(coordinator: Coordinator, url: str, front_url: str | None = None
                 ) -> AsyncIterator[Connector]:
    """Clients of ``coordinator`` as a front's ``RemoteClient``s, through a real
    ``CoordinatorHost``, over the nats-server at ``url`` (all in this process): the
    coordinator connects with ``url``, the front with ``front_url`` (default: the same), each
    with its role. When that bus runs JetStream, as under ``pioche serve --workers``, the lobby
    and the online names go through its buckets (issue 18, bus/directory.py)."""
    from pioche_tui import bus
    from pioche_tui.bus.directory import buckets_of
    from pioche_tui.coordinator.host import CoordinatorHost
    from pioche_tui.coordinator.remote import Remote

    front_url = front_url or url
    coord_nc = await bus.connect(url, "test-coordinator", bus.COORDINATOR)
    front_nc = await bus.connect(front_url, "test-front", bus.FRONT)
    host = CoordinatorHost(coordinator, coord_nc, await buckets_of(coord_nc))
    remote = Remote(front_nc, "front1", buckets=await buckets_of(front_nc, create=False),
                    name=bus.bus_name(front_url))
    # (the contract's server_stopping is a whole server's: a front stopping with its
    # coordinator; a front stopping alone: tests/bus/test_liveness.py)
    remote.stops_with_tree = True
    await host.start()
    await remote.start()
    try:
        yield remote.connector()
    finally:
        await remote.stop()
        await host.stop()
        await front_nc.close()
        await coord_nc.close()


@asynccontextmanager
async def over_nats(data: Path, jetstream: bool = False) -> AsyncIterator[Connector]:
    """The workers' mode (issue 16): the clients are a front's ``RemoteClient``s, over a real
    nats-server with JetStream, to a real ``CoordinatorHost`` over the coordinator (all in this
    process). Each side is a user of its role (``bus/roles.py``): the roles' permissions allow
    all the contract does. ``jetstream``: the tables' logs in the bus's JetStream too (issue
    18, store/jslog.py)."""
    import secrets

    from pioche_tui import bus
    from pioche_tui.bus.natsd import NatsServer
    from pioche_tui.bus.roles import User
    from tests.wire.through import register_toy

    register_toy()
    server = NatsServer(jetstream=data.parent / "bus",
                        users=[User("core", bus.COORDINATOR, secrets.token_urlsafe(24)),
                               User("paris", bus.FRONT, secrets.token_urlsafe(24))])
    await server.start()
    try:
        core = server.url_of("core")
        stream_nc = await bus.connect(core, "test-stream", bus.COORDINATOR) if jetstream \
            else None
        settings = {"logs": "jetstream"} if jetstream else {}
        try:
            async with in_process(data, stream_nc, **settings) as coordinator:
                assert isinstance(coordinator, Coordinator)
                async with hosted(coordinator, core, server.url_of("paris")) as connector:
                    yield connector
        finally:
            if stream_nc is not None:
                await stream_nc.close()
    finally:
        await server.stop()


class Alternating:
    """``Remote.seat_home`` for the two coordinators' variant: a player who holds no seat is
    homed on each coordinator in turn (the first on A, the next on B, …), so that a table made
    by one session and joined by the next is owned elsewhere, and the join moves the session
    (``Refused("elsewhere")``), every time rather than when the queue group happens to choose
    so."""

    def __init__(self, remote: Any, boots: list[str]) -> None:
        self._seat_home = remote.seat_home
        self._boots = boots
        self._turn = 0

    async def __call__(self, identity: str) -> str | None:
        found: str | None = await self._seat_home(identity)
        if found is not None:
            return found
        self._turn += 1
        return self._boots[self._turn % len(self._boots)]


@asynccontextmanager
async def over_two_coordinators(data: Path) -> AsyncIterator[Connector]:
    """Several coordinators (issue 18, ``pioche coordinator --several``): two coordinators on
    one nats-server with JetStream (``several``), and one front whose sessions are homed on
    each in turn (``Alternating``). A session moved from one to the other (a join of a table
    owned elsewhere), or served by either (the requests before ``connect`` go to the queue
    group), must see nothing of it."""
    async with several(data) as (_hosts, remote):
        yield remote.connector()


@asynccontextmanager
async def several(data: Path, seeds: tuple[int, int] = (11, 12), front_first: bool = False
                  ) -> AsyncIterator[tuple[list[Any], Any]]:
    """Two coordinators, A and B, on one nats-server with JetStream, in this process: their
    tables' logs in its stream, one SQLite database shared as PostgreSQL would be, each a
    ``CoordinatorHost`` with the owners' buckets; and a front's ``Remote`` (with the roles'
    users) whose sessions are homed on B, A, B, … (``Alternating``). Yields the two hosts and
    the front's ``Remote``. ``front_first``: the front starts before the coordinators (on a
    bus whose lobby's buckets exist, as a coordinator left them), knowing nothing of the
    owners' buckets, and its sessions' homes are its own choice."""
    import secrets

    from pioche_tui import bus
    from pioche_tui.bus.directory import buckets_of
    from pioche_tui.bus.natsd import NatsServer
    from pioche_tui.bus.owners import bind_owner_buckets, open_owner_buckets
    from pioche_tui.bus.roles import User
    from pioche_tui.coordinator.host import CoordinatorHost
    from pioche_tui.coordinator.remote import Remote
    from tests.wire.through import register_toy

    register_toy()
    server = NatsServer(jetstream=data.parent / "bus",
                        users=[User("core", bus.COORDINATOR, secrets.token_urlsafe(24)),
                               User("paris", bus.FRONT, secrets.token_urlsafe(24))])
    await server.start()
    conns: list[Any] = []
    hosts: list[CoordinatorHost] = []
    remote: Remote | None = None

    async def front() -> Remote:
        front_nc = await bus.connect(server.url_of("paris"), "test-front", bus.FRONT)
        conns.append(front_nc)
        made = Remote(front_nc, "front1", buckets=await buckets_of(front_nc, create=False),
                      name="paris", owners=await bind_owner_buckets(front_nc))
        made.stops_with_tree = True  # (as over_nats: the contract's server_stopping)
        await made.start()
        return made

    try:
        for name in ("a", "b"):
            nc = await bus.connect(server.url_of("core"), f"test-{name}", bus.COORDINATOR)
            conns.append(nc)
            if front_first and remote is None:
                await buckets_of(nc)
                remote = await front()
            coordinator = Coordinator(
                Settings(data / name, bot_delay=(0, 0), turn_timer=None, grace=60.0,
                         seed=seeds[0] if name == "a" else seeds[1], lobby_interval=0,
                         table_rate=(1000, 1000), logs="jetstream",
                         db=f"sqlite:{data / 'shared.sqlite3'}"),
                games={**GAMES, "toy": TOY})
            await coordinator.start(nc, restore=False)
            host = CoordinatorHost(coordinator, nc, await buckets_of(nc),
                                   await open_owner_buckets(nc))
            hosts.append(host)
            await host.start()
        if remote is None:
            remote = await front()
            remote.seat_home = Alternating(remote, [host.boot for host in hosts])  # type: ignore[method-assign]
        yield hosts, remote
    finally:
        if remote is not None:
            await remote.stop()
        for host in hosts:
            host.coordinator.stop()
        for host in hosts:
            await host.stop()
        for nc in conns:
            with contextlib.suppress(Exception):  # (a bus lost: its close raises)
                await nc.close()
        await server.stop()


IMPLEMENTATIONS: dict[str, Callable[[Path], AbstractAsyncContextManager[Connector]]] = {
    "in_process": in_process,
    "in_process_wire": in_process_wire,
    "over_nats": over_nats,
    "over_nats_jetstream": lambda data: over_nats(data, jetstream=True),
    "over_two_coordinators": over_two_coordinators,
}


@pytest.fixture(params=sorted(IMPLEMENTATIONS))
async def connector(request: pytest.FixtureRequest, tmp_path: Path
                    ) -> AsyncIterator[Connector]:
    async with IMPLEMENTATIONS[request.param](tmp_path / "data") as made:
        yield made


def key(name: str) -> str:
    return f"SHA256:{name}-key"


async def connected(connector: Connector, name: str, *, watch_only: bool = False,
                    identity: str | None = None) -> CoordinatorClient:
    """A client of a player connected under ``name`` (with a key of their own)."""
    client = connector.client()
    await client.connect(Player(identity or key(name), name, watch_only=watch_only,
                                address="192.0.2.1"))
    return client


async def mail(client: CoordinatorClient) -> Mail:
    """The news waiting, or the next to come."""
    return await asyncio.wait_for(client.mail(), NEWS_TIMEOUT)


async def news_until(client: CoordinatorClient, wanted: Callable[[Mail], bool]) -> Mail:
    """Read the client's news until a mail is ``wanted``; that mail."""
    async def read() -> Mail:
        while True:
            got = await client.mail()
            if wanted(got):
                return got

    return await asyncio.wait_for(read(), NEWS_TIMEOUT)


async def update_until(client: CoordinatorClient, wanted: Callable[[TableUpdate], bool]
                       ) -> TableUpdate:
    """Read the client's news until a table update is ``wanted``; that update."""
    got = await news_until(client, lambda m: m.table is not None and wanted(m.table))
    assert got.table is not None
    return got.table
