"""The real app behind the real SSH server: what ``pioche serve`` runs, over asyncssh clients
on 127.0.0.1."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from pioche_tui.app.service import EmbeddedService, open_service, split_host
from pioche_tui.coordinator.guests import GuestPass
from pioche_tui.coordinator.model import Player
from server.session import SessionInfo
from tests.server.conftest import Connect


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[EmbeddedService]:
    opened = await open_service(tmp_path)
    yield opened
    await opened.close()


def info(**fields: object) -> SessionInfo:
    values: dict[str, object] = dict(
        session_id="test-1", identity=None, nickname="alice", must_ask_nickname=False,
        watch_only=False, watch_table=None, peer="127.0.0.1", term="xterm-256color", lang=None,
        size=(80, 24))
    values.update(fields)
    return SessionInfo(**values)  # type: ignore[arg-type]


async def test_sessions_become_apps(service: EmbeddedService) -> None:
    guest = service.make_app(info())
    assert guest.guest and guest.identity == "127.0.0.1" and guest.wanted_name == "alice"
    player = service.make_app(info(identity="SHA256:abc", lang="en_GB.UTF-8"))
    assert not player.guest and player.identity == "SHA256:abc" and player.t.lang == "en"
    asked = service.make_app(info(identity="SHA256:abc", must_ask_nickname=True))
    assert asked.wanted_name is None
    watcher = service.make_app(info(watch_only=True, watch_table="K7PX"))
    assert watcher.watch_only and watcher.watch_table == "K7PX"
    assert service.coordinator.db is not None
    service.coordinator.db.seen("SHA256:abc", "Alice", 0.0)
    assert await service.name_owner("alice") == "SHA256:abc"


async def test_a_guest_is_given_the_way_back(tmp_path: Path) -> None:
    """The token and the address the server saw reach the app; ``public_host`` replaces the
    address in the command shown (its port too, when it has one)."""
    plain = await open_service(tmp_path / "a")
    named = await open_service(tmp_path / "b", public_host="play.example.org")
    try:
        app = plain.make_app(info(resume_token="mixte-benefice-hesiter",
                                  address=("192.0.2.7", 2222)))
        assert app.resume_token == "mixte-benefice-hesiter" and app.peer == "127.0.0.1"
        assert app.server_address == ("192.0.2.7", 2222)
        assert named.address_for(("192.0.2.7", 2222)) == ("play.example.org", 2222)
        assert EmbeddedService(named.coordinator, "[2001:db8::1]:22").address_for(
            ("192.0.2.7", 2222)) == ("2001:db8::1", 22)
        app.guest_pass = GuestPass("guest:x", "mixte-benefice-hesiter")
        assert app.resume_command() == "ssh -t -p 2222 192.0.2.7 resume mixte-benefice-hesiter"
        app.server_address = ("play.example.org", 22)
        assert app.resume_command() == "ssh -t play.example.org resume mixte-benefice-hesiter"
    finally:
        await plain.close()
        await named.close()


@pytest.mark.parametrize(("text", "split"), [
    ("play.example.org", ("play.example.org", None)),
    ("play.example.org:2200", ("play.example.org", 2200)),
    ("2001:db8::1", ("2001:db8::1", None)),
    ("[2001:db8::1]", ("2001:db8::1", None)),
    ("[2001:db8::1]:2200", ("2001:db8::1", 2200)),
])
def test_public_hosts(text: str, split: tuple[str, int | None]) -> None:
    assert split_host(text) == split


@pytest.mark.parametrize("text", ["", ":22", "host:0", "host:x", "host:70000", "[::1]x"])
def test_what_is_no_public_host(text: str) -> None:
    with pytest.raises(ValueError, match="not a host"):
        split_host(text)


async def test_a_key_holds_a_seat_while_its_table_is_waiting_or_in_play(
    service: EmbeddedService,
) -> None:
    coordinator = service.coordinator
    alice = coordinator.connect(Player("SHA256:alice", "alice"))
    bob = coordinator.connect(Player("SHA256:bob", "bob"))
    waiting = coordinator.tables[bob.create_table("defausse", seats=2)]
    assert waiting.status == "waiting" and service.holds_seat("SHA256:bob")
    assert not service.holds_seat("SHA256:alice")
    playing = coordinator.tables[alice.quick_play("defausse")]
    assert playing.status == "playing" and service.holds_seat("SHA256:alice")
    bob.leave()
    assert not service.holds_seat("SHA256:bob")
    alice.leave()  # (the stand-in takes her seat for good)
    assert not service.holds_seat("SHA256:alice")


async def test_a_player_over_ssh_reaches_a_defausse_table(connect: Connect) -> None:
    client = await connect("alice", env={"LANG": "en_US.UTF-8"})
    await client.wait_for("Hello alice!")
    client.send("p")  # quick game against bots
    await client.wait_for("Défausse · table")
    await client.wait_for(lambda screen: "Your turn" in screen or "'s turn" in screen)
    client.send("l")
    await client.wait_for("Leave the game?")
    client.send("y")
    await client.wait_for("Hello alice!")
    client.send("q")
    await client.wait_for("Quit Pioche?")
    client.send("y")
    assert await client.finished() == 0
