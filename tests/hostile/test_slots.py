"""Connection slots held for free (issue 12, item 5), against a real ``pioche serve``.

An attacker with 16 addresses (127.0.0.2 to 127.0.0.17: all of 127.0.0.0/8 is the loopback)
opens as many connections as each address may, and opens them again as soon as they are closed:
either silent TCP connections, or connections that log in and open a session channel but never
ask for a pty or a shell. The server used to count them all against its cap, the silent ones
for the 20 s login timeout and the others for ever: « Pioche est complet » for everyone else.
Now a returning player (a key with a seat at a table) and a newcomer both get in at once."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

import asyncssh
import pytest

from tests.server.conftest import Client
from tests.server.process import LikeOpenSSH, bare_session, serve_process

ADDRESSES = [f"127.0.0.{n}" for n in range(2, 18)]  # the attacker's 16
PER_ADDRESS = 4
APP = (
    "--app", "pioche_tui.app:open_service", "--bot-delay", "1,2", "--turn-timer", "0",
    "--grace", "120", "--max-sessions", "8", "--max-per-address", str(PER_ADDRESS),
    "--max-pending", "16",  # fewer than the attacker's 64: it fills them all
)
AGAIN = 0.5  # seconds the attacker waits before opening a closed connection again
TABLE_TITLE = re.compile(r"Défausse · table ([A-Z2-9]{4})")
MOVE = re.compile(r"· +coup (\d+)")  # the move number, in the table's title


async def player(port: int, name: str, key: asyncssh.SSHKey | None
                 ) -> tuple[asyncssh.SSHClientConnection, Client]:
    conn = await asyncssh.connect(
        "127.0.0.1", port, username=name, known_hosts=None, client_keys=[key] if key else None,
        agent_path=None, config=None, client_factory=LikeOpenSSH,
    )
    _chan, client = await conn.create_session(
        Client, term_type="xterm-256color", term_size=(100, 30), encoding=None
    )
    client.screen.resize(100, 30)
    return conn, client


async def silent(port: int, address: str) -> None:
    """A TCP connection that sends nothing, until the server closes it."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
    try:
        await reader.read()  # (until the server closes it)
    finally:
        writer.close()


async def no_shell(port: int, address: str) -> None:
    """A guest that logs in and opens a session channel, then asks for nothing on it."""
    async with asyncssh.connect(
        "127.0.0.1", port, local_addr=(address, 0), username="x", known_hosts=None,
        client_keys=None, agent_path=None, config=None, client_factory=LikeOpenSSH,
    ) as conn:
        await bare_session(conn)
        await conn.wait_closed()


class Attack:
    """PER_ADDRESS connections from each address, each opened again AGAIN seconds after the
    server closed or refused it."""

    def __init__(self, port: int, connection: Callable[[int, str], Awaitable[None]]) -> None:
        self.opened = 0
        self._tasks = [
            asyncio.create_task(self._hold(port, connection, address))
            for address in ADDRESSES for _slot in range(PER_ADDRESS)
        ]

    async def _hold(self, port: int, connection: Callable[[int, str], Awaitable[None]],
                    address: str) -> None:
        while True:
            self.opened += 1
            with contextlib.suppress(OSError, asyncssh.Error):
                await connection(port, address)
            await asyncio.sleep(AGAIN)

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


@pytest.mark.parametrize("connection", [silent, no_shell])
async def test_an_attacker_with_16_addresses_keeps_no_player_out(
    tmp_path: Path, connection: Callable[[int, str], Awaitable[None]],
) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    with serve_process(tmp_path, *APP) as served:
        conn, alice = await player(served.port, "alice", key)
        await alice.wait_for("Bonjour alice")
        alice.send("p")  # a quick game: a seat at a table
        found = TABLE_TITLE.search(await alice.wait_for("Défausse · table"))
        assert found is not None
        # Her turn (the bots then wait for her): bots take 1-2 s a move, and a deal of skips
        # and +2 can pass her by for more than 10 s.
        moves = int(MOVE.findall(await alice.wait_for("À vous", timeout=40))[0])
        alice.send("d")  # she draws: she has played, so her seat is kept when she drops
        await alice.wait_for(lambda screen: int(MOVE.findall(screen)[0]) > moves)
        conn.close()  # she drops; her seat waits for her
        await conn.wait_closed()

        attack = Attack(served.port, connection)
        try:
            while attack.opened < 2 * len(ADDRESSES) * PER_ADDRESS:  # all, and again
                await asyncio.sleep(0.1)
            loop = asyncio.get_running_loop()
            started = loop.time()
            conn, alice = await player(served.port, "alice", key)
            await alice.wait_for(f"Défausse · table {found[1]}")  # her table, at once
            waited = loop.time() - started
            _conn, bob = await player(served.port, "bob", None)  # a newcomer gets in too
            await bob.wait_for("Bonjour bob")
        finally:
            await attack.stop()
        # The attack did fill the pending places: the newcomers took theirs from it.
        assert "pending connection closed to make room for 127.0.0.1" in served.log_text()
    print(f"alice back at her table after {waited:.2f} s, under attack ({connection.__name__})")
