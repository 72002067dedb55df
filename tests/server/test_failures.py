"""Every failed connection attempt leaves a warning with its reason (key exchange,
authentication, refusal) and the client's software; a flood of them leaves a few lines and a
count."""

from __future__ import annotations

import asyncio
import logging
import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from server.failures import FailureLog
from server.limits import Limits
from server.ssh import (
    AUTH_FAILED,
    CONNECTION_REFUSED,
    KEX_FAILED,
    MSG_NO_PTY,
    NO_SESSION,
    NO_SSH,
    SESSION_REFUSED,
    PiocheServer,
)
from tests.server.conftest import WAIT, Connect, LikeOpenSSH
from tests.server.process import serve_process
from tests.server.test_identity import SignsWithAnotherKey

CLIENT = f"SSH-2.0-AsyncSSH_{asyncssh.__version__}"
SHA1_ONLY = {"kex_algs": ["diffie-hellman-group14-sha1"]}  # a client we cannot agree with


@pytest.fixture
def warnings(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    with caplog.at_level(logging.INFO, logger="pioche.server"):
        yield caplog


def told(caplog: pytest.LogCaptureFixture, reason: str) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.getMessage().startswith(reason)]


async def wait_told(caplog: pytest.LogCaptureFixture, reason: str) -> logging.LogRecord:
    """The first line for ``reason``, waiting (boundedly) for the server to see the end."""
    for _attempt in range(int(WAIT / 0.05)):
        if found := told(caplog, reason):
            return found[0]
        await asyncio.sleep(0.05)
    raise AssertionError(f"nothing logged for {reason!r}:\n{caplog.text}")


async def open_connection(server: PiocheServer, **options: Any) -> asyncssh.SSHClientConnection:
    return await asyncssh.connect(
        "127.0.0.1", server.port, username="alice", known_hosts=None, client_keys=None,
        agent_path=None, config=None, client_factory=LikeOpenSSH, **options,
    )


async def test_a_failed_key_exchange_is_a_warning(
    server: PiocheServer, warnings: pytest.LogCaptureFixture
) -> None:
    with pytest.raises(asyncssh.KeyExchangeFailed):
        await open_connection(server, **SHA1_ONLY)
    record = await wait_told(warnings, KEX_FAILED)
    assert record.levelno == logging.WARNING
    assert record.getMessage().startswith(
        f"{KEX_FAILED} from 127.0.0.1 ({CLIENT}): KeyExchangeFailed: No matching key exchange"
    )
    assert "diffie-hellman-group14-sha1" in record.getMessage()  # what the client offered


async def test_a_client_that_gives_up_authenticating_is_a_warning(
    server: PiocheServer, warnings: pytest.LogCaptureFixture
) -> None:
    # A password is all it has: the server offers public keys and keyboard-interactive.
    with pytest.raises(asyncssh.PermissionDenied):
        await open_connection(server, preferred_auth="password", password="secret")
    record = await wait_told(warnings, AUTH_FAILED)
    assert record.levelno == logging.WARNING
    assert record.getMessage().startswith(f"{AUTH_FAILED} from 127.0.0.1 ({CLIENT}): ")


async def test_too_many_keys_is_an_authentication_failure(
    connect: Connect, warnings: pytest.LogCaptureFixture
) -> None:
    other = asyncssh.generate_private_key("ssh-ed25519")
    keys = [SignsWithAnotherKey(asyncssh.generate_private_key("ssh-ed25519"), other)
            for _key in range(10)]
    with pytest.raises(asyncssh.PermissionDenied):
        await connect("mallory", client_keys=keys)
    record = await wait_told(warnings, AUTH_FAILED)
    assert record.getMessage() == (f"{AUTH_FAILED} from 127.0.0.1 ({CLIENT}): more than "
                                   f"{Limits().max_key_attempts} key attempts, disconnected")


async def test_a_client_gone_once_logged_in_is_a_warning(
    server: PiocheServer, warnings: pytest.LogCaptureFixture
) -> None:
    # What PuTTY does with -no-trivial-auth when it gets in as a guest without being asked
    # anything: it disconnects, saying why.
    conn = await open_connection(server)
    conn.disconnect(asyncssh.DISC_PROTOCOL_ERROR, "Authentication was trivial!")
    await conn.wait_closed()
    record = await wait_told(warnings, NO_SESSION)
    assert record.levelno == logging.WARNING
    assert record.getMessage() == (
        f"{NO_SESSION} from 127.0.0.1 ({CLIENT}): ProtocolError: Authentication was trivial!")


