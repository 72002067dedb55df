"""The operator's console, the coordinator's rules (coordinator/admin.py): only the keys of the
admins' file are served, whatever the client sends; bans hold at login and survive a restart;
kick, close, broadcast and the message of the day do what they say, and are logged."""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

import pytest

from pioche_tui.coordinator.control import ControlServer
from pioche_tui.coordinator.core import Coordinator
from pioche_tui.coordinator.inprocess import InProcessClient, InProcessFront
from pioche_tui.coordinator.model import Player, Refused
from pioche_tui.coordinator.text import duration
from pioche_tui.store.log import read_log

from .conftest import player, until

MakeCoordinator = Callable[..., Awaitable[Coordinator]]
ADMIN = player("root")


def admins_file(c: Coordinator, *keys: str) -> Path:
    path = c.settings.data_dir / "admins"
    path.write_text("# the admins\n" + "".join(f"{k}  # someone\n" for k in keys))
    return path


async def connected(c: Coordinator, who: Player) -> InProcessClient:
    client = c.client()
    await client.connect(who)
    return client


async def test_a_player_who_is_not_in_the_admins_file_is_refused(
        make_coordinator: MakeCoordinator) -> None:
    c = await make_coordinator()
    admins_file(c, ADMIN.identity)
    alice = await connected(c, player("alice"))
    bob = await connected(c, player("bob"))
    for request in (alice.admin_view(), alice.admin_act("kick", "bob"),
                    alice.admin_act("motd", "pwned"), alice.admin_act("ban", "bob", 60.0)):
        with pytest.raises(Refused) as refused:
            await request
        assert refused.value.code == "not_admin"
    assert bob.open and c.console.motd == "" and c.console.bans() == ()
    # Nor a guest, nor a watcher claiming the admin's key (a watcher's key is not checked).
    watcher = await connected(c, replace(ADMIN, watch_only=True))
    with pytest.raises(Refused):
        await watcher.admin_view()
    unconnected = c.client()
    with pytest.raises(Refused):
        await unconnected.admin_view()


async def test_the_admins_file_is_read_again_when_it_changes(
        make_coordinator: MakeCoordinator) -> None:
    c = await make_coordinator()
    root = await connected(c, ADMIN)
    with pytest.raises(Refused):  # (no file: nobody)
        await root.admin_view()
    path = admins_file(c, ADMIN.identity)
    view = await root.admin_view()
    assert [s.name for s in view.sessions] == ["root"]
    path.write_text("not a key\n")  # (a line that is no fingerprint names nobody)
    os.utime(path, ns=(1, 1))
    with pytest.raises(Refused):
        await root.admin_view()


async def test_the_admin_view_shows_sessions_and_tables(
        make_coordinator: MakeCoordinator) -> None:
    c = await make_coordinator()
    admins_file(c, ADMIN.identity)
    root = await connected(c, ADMIN)
    alice = await connected(c, replace(player("alice"), address="10.0.0.7"))
    table_id = await alice.create_table("defausse", seats=3, bots={1: "basic"})
    view = await root.admin_view()
    assert [(s.name, s.identity, s.address, s.table) for s in view.sessions] == [
        ("alice", "SHA256:alice-key", "10.0.0.7", table_id), ("root", ADMIN.identity, "", None)]
    (table,) = view.tables
    assert (table.id, table.game, table.status) == (table_id, "defausse", "waiting")
    assert table.seats[0] == "alice" and table.seats[2] == "—"


async def test_kick_ends_the_session_and_says_why(make_coordinator: MakeCoordinator) -> None:
    c = await make_coordinator()
    admins_file(c, ADMIN.identity)
    root = await connected(c, ADMIN)
    bob = await connected(c, player("bob"))
    await root.admin_act("kick", "BOB")  # (names compare as name_key does)
    mail = await bob.mail()
    assert mail.closed and [n.code for n in mail.notices] == ["kicked"]
    assert not bob.open and "SHA256:bob-key" not in c.sessions
    with pytest.raises(Refused) as refused:
        await root.admin_act("kick", "nobody")
    assert refused.value.code == "not_online"


async def test_a_ban_holds_at_login_ends_the_sessions_and_survives_a_restart(
        make_coordinator: MakeCoordinator, caplog: pytest.LogCaptureFixture) -> None:
    c = await make_coordinator()
    admins_file(c, ADMIN.identity)
    root = await connected(c, ADMIN)
    bob = await connected(c, replace(player("bob"), address="10.0.0.9"))
    desk = InProcessFront(c)
    assert await desk.banned("SHA256:bob-key", "10.0.0.9") is None
    with caplog.at_level(logging.INFO, logger="pioche.admin"):
        await root.admin_act("ban", "bob", 3600.0)  # (by name: their key)
        await root.admin_act("ban", "192.0.2.1")  # an address, for good
    assert any(r.message.startswith("admin root (SHA256:root-key): clé SHA256:bob-key")
               for r in caplog.records)
    assert not bob.open
    why = await desk.banned("SHA256:bob-key", "10.0.0.1")
    assert why is not None and why.startswith("Votre clé est bannie de ce serveur jusqu'au")
    assert await desk.banned(None, "192.0.2.1") == "Votre adresse est bannie de ce serveur."
    assert await desk.banned("SHA256:carol-key", "10.0.0.9") is None
    c.stop()
    again = await make_coordinator()
    desk = InProcessFront(again)
    assert await desk.banned("SHA256:bob-key", "10.0.0.1") is not None
    assert await desk.banned(None, "192.0.2.1") is not None
    root = await connected(again, ADMIN)
    await root.admin_act("unban", "SHA256:bob-key")
    assert await desk.banned("SHA256:bob-key", "10.0.0.1") is None
    assert [b.value for b in (await root.admin_view()).bans] == ["192.0.2.1"]


