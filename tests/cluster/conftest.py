"""A real three-node NATS cluster with JetStream on 127.0.0.1 (``NatsCluster``), for tests of
what must survive a node's death: replicated streams, buckets, a client's failover.

``nats_cluster`` starts once per test module (about 1.5 s: three nodes and an election) and
its subprocesses belong to the module's event loop, so a module using it runs its tests in
that loop::

    pytestmark = pytest.mark.asyncio(loop_scope="module")

``cluster`` is the one a test asks for: the module's cluster with every node running again
(whatever the previous test killed) and, after the test, no stream or bucket left (a bucket is
a stream ``KV_<name>``), so each test starts from an empty JetStream. Outside tests/cluster,
import them into the test module or its conftest.py::

    from tests.cluster.conftest import cluster, nats_cluster  # noqa: F401
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from pioche_tui import bus
from pioche_tui.bus.natsd import NatsCluster

REPLICAS = 3


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def nats_cluster() -> AsyncIterator[NatsCluster]:
    """Three nats-server nodes routed together, JetStream on, for the test module."""
    cluster = NatsCluster(size=REPLICAS)
    await cluster.start()
    try:
        yield cluster
    finally:
        await cluster.stop()


@pytest_asyncio.fixture(loop_scope="module")
async def cluster(nats_cluster: NatsCluster) -> AsyncIterator[NatsCluster]:
    """The module's cluster, every node up; its streams and buckets removed after the test."""
    await nats_cluster.heal()
    yield nats_cluster
    await nats_cluster.heal()
    client = await bus.connect(nats_cluster.url, "test-cleanup")
    try:
        js = client.jetstream(timeout=5.0)
        for stream in await js.streams_info():
            await js.delete_stream(stream.config.name or "")
    finally:
        await client.close()

