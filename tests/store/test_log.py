"""Table logs: real msgpack files, torn tails, reopening."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pioche_tui.store.log import LogError, LogWriter, by_stand_in, read_log

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


def test_a_stand_ins_move_is_marked_and_read_back(tmp_path: Path) -> None:
    """The ratings count who made each move (coordinator/ratings.py): a stand-in's move has
    a fourth item; a log from before that mark reads as the players' own moves."""
    path = tmp_path / "t1.log"
    w = LogWriter.create(path, HEADER)
    w.append_action(0, ["draw"])
    w.append_action(1, ["draw"], stand_in=True)
    w.append_action(1, ["keep"])
    w.close()
    log = read_log(path)
    assert [by_stand_in(r) for r in log.records] == [False, True, False]
    assert list(log.actions()) == [(0, ["draw"]), (1, ["draw"]), (1, ["keep"])]
    assert log.dropped_bytes == 0
    write_sample(tmp_path / "t2.log")
    assert not any(by_stand_in(r) for r in read_log(tmp_path / "t2.log").records)


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


# --- writes that fail while the process lives (issue 12, item 3) ----------------------------

# A child process that limits its own file size (RLIMIT_FSIZE; Python ignores SIGXFSZ, so a write
# past the limit is cut short, then refused with EFBIG, as on a full disk), appends until the log
# refuses, probes while the limit holds, lifts it, probes and appends again.
LIMITED_WRITER = """
import resource, sys
from pathlib import Path
from pioche_tui.store.log import LogWriter
path, header = Path(sys.argv[1]), {"table": "t1", "seats": []}
w = LogWriter.create(path, header)
w.append_action(0, ["draw"])
resource.setrlimit(resource.RLIMIT_FSIZE, (path.stat().st_size + 20, resource.RLIM_INFINITY))
written = 0
try:
    while True:
        w.append_action(1, ["play", written, None, False])
        written += 1
except OSError as e:
    print("refused", written, e.errno, path.stat().st_size == w.good, w.torn)
try:
    w.probe()
except OSError:
    print("probe refused", path.stat().st_size == w.good)
resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
w.probe()
w.append_action(0, ["keep"])
w.close()
"""


def test_a_write_cut_short_leaves_the_log_at_its_last_good_record(tmp_path: Path) -> None:
    path = tmp_path / "t1.log"
    done = subprocess.run([sys.executable, "-c", LIMITED_WRITER, str(path)], check=True,
                          capture_output=True, text=True, timeout=30)
    refused, probe = done.stdout.splitlines()
    words = refused.split()
    written = int(words[1])
    # The record that did not fit was cut off (the short write left part of it), the file
    # ends at the last good record, nothing left torn; the probe while refused changed nothing.
    assert words[0] == "refused" and written >= 1 and words[3:] == ["True", "False"]
    assert probe == "probe refused True"
    log = read_log(path)
    assert log.dropped_bytes == 0
    assert list(log.actions()) == [
        (0, ["draw"]), *((1, ["play", i, None, False]) for i in range(written)), (0, ["keep"])]


def fsync_failing(monkeypatch: pytest.MonkeyPatch, times: int) -> list[int]:
    """The next ``times`` fsyncs fail with EIO (a disk's write-back error); the failed calls'
    descriptors are listed."""
    real = os.fsync
    failed: list[int] = []

    def fsync(fd: int) -> None:
        if len(failed) < times:
            failed.append(fd)
            raise OSError(errno.EIO, "Input/output error")
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return failed


def test_a_failed_fsync_cuts_the_record_off(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.log"
    w = LogWriter.create(path, HEADER)
    w.append_action(0, ["draw"])
    good = path.stat().st_size
    failed = fsync_failing(monkeypatch, 1)
    with pytest.raises(OSError):
        w.append_action(1, ["draw"])  # written whole, but not known to be on disk
    assert failed and path.stat().st_size == good == w.good and not w.torn
    w.append_action(1, ["keep"])
    w.close()
    assert list(read_log(path).actions()) == [(0, ["draw"]), (1, ["keep"])]


def test_a_cut_that_fails_too_is_made_before_the_next_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.log"
    w = LogWriter.create(path, HEADER)
    good = path.stat().st_size
    fsync_failing(monkeypatch, 2)  # the record's fsync, then the cut's
    with pytest.raises(OSError):
        w.append_action(0, ["draw"])
    assert w.torn  # the bytes may still be there: nothing is appended after them
    w.append_action(0, ["keep"])
    w.close()
    assert path.stat().st_size > good
    log = read_log(path)
    assert log.dropped_bytes == 0 and list(log.actions()) == [(0, ["keep"])]


def test_a_header_that_cannot_be_written_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.log"
    fsync_failing(monkeypatch, 1)
    with pytest.raises(OSError):
        LogWriter.create(path, HEADER)
    assert not path.exists()
    LogWriter.create(path, HEADER).close()  # the id is free again
    assert read_log(path).header["table"] == "t1"
