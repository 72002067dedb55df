"""The bus's nats-server child (pioche_tui/bus/natsd.py): loopback only, a password, a config
file no one else reads, and nothing left behind."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import nats
import pytest
from nats.errors import NoServersError

from pioche_tui import bus
from pioche_tui.bus.natsd import NatsServer, redact


async def test_a_client_without_the_password_is_refused(nats_server: NatsServer) -> None:
    for url in (nats_server.public_url,
                nats_server.url.replace(nats_server.password, "not-the-password")):
        with pytest.raises((NoServersError, nats.errors.Error, OSError)):
            await nats.connect(servers=[url], allow_reconnect=False, connect_timeout=2,
                               max_reconnect_attempts=0)


async def test_a_client_with_it_publishes_and_subscribes(nats_server: NatsServer) -> None:
    sender = await bus.connect(nats_server.url, "test-sender")
    receiver = await bus.connect(nats_server.url, "test-receiver")
    try:
        subscription = await receiver.subscribe("pioche.test")
        await receiver.flush()
        await sender.publish("pioche.test", b"bonjour")
        await sender.flush()
        message = await subscription.next_msg(timeout=10)  # (a bound for a busy machine)
        assert message.data == b"bonjour"
    finally:
        await sender.close()
        await receiver.close()


def test_the_url_is_redacted_for_logs(nats_server: NatsServer) -> None:
    public = redact(nats_server.url)
    assert nats_server.password not in public
    assert public == nats_server.public_url == f"nats://127.0.0.1:{nats_server.port}"


def test_the_password_is_in_a_private_file_not_on_the_command_line(
        nats_server: NatsServer) -> None:
    assert nats_server.pid is not None
    with open(f"/proc/{nats_server.pid}/cmdline", "rb") as cmdline:
        assert nats_server.password.encode() not in cmdline.read()
    config = nats_server.workdir / "nats.conf"
    assert nats_server.password in config.read_text()
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert stat.S_IMODE(nats_server.workdir.stat().st_mode) == 0o700


async def test_restarted_on_the_same_port_and_password_then_stopped_leaving_nothing() -> None:
    server = NatsServer()
    await server.start()
    port, first = server.port, server.pid
    assert first is not None
    server.kill()
    await server.start()
    assert (server.port, server.running) == (port, True) and server.pid != first
    client = await bus.connect(server.url, "test-restart")
    await client.close()
    await server.stop()
    assert not server.running and not server.workdir.exists()
    await asyncio.sleep(0)
    for pid in (first, server.pid):
        assert pid is not None
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


async def test_jetstream_keeps_a_stream_across_a_restart(tmp_path: Path) -> None:
    store = tmp_path / "js"
    server = NatsServer(jetstream=store)
    await server.start()
    try:
        client = await bus.connect(server.url, "test-jetstream")
        js = client.jetstream()
        await js.add_stream(name="T", subjects=["t.>"])
        ack = await js.publish("t.a", b"one")
        assert ack.seq == 1
        await client.close()
        server.kill()
        await server.start()
        client = await bus.connect(server.url, "test-jetstream-again")
        message = await client.jetstream().get_msg("T", 1)
        assert message.data == b"one"
        await client.close()
    finally:
        await server.stop()
    assert stat.S_IMODE(store.stat().st_mode) == 0o700 and any(store.iterdir())
