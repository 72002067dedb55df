"""``pioche replay``: a real log written as the coordinator writes it, told move by move."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from pioche_tui.cli import main
from pioche_tui.engine import GAMES
from pioche_tui.store import retention
from pioche_tui.store.log import LogWriter

SEATS = [{"kind": "player", "name": "Alice", "identity": "SHA256:a", "bot": "basic"},
         {"kind": "bot", "name": "Basile", "identity": None, "bot": "random"}]


def write_game(path: Path, seed: int = 3, name: str = "defausse") -> int:
    game = GAMES[name]
    options = game.options({"single_round": True})
    state = game.new_game(2, options, seed)
    writer = LogWriter.create(path, {"table": "ABCD", "game": name, "options": options,
                                     "seed": seed, "seats": SEATS})
    rng = random.Random(seed)
    steps = 0
    while actors := game.to_act(state):
        legal = game.legal_actions(state, actors[0])
        action = legal[rng.randrange(len(legal))]
        game.apply(state, actors[0], action)
        writer.append_action(actors[0], game.action_to_wire(action))
        steps += 1
    writer.end("finished")
    writer.close()
    return steps


def test_a_game_told_as_a_spectator_names_no_hidden_card(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ABCD.log"
    steps = write_game(path)
    assert main(["replay", str(path), "--lang", "fr"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Défausse · table ABCD")
    numbered = [line for line in out.splitlines() if re.match(r"\s*\d+ ", line)]
    assert len(numbered) == steps  # one line per move
    assert "pioche 1 carte" in out and "pioche 1 carte :" not in out  # drawn, never named
    assert "partie terminée" in out and "Gagnant" in out


def test_a_collection_game_is_told_from_its_first_round(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ABCD.log"
    write_game(path, name="collection")
    assert main(["replay", str(path), "--lang", "fr"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Collection · table ABCD")
    assert "  Manche 1 : Alice commence." in lines[1:4]


def test_a_seat_sees_its_own_draws_only(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ABCD.log"
    write_game(path)
    assert main(["replay", str(path), "--seat", "0", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    named = [line for line in out.splitlines() if "draws 1 card:" in line]
    assert named and all("Alice draws" in line for line in named)
    assert "Basile draws 1 card:" not in out


def test_a_torn_log_is_told_up_to_its_last_whole_move(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ABCD.log"
    write_game(path)
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2])
    assert main(["replay", str(path), "--lang", "fr"]) == 0
    out = capsys.readouterr().out
    assert "partie en cours après" in out


def test_what_is_not_a_log_is_said_so(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nope.log"
    path.write_bytes(b"not a log at all")
    assert main(["replay", str(path)]) == 1
    assert "pioche replay:" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "missing.log")]) == 1


def test_a_compacted_log_is_told_the_same_and_a_removed_one_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ABCD.log"
    write_game(path)
    assert main(["replay", str(path), "--lang", "fr"]) == 0
    told = capsys.readouterr().out
    [compacted] = retention.compact_all([path], retention.PassReport())
    path.unlink()
    assert compacted.path.name == "ABCD.log.gz" and compacted.size_out < compacted.size_in
    # The name the log was written under finds its compacted copy; so does the copy's own.
    for name in (path, compacted.path):
        assert main(["replay", str(name), "--lang", "fr"]) == 0
        assert capsys.readouterr().out == told
    compacted.path.unlink()
    assert main(["replay", str(path)]) == 1
    assert "removed after the server's retention" in capsys.readouterr().err
