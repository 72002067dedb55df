"""What crosses coordinators (issue 18, second wave; coordinator/cross.py): two coordinators,
each with its own sessions, on one real nats-server with JetStream, in the test's process.

- A lobby line said on one reaches the lobby sessions of both, once each, with the mention's
  bell and the ignore lists of the readers; the rate limit holds at the speaker's.
- ``/msg`` to a player on the other coordinator reaches them (and rings when it mentions
  them); to nobody, or to a watcher elsewhere, is refused as on one.
- The admin's online list shows both coordinators' sessions; a kick, a ban and a broadcast
  reach a player on the other.
- A guest seated on one resumes through the other (the guests' bucket), until one grace period
  after their session ended.

The bus has the roles' users (``bus/roles.py``): coordinators ``ca`` and ``cb``, a front
``fr`` (which may neither read nor send what passes between coordinators, nor read the guests'
bucket). The sessions are opened through each host's request handling
(``CoordinatorHost._dispatch``) rather than through fronts: until the owners' routing of this
wave (a front's session at its home coordinator), two hosts on one bus would both answer a
front's request; and their news is read where a front reads it, on ``pioche.s.<name>.<sid>``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg

from pioche_tui import bus, wire
from pioche_tui.bus.directory import buckets_of
from pioche_tui.bus.natsd import NatsServer
from pioche_tui.bus.roles import User
from pioche_tui.coordinator.cross import token_key
from pioche_tui.coordinator.host import CoordinatorHost
from pioche_tui.coordinator.mailbox import Mail, Notice
from pioche_tui.coordinator.model import ChatLine, GuestPass, Player, Refused, TableUpdate
from tests.bus.test_roles import Errors
from tests.bus.world import make_coordinator, until

pytestmark = pytest.mark.asyncio(loop_scope="function")

class Sessions:
    """The news of every session on the bus (``pioche.s.>``), as the fronts would read it."""

    def __init__(self, nc: Client, url: str) -> None:
        self.nc = nc
        self.url = url  # (the front's user's)
        self.mails: dict[str, list[Mail]] = {}

    async def start(self) -> None:
        await self.nc.subscribe(f"{bus.SESSION_PREFIX}{FRONT_USER}.>", cb=self._on_mail)

    async def _on_mail(self, msg: Msg) -> None:  # (a Player too: a session renamed)
        value = wire.decode(msg.data)
        if isinstance(value, Mail):
            self.mails.setdefault(bus.last_token(msg.subject), []).append(value)

    def chat(self, sid: str) -> list[ChatLine]:
        return [line for mail in self.mails.get(sid, []) for line in mail.chat]

    def notices(self, sid: str) -> list[Notice]:
        return [notice for mail in self.mails.get(sid, []) for notice in mail.notices]

    def closed(self, sid: str) -> bool:
        return any(mail.closed for mail in self.mails.get(sid, []))


class Session:
    """One session on one coordinator, as its front's requests make it."""

    count = 0

    def __init__(self, host: CoordinatorHost, front: str) -> None:
        Session.count += 1
        self.host = host
        self.front = (FRONT_USER, front)
        self.sid = f"s{Session.count}"

    async def call(self, request: str, /, **args: Any) -> Any:
        remote = self.host._remotes.get(self.sid)
        return await self.host._dispatch(wire.Call(request, args), self.front, self.sid,
                                         remote)


FRONT_USER = "fr"
USERS = [User("ca", bus.COORDINATOR, secrets.token_urlsafe(24)),
         User("cb", bus.COORDINATOR, secrets.token_urlsafe(24)),
         User(FRONT_USER, bus.FRONT, secrets.token_urlsafe(24))]


