"""Spectators who share a screen (server/share.py), over real SSH clients on 127.0.0.1.

The real service (coordinator, store, PiocheApp) behind the server; a table waiting for players
(no clock, no move: the screen changes only when told), whose creator chats to make frames."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from pioche_tui.app.app import PiocheApp
from pioche_tui.coordinator.core import Coordinator, Session
from pioche_tui.coordinator.model import Player
from server.limits import Limits
from server.ssh import PiocheServer
from tests.hostile.conftest import RecordingService, coordinator_settings
from tests.server.conftest import WAIT, Client, Connect

SIZE = (90, 28)


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[RecordingService]:
    coordinator = Coordinator(coordinator_settings(tmp_path / "data"))
    await coordinator.start()
    opened = RecordingService(coordinator)
    yield opened
    await opened.close()


@pytest.fixture
def alice(service: RecordingService) -> Session:
    """A player (no app) at a table waiting for players: the table spectators watch."""
    session = service.coordinator.connect(Player("SHA256:alice", "alice"))
    session.create_table("defausse", seats=3, timer=None)
    return session


def table_of(alice: Session) -> str:
    assert alice.table is not None
    return alice.table.id


async def until(check: Callable[[], bool], timeout: float = WAIT) -> None:
    for _attempt in range(int(timeout / 0.02)):
        if check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("never happened")


async def quiet(*clients: Client, seconds: float = 0.3) -> None:
    """Until no client has received anything for ``seconds``."""
    while True:
        sizes = [len(client.raw) for client in clients]
        await asyncio.sleep(seconds)
        if sizes == [len(client.raw) for client in clients]:
            return


async def watchers(connect: Connect, alice: Session, count: int, size: tuple[int, int] = SIZE,
                   **options: Any) -> list[Client]:
    clients = []
    for _ in range(count):
        client = await connect("watch", command=f"watch {table_of(alice)}", term_size=size,
                               **options)
        clients.append(client)
    for client in clients:
        await client.wait_for("Vous regardez")
    return clients


def own_apps(service: RecordingService) -> list[PiocheApp]:
    """The running apps that are somebody's own (not a shared screen's)."""
    return [app for app in service.apps
            if app.client.session is not None and not app.client.session.mirror]


async def test_spectators_of_one_size_share_one_app_and_its_bytes(
    connect: Connect, server: PiocheServer, service: RecordingService, alice: Session,
) -> None:
    clients = await watchers(connect, alice, 3)
    assert server.hub is not None and len(server.hub.groups) == 1
    assert len(service.apps) == 1 and own_apps(service) == []  # one app, the shared screen's
    table = service.coordinator.tables[table_of(alice)]
    assert table.summary().spectators == 3  # each counted, as with apps of their own
    names = {e.name for e in service.coordinator.snapshot().online if e.watch_only}
    assert names == {"spectateur", "spectateur2", "spectateur3"}
    await quiet(*clients)
    marks = [len(client.raw) for client in clients]
    alice.chat("Bonjour les spectateurs")
    for client in clients:
        await client.wait_for("Bonjour les spectateurs")
    await quiet(*clients)
    sent = [bytes(client.raw[mark:]) for client, mark in zip(clients, marks, strict=True)]
    assert sent[0] and sent[0] == sent[1] == sent[2]
    assert clients[0].screen.text() == clients[1].screen.text() == clients[2].screen.text()


async def test_another_size_another_group_and_a_resize_moves(
    connect: Connect, server: PiocheServer, service: RecordingService, alice: Session,
) -> None:
    first, second = await watchers(connect, alice, 2)
    (wide,) = await watchers(connect, alice, 1, size=(120, 30))
    assert server.hub is not None
    assert sorted(size for _key, size in server.hub.groups) == [SIZE, (120, 30)]
    assert len(service.apps) == 2
    second.resize(120, 30)
    await until(lambda: len(server.hub.groups[next(iter(server.hub.groups))].members) == 1
                and all(len(g.members) for g in server.hub.groups.values())
                and len(server.hub.groups) == 2 and sum(
                    len(g.members) for g in server.hub.groups.values()) == 3
                and len(next(g for g in server.hub.groups.values()
                             if g.size == (120, 30)).members) == 2)
    await second.wait_for(lambda text: "Vous regardez" in text and "Défausse" in text)
    await quiet(first, second, wide)
    alice.chat("après le changement de taille")
    for client in (first, second, wide):
        await client.wait_for("après le changement de taille")
    await quiet(first, second, wide)
    assert second.screen.text() == wide.screen.text() != first.screen.text()
    first.resize(120, 30)  # the last of its group: the group stops, its app with it
    await until(lambda: len(server.hub.groups) == 1)
    await until(lambda: len(service.apps) == 1)


async def test_a_key_gives_an_app_of_ones_own_on_the_same_table(
    connect: Connect, server: PiocheServer, service: RecordingService, alice: Session,
) -> None:
    first, second, third = await watchers(connect, alice, 3)
    await quiet(first, second, third)
    first.send("?")  # the help: a screen of one's own
    await first.wait_for("Aide")
    own = own_apps(service)
    taken = own[0].client.session
    assert len(own) == 1 and taken is not None
    assert taken.table is not None and taken.table.id == table_of(alice)
    assert taken.player.name == "spectateur"  # the same session, taken over
    assert server.hub is not None and len(next(iter(server.hub.groups.values())).members) == 2
    assert "Aide" not in second.screen.text()
    first.send("\x1b")  # the help closes: the table, in the spectator's own app
    await first.wait_for(lambda text: "Aide" not in text and "Vous regardez" in text)
    alice.chat("encore là")
    for client in (first, second, third):
        await client.wait_for("encore là")
    table = service.coordinator.tables[table_of(alice)]
    assert table.summary().spectators == 3
    third.send("\x1b")  # Escape: back to the lobby, in an app of its own
    await third.wait_for("Bonjour spectateur3")
    assert len(own_apps(service)) == 2


async def test_quitting_while_sharing(
    connect: Connect, server: PiocheServer, service: RecordingService, alice: Session,
) -> None:
    first, second = await watchers(connect, alice, 2)
    first.send("\x11")  # Ctrl+Q: asked first, as ever, and without an app of its own
    await first.wait_for("Quitter Pioche ?")
    assert "Oui (o)" in first.screen.text() and "Non (n)" in first.screen.text()
    assert own_apps(service) == []
    first.send("n")  # no: the shared screen again, whole
    await first.wait_for(lambda text: "Quitter" not in text and "Vous regardez" in text)
    alice.chat("toujours là")
    await first.wait_for("toujours là")
    first.send("\x03")  # Ctrl+C asks too; Enter is « Non » at first, the arrow moves to « Oui »
    await first.wait_for("Quitter Pioche ?")
    first.send("\x1b[D")
    await asyncio.sleep(0.1)
    first.send("\r")
    assert await first.finished() == 0
    assert own_apps(service) == []
    table = service.coordinator.tables[table_of(alice)]
    await until(lambda: table.summary().spectators == 1)
    assert "Quitter" not in second.screen.text()


@pytest.mark.parametrize("limits", [Limits(write_buffer=1024)])
async def test_a_stalled_spectator_does_not_hold_the_others(
    connect: Connect, server: PiocheServer, service: RecordingService, alice: Session,
) -> None:
    reader, stalled = await watchers(connect, alice, 2, window=4096)
    await quiet(reader, stalled)
    assert stalled.chan is not None and server.hub is not None
    group = next(iter(server.hub.groups.values()))
    member = list(group.members)[1]
    stalled.chan.pause_reading()  # it takes nothing more: its window fills, then the server's
    bob = service.coordinator.connect(Player("SHA256:bob", "bob"))
    for _round in range(20):  # bob sits and leaves: a frame each time
        bob.join(table_of(alice))
        await reader.wait_for("2. bob")  # the other spectator sees each change meanwhile
        bob.leave()
        await reader.wait_for(lambda text: "bob" not in text)
    assert member._paused and member._missed  # it skipped frames
    bob.join(table_of(alice))
    await reader.wait_for("2. bob")
    stalled.chan.resume_reading()
    await stalled.wait_for("2. bob")  # then got a whole frame
    await quiet(reader, stalled)
    assert stalled.screen.text() == reader.screen.text()


async def test_spectators_leaving_free_the_group(
    connect: Connect, server: PiocheServer, service: RecordingService, alice: Session,
) -> None:
    clients = await watchers(connect, alice, 3)
    table = service.coordinator.tables[table_of(alice)]
    assert server.hub is not None
    app = weakref.ref(next(iter(server.hub.groups.values())).app)
    service.made.clear()  # (the test's own hold on the apps)
    gc.disable()  # freed by reference counting alone, as the server wants (server/cycles.py)
    try:
        for client in clients:
            assert client.conn is not None
            client.conn.close()
        assert server.hub is not None
        await until(lambda: not server.hub.groups and not service.apps and not server.sessions)
        await until(lambda: list(table.subscribers) == [alice])  # the shared screen's too
        assert table.summary().spectators == 0
        assert {s.player.name for s in service.coordinator.sessions.values()} == {"alice"}
        await until(lambda: app() is None)
    finally:
        gc.enable()


async def test_a_table_that_stops_sends_each_spectator_to_the_lobby_in_an_app_of_its_own(
    connect: Connect, server: PiocheServer, service: RecordingService, alice: Session,
) -> None:
    first, second = await watchers(connect, alice, 2)
    table = service.coordinator.tables[table_of(alice)]
    service.coordinator.stop_table(table)  # (its log cannot be written: everyone to the lobby)
    await first.wait_for("Bonjour spectateur !")
    await second.wait_for("Bonjour spectateur2 !")
    assert server.hub is not None
    await until(lambda: not server.hub.groups)
    assert sorted(app.client.session.player.name for app in own_apps(service)
                  if app.client.session is not None) == ["spectateur", "spectateur2"]
    first.send("q")  # the lobby's own keys work: its quit question
    await first.wait_for("Quitter Pioche ?")


async def test_a_whole_frame_is_charged_to_those_who_asked_for_it(
    connect: Connect, server: PiocheServer, service: RecordingService, alice: Session,
) -> None:
    """A whole frame (a joiner's, or a slow reader's after its backlog) is rendered for those
    who asked and charged to them: a client that keeps falling behind pays for its catch-ups."""
    clients = await watchers(connect, alice, 2)
    await quiet(*clients)
    assert server.hub is not None
    (group,) = server.hub.groups.values()
    first, second = group.members
    spent = first.meter.spent, second.meter.spent
    group.send_full(first)
    await asyncio.sleep(0.2)
    assert first.meter.spent > spent[0]  # the rendering, charged
    assert second.meter.spent == spent[1]  # nothing for the other, who asked for nothing
