"""``pioche serve`` as a real process, serving the demo app on 127.0.0.1, and a client that
logs in as OpenSSH does (for tests and benchmarks)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncssh

ROOT = Path(__file__).resolve().parents[2]


class LikeOpenSSH(asyncssh.SSHClient):
    """Tries keyboard-interactive auth with no password, as OpenSSH's client does: with no key,
    a guest."""

    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: Any
    ) -> list[str]:
        return ["" for _prompt in prompts]


def loopback(n: int) -> str:
    """The ``n``-th of many loopback addresses (127.0.1.1, 127.0.1.2, …; Linux answers on all
    of 127/8): benchmarks give each client its own, as players have, so that the server's
    per-address limits (connections, CPU budget) apply to each alone. 127.0.0.1 is left to
    the tests and to attackers."""
    return f"127.0.{1 + n // 250}.{1 + n % 250}"


def reset(conn: asyncssh.SSHClientConnection) -> None:
    """Drop the connection with a TCP reset (linger 0), as a crashed machine's kernel would."""
    sock = conn.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.abort()

DEMO_APP = "tests.server.demo_app:open_service"

async def bare_session(conn: asyncssh.SSHClientConnection) -> asyncssh.SSHClientChannel[bytes]:
    """Open a session channel and ask for nothing on it: no pty, no shell, no command (asyncssh's
    ``create_session`` always asks; an attacker need not)."""
    chan: asyncssh.SSHClientChannel[bytes] = asyncssh.SSHClientChannel(
        conn, asyncio.get_running_loop(), "strict", None, "strict", 2**21, 32768
    )
    await chan._open(b"session")
    return chan


_LISTENING = re.compile(
    r"Pioche listening on 127\.0\.0\.1 port (\d+); host key (SHA256:[A-Za-z0-9+/=]+)")


@dataclass
class ServeProcess:
    process: subprocess.Popen[bytes]
    port: int
    fingerprint: str
    keys_dir: Path
    log: Path
    workers: int | None = None

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def wait(self, timeout: float = 20.0) -> int:
        return self.process.wait(timeout)

    def tree(self) -> dict[str, list[int]]:
        """With ``--workers``: the processes under this one by role (``nats-server``,
        ``coordinator``, ``front``), the pids in order."""
        roles: dict[str, list[int]] = {}
        for pid, argv in descendants(self.process.pid).items():
            roles.setdefault(role(argv), []).append(pid)
        return {name: sorted(pids) for name, pids in roles.items()}


def processes() -> dict[int, tuple[int, list[str]]]:
    """Every process of the machine: its parent's pid and its command line (from /proc)."""
    found: dict[int, tuple[int, list[str]]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
            argv = Path(entry.path, "cmdline").read_bytes().split(b"\0")
        except OSError:  # (gone meanwhile)
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # (after the name, which may hold spaces)
        if fields[0] == "Z":
            continue  # (a zombie: exited, not yet reaped)
        found[int(entry.name)] = (int(fields[1]), [a.decode(errors="replace") for a in argv if a])
    return found


def descendants(pid: int) -> dict[int, list[str]]:
    """The processes under ``pid`` (children, theirs…), with their command lines."""
    table = processes()
    under: dict[int, list[str]] = {}
    parents = {pid}
    while True:
        found = {child: argv for child, (parent, argv) in table.items()
                 if parent in parents and child not in under}
        if not found:
            return under
        under.update(found)
        parents = set(found)


def role(argv: list[str]) -> str:
    """``nats-server``, ``coordinator``, ``front`` or the command itself."""
    if argv and Path(argv[0]).name == "nats-server":
        return "nats-server"
    for word in ("coordinator", "front"):
        if word in argv[1:5]:
            return word
    return " ".join(argv)


def alive(pids: Sequence[int]) -> list[int]:
    """Those of ``pids`` still running (not zombies)."""
    table = processes()
    return [pid for pid in pids if pid in table]


def wait_gone(pids: Sequence[int], timeout: float = 30.0) -> list[int]:
    """Wait until none of ``pids`` runs; those still running after ``timeout``."""
    deadline = time.monotonic() + timeout
    while (left := alive(pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def holder_of(conn: asyncssh.SSHClientConnection, pids: Sequence[int]) -> int:
    """Which of ``pids`` holds the server's end of the client's connection ``conn`` (a front
    of ``--workers``): the socket of /proc/net/tcp from the server's port to the client's, and
    the process with a descriptor on it."""
    client_port = conn.get_extra_info("sockname")[1]
    server_port = conn.get_extra_info("peername")[1]
    inode = None
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote = (int(address.split(":")[1], 16) for address in fields[1:3])
        if (local, remote) == (server_port, client_port):
            inode = fields[9]
    assert inode is not None, "no server socket for this connection"
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in os.scandir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    if os.readlink(fd.path) == f"socket:[{inode}]":
                        return pid
    raise AssertionError(f"none of {pids} holds the connection")


@contextmanager
def serve_process(
    tmp_path: Path, *extra: str, python: Sequence[str] = (sys.executable,), app: str = DEMO_APP,
    workers: int | None = None,
) -> Iterator[ServeProcess]:
    """Start ``pioche serve --port 0`` and wait until it says where it listens. ``python`` runs
    the module (a profiler's command line in front of it, for benchmarks); ``app`` is what it
    serves (``server.serve.DEFAULT_APP`` for the real game); ``workers``: ``--workers N`` (the
    real game only), and at the end the whole tree is stopped."""
    log = tmp_path / "serve.log"
    keys_dir = tmp_path / "keys"
    command = [
        *python, "-m", "pioche_tui.cli", "serve", "--host", "127.0.0.1", "--port", "0",
        "--keys-dir", str(keys_dir), "--data-dir", str(tmp_path / "data"),
        "--app", app, *extra, *(("--workers", str(workers)) if workers is not None else ()),
    ]
    with log.open("wb") as log_file:
        process = subprocess.Popen(
            command, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file
        )
    try:
        deadline = time.monotonic() + 60  # (a tree's imports, on a busy machine)
        while not (found := _LISTENING.search(log.read_text(errors="replace"))):
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"pioche serve did not start:\n{log.read_text()}")
            time.sleep(0.05)
        yield ServeProcess(process, int(found[1]), found[2], keys_dir, log, workers)
    finally:
        if process.poll() is None:
            under = descendants(process.pid)
            if under:  # the tree: stopped in order, or else every process of it killed
                process.send_signal(signal.SIGTERM)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(30)
            if process.poll() is None:
                process.kill()
                process.wait()
            for pid in wait_gone(list(under), 10):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
