"""The bus over TLS (``bus.BusTLS``): a nats-server whose certificate a CA made here signed, and
which asks its clients for theirs (mutual TLS). A client that trusts another CA, or has no
certificate, or no TLS, is refused at once with a line that says what to fix; ``pioche front``
with a wrong CA exits with that line, the password nowhere."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio

from pioche_tui import bus
from pioche_tui.bus.natsd import NatsServer
from server.keys import ensure_host_key
from server.workers import BUS_ENV
from tests.bus.certs import CA, Pair, mutual_tls_bus
from tests.bus.world import WAIT, coordinator_on, front_on, seated
from tests.server.process import ROOT

pytestmark = pytest.mark.asyncio(loop_scope="module")


@dataclass
class TLSBus:
    server: NatsServer
    ca: CA
    core: Pair  # the coordinator machine's certificate
    paris: Pair  # a front machine's
    wrong: CA  # another CA, that signed nothing of this bus

    def url(self, name: str) -> str:
        return self.server.url_of(name).replace("nats://", "tls://", 1)

    def tls(self, pair: Pair | None) -> bus.BusTLS:
        return bus.BusTLS(self.ca.path, pair.cert if pair else None,
                          pair.key if pair else None)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def tls_bus(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[TLSBus]:
    where = tmp_path_factory.mktemp("tls")
    ca = CA(where / "ca")
    server = mutual_tls_bus(ca)
    await server.start()
    try:
        yield TLSBus(server, ca, ca.issue("core", server=False),
                     ca.issue("paris", server=False), CA(where / "wrong", "another-ca"))
    finally:
        await server.stop()


async def test_a_front_plays_over_mutual_tls(tls_bus: TLSBus, tmp_path: Path) -> None:
    async with coordinator_on(tls_bus.url("core"), tmp_path / "data",
                              tls_bus.tls(tls_bus.core)), \
            front_on(tls_bus.url("paris"), "fronta", tls_bus.tls(tls_bus.paris)) as front:
        client, _table = await seated(front, "Alice")
        assert client.open and front.nc.connected_url is not None
        assert front.nc.connected_url.scheme == "tls"


@pytest.mark.parametrize("case", ["wrong CA", "no certificate", "no TLS"])
async def test_a_client_the_bus_cannot_trust_is_refused_at_once(tls_bus: TLSBus,
                                                                 case: str) -> None:
    tls, url, said = {
        "wrong CA": (bus.BusTLS(tls_bus.wrong.path, tls_bus.paris.cert, tls_bus.paris.key),
                     tls_bus.url("paris"),
                     f"not trusted by --bus-ca {tls_bus.wrong.path}"),
        "no certificate": (tls_bus.tls(None), tls_bus.url("paris"), "TLS refused"),
        "no TLS": (None, tls_bus.server.url_of("paris"), "the bus uses TLS"),
    }[case]
    with pytest.raises(bus.BusRefused) as refused:
        await asyncio.wait_for(bus.connect(url, "test-refused", bus.FRONT, tls), WAIT)
    assert said in str(refused.value)
    assert tls_bus.server.users["paris"].password not in str(refused.value)


async def test_pioche_front_with_a_wrong_ca_says_so_and_exits(tls_bus: TLSBus,
                                                              tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    ensure_host_key(keys)
    url = tls_bus.url("paris")
    result = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "pioche_tui.cli", "front", "--host", "127.0.0.1", "--port", "0",
         "--keys-dir", str(keys), "--bus-ca", str(tls_bus.wrong.path),
         "--bus-cert", str(tls_bus.paris.cert), "--bus-key", str(tls_bus.paris.key)],
        cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
        env={**os.environ, BUS_ENV: url})
    text = (result.stdout + result.stderr).decode(errors="replace")
    assert result.returncode == 1, text
    assert (f"cannot reach the bus {bus.redact(url)}: the bus's TLS certificate is not "
            f"trusted by --bus-ca {tls_bus.wrong.path}") in text
    assert tls_bus.server.users["paris"].password not in text


async def test_pioche_front_serves_over_mutual_tls(tls_bus: TLSBus, tmp_path: Path) -> None:
    """The whole front process (``--bus-ca``, ``--bus-cert``, ``--bus-key``, its user in
    ``PIOCHE_BUS``): a player logs in through it to the coordinator across the TLS bus."""
    from tests.server.test_front_process import LISTENING, log_in

    keys = tmp_path / "keys"
    ensure_host_key(keys)
    url = tls_bus.url("paris")
    log = tmp_path / "front.log"
    async with coordinator_on(tls_bus.url("core"), tmp_path / "data",
                              tls_bus.tls(tls_bus.core)):
        with log.open("wb") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "pioche_tui.cli", "front", "--host", "127.0.0.1",
                 "--port", "0", "--keys-dir", str(keys), "--bus-ca", str(tls_bus.ca.path),
                 "--bus-cert", str(tls_bus.paris.cert), "--bus-key", str(tls_bus.paris.key)],
                cwd=ROOT, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                env={**os.environ, BUS_ENV: url})
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 60
            while not (found := LISTENING.search(log.read_text(errors="replace"))):
                assert process.poll() is None and loop.time() < deadline, log.read_text()
                await asyncio.sleep(0.05)
            alice = await log_in(_Port(int(found[1])), "alice")  # type: ignore[arg-type]
            await alice.wait_for("Bonjour alice")
            assert alice.conn is not None
            alice.conn.close()
        finally:
            process.terminate()
            await asyncio.to_thread(process.wait, WAIT)
    text = log.read_text(errors="replace")
    assert f"bus {bus.redact(url)} as paris (TLS)" in text
    assert tls_bus.server.users["paris"].password not in text


@dataclass
class _Port:
    """What ``log_in`` reads of its world: the front's port."""

    port: int


@pytest.mark.parametrize("command", ["front", "coordinator"])
async def test_a_password_on_the_command_line_is_refused(tmp_path: Path, command: str) -> None:
    """``--bus`` with a password: ``ps`` shows it to every user. Refused before anything
    starts, and the password written nowhere."""
    result = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "pioche_tui.cli", command, "--bus",
         "tls://paris:s3cretpassword@127.0.0.1:4222",
         *(["--data-dir", str(tmp_path / "data")] if command == "coordinator"
           else ["--keys-dir", str(tmp_path / "keys")])],
        cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
        env={k: v for k, v in os.environ.items() if k != BUS_ENV})
    text = (result.stdout + result.stderr).decode(errors="replace")
    assert result.returncode == 2, text
    assert f"--bus with a password: every user sees a command line; put the URL in ${BUS_ENV}" \
        in text
    assert "s3cretpassword" not in text
