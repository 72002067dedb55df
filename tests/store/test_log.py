"""Table logs: real msgpack files, torn tails, reopening."""

from __future__ import annotations

from pathlib import Path

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pioche_tui.store.log import LogError, LogWriter, read_log

HEADER = {"table": "t1", "game": "defausse", "options": {"target": 500}, "seed": 7, "seats": []}


def write_sample(path: Path, actions: int = 5) -> None:
    w = LogWriter.create(path, HEADER)
    for i in range(actions):
        w.append_action(i % 2, ["play", i, None, False])
    w.append_seat(1, {"kind": "bot", "bot": "basic"})
    w.close()


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "t1.log"
    write_sample(path)
    log = read_log(path)
    assert log.header["game"] == "defausse" and log.header["v"] == 1
    assert list(log.actions()) == [(i % 2, ["play", i, None, False]) for i in range(5)]
    assert log.records[-1] == ["s", 1, {"kind": "bot", "bot": "basic"}]
    assert log.dropped_bytes == 0 and not log.ended


def test_create_refuses_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "t1.log"
    write_sample(path)
    with pytest.raises(FileExistsError):
        LogWriter.create(path, HEADER)


@settings(max_examples=60, deadline=None)
@given(cut=st.integers(min_value=1, max_value=200))
def test_a_log_cut_anywhere_keeps_its_complete_records(tmp_path_factory: pytest.TempPathFactory,
                                                       cut: int) -> None:
    path = tmp_path_factory.mktemp("cut") / "t.log"
    write_sample(path, actions=8)
    full = path.read_bytes()
    whole = read_log(path)
    if cut >= len(full):
        return
    path.write_bytes(full[: len(full) - cut])
    header_len = len(msgpack.packb({"type": "header", "v": 1, **HEADER}))
    if len(full) - cut < header_len:
        with pytest.raises(LogError):
            read_log(path)
        return
    log = read_log(path)
    # the kept records are exactly a prefix of the original ones, and nothing else
    assert log.records == whole.records[: len(log.records)]
    assert log.valid_bytes + log.dropped_bytes == len(full) - cut
    assert len(log.records) < len(whole.records)


def test_a_tail_of_zeros_is_dropped_and_cut_on_reopen(tmp_path: Path) -> None:
    path = tmp_path / "t.log"
    write_sample(path, actions=3)
    size = path.stat().st_size
    with path.open("ab") as f:
        f.write(b"\x00" * 64)
    log = read_log(path)
    assert log.dropped_bytes == 64 and len(log.records) == 4
    w = LogWriter.reopen(path, log)
    w.append_action(0, ["draw"])
    w.close()
    again = read_log(path)
    assert again.dropped_bytes == 0
    assert again.records[-1] == ["a", 0, ["draw"]]
    assert path.stat().st_size > size


def test_a_torn_record_in_the_middle_of_a_write(tmp_path: Path) -> None:
    path = tmp_path / "t.log"
    write_sample(path, actions=2)
    record = msgpack.packb(["a", 0, ["play", 99, 2, True]])
    with path.open("ab") as f:
        f.write(record[: len(record) // 2])
    log = read_log(path)
    assert len(log.records) == 3 and log.dropped_bytes == len(record) // 2


def test_nothing_after_the_end_record_counts(tmp_path: Path) -> None:
    path = tmp_path / "t.log"
    w = LogWriter.create(path, HEADER)
    w.append_action(0, ["draw"])
    w.end("finished")
    w.append_action(1, ["draw"])
    w.close()
    log = read_log(path)
    assert log.ended and list(log.actions()) == [(0, ["draw"])]


def test_garbage_is_not_a_log(tmp_path: Path) -> None:
    path = tmp_path / "x.log"
    path.write_bytes(b"\xc1\xc1\xc1 not msgpack")
    with pytest.raises(LogError):
        read_log(path)
    path.write_bytes(msgpack.packb({"type": "header", "v": 99}))
    with pytest.raises(LogError, match="schema"):
        read_log(path)