@asynccontextmanager
async def two_coordinators(tmp_path: Path, grace: float = 60.0, admin: str | None = None,
                           servers: list[NatsServer] | None = None
                           ) -> AsyncIterator[tuple[CoordinatorHost, CoordinatorHost, Sessions]]:
    """Coordinators A and B on one JetStream nats-server, and the sessions' news (read as the
    front's user); A's admins' file names ``admin``. Both front processes ("fa", "fb") beat,
    so that their sessions live. ``servers``: gets the nats-server."""
    server = NatsServer(jetstream=tmp_path / "bus", users=USERS)
    await server.start()
    if servers is not None:
        servers.append(server)
    hosts: list[CoordinatorHost] = []
    conns: list[Client] = []
    beat: asyncio.Task[None] | None = None
    try:
        for name in ("ca", "cb"):
            coordinator = make_coordinator(tmp_path / name)
            coordinator.settings = dataclasses.replace(coordinator.settings, grace=grace)
            if admin is not None and name == "ca":
                (tmp_path / name).mkdir(parents=True, exist_ok=True)
                (tmp_path / name / "admins").write_text(f"{admin}\n")
            await coordinator.start()
            nc = await bus.connect(server.url_of(name), f"test-{name}", bus.COORDINATOR)
            conns.append(nc)
            host = CoordinatorHost(coordinator, nc, await buckets_of(nc))
            await host.start()
            hosts.append(host)
        watch = await bus.connect(server.url_of(FRONT_USER), "test-front")
        conns.append(watch)
        sessions = Sessions(watch, server.url_of(FRONT_USER))
        await sessions.start()

        async def heartbeats() -> None:
            while True:
                for front in ("fa", "fb"):
                    await watch.publish(bus.front_alive_subject(FRONT_USER),
                                        wire.encode(wire.FrontAlive(front, 0, ())))
                await asyncio.sleep(bus.HEARTBEAT)

        beat = asyncio.create_task(heartbeats())
        yield hosts[0], hosts[1], sessions
    finally:
        if beat is not None:
            beat.cancel()
            await asyncio.gather(beat, return_exceptions=True)
        for host in hosts:
            host.coordinator.stop()
            await host.stop()
        for nc in conns:
            with contextlib.suppress(Exception):
                await nc.close()
        await server.stop()


def player(name: str) -> Player:
    return Player(f"SHA256:{name}-key", name, address=f"192.0.2.{len(name)}")


async def online(host: CoordinatorHost, name: str, front: str = "fa",
                 who: Player | None = None) -> Session:
    session = Session(host, front)
    await session.call("connect", player=who or player(name))
    return session


async def known_elsewhere(host: CoordinatorHost, *names: str) -> None:
    """Wait until ``host`` sees ``names`` online on another coordinator (its online bucket's
    watch)."""
    cross = host.cross
    assert cross is not None
    await until(lambda: {far.player.name for far in cross.others()} >= set(names),
                f"{names} known elsewhere")


def said(lines: list[ChatLine], text: str) -> list[ChatLine]:
    return [line for line in lines if line.text == text]


async def test_a_lobby_line_reaches_both_lobbies_once(tmp_path: Path) -> None:
    async with two_coordinators(tmp_path) as (a, b, news):
        alice = await online(a, "alice")
        mallory = await online(a, "mallory")
        bob = await online(b, "bob", "fb")
        carol = await online(b, "carol", "fb")
        await known_elsewhere(b, "alice", "mallory")

        await alice.call("chat", text="salut @bob")
        await until(lambda: said(news.chat(carol.sid), "salut @bob"), "carol, on B, reads it")
        await until(lambda: said(news.chat(bob.sid), "salut @bob"), "bob, on B, reads it")
        assert [line.bell for line in said(news.chat(bob.sid), "salut @bob")] == [True]
        assert [line.bell for line in said(news.chat(carol.sid), "salut @bob")] == [False]
        # B keeps it in its own lobby history: a session arriving there reads it
        dave = await online(b, "dave", "fb")
        await until(lambda: said(news.chat(dave.sid), "salut @bob"), "dave reads the history")

        # carol ignores alice, who is on A: her lines no longer reach carol
        assert await carol.call("ignore", name="alice") == ("alice",)
        await alice.call("chat", text="fin")
        await mallory.call("chat", text="après")
        await until(lambda: said(news.chat(carol.sid), "après")
                    and said(news.chat(bob.sid), "après"), "mallory's line on B")
        assert said(news.chat(bob.sid), "fin") and not said(news.chat(carol.sid), "fin")

        # each line once, in every lobby, the speaker's own included
        for sid in (alice.sid, mallory.sid, bob.sid, dave.sid):
            assert len(said(news.chat(sid), "salut @bob")) == 1, sid
        assert len(said(news.chat(carol.sid), "salut @bob")) == 1
        # B's lobby line reaches A
        await bob.call("chat", text="de B", me=True)
        await until(lambda: said(news.chat(alice.sid), "de B"), "bob's line on A")
        assert said(news.chat(alice.sid), "de B")[0].me

        # the rate limit at the speaker's: alice's third line passes, her fourth is refused
        await alice.call("chat", text="trois")
        with pytest.raises(Refused) as refused:
            await alice.call("chat", text="quatre")
        assert refused.value.code == "chat_rate"
        await mallory.call("chat", text="dernier")
        await until(lambda: said(news.chat(bob.sid), "dernier"), "mallory's last line on B")
        assert said(news.chat(bob.sid), "trois") and not said(news.chat(bob.sid), "quatre")
        # the lobby's history on B holds the lines said on A, not stored twice
        b_history = [line.text for line in b.coordinator._chat[("lobby", False)]]
        assert b_history.count("salut @bob") == 1 and "trois" in b_history


