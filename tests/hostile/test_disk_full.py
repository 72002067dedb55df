"""A log that refuses writes for a while: no acknowledged move is lost, the tables pause and say
so, and resume by themselves (issue 12, item 3).

The attack: ``pioche serve`` in full play, then for 1.5 s no file of the process may grow past a
size just above the logs' (a file-size limit, RLIMIT_FSIZE, set on the running process from
outside; Python ignores SIGXFSZ, so writes fail with a short count, then EFBIG, as on a full
disk). Before the fix, the torn bytes of the write cut short stayed in the log, later moves were
appended after them and shown to everyone, and the restart dropped them all.

The server runs ``tests.hostile.witness_app:open_hands_service``: tables of bots, and tables
where two players keep playing and press again when refused, a witness writing down every step
it is shown (tests/hostile/test_restart.py says how), and someone watching over SSH.

A failed fsync cannot be caused from outside: the second test makes the process's fsync fail
for a moment (the only thing replaced), with the real app and a player at a table over SSH.
"""

from __future__ import annotations

import asyncio
import errno
import os
import resource
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import asyncssh
import pytest

from pioche_tui.store.log import read_log
from server.ssh import PiocheServer
from tests.hostile.conftest import RecordingService
from tests.hostile.defausse import table_of, until
from tests.hostile.test_restart import (
    check_logs_against_witness,
    prefix_digest,
    wait_until,
    witness_runs,
)
from tests.hostile.witness_app import HANDS, TABLES
from tests.server.conftest import Client, Connect
from tests.server.process import LikeOpenSSH, ServeProcess, serve_process

APP = ("--app", "tests.hostile.witness_app:open_hands_service")
FAULT = 1.5  # seconds the file-size limit holds
UNLIMITED = (resource.RLIM_INFINITY, resource.RLIM_INFINITY)


def witness_lines(data: Path, kind: str) -> list[list[str]]:
    """The witness file's whole lines of one kind (``hands``, ``notice``), split in words."""
    lines = (data / "witness.txt").read_text().splitlines(keepends=True)
    return [line.split() for line in lines if line.endswith("\n") and line.startswith(kind)]


def last_steps(data: Path) -> dict[str, int]:
    """The last step the witness was shown at each table, in the latest run."""
    runs = witness_runs(data)
    return {table: seen[-1][0] for table, seen in runs[-1].items()} if runs else {}


def settle(check: object, served: ServeProcess, timeout: float) -> bool:
    """Wait (bounded) until ``check()``; whether it came true. The server must stay up."""
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert served.process.poll() is None, served.log_text()
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


async def watcher(port: int, table: str) -> tuple[asyncssh.SSHClientConnection, Client]:
    """Someone watching ``table`` over SSH (``ssh -t HOST watch TABLE``)."""
    conn = await asyncssh.connect(
        "127.0.0.1", port, username="zoe", known_hosts=None, agent_path=None, config=None,
        client_keys=[asyncssh.generate_private_key("ssh-ed25519")], client_factory=LikeOpenSSH,
    )
    _chan, client = await conn.create_session(
        Client, f"watch {table}", term_type="xterm-256color", term_size=(100, 30),
        encoding=None,
    )
    client.screen.resize(100, 30)
    return conn, client


