"""Table logs: one append-only msgpack file per table.

A log is a stream of msgpack values, one per record:

- first, the header: a dict with ``type: "header"``, the schema version ``v``, the table's id,
  game, options, seed and seats, and whatever else the coordinator needs to rebuild the table;
- then one record per accepted action, ``["a", seat, action_wire]``, or
  ``["a", seat, action_wire, 1]`` when a player's stand-in made it (the turn timer's, or while
  they were away, or for good once they left): the ratings count who made each player's
  decisions (``coordinator/ratings.py``); logs written before that mark read as players' own;
- seat changes, ``["s", seat, seat_dict]`` (a bot takes a seat for good, a player leaves);
- last, when the table is over, ``["end", reason]``.

Each record is written and fsync'd before the action is acknowledged to anyone, so what a player
saw is on disk. A crash can leave a torn last record (or a tail of zeros on some file systems):
:func:`read_log` keeps every complete, well-formed record before it and reports the rest as
dropped, and :class:`LogWriter` cuts such a tail before appending again.

A write that fails while the process lives (a full disk, a quota, a file-size limit, an I/O
error; a short write or a failed fsync) is cut off at once: the writer truncates the file back to
the end of its last good record, so the next record never lands after torn bytes. Until that cut
has succeeded the writer appends nothing (docs/reliability.md, round two, item 3).

The game's actions are encoded by the engine (``Game.action_to_wire``); this module knows nothing
of any game.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gzip
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

import msgpack

SCHEMA_VERSION = 1
GZIP_MAGIC = b"\x1f\x8b"

ACTION = "a"
SEAT = "s"
END = "end"


class LogError(Exception):
    """A log that cannot be used at all (no valid header, unknown schema)."""


@dataclass
class LogContents:
    header: dict[str, Any]
    records: list[list[Any]] = field(default_factory=list)
    valid_bytes: int = 0  # length of the well-formed prefix
    dropped_bytes: int = 0  # torn or malformed tail

    @property
    def ended(self) -> bool:
        return bool(self.records) and self.records[-1][0] == END

    def actions(self) -> Iterator[tuple[int, Any]]:
        for record in self.records:
            if record[0] == ACTION:
                yield record[1], record[2]


def by_stand_in(record: list[Any]) -> bool:
    """An action record a player's stand-in made (``LogWriter.append_action``)."""
    return len(record) == 4 and record[3] == 1


def _valid_record(value: Any) -> bool:
    if not isinstance(value, list) or not value:
        return False
    kind = value[0]
    if kind == ACTION:
        return len(value) in (3, 4) and isinstance(value[1], int)
    if kind == SEAT:
        return len(value) == 3 and isinstance(value[1], int) and isinstance(value[2], dict)
    if kind == END:
        return len(value) == 2 and isinstance(value[1], str)
    return False


def read_log(path: Path) -> LogContents:
    """Read a log, keeping the longest well-formed prefix. A log compacted with gzip (an ended
    table's, ``store/retention.py``) is read the same.

    Raises LogError when even the header is missing or of an unknown schema.
    """
    data = path.read_bytes()
    if data[:2] == GZIP_MAGIC:  # a log as written starts with a msgpack map, never 0x1f
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as e:
            raise LogError(f"{path.name}: damaged compressed log: {e}") from e
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=True, use_list=True)
    unpacker.feed(data)
    header: dict[str, Any] | None = None
    records: list[list[Any]] = []
    valid = 0
    try:
        for value in unpacker:
            if header is None:
                if not (isinstance(value, dict) and value.get("type") == "header"):
                    raise LogError(f"{path.name}: no header")
                if value.get("v") != SCHEMA_VERSION:
                    version = value.get("v")
                    raise LogError(f"{path.name}: schema {version!r}, not {SCHEMA_VERSION}")
                header = value
            elif not _valid_record(value) or (records and records[-1][0] == END):
                break
            else:
                records.append(value)
            valid = unpacker.tell()
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError):
        pass  # a malformed byte sequence: everything before it stands
    if header is None:
        raise LogError(f"{path.name}: no complete header")
    return LogContents(header, records, valid, len(data) - valid)


class TableLog(Protocol):
    """What a table writes its log through: :class:`LogWriter` (a file, the default) or
    ``jslog.JetStreamLog`` (a JetStream stream, ``--logs jetstream``).

    ``immediate``: each ``append_*`` returns None once its record is durable, and raises
    OSError (with the log as it was) if it cannot be; the table then acts on the spot, as it
    always has. Otherwise (JetStream) ``append_*`` returns at once with a future, resolved once
    the record is durable or failed with the reason; records are written in the order given,
    and a failed one fails every one after it (``coordinator/table.py`` says what a table does
    meanwhile)."""

    immediate: ClassVar[bool]

    @property
    def closed(self) -> bool: ...
    def append_action(self, seat: int, action_wire: Any, stand_in: bool = False
                      ) -> asyncio.Future[None] | None: ...
    def append_seat(self, seat: int, info: dict[str, Any]) -> asyncio.Future[None] | None: ...
    def end(self, reason: str) -> asyncio.Future[None] | None: ...
    def read_back(self) -> list[list[Any]]:
        """The records after the header that the log holds (the file's read again)."""
        ...
    def probe(self) -> asyncio.Future[int] | None:
        """After a failure: whether the log takes records again (immediate: raises OSError if
        not). Not immediate: a future of the count of records it settled into the log (a
        failed one that is in the log after all: the table replays its log then)."""
        ...
    def close(self) -> None: ...


