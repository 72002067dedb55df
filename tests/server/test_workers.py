"""``pioche serve --workers 2``, the process tree (server/workers.py), with real processes: the
supervisor, nats-server, the coordinator and two fronts.

- It starts, two players play through it, a third is refused as the server is full (counted
  across the fronts), a second tree on the same port is refused, and SIGTERM stops it in order
  with exit status 0 and no process left; the bus's password is in no command line and no log.
- Faults, each in the middle of play, with SIGKILL: a front (the one holding alice's
  connection), the coordinator, nats-server. Each is restarted; no move a player saw accepted is
  lost (the title row's « coup N » is the table's step: the log holds at least N moves); the
  players get their seats back by reconnecting.
- Then the supervisor SIGKILLed: every process of its tree ends by itself (the players told,
  as at a stop), and the data directory is free again.
- ``pioche coordinator`` run by hand: the lock, and a stop while its bus does not answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import asyncssh
import pytest

from pioche_tui import bus
from pioche_tui.store.lock import LOCK_NAME, DataDirBusy, DataDirLock
from pioche_tui.store.log import ACTION, read_log
from server.serve import DEFAULT_APP
from server.ssh import MSG_FULL, MSG_SHUTDOWN
from tests.hostile.test_restart_live import login
from tests.server.conftest import Client
from tests.server.process import (
    ROOT,
    ServeProcess,
    holder_of,
    serve_process,
    wait_gone,
)
from tests.server.test_limits import told

SETTINGS = ("--bot-delay", "0.02,0.05", "--turn-timer", "0", "--grace", "120")
TITLE = re.compile(r"Défausse · table ([A-Z2-9]{4})  ·  coup (\d+)")
BUS_URL = re.compile(r"nats://pioche:([^@\s]+)@")


@dataclass
class Player:
    """One player over SSH with a key of their own, at a quick game of Défausse, who plays at
    every turn (draw, then keep) and notes the highest step their screen showed."""

    name: str
    port: int
    key: asyncssh.SSHKey = field(default_factory=lambda: asyncssh.generate_private_key(
        "ssh-ed25519"))
    conn: asyncssh.SSHClientConnection | None = None
    client: Client | None = None
    table: str | None = None
    seen: int = 0  # the highest « coup N » shown: every move up to it was accepted
    returns: int = 0  # times they reconnected to their seat

    async def connect(self) -> Client:
        self.conn, self.client = await login(self.port, self.name, self.key)
        return self.client

    def note(self) -> None:
        """The step the screen shows now (at the table this player sits at)."""
        assert self.client is not None
        found = TITLE.search(self.client.screen.text())
        if found and (self.table is None or found[1] == self.table):
            self.table = found[1]
            self.seen = max(self.seen, int(found[2]))

    async def sit(self) -> None:
        """A quick game against bots."""
        client = await self.connect()
        await client.wait_for(f"Bonjour {self.name}")
        client.send("p")
        await client.wait_for(lambda screen: TITLE.search(screen) is not None)
        self.note()

    async def back(self, timeout: float = 40.0) -> None:
        """Reconnect until this player's own table is on the screen again (the coordinator
        may be restarting: a front then says it does not answer)."""
        deadline = time.monotonic() + timeout
        while True:
            if self.conn is not None:
                self.conn.abort()
            try:
                client = await self.connect()
                await client.wait_for(f"Défausse · table {self.table}", timeout=10)
                self.note()
                self.returns += 1
                return
            except (OSError, asyncssh.Error, AssertionError):
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.5)

    async def play(self) -> None:
        """At each turn: draw, then keep the card drawn (or choose the first colour); until
        the connection ends."""
        client = self.client
        assert client is not None
        while not client.closed.is_set():
            self.note()
            screen = client.screen.text()
            if "choisir la couleur" in screen:
                client.send("1")
            elif "k garder" in screen:  # (after a draw)
                client.send("k")
            elif "À vous" in screen:
                client.send("d")
            await asyncio.sleep(0.1)

    async def carry_on(self, more: int = 3, timeout: float = 60.0) -> None:
        """Play until this player has seen the table go ``more`` steps further; if their
        session ends meanwhile (a fault), reconnect to their seat and go on."""
        start = self.seen
        deadline = time.monotonic() + timeout
        while self.seen < start + more:
            assert self.client is not None
            if self.client.closed.is_set():
                await self.back()
            playing = asyncio.create_task(self.play())
            try:
                while self.seen < start + more and not self.client.closed.is_set():
                    assert time.monotonic() < deadline, (
                        f"{self.name}'s table stands still:\n{self.client.screen.text()}")
                    await asyncio.sleep(0.05)
            finally:
                playing.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await playing


def moves_logged(served: ServeProcess, table: str) -> int:
    return sum(record[0] == ACTION
               for record in read_log(served.log.parent / "data" / "tables"
                                      / f"{table}.log").records)


def tree_of(served: ServeProcess) -> dict[str, list[int]]:
    tree = served.tree()
    assert sorted(tree) == ["coordinator", "front", "nats-server"], tree
    assert len(tree["front"]) == 2 and len(tree["coordinator"]) == len(tree["nats-server"]) == 1
    return tree


def wait_for_tree(served: ServeProcess, changed: int, timeout: float = 40.0
                  ) -> dict[str, list[int]]:
    """The tree once the process ``changed`` (killed) has a successor and all run."""
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(AssertionError):
            tree = tree_of(served)
            if changed not in {pid for pids in tree.values() for pid in pids}:
                return tree
        assert time.monotonic() < deadline, f"no successor of {changed}: {served.tree()}"
        time.sleep(0.1)


async def test_two_players_through_two_fronts_then_sigterm(tmp_path: Path) -> None:
    with serve_process(tmp_path, *SETTINGS, "--max-sessions", "2", app=DEFAULT_APP,
                       workers=2) as served:
        tree = tree_of(served)
        everyone = [pid for pids in tree.values() for pid in pids]
        # The bus's password: in the children's environment, nowhere else.
        environ = Path(f"/proc/{tree['coordinator'][0]}/environ").read_bytes()
        found = BUS_URL.search(environ.decode(errors="replace"))
        assert found is not None
        password = found[1]
        for pid in everyone:
            assert password not in Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
        alice, bob = Player("alice", served.port), Player("bob", served.port)
        await alice.sit()
        await bob.sit()
        await asyncio.gather(alice.carry_on(), bob.carry_on())
        # A second tree started by mistake on the same port (another data directory) is
        # refused, not given half the players (SO_REUSEPORT would let it share the port).
        second = subprocess.run(
            [sys.executable, "-m", "pioche_tui.cli", "serve", "--workers", "2", "--host",
             "127.0.0.1", "--port", str(served.port), "--data-dir", str(tmp_path / "other"),
             "--keys-dir", str(served.keys_dir)],
            cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert second.returncode == 1
        assert f"cannot listen on 127.0.0.1 port {served.port}" in second.stderr
        # The server is full (--max-sessions 2, counted across the fronts): a third player is
        # refused, whichever front the kernel hands her to.
        for _attempt in range(3):
            assert (await told(served, "carol")).startswith(MSG_FULL.format(limit=2))
        served.process.send_signal(signal.SIGTERM)
        assert served.wait(60) == 0
        assert wait_gone(everyone) == []
        for player in (alice, bob):  # told, as in one process
            assert player.client is not None
            await asyncio.wait_for(player.client.closed.wait(), 10)
            assert MSG_SHUTDOWN in player.client.output
            assert player.table is not None
            assert moves_logged(served, player.table) >= player.seen
        text = served.log_text()
        assert password not in text
        # In order: the fronts, then the coordinator (which closed its store), then the bus.
        fronts = max(text.index(f"front {n} stopped (status 0)") for n in (1, 2))
        coordinator = text.index("coordinator stopped (status 0)")
        assert fronts < text.index("store closed") < coordinator
        assert coordinator < text.index("nats-server stopped")
        assert (tmp_path / "data" / LOCK_NAME).read_text() == ""  # the supervisor let go


async def test_a_process_killed_mid_play_loses_no_accepted_move(tmp_path: Path) -> None:
    with serve_process(tmp_path, *SETTINGS, app=DEFAULT_APP, workers=2) as served:
        tree = tree_of(served)
        alice, bob = Player("alice", served.port), Player("bob", served.port)
        await alice.sit()
        await bob.sit()
        for victim in ("front", "coordinator", "nats-server"):
            await asyncio.gather(alice.carry_on(), bob.carry_on())
            tables = {player.name: player.table for player in (alice, bob)}
            returns = {player.name: player.returns for player in (alice, bob)}
            playing = [asyncio.create_task(player.play()) for player in (alice, bob)]
            await asyncio.sleep(0.3)  # (mid-play)
            if victim == "front":
                assert alice.conn is not None
                pid = holder_of(alice.conn, tree["front"])
            else:
                pid = tree[victim][0]
            os.kill(pid, signal.SIGKILL)
            for player in (alice, bob):
                player.note()
            seen = {player.name: player.seen for player in (alice, bob)}
            for task in playing:
                task.cancel()
            await asyncio.gather(*playing, return_exceptions=True)
            tree = await asyncio.to_thread(wait_for_tree, served, pid)
            if victim == "coordinator":  # (its fronts end every session: frames already on
                for player in (alice, bob):  # their way must not pass for play going on)
                    assert player.client is not None
                    await asyncio.wait_for(player.client.closed.wait(), 20)
            # Both play on, back in their seats when their session ended.
            await asyncio.gather(alice.carry_on(), bob.carry_on())
            for player in (alice, bob):
                assert player.table == tables[player.name], victim
                assert moves_logged(served, tables[player.name]) >= seen[player.name], victim
            if victim == "front":  # (bob's, on the other front or not, may go on)
                assert alice.returns > returns["alice"]
            if victim == "coordinator":  # (a lost bus may end the sessions too, or not)
                assert alice.returns > returns["alice"] and bob.returns > returns["bob"]
        # Last, the supervisor itself: its children stop in order by themselves (the players
        # are told), nats-server dies with it, the data directory is free again.
        everyone = [pid for pids in tree.values() for pid in pids]
        # Each player connected at their seat first: a session the bus's loss ends (its front
        # notices the reconnection) may end after carry_on saw its steps, and its last words
        # are then « the server restarts », rightly.
        await asyncio.sleep(bus.HEARTBEAT)
        for player in (alice, bob):
            assert player.client is not None
            if player.client.closed.is_set():
                await player.back()
        served.process.kill()
        served.wait()
        left = await asyncio.to_thread(wait_gone, everyone, 30)
        assert left == [], (left, [role for role, pids in tree.items() if set(pids) & set(left)],
                            served.log_text()[-5000:])
        for player in (alice, bob):
            assert player.client is not None
            await asyncio.wait_for(player.client.closed.wait(), 10)
            # (the coordinator and the fronts all see the supervisor's end at once: the
            # coordinator's goodbye may reach the app before its front's own does)
            assert MSG_SHUTDOWN in player.client.output or (
                "Le serveur s'arrête" in player.client.output), player.client.output[-300:]
        with DataDirLock.acquire(tmp_path / "data"):
            pass


def test_workers_auto_is_one_per_core() -> None:
    from server.serve import workers_count

    assert workers_count("auto") == min(os.cpu_count() or 1, 64)
    assert workers_count("3") == 3
    for bad in ("0", "-1", "65", "many"):
        with pytest.raises(Exception, match="must be"):
            workers_count(bad)


def test_a_handed_lock_must_be_the_held_lock(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with DataDirLock.acquire(data, command="pioche serve --workers 2") as held:
        # The holder's own descriptor (a child's, inherited): adopted; its release leaves the
        # holder's line and lock alone.
        adopted = DataDirLock.adopt(data, os.dup(held.fd))
        adopted.release()
        assert "pioche serve --workers 2" in (data / LOCK_NAME).read_text()
        with pytest.raises(DataDirBusy):
            DataDirLock.acquire(data)
        # Another open file of the lock (not holding it), or another file: refused.
        other = os.open(data / LOCK_NAME, os.O_RDONLY)
        try:
            with pytest.raises(ValueError, match="does not hold"):
                DataDirLock.adopt(data, other)
        finally:
            os.close(other)
        stray = os.open(tmp_path / "stray", os.O_RDWR | os.O_CREAT)
        try:
            with pytest.raises(ValueError, match="is not"):
                DataDirLock.adopt(data, stray)
        finally:
            os.close(stray)


def test_pioche_coordinator_alone_takes_the_lock_and_stops_while_it_waits_for_the_bus(
        tmp_path: Path) -> None:
    """Run by hand (no --lock-fd), the coordinator takes the data directory's lock itself:
    refused, exit 1, while another process holds it. Told to stop while its bus does not
    answer (nats-py tries again for ever), it stops: exit 0, the lock let go."""
    data = tmp_path / "data"
    command = [sys.executable, "-m", "pioche_tui.cli", "coordinator", "--data-dir", str(data)]
    env = {**os.environ, "PIOCHE_BUS": "nats://pioche:secret@127.0.0.1:1"}  # (nobody there)
    with DataDirLock.acquire(data, command="the test"):
        refused = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                                 timeout=60)
        assert refused.returncode == 1
        assert "in use by" in refused.stderr and "the test" in refused.stderr
    log = tmp_path / "coordinator.log"
    with log.open("wb") as out:
        waiting = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=out)
    try:
        deadline = time.monotonic() + 60
        while "Connect call failed" not in log.read_text(errors="replace"):
            assert waiting.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        waiting.send_signal(signal.SIGTERM)
        assert waiting.wait(20) == 0
    finally:
        if waiting.poll() is None:
            waiting.kill()
    assert "secret" not in log.read_text()
    with DataDirLock.acquire(data):  # free again
        pass


async def test_pioche_coordinator_stops_when_told_while_it_starts_on_a_bus_that_froze(
        tmp_path: Path) -> None:
    """Connected, then its bus frozen (SIGSTOP: every JetStream request of its start, the
    lobby's buckets, waits for an answer that does not come), the coordinator told to stop
    stops at once: exit 0, never « serving ». Before, its start was not raced against the stop:
    it went on to serve (its buckets taken for « no JetStream » after their timeout), and with
    the bus gone for good it could stay, an orphan of its tree."""
    from pioche_tui.bus.natsd import NatsServer

    command = [sys.executable, "-m", "pioche_tui.cli", "coordinator"]
    for attempt in range(3):  # (the freeze must land within the start: a few ms)
        bus_server = NatsServer(jetstream=tmp_path / f"js{attempt}")
        await bus_server.start()
        log = tmp_path / f"coordinator{attempt}.log"
        try:
            with log.open("wb") as out:
                process = subprocess.Popen(
                    [*command, "--data-dir", str(tmp_path / f"data{attempt}")], cwd=ROOT,
                    env={**os.environ, "PIOCHE_BUS": bus_server.url}, stdout=out, stderr=out)
            try:
                deadline = time.monotonic() + 60
                while "connected to the bus" not in log.read_text(errors="replace"):
                    assert process.poll() is None and time.monotonic() < deadline, \
                        log.read_text()
                    await asyncio.sleep(0.001)
                assert bus_server.pid is not None
                os.kill(bus_server.pid, signal.SIGSTOP)
                try:
                    process.send_signal(signal.SIGTERM)
                    status = await asyncio.to_thread(process.wait, 30)
                finally:
                    os.kill(bus_server.pid, signal.SIGCONT)
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait()
        finally:
            await bus_server.stop()
        text = log.read_text()
        if "serving on the bus" in text and "told to stop while starting" not in text:
            continue  # (the start was over before the freeze: try again)
        assert status == 0, text
        assert "told to stop while starting" in text and "serving on the bus" not in text
        return
    pytest.fail("the freeze never landed within the coordinator's start")


async def test_with_the_logs_in_jetstream_no_accepted_move_is_lost(tmp_path: Path) -> None:
    """``--logs jetstream``: the tables' logs in the bus's stream (store/jslog.py, its store
    under DATA_DIR/bus). The coordinator, then nats-server, SIGKILLed mid-play: the table comes
    back from the stream, and every move the player saw accepted is in it at the end."""
    from pioche_tui import bus
    from pioche_tui.bus.natsd import NatsServer
    from pioche_tui.store import jslog

    seen: list[int] = []
    with serve_process(tmp_path, *SETTINGS, "--logs", "jetstream", app=DEFAULT_APP,
                       workers=2) as served:
        tree = tree_of(served)
        alice = Player("alice", served.port)
        await alice.sit()
        table = alice.table
        for victim in ("coordinator", "nats-server"):
            await alice.carry_on()
            playing = asyncio.create_task(alice.play())
            await asyncio.sleep(0.3)  # (mid-play)
            pid = tree[victim][0]
            os.kill(pid, signal.SIGKILL)
            alice.note()
            seen.append(alice.seen)
            playing.cancel()
            await asyncio.gather(playing, return_exceptions=True)
            tree = await asyncio.to_thread(wait_for_tree, served, pid)
            if victim == "coordinator":
                assert alice.client is not None
                await asyncio.wait_for(alice.client.closed.wait(), 20)
            await alice.carry_on()
            assert alice.table == table, victim
        seen.append(alice.seen)
    assert table is not None
    assert not list((tmp_path / "data" / "tables").glob("*.log"))  # (all in the stream)
    store = NatsServer(jetstream=tmp_path / "data" / "bus")
    await store.start()
    try:
        client = await bus.connect(store.url, "test-read-logs")
        contents = await jslog.read_table(client.jetstream(), table)
        await client.close()
    finally:
        await store.stop()
    logged = sum(record[0] == ACTION for record in contents.records)
    assert logged >= max(seen), (logged, seen)
