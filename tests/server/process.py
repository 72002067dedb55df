"""``pioche serve`` as a real process, serving the demo app on 127.0.0.1, and a client that
logs in as OpenSSH does (for tests and benchmarks)."""

from __future__ import annotations

import asyncio
import re
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


_LISTENING = re.compile(r"listening on 127\.0\.0\.1 port (\d+); host key (SHA256:\S+)")


@dataclass
class ServeProcess:
    process: subprocess.Popen[bytes]
    port: int
    fingerprint: str
    keys_dir: Path
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def wait(self, timeout: float = 20.0) -> int:
        return self.process.wait(timeout)


@contextmanager
def serve_process(
    tmp_path: Path, *extra: str, python: Sequence[str] = (sys.executable,), app: str = DEMO_APP,
) -> Iterator[ServeProcess]:
    """Start ``pioche serve --port 0`` and wait until it says where it listens. ``python`` runs
    the module (a profiler's command line in front of it, for benchmarks); ``app`` is what it
    serves (``server.serve.DEFAULT_APP`` for the real game)."""
    log = tmp_path / "serve.log"
    keys_dir = tmp_path / "keys"
    command = [
        *python, "-m", "pioche_tui.cli", "serve", "--host", "127.0.0.1", "--port", "0",
        "--keys-dir", str(keys_dir), "--data-dir", str(tmp_path / "data"),
        "--app", app, *extra,
    ]
    with log.open("wb") as log_file:
        process = subprocess.Popen(
            command, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file
        )
    try:
        deadline = time.monotonic() + 30
        while not (found := _LISTENING.search(log.read_text(errors="replace"))):
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"pioche serve did not start:\n{log.read_text()}")
            time.sleep(0.05)
        yield ServeProcess(process, int(found[1]), found[2], keys_dir, log)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
