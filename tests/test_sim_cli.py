"""``pioche sim defausse``: the simulator's command line on the real engine."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from pioche_tui.cli import main

TIMING = {"seconds", "games_per_s", "actions_per_s"}


def sim_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["sim", "defausse", "--json", *args]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def without_timing(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in TIMING}


def test_same_seed_same_json_but_timing(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--players", "3", "--games", "40", "--seed", "7", "--bots", "basic,random,random")
    first, second = sim_json(capsys, *args), sim_json(capsys, *args)
    assert without_timing(first) == without_timing(second)
    other = sim_json(capsys, "--players", "3", "--games", "40", "--seed", "8",
                     "--bots", "basic,random,random")  # fmt: skip
    assert without_timing(other) != without_timing(first)


def test_json_fields(capsys: pytest.CaptureFixture[str]) -> None:
    data = sim_json(capsys, "--players", "2", "--games", "30", "--bots", "basic,random",
                    "--single-round", "--events")  # fmt: skip
    for key in ("games", "actions", "seconds", "games_per_s", "actions_per_s", "wins"):
        assert key in data
    assert data["game"] == "defausse" and data["games"] == 30 and data["rounds"] == 30
    assert data["actions"] > 30 and data["seconds"] > 0 and data["actions_per_s"] > 0
    assert len(data["wins"]) == 2 and sum(data["wins"]) == pytest.approx(30)
    assert data["events"]["play"] > 0 and data["events"]["round_end"] == 30


def test_table_options_reach_the_engine(capsys: pytest.CaptureFixture[str]) -> None:
    options = ("-o", "annonce=true", "-o", "cumul=on", "-o", "pioche-jusqua-jouer=yes")
    data = sim_json(capsys, "-p", "4", "-n", "10", "--bots", "random", "--single-round",
                    "--events", *options)  # fmt: skip
    assert data["events"].get("catch", 0) > 0  # only with the annonce option
    plain = sim_json(capsys, "-p", "4", "-n", "10", "--bots", "random", "--single-round",
                     "--events")  # fmt: skip
    assert "catch" not in plain["events"]
    assert "events" not in sim_json(capsys, "-p", "2", "-n", "3")  # counted only when asked
    short = sim_json(capsys, "-p", "2", "-n", "10", "--bots", "basic", "-o", "target=100")
    assert short["rounds_per_game"] < sim_json(capsys, "-p", "2", "-n", "10",
                                               "--bots", "basic")["rounds_per_game"]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "11"], "2 to 10"),
        (["--players", "1"], "2 to 10"),
        (["--games", "0"], "at least 1"),
        (["--bots", "basic,expert"], "unknown bot 'expert'"),
        (["--bots", "basic,random,basic"], "3 bots named for 4 seats"),
        (["-o", "cible=300"], "option inconnue"),
        (["-o", "target=50"], "100 à 1000"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert main(["sim", "defausse", "-n", "3", *args]) == 2
    assert message in capsys.readouterr().err


def test_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "defausse", "-p", "2", "-n", "20", "--bots", "basic,random"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("defausse: 20 games, 2 players, bots basic,random")
    assert "win rate by bot: basic:" in out


def test_the_console_command_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pioche_tui.cli", "sim", "defausse", "-n", "5", "--json"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert json.loads(done.stdout)["games"] == 5