class LogWriter:
    """Appends records to one table's log, each one on disk before ``append`` returns.

    Any failure leaves the file as it was after the last good record (or says it could not):
    ``good`` is that record's end, ``torn`` whether bytes past it may still be in the file.
    """

    immediate: ClassVar[bool] = True  # (TableLog)

    def __init__(self, path: Path, fd: int, good: int) -> None:
        self.path = path
        self._fd = fd
        self._pack = msgpack.Packer(use_bin_type=True).pack
        self.good = good  # bytes of the file that hold whole, fsync'd records
        self.torn = False  # bytes past ``good`` may be in the file: cut them before appending
        self._last = 1  # the length of the last record tried (what a probe writes)

    @classmethod
    def create(cls, path: Path, header: dict[str, Any]) -> LogWriter:
        """A new log holding ``header``; fails if the file exists (table ids are unique).

        If the header cannot be written whole, the file is removed again and the error raised:
        a log is either absent or starts with its whole header."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
        writer = cls(path, fd, 0)
        try:
            writer._write({"type": "header", "v": SCHEMA_VERSION, **header})
            _fsync_dir(path.parent)  # the new name itself must survive a crash
        except OSError:
            writer.close()
            path.unlink(missing_ok=True)
            raise
        return writer

    @classmethod
    def reopen(cls, path: Path, contents: LogContents) -> LogWriter:
        """Append to an existing log, first cutting off a torn tail found by read_log."""
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        writer = cls(path, fd, contents.valid_bytes)
        if contents.dropped_bytes:
            try:
                writer.cut()
            except OSError:
                writer.close()
                raise
        return writer

    def append_action(self, seat: int, action_wire: Any, stand_in: bool = False) -> None:
        """``stand_in``: a player's stand-in made this move, not the player (nor a bot seat's
        own bot)."""
        self._write([ACTION, seat, action_wire, 1] if stand_in else [ACTION, seat, action_wire])

    def append_seat(self, seat: int, info: dict[str, Any]) -> None:
        self._write([SEAT, seat, info])

    def end(self, reason: str) -> None:
        self._write([END, reason])

    def _write(self, value: Any) -> None:
        # One write() call per record: O_APPEND keeps it whole unless the process dies inside it,
        # which read_log then detects as a torn tail. fsync here costs about 0.1 ms on this
        # machine's disk (docs/performance.md); it is what makes "acknowledged" mean "on disk".
        data = self._pack(value)
        self._last = len(data)
        self._put(data)
        self.good += len(data)

    def _put(self, data: bytes) -> None:
        """Write ``data`` at the end and fsync it, or leave the file at ``good`` and raise."""
        if self._fd < 0:
            raise OSError(errno.EBADF, f"{self.path.name} is closed")
        if self.torn:
            self.cut()
        self.torn = True  # until these bytes are whole and on disk
        try:
            written = os.write(self._fd, data)
            if written != len(data):  # disk full, quota, size limit: the tail is torn
                raise OSError(errno.ENOSPC, f"short write to {self.path.name}: {written} of "
                                            f"{len(data)} bytes")
            # A failed fsync leaves the kernel's pages in an unknown state (they may be marked
            # clean without being on disk, and a second fsync would then succeed): this record
            # is not durable, whatever a retry says. It is cut off like a short write.
            os.fsync(self._fd)
        except OSError:
            with contextlib.suppress(OSError):  # if not, still torn: the next write cuts first
                self.cut()
            raise
        self.torn = False

    def read_back(self) -> list[list[Any]]:
        return read_log(self.path).records

    def cut(self) -> None:
        """Truncate the file back to its last good record, on disk before returning."""
        os.ftruncate(self._fd, self.good)
        os.fsync(self._fd)
        self.torn = False

    def probe(self) -> None:
        """Whether the file takes a record again (after a failure): write as many bytes as the
        last record tried, fsync, then cut them off. Raises OSError if the disk still refuses.

        The probe's bytes are zeros: if the process dies before they are cut, :func:`read_log`
        drops them as a torn tail, as it drops any."""
        self._put(bytes(self._last))
        self.cut()

    @property
    def closed(self) -> bool:
        return self._fd < 0

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