async def test_a_private_line_reaches_a_player_on_the_other_coordinator(tmp_path: Path
                                                                        ) -> None:
    async with two_coordinators(tmp_path) as (a, b, news):
        alice = await online(a, "alice")
        bob = await online(b, "bob", "fb")
        watcher = Session(b, "fb")
        await watcher.call("connect", player=dataclasses.replace(player("zoe"),
                                                                  watch_only=True))
        await known_elsewhere(a, "bob", "zoe")

        await alice.call("chat", text="psst @bob", to="bob")
        await until(lambda: said(news.chat(bob.sid), "psst @bob"), "bob gets it on B")
        [line] = said(news.chat(bob.sid), "psst @bob")
        assert (line.to, line.name, line.bell) == ("bob", "alice", True)
        await until(lambda: said(news.chat(alice.sid), "psst @bob"), "alice's own copy")
        assert len(said(news.chat(alice.sid), "psst @bob")) == 1
        await bob.call("chat", text="reçu", to="ALICE")
        await until(lambda: said(news.chat(alice.sid), "reçu"), "bob's answer on A")

        for to, code in (("nobody", "not_online"), ("zoe", "msg_watcher")):
            with pytest.raises(Refused) as refused:
                await alice.call("chat", text="x", to=to)
            assert refused.value.code == code


async def test_the_admin_sees_and_acts_across_coordinators(tmp_path: Path) -> None:
    root = player("root")
    async with two_coordinators(tmp_path, admin=root.identity) as (a, b, news):
        admin = await online(a, "root", who=root)
        bob = await online(b, "bob", "fb")
        carol = await online(b, "carol", "fb")
        await known_elsewhere(a, "bob", "carol")

        view = await admin.call("admin_view")
        assert {s.name for s in view.sessions} == {"root", "bob", "carol"}
        [seen] = [s for s in view.sessions if s.name == "bob"]
        assert seen.identity == bob_identity() and seen.address == ""

        done = await admin.call("admin_act", action="broadcast", target="maintenance")
        assert "autres coordinateurs" in done
        await until(lambda: any(n.text == "maintenance" for n in news.notices(bob.sid)),
                    "the broadcast on B")

        done = await admin.call("admin_act", action="kick", target="bob")
        assert "bob" in done and b.boot in done
        await until(lambda: news.closed(bob.sid), "bob's session closed on B")
        assert any(n.code == "kicked" for n in news.notices(bob.sid))
        await until(lambda: "bob" not in {s.name for s in a.coordinator.console.view().sessions},
                    "bob gone from A's list")

        guest = Session(b, "fb")
        await guest.call("connect", player=Player("guest:invite", "invite", guest=True,
                                                  address="192.0.2.50"))
        await known_elsewhere(a, "invite")
        with pytest.raises(Refused) as refused:  # (its address is not in the bucket)
            await admin.call("admin_act", action="ban", target="invite")
        assert refused.value.code == "bad_target" and "autre coordinateur" in str(refused.value)

        await admin.call("admin_act", action="ban", target="carol", seconds=600)
        await until(lambda: news.closed(carol.sid), "carol's session closed on B")
        assert b.coordinator.console.refusal(player("carol").identity, "") is not None
        with pytest.raises(Refused) as refused:
            await admin.call("admin_act", action="kick", target="bob")
        assert refused.value.code == "not_online"


def bob_identity() -> str:
    return player("bob").identity


async def guest_seated(host: CoordinatorHost, news: Sessions, name: str, move: bool = True
                       ) -> tuple[Session, GuestPass]:
    """A guest at a toy table against a bot on ``host``; ``move``: after a move of theirs (a
    table where a player moved is kept when they drop)."""
    session = Session(host, "fa")
    guest: GuestPass = await session.call("guest_pass")
    await session.call("connect", player=Player(guest.identity, name, guest=True,
                                                address="192.0.2.9"), guest_pass=guest)
    await session.call("quick_play", game="toy", seats=2)
    if not move:
        return session, guest

    def my_turn() -> TableUpdate | None:
        updates = [m.table for m in news.mails.get(session.sid, []) if m.table is not None]
        last = updates[-1] if updates else None
        mine = last is not None and last.view is not None and last.seat in last.to_act
        return last if mine else None

    await until(lambda: my_turn() is not None, f"{name}'s turn")
    update = my_turn()
    assert update is not None
    await session.call("act", action=1, step=update.step)
    return session, guest


