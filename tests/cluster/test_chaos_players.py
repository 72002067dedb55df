"""The chaos harness's own players (tests/cluster/chaos.py): a player of the harness that stops
playing leaves its table standing still, which the bench then reports as the product's.

Seen in bench/chaos.py, seed 13 (docs/performance.md, « The chaos again »): an SSH player's join
of its next table took 20 s (a NATS node's kill: the first connection never showed the table);
meanwhile its loop took it for a player sent away from that table, asked whether the table's
game was over, and the table, not started, had no log: LogError ended the loop. The player never
pressed a key again: its table waited for its move until a front's kill ended its connection (a
stand-in played then), and its next table for good.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from pioche_tui import bus
from pioche_tui.bus.natsd import NatsCluster
from pioche_tui.store import jslog
from pioche_tui.store.jslog import JetStreamLog
from tests.cluster import chaos as harness
from tests.cluster.chaos import Chaos, SshPlayer, Table
from tests.cluster.test_leases import lead
from tests.server.conftest import Client

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(loop_scope="module")
async def chaos(tmp_path: Path, cluster: NatsCluster) -> AsyncIterator[Chaos]:
    """A harness with its bus connection and the logs' stream, and no process of its own."""
    one = Chaos(tmp_path, cluster, "", seed=13)
    one.nc = await bus.connect(cluster.url, "chaos-players-test")
    await jslog.ensure_stream(one.nc.jetstream(timeout=5.0), replicas=3)
    try:
        yield one
    finally:
        await one.stop()


async def test_a_table_that_has_not_started_is_not_over(chaos: Chaos) -> None:
    assert not await chaos.game_over("WAIT")  # (no log yet: it raised LogError)
    assert chaos.nc is not None
    writer, written = JetStreamLog.create(chaos.nc.jetstream(timeout=5.0), "DONE", {
        "table": "DONE", "game": "defausse", "options": {}, "seed": 7, "seats": []})
    await asyncio.gather(written, writer.end("finished"))
    assert await chaos.game_over("DONE")


async def test_whether_a_game_is_over_is_read_through_the_log_stream_s_election(
        chaos: Chaos, cluster: NatsCluster) -> None:
    """The logs' stream elects a leader (its leader node dead): the harness's read of a log
    waits for it, and says. (It raised TimeoutError, which ended a player's loop: bench, 50
    kills, seed 13, kill 4; its table stood still for the rest of the run.)"""
    assert chaos.nc is not None
    js = chaos.nc.jetstream(timeout=5.0)
    writer, written = JetStreamLog.create(js, "DONE", {
        "table": "DONE", "game": "defausse", "options": {}, "seed": 7, "seats": []})
    await asyncio.gather(written, writer.end("finished"))
    connected = chaos.nc.connected_url
    assert connected is not None
    doomed = next(i for i, node in enumerate(cluster.nodes) if node.port != connected.port)
    await lead(chaos.nc, bus.LOG_STREAM,
               cluster.nodes[doomed].cluster.server_name)  # type: ignore[union-attr]
    cluster.kill(doomed)
    assert await chaos.game_over("DONE")


async def test_an_ssh_player_whose_join_is_slow_keeps_playing(
        chaos: Chaos, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(harness, "AWAY_WAIT", 0.2)
    player = SshPlayer(chaos, 0)
    player.client = Client()  # (the join's connection, not showing the new table yet)
    player.client.screen.feed("Pioche · salon")
    player.table = Table("SLOW", ssh=True)
    async with player._connecting:  # (``join``: its connection is being made)
        player.task = asyncio.create_task(player.run())
        await asyncio.sleep(1.0)  # (five times AWAY_WAIT)
        assert not player.task.done(), player.task.exception()
        assert not chaos.problems
    await player.stop()


async def test_a_player_whose_loop_ends_on_an_error_is_told(chaos: Chaos) -> None:
    async def broken() -> None:
        raise RuntimeError("a bug of the harness")

    task = chaos.play(broken(), "player ssh0")
    await asyncio.gather(task, return_exceptions=True)
    await asyncio.sleep(0)  # (its done callbacks)
    assert chaos.problems == ["player ssh0 stopped playing: RuntimeError('a bug of the harness')"]
