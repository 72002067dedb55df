"""``pioche serve`` killed with SIGKILL in the middle of play (also in the middle of writing a
log record) and started again: every table resumes at its last acknowledged action, exactly as
replaying its log gives it. SIGTERM: a clean stop, nothing lost.

The server runs ``tests.hostile.witness_app`` (the real service with tables of fast bots and a
spectator that writes down every step it is shown, and the view's digest, outside the process);
the test replays each log itself with the engine and compares."""

from __future__ import annotations

import asyncio
import re
import signal
import time
from collections import defaultdict
from pathlib import Path

import asyncssh

from pioche_tui.engine import GAMES
from pioche_tui.store.log import read_log
from tests.hostile.witness_app import TABLES, digest
from tests.server.conftest import Client, LikeOpenSSH
from tests.server.process import ServeProcess, serve_process

APP = ("--app", "tests.hostile.witness_app:open_service")


def witness_runs(data: Path) -> list[dict[str, list[tuple[int, str]]]]:
    """What the witness saw, per server run: table → [(step, digest)] in order. A line cut by
    the kill (no newline yet) is ignored."""
    runs: list[dict[str, list[tuple[int, str]]]] = []
    for line in (data / "witness.txt").read_text().splitlines(keepends=True):
        if not line.endswith("\n"):
            continue
        words = line.split()
        if words[0] == "start":
            runs.append(defaultdict(list))
        elif words[0] == "seen" and len(words) == 4:
            runs[-1][words[1]].append((int(words[2]), words[3]))
    return runs


def replay(path: Path) -> tuple[int, str, bool]:
    """The log's table replayed with the engine: its step, the spectator view's digest, and
    whether the log says the table is over."""
    contents = read_log(path)
    header = contents.header
    game = GAMES[header["game"]]
    state = game.new_game(len(header["seats"]), game.options(header["options"]), header["seed"])
    steps = 0
    for seat, wire in contents.actions():
        game.apply(state, seat, game.action_from_wire(wire))
        steps += 1
    return steps, digest(game.view(state, None)), contents.ended


def wait_until(check: object, served: ServeProcess, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert served.process.poll() is None, served.log_text()
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def tear_last_record(path: Path) -> int:
    """Append the first half of the log's last record again: a write cut short by the kill."""
    contents = read_log(path)
    data = path.read_bytes()
    last = data[: contents.valid_bytes]
    tail = last[-max(2, len(last) // 40) :]  # some bytes of the last record(s)
    torn = tail[: len(tail) // 2]
    with path.open("ab") as log:
        log.write(torn)
    return len(torn)


def check_logs_against_witness(data: Path, runs: list[dict[str, list[tuple[int, str]]]]
                               ) -> dict[str, tuple[int, str, bool]]:
    """Every step the witness was shown is in the log, with the same view."""
    replays = {path.stem: replay(path) for path in (data / "tables").glob("*.log")}
    for run in runs:
        for table, seen in run.items():
            steps, _digest, _ended = replays[table]
            last_step, _last_digest = seen[-1]
            assert last_step <= steps, f"{table}: step {last_step} was shown, not logged"
    return replays


async def player(port: int, key: asyncssh.SSHKey) -> tuple[asyncssh.SSHClientConnection, Client]:
    conn = await asyncssh.connect(
        "127.0.0.1", port, username="alice", known_hosts=None, client_keys=[key],
        agent_path=None, config=None, client_factory=LikeOpenSSH,
    )
    _chan, client = await conn.create_session(
        Client, term_type="xterm-256color", term_size=(100, 30), encoding=None
    )
    client.screen.resize(100, 30)
    return conn, client


TABLE_TITLE = re.compile(r"Défausse · table ([A-Z2-9]{4})")


async def test_sigkill_in_play_then_restart_resumes_every_table(tmp_path: Path) -> None:
    data = tmp_path / "data"
    key = asyncssh.generate_private_key("ssh-ed25519")
    with serve_process(tmp_path, *APP) as served:
        # A player at a quick game too, not only tables of bots.
        conn, alice = await player(served.port, key)
        await alice.wait_for("Bonjour alice")
        alice.send("p")
        found = TABLE_TITLE.search(await alice.wait_for("Défausse · table"))
        assert found is not None
        alice_table = found[1]
        deadline = time.monotonic() + 60
        while not (witness_runs(data) and len(witness_runs(data)[-1]) >= len(TABLES)
                   and all(seen[-1][0] > 30 for seen in witness_runs(data)[-1].values())):
            assert served.process.poll() is None, served.log_text()
            assert time.monotonic() < deadline, "the witness never saw every table at step 30"
            await asyncio.sleep(0.05)
        served.process.send_signal(signal.SIGKILL)
        served.wait()
        conn.abort()
    runs = witness_runs(data)
    replays = check_logs_against_witness(data, runs)
    playing = {table for table, (_s, _d, ended) in replays.items() if not ended}
    games = {read_log(data / "tables" / f"{table}.log").header["game"] for table in playing}
    assert games == set(GAMES), f"only {games} still playing: nothing to resume for the rest"
    # The acknowledged step's view is the log's view at that step: replay only that far.
    for table, seen in runs[0].items():
        step, shown = seen[-1]
        assert prefix_digest(data / "tables" / f"{table}.log", step) == shown
    # One log was being written when the process died: its last record is torn.
    torn_table = sorted(playing)[0]
    torn = tear_last_record(data / "tables" / f"{torn_table}.log")
    assert read_log(data / "tables" / f"{torn_table}.log").dropped_bytes == torn

    assert alice_table in playing
    with serve_process(tmp_path, *APP) as served:
        wait_until(lambda: len(witness_runs(data)) == 2
                   and set(witness_runs(data)[1]) >= playing, served)
        restarted = witness_runs(data)[1]
        for table in playing:  # each resumes exactly where its log stands
            steps, view, _ended = replays[table]
            assert restarted[table][0] == (steps, view), table
        # The player comes back to the same table.
        conn, alice = await player(served.port, key)
        await alice.wait_for(f"Défausse · table {alice_table}")
        conn.close()
        # The torn tail was cut, and play goes on from there.
        assert read_log(data / "tables" / f"{torn_table}.log").dropped_bytes == 0
        wait_until(lambda: all(witness_runs(data)[1][table][-1][0] > replays[table][0] + 10
                               for table in playing), served)
        served.process.send_signal(signal.SIGTERM)
        assert served.wait() == 0
        assert served.log_text().rstrip().endswith("store closed; bye")
    # SIGTERM lost nothing: every log is whole, holds every step shown, and unfinished tables
    # stay unfinished (they come back at the next start).
    runs = witness_runs(data)
    after = check_logs_against_witness(data, runs)
    for table in playing:
        path = data / "tables" / f"{table}.log"
        assert read_log(path).dropped_bytes == 0
        steps, view, ended = after[table]
        last_step, last_view = runs[1][table][-1]
        if not ended:
            assert (steps, view) == (last_step, last_view)


def prefix_digest(path: Path, steps: int) -> str:
    """The spectator view's digest after the log's first ``steps`` actions."""
    contents = read_log(path)
    header = contents.header
    game = GAMES[header["game"]]
    state = game.new_game(len(header["seats"]), game.options(header["options"]), header["seed"])
    for _index, (seat, wire) in zip(range(steps), contents.actions(), strict=False):
        game.apply(state, seat, game.action_from_wire(wire))
    return digest(game.view(state, None))
