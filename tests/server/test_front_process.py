"""A real ``pioche front`` process over a real nats-server, its coordinator (with its
``CoordinatorHost``) in the test's process, and real asyncssh clients on 127.0.0.1: a player
plays through the front, spectators of ``watch TABLE`` share one screen on it, a dropped player
gets their seat back, and the front stops in order on SIGTERM.

One front process for the module (its start, Textual's imports, is the slow part)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import asyncssh
import pytest
import pytest_asyncio
from nats.aio.msg import Msg

from pioche_tui import bus, wire
from pioche_tui.bus.natsd import NatsServer
from pioche_tui.coordinator.core import Coordinator
from pioche_tui.coordinator.host import CoordinatorHost
from pioche_tui.coordinator.table import Table
from pioche_tui.store.log import read_log
from server.keys import ensure_host_key, fingerprint
from server.ssh import MSG_SHUTDOWN
from server.workers import BUS_ENV
from tests.hostile.conftest import coordinator_settings
from tests.server.conftest import WAIT, Client
from tests.server.process import ROOT, LikeOpenSSH, reset

pytestmark = pytest.mark.asyncio(loop_scope="module")

LISTENING = re.compile(r"front \S+ \(pid \d+\) listening on 127\.0\.0\.1 port (\d+)")
TABLE = re.compile(r"Défausse · table (\w+)")


@dataclass
class World:
    coordinator: Coordinator
    process: subprocess.Popen[bytes]
    port: int
    log: Path
    bus_url: str

    def table(self, table_id: str) -> Table:
        return self.coordinator.tables[table_id]


@pytest.fixture(scope="module")
def tmp_module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("front")


@pytest.fixture(scope="module")
def front_log(tmp_module: Path) -> Iterator[Path]:
    log = tmp_module / "front.log"
    yield log


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def world(nats_server: NatsServer, tmp_module: Path, front_log: Path
                ) -> AsyncIterator[World]:
    coordinator = Coordinator(coordinator_settings(tmp_module / "data"))
    await coordinator.start()
    nc = await bus.connect(nats_server.url, "test-coordinator")
    host = CoordinatorHost(coordinator, nc)
    await host.start()
    try:
        async with front_process(nats_server.url, tmp_module / "keys", front_log) as (
                process, port):
            yield World(coordinator, process, port, front_log, nats_server.url)
    finally:
        coordinator.stop()
        await host.stop()
        await nc.close()


@contextlib.asynccontextmanager
async def front_process(url: str, keys: Path, log: Path
                        ) -> AsyncIterator[tuple[subprocess.Popen[bytes], int]]:
    """A ``pioche front`` process on the bus ``url`` (its host key made in ``keys``, its
    output in ``log``), once it listens: it and its port; killed after."""
    ensure_host_key(keys)  # (the supervisor's part: a front never writes one)
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "pioche_tui.cli", "front", "--host", "127.0.0.1",
             "--port", "0", "--keys-dir", str(keys)],
            cwd=ROOT, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
            env={**os.environ, BUS_ENV: url})
    try:
        deadline = time.monotonic() + 60
        while not (found := LISTENING.search(log.read_text(errors="replace"))):
            assert process.poll() is None and time.monotonic() < deadline, (
                f"pioche front did not start:\n{log.read_text()}")
            await asyncio.sleep(0.05)
        yield process, int(found[1])
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


async def until(check: Callable[[], bool], timeout: float = WAIT) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, "never came"
        await asyncio.sleep(0.02)


async def log_in(world: World, username: str, *, key: asyncssh.SSHKey | None = None,
                 command: str | None = None) -> Client:
    conn = await asyncssh.connect(
        "127.0.0.1", world.port, username=username, known_hosts=None,
        client_keys=[key] if key is not None else None, agent_path=None, config=None,
        client_factory=LikeOpenSSH)
    _chan, client = await conn.create_session(
        Client, command, term_type="xterm-256color", term_size=(100, 30), encoding=None)
    client.conn = conn
    client.screen.resize(100, 30)
    return client


async def quick_game(client: Client, name: str) -> str:
    await client.wait_for(f"Bonjour {name}")
    client.send("p")
    found = TABLE.search(await client.wait_for(lambda screen: bool(TABLE.search(screen))))
    assert found is not None
    return found[1]


async def a_move(world: World, client: Client, table_id: str, seat: int) -> None:
    """At their turn, the player draws (« d », or takes or passes: the same key), or keeps the
    card they drew (« k »); the move is in the table's log. The key is pressed again each
    second until then: the app may not show the turn yet when the coordinator has it (its
    update is on its way over the bus)."""
    table = world.table(table_id)
    await until(lambda: seat in table.game.to_act(table.state))
    step = table.step
    assert table.writer is not None
    path = table.writer.path
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while not any(record[:2] == ["a", seat] for record in read_log(path).records[step:]):
        assert loop.time() < deadline, f"no move of the player's:\n{client.screen.text()}"
        client.send("k" if "k garder" in client.screen.text() else "d")
        for _tick in range(50):
            await asyncio.sleep(0.02)
            if any(record[:2] == ["a", seat] for record in read_log(path).records[step:]):
                return


async def test_a_player_plays_through_the_front(world: World) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    alice = await log_in(world, "alice", key=key)
    table_id = await quick_game(alice, "alice")
    seat = world.table(table_id).seat_of(fingerprint(key))
    assert seat is not None
    await a_move(world, alice, table_id, seat)


async def test_spectators_share_a_screen_on_the_front(world: World) -> None:
    """Two ``watch TABLE`` spectators of one size: one shared screen on the front (one mirror
    on the coordinator), each counted as a spectator; a key gets one an app of its own."""
    listed: set[str] = set()  # the tables the lobby snapshots on the bus named

    async def lobby(msg: Msg) -> None:
        listed.update(table.id for table in wire.decode(msg.data).tables)

    nc = await bus.connect(world.bus_url, "test-lobby")
    await nc.subscribe(bus.LOBBY, cb=lobby)
    creator = await log_in(world, "bruno")
    table_id = await quick_game(creator, "bruno")
    table = world.table(table_id)
    await until(lambda: table_id in listed)  # (the front's lobby names it now too)
    await nc.close()
    watchers = [await log_in(world, "watch", command=f"watch {table_id}") for _ in range(2)]
    for watcher in watchers:
        await watcher.wait_for(f"Défausse · table {table_id}")
    await until(lambda: sum(1 for session, seat in table.subscribers.items()
                            if seat is None and not session.mirror) == 2)
    assert sum(1 for session in table.subscribers if session.mirror) == 1
    watchers[0].send("?")
    await watchers[0].wait_for("Aide")
    assert "Aide" not in watchers[1].screen.text()


async def test_a_dropped_player_gets_their_seat_back(world: World) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    carol = await log_in(world, "carol", key=key)
    table_id = await quick_game(carol, "carol")
    table = world.table(table_id)
    seat = table.seat_of(fingerprint(key))
    assert seat is not None
    await a_move(world, carol, table_id, seat)
    assert carol.conn is not None
    reset(carol.conn)  # (a crashed machine: no goodbye)
    await until(lambda: table.seats[seat].away)
    again = await log_in(world, "carol", key=key)
    await again.wait_for(f"Défausse · table {table_id}")
    await until(lambda: not table.seats[seat].away)
    await a_move(world, again, table_id, seat)


async def test_pioche_front_workers_keeps_n_fronts_on_one_port(world: World,
                                                               tmp_module: Path) -> None:
    """``pioche front --workers 2``: a front machine's supervisor, its two fronts on one
    port, with the module's bus and coordinator elsewhere. A player gets in; a front
    SIGKILLed is started again; SIGTERM stops the fronts alone (each as one stopped by hand:
    the coordinator keeps its tables) and then the supervisor, exit 0, no child left."""
    log = tmp_module / "fronts.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "pioche_tui.cli", "front", "--workers", "2", "--host",
             "127.0.0.1", "--port", "0", "--keys-dir", str(tmp_module / "keys")],
            cwd=ROOT, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
            env={**os.environ, BUS_ENV: world.bus_url})
    fronts: dict[str, int] = {}  # front's number → its pid

    def said(pattern: str) -> list[re.Match[str]]:
        return list(re.finditer(pattern, log.read_text(errors="replace")))

    async def until_said(pattern: str, times: int = 1) -> None:
        deadline = time.monotonic() + 90  # (a front's imports: 20 s on a busy machine)
        while len(said(pattern)) < times:
            assert time.monotonic() < deadline, f"never said {pattern}:\n{log.read_text()}"
            await asyncio.sleep(0.05)

    try:
        await until_said(r"Pioche fronts listening on 127\.0\.0\.1 port \d+")
        port = int(said(r"fronts listening on 127\.0\.0\.1 port (\d+)")[0][1])
        fronts.update((m[1], int(m[2])) for m in said(r"(front \d) ready \(pid (\d+)\)"))
        assert sorted(fronts) == ["front 1", "front 2"]
        erin = await log_in(replace(world, port=port), "erin")
        await erin.wait_for("Bonjour erin")
        os.kill(fronts["front 1"], signal.SIGKILL)
        await until_said(r"front 1 ready", 2)  # (started again)
        again = int(said(r"front 1 ready \(pid (\d+)\)")[-1][1])
        process.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(process.wait, 30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    text = log.read_text()
    assert "stopping: the fronts" in text and "stopped; bye" in text
    assert "front 1 stopped (status 0)" in text and "front 2 stopped (status 0)" in text
    for pid in (again, fronts["front 2"]):
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


async def test_the_front_stops_in_order_on_sigterm(world: World) -> None:
    """(Last: it stops the module's front.) Its players are told, the coordinator closes its
    sessions at once (its last heartbeat says bye), it exits 0."""
    dave = await log_in(world, "dave")
    await dave.wait_for("Bonjour dave")
    await until(lambda: any(s.player.name == "dave"
                            for s in world.coordinator.sessions.values()))
    world.process.send_signal(signal.SIGTERM)
    await dave.wait_for(MSG_SHUTDOWN)
    assert await asyncio.to_thread(world.process.wait, WAIT) == 0
    await until(lambda: not world.coordinator.sessions)


async def test_a_front_stops_when_its_supervisor_goes_even_while_it_starts(
    tmp_path: Path,
) -> None:
    """Its bus does not answer (``bus.connect`` tries again for ever): the end of its link to
    the supervisor (``--parent-fd``) stops it all the same, exit 0, no orphan."""
    keys = tmp_path / "keys"
    ensure_host_key(keys)
    nobody = socket.socket()  # a port that refuses connections as long as it is held
    nobody.bind(("127.0.0.1", 0))
    ours, theirs = socket.socketpair()
    log = tmp_path / "front.log"
    with nobody, ours, log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "pioche_tui.cli", "front", "--host", "127.0.0.1",
             "--port", "0", "--keys-dir", str(keys), "--parent-fd", str(theirs.fileno())],
            cwd=ROOT, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
            pass_fds=(theirs.fileno(),),
            env={**os.environ, BUS_ENV: f"nats://pioche:x@127.0.0.1:{nobody.getsockname()[1]}"})
        theirs.close()
        try:
            await until(lambda: "Connect call failed" in log.read_text(errors="replace"), 60)
            ours.close()  # (the supervisor is gone)
            assert await asyncio.to_thread(process.wait, WAIT) == 0
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert "told to stop while starting" in log.read_text()
