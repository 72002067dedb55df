"""A front and a coordinator of different wire versions (``wire.VERSION``, header
``Pioche-Wire`` on every request and answer): each refuses the other's requests and answers,
with one clear line in its log, and the player reads that the server is being upgraded (a
refusal, not a hang). Each side's version is its ``wire_version``: what a build of another
version would send."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from pioche_tui.bus.natsd import NatsServer
from pioche_tui.coordinator.model import Player, Refused
from pioche_tui.i18n import Catalogue
from tests.bus.world import coordinator_on, front_on

pytestmark = pytest.mark.asyncio(loop_scope="function")


async def refusal(request: object) -> Refused:
    with pytest.raises(Refused) as refused:
        await request  # type: ignore[misc]
    return refused.value


async def test_a_front_of_another_wire_version_is_refused_with_one_clear_line(
        nats_server: NatsServer, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    url = nats_server.url
    caplog.set_level(logging.INFO)
    async with coordinator_on(url, tmp_path / "data") as host, \
            front_on(url, "fronta") as front:
        # a newer front: the coordinator refuses it, and the front says why, once
        front.wire_version = host.wire_version + 1
        client = front.client()
        first = await refusal(client.server_info())
        again = await refusal(client.connect(Player("SHA256:alice", "alice")))
        assert first.code == again.code == "wire_version"
        assert Catalogue("fr").refusal(first) == (
            "Le serveur est en cours de mise à jour : réessayez dans quelques minutes.")
        assert Catalogue("en").refusal(first) == (
            "The server is being upgraded: try again in a few minutes.")
        fronts = [r.getMessage() for r in caplog.records
                  if r.name == "pioche_tui.coordinator.remote" and "wire version" in r.getMessage()]
        coords = [r.getMessage() for r in caplog.records
                  if r.name == "pioche_tui.coordinator.host" and "wire version" in r.getMessage()]
        assert len(fronts) == 1 and f"this front {front.wire_version}" in fronts[0], fronts
        assert len(coords) == 1 and "fronta" in coords[0], coords
        assert not host.sessions  # (nothing was opened)
        # the same versions: served
        front.wire_version = host.wire_version
        assert (await client.server_info()).games