async def test_a_guest_resumes_through_the_other_coordinator(tmp_path: Path) -> None:
    async with two_coordinators(tmp_path, grace=2.0) as (a, b, news):
        assert a.cross is not None and b.cross is not None
        session, guest = await guest_seated(a, news, "invite")
        # a token that holds no seat (both coordinators draw from one seed: B's first two are
        # A's guests' below)
        other = [await Session(b, "fb").call("guest_pass") for _ in range(3)][-1]
        assert other.token != guest.token

        tries = iter(range(1, 250))

        async def resumed() -> tuple[GuestPass, str] | None:
            """B's answer to the token, from an address of its own (each has 10 tries)."""
            address = f"198.51.100.{next(tries)}"
            with contextlib.suppress(Refused):
                got: tuple[GuestPass, str] = await Session(b, "fb").call(
                    "resume", token=guest.token, address=address)
                return got
            return None

        found: list[tuple[GuestPass, str]] = []

        async def poll() -> None:
            got = await resumed()
            if got is not None:
                found.append(got)

        await eventually(poll, lambda: bool(found), "B resumes the guest's token")
        assert found[0] == (guest, "invite")
        # spelled as a player types it, the same
        spaced = guest.token.replace("-", " ").upper()
        assert await Session(b, "fb").call("resume", token=spaced, address="192.0.2.10") \
            == (guest, "invite")
        with pytest.raises(Refused) as refused:
            await Session(b, "fb").call("resume", token=other.token, address="192.0.2.11")
        assert refused.value.code == "resume_unknown"

        # a guest who leaves their seat (their session goes on) holds nothing any more
        leaver, left = await guest_seated(a, news, "partant")
        await until(lambda: len(a.cross._kept) == 2, "both seats in the bucket")
        assert await Session(b, "fb").call("resume", token=left.token,
                                           address="192.0.2.12") == (left, "partant")
        await leaver.call("leave")
        await until(lambda: len(a.cross._kept) == 1, "the seat left, gone from the bucket")
        with pytest.raises(Refused) as refused:
            await Session(b, "fb").call("resume", token=left.token, address="192.0.2.12")
        assert refused.value.code == "resume_unknown"

        # one who drops before they moved: the table closes, and the token holds nothing at
        # once, on the table's coordinator as on one (its key not deleted yet: judged there)
        dropped, gone_pass = await guest_seated(a, news, "furtif", move=False)
        await until(lambda: len(a.cross._kept) == 2, "the seat in the bucket")
        await dropped.call("close")
        with pytest.raises(Refused) as refused:
            await Session(a, "fa").call("resume", token=gone_pass.token, address="192.0.2.13")
        assert refused.value.code == "resume_unknown"

        # the guest's session ends: their token still resumes within the grace period, then
        # no more (the bucket's max age)
        await session.call("close")
        await asyncio.sleep(a.coordinator.settings.grace / 2)
        assert await resumed() == (guest, "invite")
        gone: list[bool] = []

        async def poll_gone() -> None:
            if await resumed() is None:
                gone.append(True)

        await eventually(poll_gone, lambda: bool(gone), "the token expired after the grace")
        assert news is not None


async def eventually(step: Callable[[], Any], done: Callable[[], bool], what: str) -> None:
    async def loop() -> None:
        while not done():
            await step()
            if not done():
                await asyncio.sleep(0.1)

    try:
        await asyncio.wait_for(loop(), 10.0)
    except TimeoutError:
        raise AssertionError(f"not within 10 s: {what}") from None


