"""Several coordinators and fronts as real processes, for tests and benchmarks (issue 18):
``pioche coordinator --several --logs jetstream`` and ``pioche front`` started over a bus (one
nats-server or a cluster: its URLs in ``PIOCHE_BUS``) and a shared database, a front's
``Remote`` in the caller's process, a player at a table over it (``Seat``), and the
bookkeeping of acknowledged moves against the table's log.

Used by tests/bus/test_failover.py, bench/failover.py, tests/cluster/chaos.py (the chaos test and
bench/chaos.py).
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
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nats.aio.client import Client
from nats.js import JetStreamContext

from pioche_tui.bus.directory import buckets_of
from pioche_tui.bus.owners import alive, bind_owner_buckets
from pioche_tui.coordinator.model import Refused, TableUpdate
from pioche_tui.coordinator.remote import Remote, RemoteClient
from pioche_tui.store import jslog
from pioche_tui.store.log import ACTION, END

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = ("--bot-delay", "0.02,0.05", "--turn-timer", "0", "--grace", "120")
"""Quick bots, no turn timer, a long grace: the tests decide when things happen."""
START_WAIT = 60.0  # seconds for a process to say it serves (a loaded machine starts Python slowly)
BOOT = re.compile(r"coordinator on the bus \(boot ([0-9a-f]+)\)")
LISTENING = re.compile(r"listening on 127\.0\.0\.1 port (\d+);")


@dataclass
class Process:
    """A ``pioche`` child process and the file its output goes to."""

    process: subprocess.Popen[bytes]
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL, reaped."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    async def stop(self) -> None:
        """SIGTERM: a clean stop (SIGKILL after 15 s)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                await asyncio.to_thread(self.process.wait, 15)
            except subprocess.TimeoutExpired:
                self.kill()

    async def started(self, says: re.Pattern[str] | str) -> re.Match[str] | None:
        """Once its log says ``says`` (its match, for a pattern). Waited for without blocking
        the loop: a front in the caller's process must go on beating, or the coordinators take
        it for dead."""
        deadline = time.monotonic() + START_WAIT
        while True:
            text = self.log_text()
            if isinstance(says, str):
                if says in text:
                    return None
            elif found := says.search(text):
                return found
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"{self.log.name} did not start:\n{text[-3000:]}")
            await asyncio.sleep(0.05)


class Coordinator(Process):
    """A ``pioche coordinator --several`` process."""

    boot = ""  # its boot id (cid), once it serves


def spawn(args: Sequence[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """``python -m pioche_tui.cli ARGS`` from the project's root, its output to ``log``
    (appended: a process started again on the same log keeps its predecessor's lines)."""
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "-m", "pioche_tui.cli", *args], cwd=ROOT,
                                env={**os.environ, **env}, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=out)


@contextlib.asynccontextmanager
async def coordinator(tmp_path: Path, name: str, url: str, db: str,
                      extra: Sequence[str] = ()) -> AsyncIterator[Coordinator]:
    """``pioche coordinator --several`` over its own data directory, the shared database and
    the bus (``url``: credentials and all, in its environment); ready once it says it serves.
    Stopped cleanly at the end (if still running)."""
    one = await start_coordinator(tmp_path, name, url, db, extra)
    try:
        yield one
    finally:
        await one.stop()


async def start_coordinator(tmp_path: Path, name: str, url: str, db: str,
                            extra: Sequence[str] = ()) -> Coordinator:
    """``coordinator``'s process, left running (the caller stops or kills it)."""
    log = tmp_path / f"{name}.log"
    process = spawn(["coordinator", "--several", "--logs", "jetstream", "--data-dir",
                     str(tmp_path / name), *SETTINGS, *extra], log,
                    {"PIOCHE_BUS": url, "PIOCHE_DB": db})
    one = Coordinator(process, log)
    try:
        found = await one.started(BOOT)
        await one.started("serving on the bus")
    except BaseException:
        one.kill()
        raise
    assert found is not None
    one.boot = found[1]
    return one


