"""``pioche sim collection``: the same seed gives the same report, with the balance statistics."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pioche_tui.cli import main
from pioche_tui.engine.collection.cards import OBJECTIVES

TIMING = {"seconds", "games_per_s", "actions_per_s"}


def sim(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["sim", "collection", "--json", *args]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def without_timing(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in TIMING}


def test_same_seed_same_report(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--games", "12", "--seed", "5", "--bots", "basic,random,random")
    first, second = sim(capsys, *args, "--players", "3"), sim(capsys, *args, "--players", "3")
    assert without_timing(first) == without_timing(second)
    other = sim(capsys, "--games", "12", "--seed", "6", "--bots", "basic,random,random",
                "--players", "3")
    assert without_timing(other) != without_timing(first)


def test_balance_statistics(capsys: pytest.CaptureFixture[str]) -> None:
    data = sim(capsys, "--games", "10", "--bots", "random", "--players", "4")
    balance = data["balance"]
    assert list(balance["objectives"]) == [o.name for o in OBJECTIVES]
    for stats in balance["objectives"].values():
        assert 0 <= stats["validated_rate"] <= 1 and 0 <= stats["shadow_rate"] <= 1
    assert sum(balance["rounds"].values()) == pytest.approx(1)
    assert 0 < balance["busts_per_turn"] < 1
    assert balance["turns_per_game"] > 0
    assert balance["avg_winner_points"] >= balance["avg_points"] >= 0
    assert data["games"] == 10 and len(data["win_rate"]) == 4  # wins by seat
    assert sum(data["wins"]) == pytest.approx(10)


def test_modes_and_single_round(capsys: pytest.CaptureFixture[str]) -> None:
    decouverte = sim(capsys, "--games", "6", "--bots", "random", "--mode", "decouverte",
                     "--events")  # fmt: skip
    assert set(decouverte["balance"]["rounds"]) <= {"1", "2", "3"}
    assert decouverte["events"]["draw"] > 0
    assert "special" not in decouverte["events"]  # no special cards in Découverte
    single = sim(capsys, "--games", "6", "--bots", "random", "--single-round")
    assert single["rounds_per_game"] == 1 and single["balance"]["rounds"] == {"1": 1.0}


def test_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "collection", "--games", "3", "--bots", "random"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("collection: 3 games") and "balance" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mode", "turbo"], "mode"),
        (["--players", "7"], "2 to 6"),
        (["--bots", "genius"], "unknown bot"),
        (["--option", "rounds=3"], "unknown option"),
    ],
)
def test_bad_arguments(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert main(["sim", "collection", "--games", "2", *args]) == 2
    assert message in capsys.readouterr().err
