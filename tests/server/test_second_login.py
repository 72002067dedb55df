"""A second login with the same key replaces the first session (issue 14): the older one reads
why on its screen before its connection closes, and the line stays on its terminal after.

The real app (``pioche serve``) as a process, and two asyncssh clients with one key, for each
language; what the first client received is read as its terminal would show it.
"""

from __future__ import annotations

from pathlib import Path

import asyncssh
import pytest

from tests.server.conftest import Client
from tests.server.process import LikeOpenSSH, serve_process

APP = ("--app", "pioche_tui.app:open_service")
LEAVE_ALTERNATE_SCREEN = "\x1b[?1049l"


async def login(port: int, key: asyncssh.SSHKey, lang: str
                ) -> tuple[asyncssh.SSHClientConnection, Client]:
    conn = await asyncssh.connect(
        "127.0.0.1", port, username="alice", known_hosts=None, client_keys=[key],
        agent_path=None, config=None, client_factory=LikeOpenSSH,
    )
    _chan, client = await conn.create_session(
        Client, term_type="xterm-256color", term_size=(80, 24), encoding=None,
        env={"LANG": lang},
    )
    return conn, client


@pytest.mark.parametrize(("lang", "hello", "farewell"), [
    ("fr_FR.UTF-8", "Bonjour alice", "Vous vous êtes connecté ailleurs."),
    ("en_US.UTF-8", "Hello alice", "You connected from elsewhere."),
], ids=["fr", "en"])
async def test_the_older_session_reads_why_before_it_closes(
        tmp_path: Path, lang: str, hello: str, farewell: str) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    with serve_process(tmp_path, *APP) as served:
        first_conn, first = await login(served.port, key, lang)
        second_conn: asyncssh.SSHClientConnection | None = None
        try:
            await first.wait_for(hello)
            second_conn, second = await login(served.port, key, lang)
            await second.wait_for(hello)
            # On the first one's screen, while its session is still open...
            await first.wait_for(farewell)
            assert await first.finished() == 0
            # ...written before the app left the screen, and once more on the terminal after.
            output = first.output
            shown, _, after = output.partition(LEAVE_ALTERNATE_SCREEN)
            assert farewell in shown
            assert after.endswith(farewell + "\r\n")  # (after the cursor shown again)
            assert farewell not in second.output
        finally:
            first_conn.close()
            if second_conn is not None:
                second_conn.close()


async def test_a_seated_guest_keeps_the_way_back_when_the_server_stops(tmp_path: Path) -> None:
    """The server stops under a guest at a game: after the maintenance line, their terminal
    keeps the command that gives the seat back (the table screen that showed it is gone)."""
    import signal

    from server.ssh import MSG_SHUTDOWN

    with serve_process(tmp_path, *APP) as served:
        conn = await asyncssh.connect(
            "127.0.0.1", served.port, username="gus", known_hosts=None, client_keys=None,
            agent_path=None, config=None, client_factory=LikeOpenSSH,
        )
        try:
            _chan, gus = await conn.create_session(
                Client, term_type="xterm-256color", term_size=(80, 24), encoding=None)
            await gus.wait_for("Bonjour gus")
            gus.send("p")  # (a game against bots, at once)
            await gus.wait_for("resume ")  # (the way back, on the log's edge)
            served.process.send_signal(signal.SIGTERM)
            assert await gus.finished() == 0
            after = gus.output.partition(LEAVE_ALTERNATE_SCREEN)[2]
            assert MSG_SHUTDOWN + "\r\n" in after
            assert f"Pour reprendre votre place : ssh -t -p {served.port} 127.0.0.1 resume " \
                in after
        finally:
            conn.close()
