"""The control socket: ``pioche admin`` on the server's machine talks to the running coordinator.

A Unix socket, ``DATA_DIR/control/admin.sock``, served by the coordinator's process (``pioche
serve``: the one process; ``--workers``: the coordinator's). Only the data directory's owner
may use it: the directory ``control`` is made 0700 (and made so again if it is not), the socket
0600, and each connection's peer is checked to run as the same user (``SO_PEERCRED``, Linux).

**Protocol**: one JSON object a line each way. A request ``{"action": ACTION, "target": TEXT,
"seconds": NUMBER or null}``; the answer ``{"ok": true, "result": …}`` or ``{"ok": false,
"error": TEXT}``. ACTION is ``online``, ``tables``, ``bans`` (what an admin's screen shows,
as lists of objects) or one of ``admin.ACTIONS`` (the result: what was done, in French). Each
action is logged as done by « console (USER) ».

A path longer than a Unix socket's address allows (108 bytes on Linux: a deep data directory)
is reached through the directory's descriptor (``/proc/self/fd/N/admin.sock``), on both sides.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import socket
import stat
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .admin import console_owner
from .model import Refused

if TYPE_CHECKING:
    from .core import Coordinator

log = logging.getLogger("pioche.admin")

SOCKET_NAME = "admin.sock"
MAX_LINE = 64 * 1024  # bytes of one request
IDLE = 30.0  # seconds a connection may stay silent
SUN_PATH_MAX = 100  # bytes of a socket path used as it is (sockaddr_un holds 108)


def socket_path(data_dir: Path) -> Path:
    return data_dir / "control" / SOCKET_NAME


@contextlib.contextmanager
def reachable(path: Path) -> Iterator[str]:
    """An address for the socket ``path``: itself, or through its directory's descriptor when
    it is too long (kept open meanwhile)."""
    if len(os.fsencode(path)) <= SUN_PATH_MAX or not Path("/proc/self/fd").is_dir():
        yield str(path)
        return
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield f"/proc/self/fd/{fd}/{path.name}"
    finally:
        os.close(fd)


def private_dir(directory: Path) -> None:
    """``directory`` exists, is this user's, and only theirs (0700). OSError (PermissionError)
    when it is someone else's."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = directory.stat()
    if info.st_uid != os.getuid():
        raise PermissionError(f"{directory} belongs to another user")
    if stat.S_IMODE(info.st_mode) != 0o700:
        directory.chmod(0o700)


def _peer_uid(writer: asyncio.StreamWriter) -> int | None:
    sock = writer.get_extra_info("socket")
    option = getattr(socket, "SO_PEERCRED", None)
    if sock is None or option is None:
        return None
    _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, option,
                                                          struct.calcsize("3i")))
    return int(uid)


class ControlServer:
    """The coordinator's end of ``pioche admin``: ``await start()``, then ``close()``."""

    def __init__(self, coordinator: Coordinator, data_dir: Path) -> None:
        self.coordinator = coordinator
        self.path = socket_path(data_dir)
        self._server: asyncio.AbstractServer | None = None

    async def start(self) -> bool:
        """Listen; False (logged) when the socket cannot be made: the game is served all the
        same, without ``pioche admin``."""
        try:
            private_dir(self.path.parent)
            # (the data directory is locked by this process: a socket left there is stale)
            self.path.unlink(missing_ok=True)
            with reachable(self.path) as address:
                old = os.umask(0o177)
                try:
                    self._server = await asyncio.start_unix_server(
                        self._serve, address, limit=MAX_LINE)
                finally:
                    os.umask(old)
            self.path.chmod(0o600)
        except OSError as error:
            log.error("no control socket (pioche admin will not reach this server): %s", error)
            return False
        log.info("control socket %s (pioche admin)", self.path)
        return True

    def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
            self.path.unlink(missing_ok=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            uid = _peer_uid(writer)
            if uid is not None and uid != os.getuid():
                log.warning("control socket: refused a connection of uid %d", uid)
                return
            while True:
                try:
                    line = await asyncio.wait_for(reader.readline(), IDLE)
                except (TimeoutError, ValueError):  # (ValueError: a line over MAX_LINE)
                    return
                if not line:
                    return
                writer.write(json.dumps(self.answer(line), ensure_ascii=False).encode()
                             + b"\n")
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    def answer(self, line: bytes) -> dict[str, Any]:
        """The answer to one request line; nothing a request holds can raise here."""
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise ValueError("not an object")
            action = request.get("action")
            target = request.get("target", "")
            seconds = request.get("seconds")
            if not isinstance(action, str) or not isinstance(target, str):
                raise ValueError("action and target must be strings")
            if seconds is not None and (isinstance(seconds, bool)
                                        or not isinstance(seconds, int | float)):
                raise ValueError("seconds must be a number or null")
        except ValueError as error:
            return {"ok": False, "error": f"bad request: {error}"}
        console = self.coordinator.console
        try:
            if action in ("online", "tables", "bans"):
                view = console.view()
                rows: dict[str, tuple[Any, ...]] = {
                    "online": view.sessions, "tables": view.tables, "bans": view.bans}
                return {"ok": True, "result": [dataclasses.asdict(row)
                                               for row in rows[action]],
                        "motd": view.motd}
            return {"ok": True, "result": console.act(console_owner(), action, target,
                                                      None if seconds is None
                                                      else float(seconds))}
        except Refused as refusal:
            return {"ok": False, "error": str(refusal)}
