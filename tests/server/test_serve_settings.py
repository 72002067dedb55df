"""``pioche serve``'s app settings (``--turn-timer``, ``--bot-delay``, ``--grace``,
``--public-host``) and its trace of accepted moves (``--trace FILE``), as load tests and demos
use them."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncssh
import pytest

from pioche_tui.app.service import open_service
from pioche_tui.cli import build_parser
from tests.server.conftest import Client, LikeOpenSSH
from tests.server.process import ROOT, serve_process

REAL_APP = "pioche_tui.app:open_service"


def test_settings_flags_are_parsed_and_absent_unless_given() -> None:
    parser = build_parser()
    args = parser.parse_args(
        ["serve", "--turn-timer", "0", "--bot-delay", "0.5,1.5", "--grace", "30"])
    assert (args.turn_timer, args.bot_delay, args.grace) == (None, (0.5, 1.5), 30.0)
    assert parser.parse_args(["serve", "--bot-delay", "1"]).bot_delay == (1.0, 1.0)
    plain = parser.parse_args(["serve"])
    assert not any(hasattr(plain, name) for name in ("turn_timer", "bot_delay", "grace"))
    assert plain.trace is None


def test_cpu_budget_flags() -> None:
    args = build_parser().parse_args(
        ["serve", "--cpu-per-connection", "0.2", "--cpu-per-address", "2"])
    assert (args.cpu_per_connection, args.cpu_per_address) == (0.2, 2.0)
    plain = build_parser().parse_args(["serve"])
    assert (plain.cpu_per_connection, plain.cpu_per_address) == (0.08, 0.15)


def test_table_rate_and_retention_flags() -> None:
    args = build_parser().parse_args(
        ["serve", "--table-rate", "3,10", "--keep-finished", "2", "--keep-abandoned", "0.5"])
    assert (args.table_rate, args.keep_finished, args.keep_abandoned) == ((3, 10), 2 * 86400.0,
                                                                          43200.0)
    plain = build_parser().parse_args(["serve"])
    assert not any(hasattr(plain, name) for name in ("table_rate", "keep_finished",
                                                     "keep_abandoned"))


@pytest.mark.parametrize("flags", [
    ["--bot-delay", "2,1"], ["--bot-delay", "x"], ["--grace", "-1"], ["--turn-timer", "nan"],
    ["--table-rate", "0,5"], ["--table-rate", "x"], ["--keep-finished", "-1"],
    ["--keep-abandoned", "nan"], ["--cpu-per-connection", "0"], ["--cpu-per-address", "-1"],
    ["--cpu-per-address", "nan"],
])
def test_bad_settings_are_refused(flags: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", *flags])
    assert "error: argument" in capsys.readouterr().err


async def test_the_service_opener_takes_the_coordinators_settings(tmp_path: Path) -> None:
    service = await open_service(tmp_path, turn_timer=None, bot_delay=(0.1, 0.2), grace=5.0)
    settings = service.coordinator.settings
    assert (settings.turn_timer, settings.bot_delay, settings.grace) == (None, (0.1, 0.2), 5.0)
    await service.close()
    with pytest.raises(TypeError):
        await open_service(tmp_path, speed=2)


def test_an_app_without_settings_is_told_so(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pioche_tui.cli", "serve", "--port", "0", "--grace", "5",
         "--app", "tests.server.demo_app:open_service", "--keys-dir", str(tmp_path / "keys"),
         "--data-dir", str(tmp_path / "data")],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert "--app tests.server.demo_app:open_service does not take grace" in done.stderr


@asynccontextmanager
async def guest_at_a_quick_game(port: int, size: tuple[int, int]) -> AsyncIterator[Client]:
    """A guest « alice » who has just asked for a quick game (Défausse against three bots)."""
    async with asyncssh.connect(
        "127.0.0.1", port, username="alice", known_hosts=None, client_keys=None,
        agent_path=None, config=None, client_factory=LikeOpenSSH,
    ) as conn:
        _chan, client = await conn.create_session(
            Client, term_type="xterm-256color", term_size=size, encoding=None)
        await client.wait_for("Bonjour alice !")
        client.send("p")
        yield client


def shown_step(screen: str) -> int:
    """The step the table's title shows (« coup 7 »)."""
    return int(screen.split("coup ", 1)[1].split()[0])


async def test_the_trace_has_a_line_per_accepted_move(tmp_path: Path) -> None:
    """A quick game against bots that think 0.05 s: each accepted move is traced, in order, with
    the clock every process shares."""
    trace = tmp_path / "trace.txt"
    before = time.monotonic()
    with serve_process(tmp_path, "--app", REAL_APP, "--bot-delay", "0.05", "--turn-timer", "0",
                       "--trace", str(trace)) as served:
        async with guest_at_a_quick_game(served.port, (80, 24)) as client:
            await client.wait_for("Défausse · table")
            await client.wait_for(lambda screen: "À vous" in screen)
            if shown_step(client.screen.text()) == 0:  # she starts: her draw is the first move
                client.send("d")
                await client.wait_for(lambda screen: shown_step(screen) >= 1)
            step = shown_step(client.screen.text())
            for _ in range(100):  # the file is written as the moves come
                lines = trace.read_text().splitlines() if trace.exists() else []
                if len(lines) >= step:
                    break
                await asyncio.sleep(0.05)
    records = [line.split() for line in lines]
    assert step >= 1 and len(records) >= step
    table = client.screen.text().split("table ", 1)[1].split()[0]
    assert {record[1] for record in records} == {table}
    assert [int(record[2]) for record in records] == list(range(1, len(records) + 1))
    times = [float(record[0]) for record in records]
    assert times == sorted(times) and before < times[0] <= time.monotonic()


async def test_a_guest_is_shown_the_public_host(tmp_path: Path) -> None:
    """Behind a NAT the address a guest's connection reached is not the one to type again:
    ``--public-host`` names the server in the command a seated guest is shown."""
    with serve_process(tmp_path, "--app", REAL_APP, "--turn-timer", "0",
                       "--public-host", "play.example.org:2200") as served:
        async with guest_at_a_quick_game(served.port, (100, 30)) as client:
            await client.wait_for("ssh -t -p 2200 play.example.org resume ")


def test_a_public_host_that_is_none_stops_serve(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pioche_tui.cli", "serve", "--port", "0",
         "--public-host", "play.example.org:0", "--app", REAL_APP,
         "--keys-dir", str(tmp_path / "keys"), "--data-dir", str(tmp_path / "data")],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert "not a host, HOST:PORT or [IPV6]:PORT: 'play.example.org:0'" in done.stderr