async def test_a_full_disk_pauses_the_tables_and_loses_no_acknowledged_move(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    logs = data / "tables"
    everyone = len(TABLES) + HANDS
    with serve_process(tmp_path, *APP) as served:
        wait_until(lambda: len(last_steps(data)) == everyone
                   and min(last_steps(data).values()) > 20, served)
        hands = [words[1] for words in witness_lines(data, "hands")]
        assert len(hands) == HANDS
        conn, zoe = await watcher(served.port, hands[0])
        await zoe.wait_for(f"table {hands[0]}")

        # The fault: just above the players' logs, so that they reach it at once, in the
        # middle of a record.
        at_fault = last_steps(data)
        limit = max((logs / f"{table}.log").stat().st_size for table in hands) + 64
        resource.prlimit(served.process.pid, resource.RLIMIT_FSIZE,
                         (limit, resource.RLIM_INFINITY))
        await asyncio.sleep(FAULT)
        resource.prlimit(served.process.pid, resource.RLIMIT_FSIZE, UNLIMITED)

        # Play on: every table goes on by itself (bounded; checked below, after the restart).
        def resumed() -> bool:
            steps = last_steps(data)
            return all(steps.get(t, 0) > at_fault[t] + 30 for t in at_fault)

        went_on = settle(resumed, served, timeout=30)
        await zoe.wait_for(lambda screen: "EN PAUSE" not in screen)
        served.process.send_signal(signal.SIGKILL)
        served.wait()
        conn.abort()

    # Every step anyone was shown is in the logs, with the same view.
    runs = witness_runs(data)
    replays = check_logs_against_witness(data, runs)
    for table, seen in runs[0].items():
        step, shown = seen[-1]
        assert prefix_digest(logs / f"{table}.log", step) == shown, table
    # Every table went on after the fault.
    assert went_on, f"some tables never resumed: {at_fault} → {last_steps(data)}"
    # They paused and said so — to the players, and on the screen of the one watching — and
    # said when they resumed.
    notices = [(words[1], words[2]) for words in witness_lines(data, "notice")]
    for table in hands:
        assert (table, "paused") in notices and (table, "resumed") in notices, notices
        paused_at = notices.index((table, "paused"))
        assert (table, "resumed") in notices[paused_at:]
    assert "EN PAUSE" in zoe.output

    # The restart finds every table where its log stands, and they play on.
    playing = {table for table, (_s, _d, ended) in replays.items() if not ended}
    assert set(hands) <= playing
    with serve_process(tmp_path, *APP) as served:
        wait_until(lambda: len(witness_runs(data)) == 2
                   and set(witness_runs(data)[1]) >= playing, served)
        for table in playing:
            steps, view, _ended = replays[table]
            assert witness_runs(data)[1][table][0] == (steps, view), table
        wait_until(lambda: all(witness_runs(data)[1][table][-1][0] > replays[table][0] + 10
                               for table in playing), served)
        served.process.send_signal(signal.SIGTERM)
        assert served.wait() == 0
    after = check_logs_against_witness(data, witness_runs(data))
    for table in playing:
        assert read_log(logs / f"{table}.log").dropped_bytes == 0
        assert after[table][0] >= witness_runs(data)[1][table][-1][0]


@contextmanager
def failing_fsync(directory: Path) -> Iterator[list[int]]:
    """Every fsync of a file under ``directory`` fails with EIO (as a disk's write-back error
    reports it), until the block ends; yields the list of refused calls' descriptors."""
    real = os.fsync
    refused: list[int] = []

    def fsync(fd: int) -> None:
        if os.readlink(f"/proc/self/fd/{fd}").startswith(str(directory)):
            refused.append(fd)
            raise OSError(errno.EIO, "Input/output error")
        real(fd)

    os.fsync = fsync  # type: ignore[assignment]
    try:
        yield refused
    finally:
        os.fsync = real


@pytest.mark.parametrize("settings", [{"turn_timer": None}], indirect=True)
async def test_a_failed_fsync_pauses_the_table_until_the_disk_takes_writes_again(
    connect: Connect, server: PiocheServer, service: RecordingService,
    client_key: asyncssh.SSHKey,
) -> None:
    alice = await connect("alice", client_keys=[client_key], term_size=(100, 30))
    await alice.wait_for("Bonjour alice")
    alice.send("p")
    await alice.wait_for("Défausse · table")
    table, seat = table_of(service, "alice")
    await until(lambda: seat in table.game.to_act(table.state))  # her turn: the table waits
    await alice.wait_for("À vous")  # (and her screen knows it: her keys act)
    assert table.writer is not None
    path = table.writer.path
    step, size = table.step, path.stat().st_size
    with failing_fsync(path.parent) as refused:
        alice.send("d")  # she draws: the record is written, its fsync fails
        await alice.wait_for("EN PAUSE")
        await alice.wait_for("La table est en pause")
        assert refused and table.paused
        # Not durable, so not acknowledged: undone, cut off the log, her turn still.
        assert (table.step, path.stat().st_size) == (step, size)
        assert read_log(path).dropped_bytes == 0 and len(list(read_log(path).actions())) == step
        assert seat in table.game.to_act(table.state)
        # Her move is refused, and so is the next: not taken. The bots do not play either.
        await alice.wait_for("ce coup n'est pas pris")
        told = alice.screen.text().count("ce coup n'est pas pris")
        alice.send("d")
        await alice.wait_for(lambda screen: screen.count("ce coup n'est pas pris") > told)
        tries = len(refused)
        await until(lambda: len(refused) > tries)  # the table tried its log again: refused
        assert table.paused and table.step == step
    # The disk takes writes again: the table resumes by itself and says so, and play goes on.
    await alice.wait_for(lambda screen: "EN PAUSE" not in screen)
    await alice.wait_for("La table reprend")
    alice.send("d")
    await until(lambda: table.step > step)
    contents = read_log(path)
    assert contents.dropped_bytes == 0 and len(list(contents.actions())) == table.step
