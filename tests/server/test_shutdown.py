"""Stopping the server: apps are told, given time, then made to exit; clients get a goodbye."""

from __future__ import annotations

import pytest

from server.limits import Limits
from server.ssh import MSG_SHUTDOWN, MSG_SHUTDOWN_EN, PiocheServer
from tests.server.conftest import Connect
from tests.server.demo_app import DemoService


async def test_apps_are_told_and_exit(
    connect: Connect, server: PiocheServer, service: DemoService
) -> None:
    alice = await connect("alice")
    bob = await connect("watch")
    await alice.wait_for("connectes :")
    await bob.wait_for("connectes :")
    await server.close()
    for client in (alice, bob):
        assert await client.finished() == 0
        assert "le serveur s'arrete dans 3 s" in client.screen.text()
        assert client.output.endswith(MSG_SHUTDOWN + "\r\n")
    assert service.apps == [] and server.sessions == []


async def test_the_goodbye_is_in_the_language_of_the_session(
    connect: Connect, server: PiocheServer
) -> None:
    """An English player's last line is English, as their screens were."""
    alice = await connect("alice", env={"LANG": "en_GB.UTF-8"})
    bob = await connect("bob", env={"LANG": "fr_FR.UTF-8"})
    await alice.wait_for("connectes :")
    await bob.wait_for("connectes :")
    await server.close()
    assert await alice.finished() == 0 and await bob.finished() == 0
    assert alice.output.endswith(MSG_SHUTDOWN_EN + "\r\n")
    assert bob.output.endswith(MSG_SHUTDOWN + "\r\n")


@pytest.mark.parametrize("limits", [Limits(shutdown_grace=0.3)])
async def test_an_app_that_ignores_the_notice_is_made_to_exit(
    connect: Connect, server: PiocheServer, service: DemoService
) -> None:
    service.ignore_shutdown = True
    alice = await connect("alice")
    await alice.wait_for("connectes : alice")
    await server.close()
    assert await alice.finished() == 0
    assert "le serveur s'arrete dans 0.3 s" in alice.screen.text()
    assert MSG_SHUTDOWN in alice.output
    assert service.apps == []
