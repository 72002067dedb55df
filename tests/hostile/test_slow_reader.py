"""A client that stops reading (issue 12, item 2), against a real ``pioche serve``.

It opens a 2 GiB SSH window, so the channel's own buffer never fills, has the app flood its
screen, then takes nothing more while it keeps sending (which resets asyncssh's keepalive):
either it stops reading its socket, or it starts a key exchange and never finishes it. The server
used to queue everything the app drew for it (in the socket's transport, or in asyncssh's packets
held back for the key exchange), without bound and for as long as the client liked. Now it holds
at most its write buffer plus a frame, and cuts the client off after the stall timeout
(``--stall-timeout``, short here)."""

from __future__ import annotations

import asyncio
import itertools
import re
import socket
from collections.abc import Callable
from pathlib import Path

import asyncssh
import pytest
from asyncssh.constants import MSG_IGNORE, MSG_KEXINIT
from asyncssh.packet import String

from tests.server.conftest import Client
from tests.server.process import LikeOpenSSH, ServeProcess, serve_process

STALL = 2.0  # seconds
HUGE_WINDOW = 2**31  # 2 GiB
MiB = 1024 * 1024


def rss(served: ServeProcess) -> int:
    """The server process's resident memory, in bytes."""
    with open(f"/proc/{served.process.pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


async def flooded_client(served: ServeProcess) -> tuple[asyncssh.SSHClientConnection, Client]:
    """A guest at 400x200 whose demo app draws a full screen every 20 ms (its key ``f``)."""
    # A small receive buffer, so that the kernel holds little of what the server sends: what it
    # does not take shows in the server's own memory sooner.
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 * 1024)
    sock.connect(("127.0.0.1", served.port))
    sock.setblocking(False)
    conn = await asyncssh.connect(
        sock=sock, username="eve", known_hosts=None, client_keys=None, agent_path=None,
        config=None, client_factory=LikeOpenSSH, window=HUGE_WINDOW,
    )
    _chan, client = await conn.create_session(
        Client, term_type="xterm-256color", term_size=(400, 200), encoding=None
    )
    client.conn = conn
    client.screen.resize(400, 200)
    client.send("f")
    await client.wait_for("trame")
    return conn, client


def stop_reading(conn: asyncssh.SSHClientConnection) -> Callable[[], None]:
    """The client reads nothing more from its socket, and keeps sending window changes."""
    conn._transport.pause_reading()
    chan = next(iter(conn._channels.values()))
    widths = itertools.cycle((399, 400))  # each one a new layout and a full repaint

    def keep_sending() -> None:
        chan.change_terminal_size(next(widths), 200)

    return keep_sending


def stall_a_key_exchange(conn: asyncssh.SSHClientConnection) -> Callable[[], None]:
    """The client starts a key exchange and never finishes it (it ignores the server's answer),
    reads its socket and keeps sending SSH_MSG_IGNORE (allowed during a key exchange). The
    server holds every packet back until the exchange completes."""
    conn._packet_handlers = {  # the server's KEXINIT: ignored (true: handled)
        **type(conn)._packet_handlers, MSG_KEXINIT: lambda *_args: True,
    }
    conn._send_kexinit()

    def keep_sending() -> None:
        conn.send_packet(MSG_IGNORE, String(b""))

    return keep_sending


@pytest.mark.parametrize("attack", [stop_reading, stall_a_key_exchange])
async def test_a_client_that_takes_nothing_is_held_to_little_and_cut_off(
    tmp_path: Path, attack: Callable[[asyncssh.SSHClientConnection], Callable[[], None]],
) -> None:
    with serve_process(tmp_path, "--stall-timeout", str(STALL)) as served:
        conn, client = await flooded_client(served)
        await asyncio.sleep(1.0)  # flooding, read: the server's memory at work
        before = most = rss(served)
        keep_sending = attack(conn)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + STALL + 10
        while not client.closed.is_set() and loop.time() < deadline:
            keep_sending()  # (each packet would reset asyncssh's keepalive)
            await asyncio.sleep(0.05)
            most = max(most, rss(served))
        assert client.closed.is_set(), "still connected: the server never cut it off"
        conn.abort()
        log = served.log_text()
    # The server held at most its buffer (256 KiB) plus a frame for it: its memory grew by
    # about what any flooding session's does (Textual's caches), not by what it could not send.
    queued = re.search(r"does not read: disconnected \((\d+) KiB queued at most\)", log)
    assert queued is not None, log
    assert int(queued[1]) * 1024 <= 1 * MiB
    assert most - before < 8 * MiB, f"the server grew by {(most - before) / MiB:.1f} MiB"
