"""One process per data directory: the process that opens a data directory (``pioche serve``,
``pioche play``) holds an OS lock on its ``pioche.lock`` file until it exits.

Two coordinators over one directory would each restore the same tables and run their bots and
turn timers, appending moves to the same logs; so the second process is refused before it
reads or writes anything, with the first one's pid and command line in the message.

The lock is ``flock`` on the file: the kernel drops it when its holder exits, even killed, so a
crash never leaves the directory locked. The file itself stays (removing it would let two
processes lock two different files of the same name); it holds one JSON line naming the
holder, emptied when the holder lets go.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LOCK_NAME = "pioche.lock"
READ_TRIES = 10  # a holder writes its line just after it locks: a reader may come in between


@dataclass(frozen=True, slots=True)
class Holder:
    """The process that holds a data directory, as its lock file names it."""

    pid: int | None
    command: str
    since: str  # UTC, ISO 8601

    def describe(self) -> str:
        """« process 1234 (pioche serve --port 2222), since 2026-12-01T17:50:00Z »."""
        if self.pid is None:
            return "another process"
        text = f"process {self.pid}"
        if self.command:
            text += f" ({self.command})"
        if self.since:
            text += f", since {self.since}"
        return text


class DataDirBusy(Exception):
    """Another process holds the data directory; ``holder`` says which."""

    def __init__(self, data_dir: Path, holder: Holder) -> None:
        self.data_dir = data_dir
        self.holder = holder
        super().__init__(f"the data directory {data_dir} is in use by {holder.describe()}")


class DataDirLock:
    """Held from :meth:`acquire` to :meth:`release` (or the process's end)."""

    def __init__(self, path: Path, fd: int, owner: bool = True) -> None:
        self.path = path
        self._fd: int | None = fd
        self._owner = owner  # False: handed down by the holder (``adopt``), who empties the file

    @property
    def fd(self) -> int:
        """The locked file's descriptor, for a child process to be handed (``pass_fds``):
        the lock belongs to the open file, so the child holds it as long as any holder does."""
        if self._fd is None:
            raise ValueError("the lock was released")
        return self._fd

    @classmethod
    def adopt(cls, data_dir: Path, fd: int) -> DataDirLock:
        """The lock of ``data_dir`` handed down as the open descriptor ``fd`` by the process
        that took it (``pioche serve --workers`` to its coordinator: ``--lock-fd``). Checked:
        ``fd`` must be that directory's lock file, locked (ValueError otherwise: the caller
        has been handed something else, and must not run on the directory)."""
        path = data_dir / LOCK_NAME
        try:
            held, named = os.fstat(fd), os.stat(path)
        except OSError as error:
            raise ValueError(f"lock fd {fd}: {error}") from error
        if (held.st_dev, held.st_ino) != (named.st_dev, named.st_ino):
            raise ValueError(f"lock fd {fd} is not {path}")
        # flock again on the same open file: a no-op if it holds the lock already (taken if
        # nobody does), refused if another open file holds it.
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            raise ValueError(f"lock fd {fd} does not hold {path}") from error
        os.set_inheritable(fd, False)
        return cls(path, fd, owner=False)

    @classmethod
    def acquire(cls, data_dir: Path, command: str | None = None) -> DataDirLock:
        """Lock ``data_dir`` (created if missing) for this process, or raise DataDirBusy
        having changed nothing. ``command`` names this process for the next one to come (by
        default ``pioche`` and this process's arguments)."""
        data_dir.mkdir(parents=True, exist_ok=True)
        path = data_dir / LOCK_NAME
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise DataDirBusy(data_dir, holder) from None
        except BaseException:
            os.close(fd)
            raise
        if command is None:
            command = shlex.join(["pioche", *sys.argv[1:]])
        line = json.dumps({
            "pid": os.getpid(), "command": command,
            "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }) + "\n"
        os.ftruncate(fd, 0)
        os.pwrite(fd, line.encode(), 0)
        return cls(path, fd)

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        if self._owner:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)  # (the lock still held: nobody reads a half-emptied line)
        os.close(fd)  # closing the file lets go of the lock (adopted: the holder still has it)

    def __enter__(self) -> DataDirLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _read_holder(fd: int) -> Holder:
    data: Any = None
    for attempt in range(READ_TRIES):
        raw = os.pread(fd, 4096, 0)
        try:
            data = json.loads(raw.decode("utf-8", "replace"))
            break
        except ValueError:
            if attempt + 1 < READ_TRIES:
                time.sleep(0.02)
    if not isinstance(data, dict):
        return Holder(None, "", "")
    pid = data.get("pid")
    return Holder(pid if isinstance(pid, int) else None, str(data.get("command", "")),
                  str(data.get("since", "")))
