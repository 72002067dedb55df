"""The bus's faults (issue 16), with a real nats-server, a real coordinator behind a real
``CoordinatorHost`` and fronts' ``Remote``s, in this process: a front that dies, a coordinator
that restarts, a nats-server that restarts, bad payloads on every subject, a front acting for
another front's session. The processes themselves (SIGKILL mid-play) are tests/server/'s."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from nats.aio.msg import Msg

from pioche_tui import bus, wire
from pioche_tui.app.app import PiocheApp
from pioche_tui.app.screens.dialogs import Farewell
from pioche_tui.bus.natsd import NatsServer
from pioche_tui.coordinator import remote
from pioche_tui.coordinator.client import CoordinatorClient
from pioche_tui.coordinator.host import CoordinatorHost
from pioche_tui.coordinator.mailbox import Mail, Notice
from pioche_tui.coordinator.model import Player, Refused
from pioche_tui.coordinator.remote import Remote
from tests.app.conftest import wait_for_text
from tests.contract.conftest import news_until, update_until

from .world import WAIT, coordinator_on, die, front_on, seated, until, vanish


async def refused(request: object) -> str:
    with pytest.raises(Refused) as refusal:
        await request  # type: ignore[misc]
    return refusal.value.code


def alice() -> Player:
    return Player("SHA256:Alice-key", "Alice", address="192.0.2.1")


async def test_a_dead_fronts_sessions_close_and_their_seats_wait_for_the_grace(
        nats_server: NatsServer, tmp_path: Path) -> None:
    url = nats_server.url
    async with coordinator_on(url, tmp_path / "data") as host, \
            front_on(url, "fronta") as front_a, front_on(url, "frontb") as front_b:
        coordinator = host.coordinator
        client, table_id = await seated(front_a, "Alice")
        bob = front_b.client()
        await bob.connect(Player("SHA256:Bob-key", "Bob"))
        table = coordinator.tables[table_id]
        seat = table.seat_of(alice().identity)
        assert seat is not None and client.sid in host.sessions
        front_a.set_counts(1, {"192.0.2.1": 1})  # (the limits across fronts)
        await until(lambda: "pioche/fronta" in front_b.peers(), "front A's counts heard by B")
        assert front_b.peers()["pioche/fronta"].addresses == (("192.0.2.1", 1),)

        await die(front_a)
        await until(lambda: alice().identity not in coordinator.sessions,
                    "the dead front's session closed")
        assert table.status == "playing" and table.seats[seat].kind == "player"
        assert table.seats[seat].grace is not None  # (kept for her, as a dropped connection)
        assert bob.open and client.sid not in host.sessions
        await until(lambda: "pioche/fronta" not in front_b.peers(), "a silent front counts no more")

        again = front_b.client()  # she reconnects, to the other front
        place = await again.connect(alice())
        assert (place.table, place.seat) == (table_id, seat)


async def test_a_front_that_stops_says_so_and_its_sessions_close(
        nats_server: NatsServer, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "pioche_tui.coordinator.host")
    url = nats_server.url
    async with coordinator_on(url, tmp_path / "data") as host:
        async with front_on(url, "fronta") as front:
            client = front.client()
            await client.connect(alice())
        await until(lambda: alice().identity not in host.coordinator.sessions,
                    "the stopped front's session closed")
        assert "front pioche/fronta stops" in caplog.text and host.sessions == {}


async def test_a_restarted_coordinator_ends_the_fronts_sessions_which_reconnect(
        nats_server: NatsServer, tmp_path: Path) -> None:
    url, data = nats_server.url, tmp_path / "data"
    async with front_on(url, "fronta") as front:
        async with coordinator_on(url, data) as host:
            client, table_id = await seated(front, "Alice")
            seat = host.coordinator.tables[table_id].seat_of(alice().identity)
            await vanish(host)
        async with coordinator_on(url, data):
            last = await news_until(client, lambda m: m.closed)
            assert [n.code for n in last.notices] == ["coordinator_lost"]
            assert not client.open
            await until(lambda: front.coordinator_alive, "the new coordinator heard")
            place = await front.client().connect(alice())  # (its table back from its log)
            assert (place.table, place.seat) == (table_id, seat)


async def test_a_silent_coordinator_ends_the_fronts_sessions(
        nats_server: NatsServer, tmp_path: Path) -> None:
    url = nats_server.url
    async with front_on(url, "fronta") as front, coordinator_on(url, tmp_path / "data") as host:
        client = front.client()
        await client.connect(alice())
        await vanish(host)
        last = await news_until(client, lambda m: m.closed)  # (within bus.SILENCE)
        assert [n.code for n in last.notices] == ["coordinator_lost"]
        assert not front.coordinator_alive
        assert await refused(front.client().server_info()) == "unavailable"
        # (the front stopping meanwhile: nobody to tell, no error, no 5-s wait for an answer)
        await asyncio.wait_for(front.client().server_stopping(), 1.0)


async def test_the_player_is_told_the_server_restarts(nats_server: NatsServer,
                                                       tmp_path: Path) -> None:
    url, data = nats_server.url, tmp_path / "data"
    async with front_on(url, "fronta") as front, coordinator_on(url, data) as host:
        app = PiocheApp(front.connector(), identity=alice().identity, name="Alice")
        async with app.run_test(size=(80, 24)) as pilot:
            assert await wait_for_text(pilot, app, "Alice", timeout=WAIT)
            await vanish(host)
            async with coordinator_on(url, data):
                text = "Le serveur redémarre : reconnectez-vous dans un instant."
                await until(lambda: isinstance(app.screen, Farewell), "the farewell")
                assert await wait_for_text(pilot, app, "Le serveur redémarre : reconnectez-vous")
        assert app.farewell == text


async def test_a_restarted_nats_server_is_found_again(tmp_path: Path) -> None:
    server = NatsServer()
    await server.start()
    try:
        async with coordinator_on(server.url, tmp_path / "data") as host, \
                front_on(server.url, "fronta") as front:
            client = front.client()
            await client.server_info()
            server.kill()
            await until(lambda: not front.nc.is_connected, "the front sees the bus gone")
            assert await refused(client.server_info()) == "unavailable"
            await server.start()  # (same port, same password)
            await until(lambda: front.nc.is_connected and host.nc.is_connected,
                        "both back on the bus")
            place = await client.connect(alice())
            assert place.table is None and client.open
            assert (await client.server_info()).grace == 60.0
    finally:
        await server.stop()


async def plays_on(client: CoordinatorClient) -> None:
    """The session is open, gets its turn (its state asked again if the news of it was lost)
    and makes a move; a mail closing it fails at once."""

    def my_turn(mail: Mail) -> bool:
        assert not mail.closed, f"the session ended: {mail.notices}"
        update = mail.table
        return update is not None and update.view is not None and update.seat is not None \
            and update.seat in update.to_act

    update = (await news_until(client, my_turn)).table
    assert update is not None
    await client.act(1, update.step)
    await update_until(client, lambda u: u.step > update.step)
    assert client.open


async def test_a_session_open_while_the_bus_restarts_stays_and_plays_on(
        tmp_path: Path) -> None:
    """News published while nats-server was down is lost (NATS delivers at most once): once
    back, the front asks each session's state again (``resync``) instead of ending it, and the
    player, told « reconnexion… » after a moment, plays on at the same seat."""
    server = NatsServer()
    await server.start()
    try:
        async with coordinator_on(server.url, tmp_path / "data") as host, \
                front_on(server.url, "fronta") as front:
            client, table_id = await seated(front, "Alice")
            table = host.coordinator.tables[table_id]
            seat = table.seat_of(alice().identity)
            server.kill()
            await until(lambda: not front.nc.is_connected, "the front sees the bus gone")
            await asyncio.sleep(remote.BLIP_SHOW + bus.HEARTBEAT / 2)
            await server.start()  # (same port, same password)
            told = await news_until(client, lambda m: bool(m.notices) or m.closed)
            assert [n.code for n in told.notices] == ["reconnecting"] and not told.closed
            await plays_on(client)
            assert seat is not None and table.seats[seat].session is not None
    finally:
        await server.stop()


async def test_bad_payloads_are_dropped_and_nothing_stops(
        nats_server: NatsServer, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    url = nats_server.url
    async with coordinator_on(url, tmp_path / "data"), front_on(url, "fronta") as front:
        client = front.client()
        await client.connect(alice())
        raw = await bus.connect(url, "test-intruder", bus.FRONT)
        try:
            version = {bus.WIRE_HEADER: str(wire.VERSION)}  # (its payloads are the attack)
            headers = {bus.FRONT_HEADER: "intruder", **version}
            for data, sent in [
                (b"\xc1 not msgpack", headers),
                (wire.encode(Notice("x", "not a call")), headers),
                (wire.encode(wire.Call("server_info", {})), version),  # (no front id)
                (wire.encode(wire.Call("leave", {})),
                 {**headers, bus.SESSION_HEADER: "no.such*sid"}),
                (wire.encode(wire.Call("mail", {})), {**headers, bus.SESSION_HEADER: "x1"}),
            ]:
                reply = await raw.request(bus.request_subject(front.name), data, timeout=WAIT,
                                          headers=sent)
                assert wire.decode(reply.data).code == "bad_request"
            for subject in (bus.LOBBY, bus.COORD_ALIVE, bus.front_alive_subject(front.name),
                            bus.session_subject(front.name, client.sid)):
                await raw.publish(subject, b"\x92\x01")
                await raw.publish(subject, wire.encode(Notice("x", "not that")))
            await raw.flush()
        finally:
            await raw.close()
        await client.chat("toujours là")
        said = await news_until(client, lambda m: bool(m.chat))
        assert said.chat[-1].text == "toujours là" and client.open
        assert front.coordinator_alive and front.lobby is not None
        assert "bad request dropped" in caplog.text
        for what in ("bad lobby", "bad coordinator heartbeat", "bad front heartbeat",
                     f"bad news of {client.sid}"):
            assert f"{what} dropped" in caplog.text


async def test_a_front_cannot_act_for_another_fronts_session(nats_server: NatsServer,
                                                              tmp_path: Path) -> None:
    url = nats_server.url
    async with coordinator_on(url, tmp_path / "data") as host, \
            front_on(url, "fronta") as front_a, front_on(url, "frontb") as front_b:
        client, table_id = await seated(front_a, "Alice")
        before = await client.place()
        forged = front_b.client(client.sid)
        assert await refused(forged.connect(Player("SHA256:Mallory", "Mallory"))) == "not_yours"
        for name, args in [("leave", {}), ("act", {"action": 1, "step": None}),
                           ("chat", {"text": "au revoir", "to": None, "me": False}),
                           ("ignore", {"name": "Alice"}), ("close", {}),
                           ("player", {}), ("place", {})]:
            assert await refused(front_b.call(name, args, client.sid)) == "not_yours"
        assert client.open and await client.place() == before
        assert host.sessions[client.sid] == "fronta"
        assert host.coordinator.tables[table_id].seat_of(alice().identity) == before.seat


async def test_a_turns_time_left_counts_the_time_the_update_waited_at_the_front(
        nats_server: NatsServer, tmp_path: Path) -> None:
    url = nats_server.url
    async with coordinator_on(url, tmp_path / "data"), front_on(url, "fronta") as front:
        client = front.client()
        await client.connect(alice())
        await client.create_table("toy", seats=2, bots={1: "basic"}, timer=30.0)
        if (await client.place()).status == "waiting":
            await client.start()
        await asyncio.sleep(0.6)  # (its first update waits, unread, in the front's mailbox)
        update = await update_until(client, lambda u: u.view is not None)
        assert update.to_act == (0,) and update.time_left is not None
        assert 0 < update.time_left <= 30.0 - 0.6


async def test_a_coordinator_that_does_not_answer_is_unavailable(
        nats_server: NatsServer) -> None:
    """A request the coordinator takes but never answers (stuck): refused after the timeout,
    as one that finds nobody."""
    stuck = await bus.connect(nats_server.url, "test-stuck")
    nc = await bus.connect(nats_server.url, "test-front")
    try:
        taken = await stuck.subscribe(bus.request_subject(bus.USER))
        await stuck.flush()
        remote = Remote(nc, "fronta", timeout=0.5)
        assert await refused(remote.client().server_info()) == "unavailable"
        assert wire.decode((await taken.next_msg(timeout=WAIT)).data).name == "server_info"
    finally:
        await stuck.close()
        await nc.close()


async def test_an_answer_of_a_restarted_coordinator_ends_the_old_sessions_not_the_new(
        nats_server: NatsServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Answers carry the coordinator's boot id too: the first answer of a restarted one ends
    the sessions opened before, and not the session it opened, whatever its heartbeat does."""
    url, data = nats_server.url, tmp_path / "data"
    async with front_on(url, "fronta") as front:
        async with coordinator_on(url, data) as host:
            old = front.client()
            await old.connect(alice())
            await vanish(host)

        async def no_heartbeat(self: CoordinatorHost) -> None:
            await asyncio.sleep(3600)

        monkeypatch.setattr(CoordinatorHost, "_beat", no_heartbeat)
        async with coordinator_on(url, data):
            new = front.client()
            await new.connect(Player("SHA256:Bob-key", "Bob"))
            last = await news_until(old, lambda m: m.closed)
            assert [n.code for n in last.notices] == ["coordinator_lost"]
            assert new.open and (await new.place()).table is None


