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
