"""How long ended tables' logs are kept: compacted once the table has ended, removed past a
retention. Results stay in SQLite for good.

A table's log (``tables/ID.log``, :mod:`.log`) is written while the table is played and brings
it back after a restart. Once the table has ended — finished (its result is in SQLite) or closed
unfinished (abandoned: everyone left after a player had moved; a table closed before any player
moved has its log removed by the coordinator as it closes) — only ``pioche replay`` reads it. A
retention pass:

- compacts each ended log with gzip into ``ID.log.gz`` (a finished game) or
  ``ID.closed.log.gz`` (an abandoned one), keeping the log's modification time (its last
  record's, the table's end): retention counts from there;
- removes compacted logs older than their retention: ``Retention.finished`` for finished games
  (30 days by default), ``Retention.abandoned`` for abandoned ones (7 days).

It never touches the log of a live table, nor a log that has not ended (a table to restore at the
next start, or one that could not be restored: the operator's to look at). The work is plain
blocking file work, in the functions below; the coordinator runs them in a thread, batch by batch,
and keeps the database's ``games.log_file`` in step between batches
(``Coordinator.retention_pass``).
"""

from __future__ import annotations

import gzip
import logging
import os
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from .log import END, LogError, _fsync_dir, read_log

log = logging.getLogger("pioche.retention")

LOG = ".log"
FINISHED = ".log.gz"
ABANDONED = ".closed.log.gz"
PART = ".part"  # a compacted copy being written (a leftover of a crash is removed)
BATCH = 64  # files per step in a thread; the coordinator's loop runs between steps

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Retention:
    """Seconds an ended log is kept, from its end."""

    finished: float
    abandoned: float


@dataclass(frozen=True, slots=True)
class Compacted:
    table_id: str
    finished: bool
    original: Path
    path: Path
    size_in: int  # bytes of the log as written
    size_out: int  # bytes of the compacted copy


@dataclass
class PassReport:
    compacted: int = 0
    bytes_in: int = 0  # the compacted logs as written
    bytes_out: int = 0  # the same, compacted
    removed: int = 0
    bytes_removed: int = 0


def log_names(table_id: str) -> tuple[str, str, str]:
    """Every name a table's log may have under ``tables/``."""
    return f"{table_id}{LOG}", f"{table_id}{FINISHED}", f"{table_id}{ABANDONED}"


def table_id(path: Path) -> str:
    name = path.name
    for suffix in (ABANDONED, FINISHED, LOG):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def is_finished(path: Path) -> bool:
    """A compacted log of a finished game (it has a result in SQLite)."""
    return path.name.endswith(FINISHED) and not path.name.endswith(ABANDONED)


def batches(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def not_live(tables_dir: Path, live: Collection[str]) -> list[Path]:
    """Logs as written whose table is not live: those that have ended are to be compacted
    (blocking, from the directory listing: run it in a thread)."""
    with os.scandir(tables_dir) as entries:
        return sorted(Path(e.path) for e in entries
                      if e.name.endswith(LOG) and e.name[: -len(LOG)] not in live)


def expired(tables_dir: Path, now: float, keep: Retention) -> list[Path]:
    """Compacted logs past their retention, and copies left half-written by a crash
    (blocking: run it in a thread)."""
    found: list[Path] = []
    with os.scandir(tables_dir) as entries:
        for entry in entries:
            name = entry.name
            if name.endswith(PART):
                found.append(Path(entry.path))
                continue
            if name.endswith(ABANDONED):
                kept = keep.abandoned
            elif name.endswith(FINISHED):
                kept = keep.finished
            else:
                continue
            try:
                if now - entry.stat().st_mtime >= kept:
                    found.append(Path(entry.path))
            except FileNotFoundError:
                continue
    return sorted(found)


def compact(path: Path) -> Compacted | None:
    """Write the gzip copy of ``path`` if its table has ended (None otherwise), with the same
    modification time. The original stays: the caller removes it once the database names the
    copy. The directory is not synced here (``compact_all`` does it once per batch)."""
    try:
        stat = path.stat()
        contents = read_log(path)
    except (OSError, LogError):
        return None  # gone meanwhile, or not a log we can read: not ours to touch
    if not contents.ended:
        return None
    finished = contents.records[-1] == [END, "finished"]
    tid = table_id(path)
    target = path.with_name(f"{tid}{FINISHED if finished else ABANDONED}")
    packed = gzip.compress(path.read_bytes()[: contents.valid_bytes], compresslevel=9, mtime=0)
    part = target.with_name(target.name + PART)
    # Written under another name, flushed, then renamed: a crash leaves either no copy or a
    # whole one (and the original, compacted again at the next pass).
    with part.open("wb") as out:
        out.write(packed)
        out.flush()
        os.fsync(out.fileno())
    os.utime(part, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    part.replace(target)
    return Compacted(tid, finished, path, target, stat.st_size, len(packed))


def compact_all(paths: Iterable[Path], report: PassReport) -> list[Compacted]:
    done: list[Compacted] = []
    for path in paths:
        try:
            compacted = compact(path)
        except OSError as e:  # e.g. a full disk: the log stays as it is, for the next pass
            log.warning("cannot compact %s: %s", path.name, e)
            continue
        if compacted is not None:
            done.append(compacted)
            report.compacted += 1
            report.bytes_in += compacted.size_in
            report.bytes_out += compacted.size_out
    if done:
        _fsync_dir(done[0].path.parent)  # the new names survive a crash
    return done


def remove_all(paths: Iterable[Path], report: PassReport | None) -> None:
    for path in paths:
        try:
            size = path.stat().st_size
            path.unlink()
        except FileNotFoundError:
            continue
        except OSError as e:
            log.warning("cannot remove %s: %s", path.name, e)
            continue
        if report is not None:
            report.removed += 1
            report.bytes_removed += size