class Front(Process):
    """A ``pioche front`` process: its SSH port, kept when it is started again."""

    def __init__(self, process: subprocess.Popen[bytes], log: Path, args: list[str],
                 env: dict[str, str], port: int) -> None:
        super().__init__(process, log)
        self.args, self.env, self.port = args, env, port

    async def restart(self) -> None:
        """A new process on the same port (after a kill)."""
        self.kill()
        mark = len(self.log_text())
        args = [*self.args]
        args[args.index("--port") + 1] = str(self.port)
        self.process = spawn(args, self.log, self.env)
        deadline = time.monotonic() + START_WAIT
        while not LISTENING.search(self.log_text()[mark:]):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"{self.log.name} did not start again:\n"
                                     f"{self.log_text()[mark:][-3000:]}")
            await asyncio.sleep(0.05)


async def start_front(tmp_path: Path, name: str, url: str, keys_dir: Path,
                      extra: Sequence[str] = ()) -> Front:
    """``pioche front`` on a free port of 127.0.0.1 with the host key of ``keys_dir``."""
    log = tmp_path / f"{name}.log"
    args = ["front", "--host", "127.0.0.1", "--port", "0", "--keys-dir", str(keys_dir), *extra]
    env = {"PIOCHE_BUS": url}
    one = Front(spawn(args, log, env), log, args, env, 0)
    try:
        found = await one.started(LISTENING)
    except BaseException:
        one.kill()
        raise
    assert found is not None
    one.port = int(found[1])
    return one


async def a_remote(nc: Client, remotes: list[Remote], front_id: str) -> Remote:
    """A front's ``Remote`` on ``nc`` with the lobby's and the owners' buckets, started;
    added to ``remotes`` (the caller stops them)."""
    buckets = await buckets_of(nc, create=False)
    owners = await bind_owner_buckets(nc)
    assert owners is not None
    remote = Remote(nc, front_id, buckets=buckets, owners=owners)
    await remote.start()
    remotes.append(remote)
    return remote


class Seat:
    """A player at a table with a bot, playing their first legal action each turn; counts the
    moves acknowledged (``act`` returned)."""

    def __init__(self, client: RemoteClient) -> None:
        self.client = client
        self.update: TableUpdate | None = None
        self.acked = 0
        self.refused: list[str] = []

    async def read(self, timeout: float = 20.0) -> TableUpdate:
        """The next table update (the lobby's and other news skipped)."""
        while True:
            mail = await asyncio.wait_for(self.client.mail(), timeout)
            assert not mail.closed, mail.notices
            if mail.table is not None:
                self.update = mail.table
                return mail.table

    async def play(self, moves: int) -> bool:
        """Play until ``moves`` more moves are acknowledged (True), or the game ends
        (False)."""
        goal = self.acked + moves
        while self.acked < goal:
            update = self.update if self.update is not None and not self.client.pending \
                else await self.read()
            self.update = None
            if update.table.status != "playing":
                return False
            if update.seat in update.to_act and update.view.legal:
                try:
                    await self.client.act(update.view.legal[0], update.step)
                except Refused as refusal:  # (stale: a bot moved meanwhile)
                    self.refused.append(refusal.code)
                    continue
                self.acked += 1
        return True


async def until(check: Any, timeout: float = 20.0) -> Any:
    """``await check()`` again every 50 ms until it is true (its value); AssertionError past
    ``timeout``."""
    deadline = time.monotonic() + timeout
    while not (found := await check()):
        assert time.monotonic() < deadline, "never held"
        await asyncio.sleep(0.05)
    return found


async def alive_count(remote: Remote, n: int) -> bool:
    """At least ``n`` coordinators hold a lease."""
    assert remote.owners is not None
    return len(await alive(remote.owners)) >= n


@dataclass(frozen=True)
class Logged:
    """What a table's log in the stream holds: its moves, each seat's, and its end records."""

    moves: int
    by_seat: dict[int, int]
    ends: int


async def logged(js: JetStreamContext, table: str) -> Logged:
    """The table's log read back from the stream."""
    contents = await jslog.read_table(js, table)
    by_seat: dict[int, int] = {}
    for record in contents.records:
        if record[0] == ACTION:
            by_seat[record[1]] = by_seat.get(record[1], 0) + 1
    ends = sum(1 for record in contents.records if record[0] == END)
    return Logged(sum(by_seat.values()), by_seat, ends)
