"""``pioche front`` (server/front.py): the SSH fronts of ``pioche serve --workers``, over a real
nats-server (the ``nats_server`` fixture), with real asyncssh clients on 127.0.0.1."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import asyncssh
import pytest

from pioche_tui.bus import connect as bus_connect
from pioche_tui.bus.natsd import NatsServer
from pioche_tui.coordinator.remote import Remote
from server.driver import configure_textual
from server.front import OtherFronts
from server.limits import Limits
from server.ssh import MSG_ADDRESS_FULL, MSG_FULL, PiocheServer
from tests.server.conftest import WAIT, Client
from tests.server.demo_app import DemoService
from tests.server.process import LikeOpenSSH
from tests.server.test_limits import told


async def until(check: Callable[[], bool]) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while not check():
        assert loop.time() < deadline, "never came"
        await asyncio.sleep(0.02)


async def play(server: PiocheServer, username: str) -> Client:
    """A player whose app runs on ``server``."""
    conn = await asyncssh.connect(
        "127.0.0.1", server.port, username=username, known_hosts=None, client_keys=None,
        agent_path=None, config=None, client_factory=LikeOpenSSH)
    _chan, client = await conn.create_session(Client, term_type="xterm", term_size=(80, 24),
                                              encoding=None)
    client.conn = conn
    await client.wait_for(f"pseudo : {username}")
    return client


class Fronts:
    """Two SSH servers (the demo app), each with its own bus client, ``Remote`` and
    ``OtherFronts``: two fronts' limits, on a real bus (no coordinator: their limits need
    none)."""

    def __init__(self) -> None:
        self.servers: list[PiocheServer] = []
        self.others: list[OtherFronts] = []
        self.clients: list[Client] = []
        self._remotes: list[Remote] = []

    async def start(self, bus: NatsServer, host_key: asyncssh.SSHKey, limits: Limits) -> None:
        configure_textual()
        for number in (1, 2):
            remote = Remote(await bus_connect(bus.url, f"front-test{number}"), f"test{number}")
            await remote.start()
            self._remotes.append(remote)
            others = OtherFronts(remote)
            service = DemoService()
            server = PiocheServer(service.make_app, host_key, limits=limits, elsewhere=others)
            await server.start("127.0.0.1", 0)
            self.servers.append(server)
            self.others.append(others)

    async def stop(self) -> None:
        for client in self.clients:
            assert client.conn is not None
            client.conn.close()
        for server in self.servers:
            await server.close()
        for remote in self._remotes:
            await remote.stop()
            await remote.nc.close()


@pytest.fixture
async def fronts(nats_server: NatsServer, host_key: asyncssh.SSHKey,
                 request: pytest.FixtureRequest) -> AsyncIterator[Fronts]:
    pair = Fronts()
    await pair.start(nats_server, host_key, request.param)
    yield pair
    await pair.stop()


@pytest.mark.parametrize("fronts", [Limits(max_sessions=2)], indirect=True)
async def test_players_are_capped_across_fronts(fronts: Fronts) -> None:
    """``--max-sessions`` counts every front's players: one on each of two fronts fill a
    server of two, and a newcomer on either is refused as on a full server; once one leaves,
    the other front lets one in again."""
    first, second = fronts.servers
    fronts.clients.append(await play(first, "alice"))
    leaving = await play(second, "bob")
    await until(lambda: fronts.others[0].sessions() == 1 and fronts.others[1].sessions() == 1)
    assert (await told(first, "carol")).startswith(MSG_FULL.format(limit=2))
    assert (await told(second, "carol")).startswith(MSG_FULL.format(limit=2))
    assert leaving.conn is not None
    leaving.conn.close()
    await until(lambda: fronts.others[0].sessions() == 0)
    fronts.clients.append(await play(first, "carol"))


@pytest.mark.parametrize("fronts", [Limits(max_per_address=2)], indirect=True)
async def test_connections_per_address_are_capped_across_fronts(fronts: Fronts) -> None:
    first, second = fronts.servers
    fronts.clients.append(await play(first, "alice"))
    fronts.clients.append(await play(second, "bob"))
    await until(lambda: fronts.others[0].from_address("127.0.0.1") == 1
                and fronts.others[1].from_address("127.0.0.1") == 1)
    assert (await told(first, "carol")).startswith(MSG_ADDRESS_FULL.format(limit=2))
