"""For every test: Textual's reference cycles are broken from the start (``server/cycles.py``),
as ``pioche serve`` does before its first app. Tests run many apps in one process, and a cycle
made before the collector of a later test starts (a cached row an earlier test rendered) would
be counted against that test's screens (``tests/hostile/test_screen_memory.py``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from pioche_tui.bus.natsd import NatsServer
from server import cycles
from tests.store.postgres import NoPostgres, PostgresServer, postgres_server


def pytest_configure() -> None:
    cycles.install()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def nats_server() -> AsyncIterator[NatsServer]:
    """A real nats-server on a free loopback port, with a drawn password, for the test module
    (``server.url`` has the credentials). No mock bus, ever."""
    server = NatsServer()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A real PostgreSQL server for the test process (tests/store/postgres.py; a fresh
    database each: ``new_database()``). Skipped, saying why, where its binaries are absent."""
    try:
        with postgres_server() as server:
            yield server
    except NoPostgres as e:
        pytest.skip(str(e))


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def jetstream_server(tmp_path_factory: pytest.TempPathFactory
                           ) -> AsyncIterator[NatsServer]:
    """A real nats-server with JetStream on (its store in a temporary directory), for the
    test module. Tests that use it share its streams: each uses its own table ids."""
    store: Path = tmp_path_factory.mktemp("jetstream")
    server = NatsServer(jetstream=store)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
