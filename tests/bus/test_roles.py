"""The roles' permissions on a real nats-server (``bus/roles.py``): a front does its own work and
nothing of another front's nor of the coordinator's; the server refuses the rest (a permissions
violation), and the coordinator answers a front only into that front's inbox."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from nats.aio.msg import Msg

from pioche_tui import bus, wire
from pioche_tui.bus.natsd import NatsServer
from pioche_tui.bus.roles import User
from pioche_tui.coordinator.model import Refused
from pioche_tui.coordinator.remote import Remote
from tests.bus.world import coordinator_on, front_on, seated, until

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def roles_bus() -> AsyncIterator[NatsServer]:
    """A nats-server with a coordinator (core) and two fronts (paris, lyon), each its role."""
    server = NatsServer(users=[User("core", bus.COORDINATOR, secrets.token_urlsafe(24)),
                               User("paris", bus.FRONT, secrets.token_urlsafe(24)),
                               User("lyon", bus.FRONT, secrets.token_urlsafe(24))])
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


class Errors:
    """What the server told a connection it refused (nats-py's error callback)."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    async def record(self, error: Exception) -> None:
        self.texts.append(str(error))

    def violation(self, kind: str, subject: str) -> bool:
        """The server refused ``kind`` (publish, subscription) on ``subject`` (nats-py says it
        in lower case)."""
        wanted = f'permissions violation for {kind} to "{subject}"'.lower()
        return any(wanted in text.lower() for text in self.texts)


async def test_a_front_reads_and_sends_only_its_own(roles_bus: NatsServer, tmp_path: Path
                                                     ) -> None:
    """Lyon's front plays; paris's connection tries to read lyon's session, the requests, lyon's
    inbox, and to speak as the coordinator or as lyon: every one refused by the server, and
    nothing of it reaches anyone."""
    import nats
    from nats.aio.client import Client

    core, lyon = roles_bus.url_of("core"), roles_bus.url_of("lyon")
    async with coordinator_on(core, tmp_path / "data"), front_on(lyon, "fronta") as front:
        client, _table = await seated(front, "Alice")
        sid = client.sid
        spy = await nats.connect(roles_bus.url_of("paris"), allow_reconnect=False,
                                 error_cb=(spy_errors := Errors()).record,
                                 inbox_prefix=bus.inbox_prefix(bus.FRONT, "paris"))
        # (who may read the forged subjects: lyon's front, and the coordinator)
        watchers = [await nats.connect(lyon, inbox_prefix=bus.inbox_prefix(bus.FRONT, "lyon")),
                    await nats.connect(core)]
        assert isinstance(spy, Client)
        try:
            read: list[Msg] = []

            async def got(msg: Msg) -> None:
                read.append(msg)

            stolen = [bus.session_subject("lyon", sid), f"{bus.SESSION_PREFIX}>",
                      bus.request_subject("lyon"), f"{bus.COORD_REQ}.*",
                      f"{bus.INBOX}.{bus.FRONT}.lyon.>", ">"]
            for subject in stolen:
                await spy.subscribe(subject, cb=got)
            own = await spy.subscribe(bus.session_subject("paris", "x1"), cb=got)
            seen: list[Msg] = []

            async def saw(msg: Msg) -> None:
                seen.append(msg)

            forged = [bus.session_subject("lyon", sid), bus.LOBBY, bus.COORD_ALIVE,
                      bus.front_alive_subject("lyon"), bus.request_subject("lyon"),
                      f"{bus.INBOX}.{bus.FRONT}.lyon.x"]
            for subject in (bus.session_subject("lyon", sid), bus.LOBBY, bus.COORD_ALIVE,
                            f"{bus.FRONT_ALIVE}.*", f"{bus.INBOX}.{bus.FRONT}.lyon.>"):
                await watchers[0].subscribe(subject, cb=saw)
            await watchers[1].subscribe(f"{bus.COORD_REQ}.*", cb=saw)
            for watcher in watchers:
                await watcher.flush()
            for subject in forged:
                await spy.publish(subject, wire.encode(wire.CoordAlive("forged")))
            await spy.flush()
            await client.chat("encore là")  # (lyon's session plays on, its news goes out)
            await until(lambda: all(spy_errors.violation("subscription", s) for s in stolen)
                        and all(spy_errors.violation("publish", s) for s in forged),
                        f"every violation refused: {spy_errors.texts}")
            for watcher in watchers:
                await watcher.flush()
            assert read == [] and own.subject == "pioche.s.paris.x1"
            assert not any(msg.data == wire.encode(wire.CoordAlive("forged")) for msg in seen)
            assert not spy_errors.violation("subscription", bus.session_subject("paris", "x1"))
            assert client.open and front.coordinator_alive
        finally:
            await spy.close()
            for watcher in watchers:
                await watcher.close()


async def test_a_front_cannot_have_its_answer_sent_elsewhere(
        roles_bus: NatsServer, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Paris sends a request whose reply subject is lyon's inbox (NATS checks no reply
    subject): the coordinator drops it, lyon gets nothing; paris's own requests are answered."""
    import nats

    core, lyon_url = roles_bus.url_of("core"), roles_bus.url_of("lyon")
    async with coordinator_on(core, tmp_path / "data"):
        paris = await bus.connect(roles_bus.url_of("paris"), "test-paris", bus.FRONT)
        lyon = await nats.connect(lyon_url, inbox_prefix=bus.inbox_prefix(bus.FRONT, "lyon"))
        try:
            inbox = await lyon.subscribe(f"{bus.INBOX}.{bus.FRONT}.lyon.>")
            await lyon.flush()
            call = wire.encode(wire.Call("server_info", {}))
            await paris.publish(bus.request_subject("paris"), call,
                                reply=f"{bus.INBOX}.{bus.FRONT}.lyon.trap",
                                headers={bus.FRONT_HEADER: "frontp"})
            remote = Remote(paris, "frontp", name="paris")
            assert (await remote.client().server_info()) is not None  # (after the other)
            await lyon.flush()
            with pytest.raises(asyncio.TimeoutError):
                await inbox.next_msg(timeout=0.2)
            assert "request of paris dropped: its reply subject" in caplog.text
        finally:
            await paris.close()
            await lyon.close()


async def test_a_front_cannot_act_for_a_session_of_another_name(
        roles_bus: NatsServer, tmp_path: Path) -> None:
    """Paris says it is lyon's front process (the ``Pioche-Front`` header is only said): the
    session still is lyon's, whose name the subject carries."""
    core = roles_bus.url_of("core")
    async with coordinator_on(core, tmp_path / "data") as host, \
            front_on(roles_bus.url_of("lyon"), "fronta") as front:
        client, _table = await seated(front, "Alice")
        paris = await bus.connect(roles_bus.url_of("paris"), "test-paris", bus.FRONT)
        try:
            impostor = Remote(paris, "fronta", name="paris")  # (lyon's front's id)
            for name, args in [("leave", {}), ("close", {}), ("place", {})]:
                with pytest.raises(Refused) as refused:
                    await impostor.call(name, args, client.sid)
                assert refused.value.code == "not_yours"
            assert client.open and host.sessions[client.sid] == "fronta"
        finally:
            await paris.close()


async def test_jetstream_a_front_reads_the_lobby_and_keeps_online_names(tmp_path: Path
                                                                       ) -> None:
    """With JetStream on: the coordinator makes the buckets and a table log; a front reads
    and watches the lobby, writes an online name, and may neither write the lobby nor read or
    write a table's log."""
    import nats
    from nats.js.api import KeyValueConfig, StreamConfig

    from pioche_tui.bus import LOBBY_BUCKET, LOG_STREAM, ONLINE_BUCKET

    server = NatsServer(jetstream=tmp_path / "js",
                        users=[User("core", bus.COORDINATOR, secrets.token_urlsafe(24)),
                               User("paris", bus.FRONT, secrets.token_urlsafe(24))])
    await server.start()
    errors = Errors()
    try:
        core = await bus.connect(server.url_of("core"), "test-core", bus.COORDINATOR)
        front = await nats.connect(server.url_of("paris"), error_cb=errors.record,
                                   allow_reconnect=False,
                                   inbox_prefix=bus.inbox_prefix(bus.FRONT, "paris"))
        try:
            cjs = core.jetstream()
            lobby = await cjs.create_key_value(KeyValueConfig(bucket=LOBBY_BUCKET))
            await cjs.create_key_value(KeyValueConfig(bucket=ONLINE_BUCKET))
            await cjs.add_stream(StreamConfig(name=LOG_STREAM, subjects=["pioche.log.>"]))
            await lobby.put("T1", b"summary 1")
            await cjs.publish("pioche.log.T1", b"header")

            fjs = front.jetstream()
            seen = await fjs.key_value(LOBBY_BUCKET)
            assert (await seen.get("T1")).value == b"summary 1"
            watcher = await seen.watchall()
            assert (await watcher.updates(timeout=5)).value == b"summary 1"
            await lobby.put("T1", b"summary 2")
            update = await watcher.updates(timeout=5)
            while update is None:  # (None marks the end of the values there at the start)
                update = await watcher.updates(timeout=5)
            assert update.value == b"summary 2"
            await watcher.stop()
            online = await fjs.key_value(ONLINE_BUCKET)
            await online.create("alice", b"paris")
            assert (await online.get("alice")).value == b"paris"

            with pytest.raises(nats.errors.TimeoutError):  # (refused: no answer comes)
                await fjs.publish(f"$KV.{LOBBY_BUCKET}.T1", b"forged", timeout=0.5)
            with pytest.raises(nats.errors.TimeoutError):
                await fjs.publish("pioche.log.T1", b"forged", timeout=0.5)
            with pytest.raises(nats.errors.TimeoutError):
                await fjs.subscribe("pioche.log.T1", stream=LOG_STREAM)
            await front.flush()
            assert errors.violation("publish", f"$KV.{LOBBY_BUCKET}.T1"), errors.texts
            assert errors.violation("publish", "pioche.log.T1")
            assert (await lobby.get("T1")).value == b"summary 2"
            assert (await cjs.stream_info(LOG_STREAM)).state.messages == 1  # (the header)
        finally:
            await front.close()
            await core.close()
    finally:
        await server.stop()