@pytest.mark.parametrize("with_tree", [False, True])
async def test_a_front_stopping_alone_leaves_the_tables_playing(
        nats_server: NatsServer, tmp_path: Path, with_tree: bool) -> None:
    """SIGTERM to one front: its sessions' ``server_stopping`` changes nothing at the
    coordinator (Alice's end is a drop that Bob, on another front, sees, and their table goes
    on). Only a front stopping with the whole tree holds every table still."""
    url = nats_server.url
    async with coordinator_on(url, tmp_path / "data") as host, \
            front_on(url, "fronta") as front_a, front_on(url, "frontb") as front_b:
        alice, bob = front_a.client(), front_b.client()
        await alice.connect(Player("SHA256:alice-key", "Alice"))
        await bob.connect(Player("SHA256:bob-key", "Bob"))
        table = await alice.create_table("toy", seats=2, timer=None, options={"goal": 10})
        await bob.join(table)
        await update_until(alice, lambda u: u.view is not None and u.to_act == (0,))
        await alice.act(1, 0)  # (a table left before its first move would close)
        await update_until(bob, lambda u: u.step >= 1)
        front_a.stops_with_tree = with_tree
        await alice.server_stopping()
        await alice.close()
        if with_tree:
            await until(lambda: host.coordinator.stopping, "every table held still")
        else:
            await update_until(bob, lambda u: u.table.seats[0].away)
            assert not host.coordinator.stopping