@pytest.mark.parametrize("limits", [Limits(max_sessions=1)])
async def test_a_refused_connection_is_a_warning(
    connect: Connect, server: PiocheServer, warnings: pytest.LogCaptureFixture
) -> None:
    await connect("alice")
    with pytest.raises((asyncssh.DisconnectError, asyncssh.ChannelOpenError)):
        await connect("bob")  # (refused once logged in: a returning player would get in)
    record = await wait_told(warnings, CONNECTION_REFUSED)
    assert record.levelno == logging.WARNING
    assert record.getMessage() == (
        f"{CONNECTION_REFUSED} from 127.0.0.1 ({CLIENT}): "
        "Pioche est complet (1 joueurs au plus) : revenez dans un moment."
    )


async def test_a_refused_session_is_a_warning(
    connect: Connect, warnings: pytest.LogCaptureFixture
) -> None:
    client = await connect("alice", term_type=None)  # ssh -T
    assert await client.finished() == 1
    record = await wait_told(warnings, SESSION_REFUSED)
    assert record.levelno == logging.WARNING
    assert record.getMessage() == f"{SESSION_REFUSED} from 127.0.0.1 ({CLIENT}): {MSG_NO_PTY}"


async def test_a_connection_that_says_nothing_is_information_only(
    server: PiocheServer, warnings: pytest.LogCaptureFixture
) -> None:
    # A port scan, a load balancer's health check: not a client failing.
    _reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.close()
    record = await wait_told(warnings, NO_SSH)
    assert record.levelno == logging.INFO
    assert record.getMessage().startswith(f"{NO_SSH} from 127.0.0.1 (no SSH version): ")


async def test_a_player_who_plays_leaves_no_warning(
    connect: Connect, server: PiocheServer, warnings: pytest.LogCaptureFixture
) -> None:
    client = await connect("alice")
    await client.wait_for("pseudo : alice")
    assert client.conn is not None
    client.conn.close()
    await client.conn.wait_closed()
    await server.close()
    assert not [r for r in warnings.records if r.levelno >= logging.WARNING], warnings.text


class Recorder(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def recorded() -> Iterator[tuple[logging.Logger, list[logging.LogRecord]]]:
    """A logger of our own, and what it logged."""
    logger = logging.getLogger("test.failures")
    recorder = Recorder()
    logger.addHandler(recorder)
    yield logger, recorder.records
    logger.removeHandler(recorder)


async def test_what_the_client_sent_is_made_printable(
    recorded: tuple[logging.Logger, list[logging.LogRecord]]
) -> None:
    logger, records = recorded
    FailureLog(logger, burst=5, window=60).failed(
        AUTH_FAILED, "10.0.0.1", "SSH-2.0-Evil\x1b[2J\rfake line", "x" * 1000 + "\n\x07"
    )
    line = records[0].getMessage()
    assert "\x1b" not in line and "\r" not in line and "\n" not in line and "\x07" not in line
    assert line.startswith(f"{AUTH_FAILED} from 10.0.0.1 (SSH-2.0-Evil[2J fake line): x")
    assert len(line) < 500


async def test_past_the_burst_failures_are_counted_then_the_count_told(
    recorded: tuple[logging.Logger, list[logging.LogRecord]]
) -> None:
    logger, records = recorded
    failures = FailureLog(logger, burst=2, window=0.05)
    for _ in range(5):  # all within the window: microseconds apart
        failures.failed(KEX_FAILED, "10.0.0.1", None, "lost")
    failures.failed(AUTH_FAILED, "10.0.0.1", None, "lost")  # another reason: its own limit
    assert [r.getMessage().split(" from ")[0] for r in records] == [
        KEX_FAILED, KEX_FAILED, AUTH_FAILED]
    for _attempt in range(int(WAIT / 0.05)):  # the count comes when the window is over
        if len(records) == 4:
            break
        await asyncio.sleep(0.05)
    assert re.fullmatch(rf"{KEX_FAILED}: 3 more in the last \d+ s, not logged one by one",
                        records[3].getMessage())


def test_a_flood_of_failing_clients_leaves_a_few_lines_and_a_count(tmp_path: Path) -> None:
    # The attack itself, against a real server: 30 clients that cannot agree on a key exchange.
    attempts = 30
    burst = Limits().failure_log_burst

    async def flood(port: int) -> None:
        for _attempt in range(attempts):  # one after another: under the per-address cap
            # (the server's disconnect may come before the client has read its key exchange)
            with pytest.raises((asyncssh.KeyExchangeFailed, asyncssh.ConnectionLost)):
                await asyncssh.connect(
                    "127.0.0.1", port, username="alice", known_hosts=None, client_keys=None,
                    agent_path=None, config=None, **SHA1_ONLY,
                )

    with serve_process(tmp_path) as served:
        asyncio.run(flood(served.port))
        served.process.send_signal(signal.SIGTERM)  # the count waiting is told at shutdown
        assert served.wait() == 0
    log = served.log_text()
    assert log.count(f"WARNING {KEX_FAILED} from 127.0.0.1") == burst
    assert re.search(rf"WARNING {KEX_FAILED}: {attempts - burst} more in the last \d+ s, "
                     "not logged one by one", log), log