async def test_a_ban_ends_when_its_time_is_over(make_coordinator: MakeCoordinator) -> None:
    c = await make_coordinator()
    admins_file(c, ADMIN.identity)
    root = await connected(c, ADMIN)
    await root.admin_act("ban", "192.0.2.5", 0.05)
    assert c.console.refusal(None, "192.0.2.5") is not None
    await until(lambda: c.console.refusal(None, "192.0.2.5") is None)
    assert c.console.bans() == ()
    for bad in (-1.0, 0.0, float("inf")):
        with pytest.raises(Refused):
            await root.admin_act("ban", "192.0.2.6", bad)
    with pytest.raises(Refused):  # neither a key, nor an address, nor anyone online
        await root.admin_act("ban", "ghost")
    assert c.console.bans() == ()


async def test_close_a_table_records_its_game_as_abandoned_and_tells_everyone(
        make_coordinator: MakeCoordinator) -> None:
    c = await make_coordinator()
    admins_file(c, ADMIN.identity)
    root = await connected(c, ADMIN)
    alice = await connected(c, player("alice"))
    bob = await connected(c, player("bob"))
    table_id = await alice.create_table("defausse", seats=2)
    await bob.join(table_id)
    assert c.tables[table_id].status == "playing"  # (full: started)
    await root.admin_act("close", table_id.lower())
    for client in (alice, bob):
        mail = await client.mail()
        assert "table_closed" in [n.code for n in mail.notices] and mail.left_table
        assert client.table_id is None and client.open
    assert table_id not in c.tables
    assert read_log(c.log_path(table_id)).records[-1] == ["end", "closed"]
    with pytest.raises(Refused):
        await root.admin_act("close", table_id)


async def test_broadcast_and_the_message_of_the_day(make_coordinator: MakeCoordinator) -> None:
    c = await make_coordinator(lobby_interval=0.0)
    admins_file(c, ADMIN.identity)
    root = await connected(c, ADMIN)
    alice = await connected(c, player("alice"))
    await alice.mail()
    await root.admin_act("broadcast", "Redémarrage\x1b[2J dans 5 min\n")
    mail = await alice.mail()
    assert [(n.code, n.text) for n in mail.notices] == [
        ("broadcast", "Redémarrage[2J dans 5 min")]  # (no control character reaches a screen)
    await root.admin_act("motd", "Tournoi à 21 h")
    await until(lambda: alice.pending)
    mail = await alice.mail()
    assert mail.lobby is not None and mail.lobby.motd == "Tournoi à 21 h"
    c.stop()
    again = await make_coordinator()
    assert again.snapshot().motd == "Tournoi à 21 h"
    root = await connected(again, ADMIN)
    await root.admin_act("motd", "")
    assert again.snapshot().motd == ""
    with pytest.raises(Refused):
        await root.admin_act("broadcast", "  ")
    with pytest.raises(Refused):
        await root.admin_act("shutdown")


def test_durations() -> None:
    assert duration("30m") == 1800.0 and duration("2h") == 7200.0 and duration("90") == 90.0
    assert duration("") is None and duration("forever") is None
    for bad in ("soon", "-1h", "0", "nan", "1e20"):
        with pytest.raises(ValueError):
            duration(bad)


async def test_the_control_socket_answers_bad_requests_with_an_error(
        make_coordinator: MakeCoordinator) -> None:
    """What ``pioche admin`` (or anything on the socket) sends cannot raise in the server: each
    bad line gets ``ok: false`` and changes nothing."""
    c = await make_coordinator()
    control = ControlServer(c, c.settings.data_dir)
    for line in (b"not json\n", b"[1, 2]\n", b'{"action": 3}\n', b"\xff\xfe\n",
                 b'{"action": "ban", "target": "192.0.2.1", "seconds": "soon"}\n',
                 b'{"action": "ban", "target": "192.0.2.1", "seconds": true}\n',
                 b'{"action": "reboot"}\n', b'{"action": "kick", "target": "nobody"}\n'):
        answer = control.answer(line)
        assert answer["ok"] is False and answer["error"], line
    assert c.console.bans() == ()
    answer = control.answer(b'{"action": "ban", "target": "192.0.2.1", "seconds": 60}\n')
    assert answer["ok"] and c.console.bans()[0].by.startswith("console")
    assert control.answer(b'{"action": "bans"}\n')["result"][0]["value"] == "192.0.2.1"
