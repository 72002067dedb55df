"""Two ``pioche serve`` processes on one port (``--reuse-port``, for the fronts of ``--workers``):
both accept connections, and their session ids never collide (each process prefixes its own).

Real processes serving the demo app, real SSH clients with a pty; which process answered is
told by its host key (each has its own keys directory).
"""

from __future__ import annotations

import os
import re
import socket
import sys
from pathlib import Path

import asyncssh
import pytest

from server.session import new_session_id, process_tag
from tests.server.conftest import Client
from tests.server.process import LikeOpenSSH, serve_process

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not hasattr(socket, "SO_REUSEPORT"),
    reason="SO_REUSEPORT spreading connections among processes is Linux's behaviour",
)

MAX_CONNECTIONS = 40
"""Connections tried until both processes have answered one. The kernel spreads them by a hash
of each one's addresses and ports: all 40 going to one process has a chance of 2**-39."""
SESSION_LINE = re.compile(r"session (\S+) from 127\.0\.0\.1")


async def play_once(port: int) -> str:
    """Open a session with a pty, wait for the app's screen, leave; the host key's fingerprint
    of the process that served it."""
    conn = await asyncssh.connect(
        "127.0.0.1", port, username="alice", known_hosts=None, agent_path=None, config=None,
        client_factory=LikeOpenSSH,
    )
    try:
        key = conn.get_server_host_key()
        assert key is not None
        _chan, client = await conn.create_session(
            Client, term_type="xterm-256color", term_size=(80, 24), encoding=None)
        await client.wait_for("pseudo : alice")
        return str(key.get_fingerprint("sha256"))
    finally:
        conn.close()
        await conn.wait_closed()


async def test_two_processes_share_a_port_and_both_serve(tmp_path: Path) -> None:
    for name in "ab":
        (tmp_path / name).mkdir()
    with serve_process(tmp_path / "a", "--reuse-port") as first, serve_process(
            tmp_path / "b", "--reuse-port", "--port", str(first.port)) as second:
        assert second.port == first.port
        answered: dict[str, int] = {}
        for _ in range(MAX_CONNECTIONS):
            fingerprint = await play_once(first.port)
            answered[fingerprint] = answered.get(fingerprint, 0) + 1
            if len(answered) == 2:
                break
        assert set(answered) == {first.fingerprint, second.fingerprint}, answered
        # Each process numbers its sessions from 1, under a prefix of its own.
        ids = [set(SESSION_LINE.findall(served.log_text())) for served in (first, second)]
        assert all(ids) and not ids[0] & ids[1], ids
        prefixes = [{i.rsplit("-", 1)[0] for i in found} for found in ids]
        assert all(len(p) == 1 for p in prefixes) and prefixes[0] != prefixes[1], prefixes


def test_without_the_flag_a_port_in_use_is_refused(tmp_path: Path) -> None:
    for name in "ab":
        (tmp_path / name).mkdir()
    with (serve_process(tmp_path / "a", "--reuse-port") as first,
          pytest.raises(AssertionError, match="cannot listen"),
          serve_process(tmp_path / "b", "--port", str(first.port))):
        pass


def test_session_ids_carry_the_process_tag_and_a_forked_child_draws_its_own() -> None:
    first, second = new_session_id(), new_session_id()
    tag = process_tag()
    assert first != second and first.startswith(f"{tag}-") and second.startswith(f"{tag}-")
    assert len(tag) == 8
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its first id, then gone without running pytest's exit
        os.write(write, new_session_id().encode())
        os._exit(0)
    os.close(write)
    child = os.read(read, 100).decode()
    os.close(read)
    os.waitpid(pid, 0)
    assert child.endswith("-1") and not child.startswith(f"{tag}-"), child
