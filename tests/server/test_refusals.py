"""What the server refuses, with a one-line message and no app started."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncssh
import pytest

from server.ssh import (
    MSG_ADDRESS_FULL,
    MSG_BUSY,
    MSG_CLOSING,
    MSG_FILE_TRANSFER,
    MSG_FORWARDING,
    MSG_FORWARDING_ASKED,
    MSG_FULL,
    MSG_KEY_ATTEMPTS,
    MSG_MADE_ROOM,
    MSG_NO_PTY,
    MSG_NO_SESSION,
    MSG_ONE_SESSION,
    MSG_STALLED,
    PiocheServer,
)
from tests.server.conftest import WAIT, Client, Connect, LikeOpenSSH
from tests.server.demo_app import DemoService


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"term_type": None}, MSG_NO_PTY),  # ssh -T
        ({"term_type": None, "command": "watch"}, MSG_NO_PTY),  # ssh host watch, without -t
        ({"command": "ls -la"}, "Pioche n'exécute pas de commande"),
        ({"command": "watch a b"}, "Usage : watch [TABLE]"),
        ({"command": "scp -t /tmp"}, MSG_FILE_TRANSFER),  # legacy scp
        ({"subsystem": "sftp", "term_type": None}, MSG_FILE_TRANSFER),  # sftp, modern scp
        ({"subsystem": "netconf"}, MSG_FILE_TRANSFER),
    ],
)
async def test_refused_sessions_say_why_and_start_no_app(
    connect: Connect, server: PiocheServer, service: DemoService,
    options: dict[str, str | None], message: str,
) -> None:
    client = await connect("alice", **options)
    assert await client.finished() == 1
    line = client.stderr.decode()
    assert line.startswith(message) and line.endswith("\r\n") and line.count("\n") == 1
    assert client.raw == b""
    assert server.sessions == [] and service.apps == []


async def test_sftp_client_is_refused(server: PiocheServer) -> None:
    async with asyncssh.connect(
        "127.0.0.1", server.port, username="alice", known_hosts=None, client_keys=None,
        agent_path=None, config=None, client_factory=LikeOpenSSH,
    ) as conn:
        with pytest.raises(asyncssh.SFTPError) as failure:  # the server closes the channel
            await conn.start_sftp_client()
    assert isinstance(failure.value, asyncssh.SFTPConnectionLost)


async def test_a_second_channel_is_refused(connect: Connect) -> None:
    client = await connect("alice")
    await client.wait_for("pseudo : alice")
    assert client.conn is not None
    with pytest.raises(asyncssh.ChannelOpenError) as refused_open:
        await client.conn.create_session(Client, term_type="xterm", encoding=None)
    assert refused_open.value.reason == MSG_ONE_SESSION
    client.send("k")  # the first session goes on
    await client.wait_for("touche : k")


async def test_fifty_channels_on_one_connection_start_one_app(
    connect: Connect, server: PiocheServer, service: DemoService
) -> None:
    client = await connect("alice")
    assert client.conn is not None
    conn = client.conn
    results = await asyncio.gather(
        *(conn.create_session(Client, term_type="xterm", encoding=None) for _ in range(49)),
        return_exceptions=True,
    )
    assert all(isinstance(result, asyncssh.ChannelOpenError) for result in results)
    assert {result.reason for result in results} == {MSG_ONE_SESSION}  # type: ignore[union-attr]
    await client.wait_for("pseudo : alice")
    client.send("k")
    await client.wait_for("touche : k")
    assert len(server.sessions) == 1 and len(service.apps) == 1


async def test_forwarding_is_refused(connect: Connect) -> None:
    client = await connect("alice")
    await client.wait_for("pseudo : alice")
    conn = client.conn
    assert conn is not None
    with pytest.raises(asyncssh.ChannelOpenError) as local:
        await conn.open_connection("127.0.0.1", 22)
    assert local.value.reason == MSG_FORWARDING
    with pytest.raises(asyncssh.ChannelOpenError) as unix:
        await conn.open_unix_connection("/run/some.sock")
    assert unix.value.reason == MSG_FORWARDING
    with pytest.raises(asyncssh.ChannelListenError):
        await conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1", 22)
    with pytest.raises(asyncssh.ChannelListenError):
        await conn.forward_remote_path("/tmp/pioche-test.sock", "/run/some.sock")
    client.send("k")
    await client.wait_for("touche : k")


async def test_x11_forwarding_is_refused(
    connect: Connect, server: PiocheServer, service: DemoService, tmp_path: Path
) -> None:
    xauth = tmp_path / "Xauthority"
    xauth.write_bytes(b"")
    with pytest.raises(asyncssh.ChannelOpenError, match="X11 forwarding request failed"):
        await connect(
            "alice", x11_forwarding=True, x11_display="127.0.0.1:99",
            x11_auth_path=str(xauth),
        )
    assert server.sessions == [] and service.apps == []


async def test_agent_forwarding_refuses_the_session(
    connect: Connect, server: PiocheServer, service: DemoService, tmp_path: Path
) -> None:
    # OpenSSH asks for agent forwarding without waiting for the answer: a denial alone would go
    # unseen, so the session is refused with the way out.
    client = await connect("alice", agent_forwarding=str(tmp_path / "agent.sock"))
    assert await client.finished() == 1
    assert client.stderr.decode() == MSG_FORWARDING_ASKED + "\r\n"
    assert client.raw == b""
    assert server.sessions == [] and service.apps == []


async def test_remote_forwarding_asked_first_refuses_the_session(
    server: PiocheServer, service: DemoService
) -> None:
    # ssh -R: the forwarding is asked for before the session; both are refused.
    async with asyncssh.connect(
        "127.0.0.1", server.port, username="alice", known_hosts=None, client_keys=None,
        agent_path=None, config=None, client_factory=LikeOpenSSH,
    ) as conn:
        with pytest.raises(asyncssh.ChannelListenError):
            await conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1", 22)
        chan, client = await conn.create_session(Client, term_type="xterm", encoding=None)
        await asyncio.wait_for(chan.wait_closed(), WAIT)
        assert chan.get_exit_status() == 1
        assert client.stderr.decode() == MSG_FORWARDING_ASKED + "\r\n"
    assert server.sessions == [] and service.apps == []


def test_messages_inside_ssh_packets_are_ascii() -> None:
    # OpenSSH prints disconnect and channel-open reasons with non-ASCII bytes escaped.
    for message in (
        MSG_FORWARDING, MSG_ONE_SESSION, MSG_FULL, MSG_ADDRESS_FULL, MSG_CLOSING, MSG_STALLED,
        MSG_BUSY, MSG_MADE_ROOM, MSG_NO_SESSION, MSG_KEY_ATTEMPTS,
    ):
        assert message.isascii(), message