async def test_a_coordinator_that_just_subscribed_is_found(nats_server: NatsServer) -> None:
    """A front asked while nobody listened (no responders); a coordinator subscribes (and its
    server has it: flushed); the front asks again at once. nats-server may still route that
    publish by its older list and answer « no responders » (a few times in a hundred on this
    machine): the front asks once more, shortly after, before it calls the coordinator
    unavailable. (Each round its own front name: a subject nobody ever listened to.)"""
    nc = await bus.connect(nats_server.url, "test-front")
    coordinator = await bus.connect(nats_server.url, "test-coordinator", bus.COORDINATOR)

    async def answer(msg: Msg) -> None:
        await coordinator.publish(msg.reply, wire.encode(wire.Answer("known_name", None)),
                                  headers={bus.WIRE_HEADER: str(wire.VERSION)})

    ask = {"identity": "SHA256:nobody"}
    try:
        for attempt in range(100):
            remote = Remote(nc, "fronta", timeout=WAIT, name=f"front{attempt}")
            assert await refused(remote.call("known_name", ask)) == "unavailable"
            await coordinator.subscribe(bus.request_subject(f"front{attempt}"), cb=answer)
            await coordinator.flush()
            assert await remote.call("known_name", ask) is None, attempt
    finally:
        await nc.close()
        await coordinator.close()