async def test_a_front_can_neither_read_nor_forge_what_passes_between_coordinators(
        tmp_path: Path) -> None:
    """The front's user subscribes to the lobby's relay, the private lines, the admins'
    actions, and publishes on them, and reads the guests' bucket and the coordinators'
    secrets (``pioche_keys``): each refused by the server
    (a permissions violation); a forged lobby line reaches nobody."""
    import nats
    from nats.js.errors import Error as JetStreamError

    async with two_coordinators(tmp_path) as (a, b, news):
        bob = await online(b, "bob", "fb")
        alice = await online(a, "alice")
        errors = Errors()
        spy = await nats.connect(news.url, error_cb=errors.record, allow_reconnect=False,
            inbox_prefix=bus.inbox_prefix(bus.FRONT, FRONT_USER))
        try:
            heard: list[Msg] = []

            async def got(msg: Msg) -> None:
                heard.append(msg)

            crossing = [bus.CHAT_LOBBY, bus.tell_subject(b.boot), bus.TELL, bus.ADMIN_DONE]
            for subject in crossing:
                await spy.subscribe(subject, cb=got)
            forged = ChatLine("lobby", "alice", "forgé", 0.0)
            published = {bus.CHAT_LOBBY: forged, bus.tell_subject(b.boot): wire.Told(
                forged, "bob"), bus.ADMIN_DONE: wire.AdminDone("x", "broadcast", "forgé", None)}
            for subject, value in published.items():
                await spy.publish(subject, wire.encode(value))
            for bucket in (bus.GUESTS_BUCKET, bus.KEYS_BUCKET):
                with pytest.raises((JetStreamError, nats.errors.TimeoutError)):
                    await spy.jetstream(timeout=1).key_value(bucket)
            await spy.flush()
            await alice.call("chat", text="vrai")
            await until(lambda: said(news.chat(bob.sid), "vrai"), "alice's real line on B")
            await until(lambda: all(errors.violation("subscription", s) for s in crossing)
                        and all(errors.violation("publish", s) for s in published)
                        and all(errors.violation("publish", f"$JS.API.STREAM.INFO.KV_{bucket}")
                                for bucket in (bus.GUESTS_BUCKET, bus.KEYS_BUCKET)),
                        f"every violation refused: {errors.texts}")
            assert heard == [] and not said(news.chat(bob.sid), "forgé")
            assert not any(n.text == "forgé" for n in news.notices(bob.sid))
        finally:
            await spy.close()


async def test_a_coordinator_keeps_the_keys_of_the_guests_at_a_table_it_took_over(
        tmp_path: Path) -> None:
    """After a failover a coordinator holds tables whose guests' tokens it never saw: it
    finds their keys in the bucket (by identity) and refreshes them, so that the token still
    resumes past the bucket's max age, until the seat is no longer held."""
    async with two_coordinators(tmp_path, grace=2.0) as (a, b, news):
        assert a.cross is not None and a.cross.guests is not None and b.cross is not None
        token = (await Session(a, "fa").call("guest_pass")).token
        identity = "guest:taken-over"  # (the seat's, as the dead coordinator's log says)
        # the key its first coordinator wrote, before it died
        await a.cross.guests.put(token_key(token), wire.encode(
            wire.Resumable(identity, "repris", "DEAD")))
        seated = Session(b, "fb")  # (a session without its pass: as a restored seat)
        await seated.call("connect", player=Player(identity, "repris", guest=True,
                                                   address="192.0.2.60"))
        table = await seated.call("quick_play", game="toy", seats=2)
        await until(lambda: token_key(token) in b.cross._kept, "B keeps the guest's key")
        assert b.cross._kept[token_key(token)][0] == wire.Resumable(identity, "repris", table)
        await asyncio.sleep(2 * b.coordinator.settings.grace)  # (past the max age: refreshed)
        got = await Session(a, "fa").call("resume", token=token, address="192.0.2.61")
        assert got == (GuestPass(identity, token), "repris")
        await seated.call("leave")  # (nobody moved: the table closes, the seat is free)
        await until(lambda: token_key(token) not in b.cross._kept, "the key deleted")
        with pytest.raises(Refused):
            await Session(a, "fa").call("resume", token=token, address="192.0.2.62")
        assert news is not None


async def test_after_the_bus_came_back_a_coordinator_reads_the_online_bucket_again(
        tmp_path: Path) -> None:
    """nats-server restarted (same port, JetStream's files kept): the watcher of the online
    bucket is gone with it; a player who connects on B afterwards is found from A, and a
    private line reaches them."""
    servers: list[NatsServer] = []
    async with two_coordinators(tmp_path, servers=servers) as (a, b, news):
        alice = await online(a, "alice")
        [server] = servers
        server.kill()
        await server.start()
        await until(lambda: a.nc.is_connected and b.nc.is_connected
                    and a.nc.stats["reconnects"] > 0, "both back on the bus")
        bob = await eventually_online(b, "bob")
        await known_elsewhere(a, "bob")
        await alice.call("chat", text="te revoilà", to="bob")
        await until(lambda: said(news.chat(bob.sid), "te revoilà"), "bob gets it")


async def eventually_online(host: CoordinatorHost, name: str) -> Session:
    """``name`` connected on ``host`` once its online bucket answers again."""
    for _ in range(100):
        try:
            return await online(host, name, "fb")
        except Refused as refused:
            if refused.code != "unavailable":
                raise
            await asyncio.sleep(0.1)
    raise AssertionError(f"{name} could not connect")
