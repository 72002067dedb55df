"""The front's side of the bus: ``client.CoordinatorClient`` over NATS (``pioche front``).

One ``Remote`` per front process, over its NATS connection (``bus.connect``). It opens the apps'
clients (``RemoteClient``, through ``connector()``), answers the SSH front's questions
(``holds_seat`` from the lobby it caches, ``name_owner`` by asking), and keeps both sides'
liveness: the front's heartbeat out (with its counts, for the limits across fronts), the
coordinator's in.

A client's request is a ``wire.Call`` on ``pioche.coord.req.<name>`` (``name``: the front's
name on the bus, its user's; headers: this front's id, the session's id); its answer a
``wire.Answer``, or the ``Refused`` it raised, raised here. A request that finds no coordinator
(no responder, no answer within ``bus.REQUEST_TIMEOUT``, the bus down) raises
``Refused("unavailable")``: an app never sees another exception.

A connected session's news comes on ``pioche.s.<name>.<sid>`` and is put into a ``Mailbox``
here, which merges it as the coordinator's does (latest-wins) and takes off a table update's
``time_left`` the time it waits here; the app reads it through ``mail()`` as in the embedded
mode.

With ``buckets`` (the bus has JetStream: ``bus.directory``), the lobby is this front's own,
built from the lobby's and the online names' buckets (``LobbyWatch``, at most every
``directory.BUILD_INTERVAL``; read whole at start and after the bus was lost): each new one goes
to every session in the lobby here, and a session's news naming a lobby gets it (one decode per
change per front, never one per session).

With several coordinators (``owners``: the owners' buckets exist on the bus), a session has a
home, the coordinator that answered its ``connect`` (on the queue group; on the owner of the
table where the player holds a seat, if any), and its requests go there
(``bus.home_subject``). A ``join``, ``watch`` or ``mirror`` refused ``elsewhere`` moves the
session to the table's owner (closed on its home, connected there with the same player and
guest pass, the request made again), unseen by the app. When a session's home falls silent
(``bus.SILENCE`` without its heartbeat), the session moves too: to the coordinator that claims
its table (``pioche_owners``), or any coordinator for a session in the lobby, within
``REHOME_WAIT``; its mailbox stays, and what the new home sends (the table again, the seat back)
arrives as news: the player sees a pause, not a farewell. News from a session's former home is
dropped (its ``Pioche-Boot``).

A session ends here, its mail saying ``closed`` with the notice ``coordinator_lost`` (the app
says goodbye, the player reconnects and gets their seat back), when the coordinator is lost:
silent for ``bus.SILENCE``, restarted (a new boot id), or news of the session lost on the way
(a gap in its sequence numbers: a bus restart).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from nats import errors
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js.errors import KeyNotFoundError

from .. import bus, wire
from ..bus import FRONT_HEADER, LOBBY_HEADER, SEQ_HEADER, SESSION_HEADER, WIRE_HEADER
from ..bus.directory import CLAIM_WAIT, Buckets, LobbyWatch, unavailable
from ..bus.owners import OwnerBuckets, bind_owner_buckets, owner_of
from ..bus.owners import alive as leased
from .mailbox import Mail, Mailbox, Notice
from .model import (
    AdminView,
    GuestPass,
    LeaderboardRow,
    LobbySnapshot,
    Place,
    Player,
    PlayerStats,
    Profile,
    Refused,
    Replay,
    ServerInfo,
)
from .text import name_key, network

log = logging.getLogger(__name__)

LOST = "Le serveur redémarre : reconnectez-vous dans un instant."
RECONNECTING = "Connexion au serveur perdue : reconnexion…"
RECONNECTED = "Reconnecté au serveur."
UNREACHABLE = "Le serveur est injoignable : reconnectez-vous dans un instant."
LOST_CHECK = 0.1  # seconds between two looks at the connection while a request waits
LOST_ANSWER_WAIT = 0.2
"""Seconds a request on its way when the connection was lost still waits for its answer (one
sent once this front was connected again)."""
BLIP_SHOW = 1.0
"""Seconds without the bus before its sessions' players read « reconnexion… » (a shorter cut
is a pause, unexplained)."""
BLIP_LIMIT = 30.0
"""Seconds without the bus after which this front's sessions end (the players read
``UNREACHABLE``): half the coordinator's default grace period (60 s), so a player who
reconnects at once still finds their seat."""
COUNTS_DEBOUNCE = 0.1  # seconds: a burst of connections makes one heartbeat
NO_RESPONDERS_AGAIN = 0.02  # seconds before a request that found no responder is sent again
REHOME_WAIT = 30.0  # seconds a session of a dead coordinator waits for its table's new owner
REHOME_POLL = 0.2  # seconds between two looks at the owners' bucket meanwhile
ORPHAN_WAIT = 8.0  # seconds after which a table with no owner key is taken for ended
OWN_NAME_WAIT = 2.0
"""Seconds a session that just connected waits, at most, for a lobby built from the buckets
that shows its own name (``Remote._shows_itself``)."""


class _Link:
    """One session as this front holds it: its mailbox, its subscription, what is known of it.
    Several clients may share it (a spectator's session, held by the shared screen, then by
    their own app: ``Remote.opened``)."""

    def __init__(self, sid: str) -> None:
        self.sid = sid
        self.mailbox = Mailbox()
        self.subscription: Subscription | None = None
        self.player: Player | None = None
        self.connected = False  # connect (or mirror) granted, and not ended since
        self.seq = 0  # of the last news read
        self.table_id: str | None = None  # the table of the newest news
        self.lobby_wanted = 0  # a lobby its news named, to put in its mailbox when it comes
        self.mirror = False  # a table's mirror (``Remote.mirror``): never in the lobby
        self.home: str | None = None  # several coordinators: the boot id of the session's
        self.hello: dict[str, Any] = {}  # connect's arguments, to connect it elsewhere
        self.settled = asyncio.Event()  # not moving between coordinators
        self.settled.set()
        self.moved = asyncio.Event()  # set (and replaced) each time it has moved
        self.since = -1e9  # loop time of its connect (Remote._shows_itself)
        self.resync: asyncio.Task[None] | None = None  # its state being asked again
        self.again = False  # asked again while it was (some more news lost)

    @property
    def open(self) -> bool:
        return self.connected and not self.mailbox.closed

    def replay(self, mail: Mail) -> None:
        """Put what the coordinator's mailbox held into this one, as the coordinator would."""
        box = self.mailbox
        if mail.lobby is not None:
            box.put_lobby(mail.lobby)
        if mail.left_table:
            box.put_left_table()
            self.table_id = None
        if mail.table is not None:
            box.put_table(mail.table)
            self.table_id = mail.table.table.id
        for line in mail.chat:
            box.put_chat(line)
        for notice in mail.notices:
            box.put_notice(notice)
        if mail.closed:
            box.close()

    def end(self, code: str, text: str) -> None:
        """The session ends here: its mail says so and why."""
        if self.open:
            self.mailbox.put_notice(Notice(code, text))
            self.mailbox.close()


@dataclass(frozen=True)
class Peer:
    """Another front, as its last heartbeat said (``Remote.peers``)."""

    alive: wire.FrontAlive
    seen: float  # loop time


class Remote:
    """``nc``: connected as ``name`` (``bus.bus_name`` of its URL), with the front's role
    (``bus.connect(…, role=bus.FRONT)``: the answers come into its inbox). ``timeout``: how
    long a request waits for its answer (``bus.REQUEST_TIMEOUT``)."""

    def __init__(self, nc: Client, front_id: str, timeout: float = bus.REQUEST_TIMEOUT,
                 buckets: Buckets | None = None, name: str = bus.USER,
                 owners: OwnerBuckets | None = None) -> None:
        if set(front_id) & set(" .*>-") or not front_id:
            raise ValueError(f"front id {front_id!r}: no space, '.', '*', '>' nor '-'")
        self.nc = nc
        self.front_id = front_id
        self.name = bus.token(name, "bus name")
        self._requests = bus.request_subject(name)
        self._alive = bus.front_alive_subject(name)
        self.timeout = timeout
        self.stops_with_tree = False
        """This front stops with the coordinator (the whole tree stops): its sessions'
        ``server_stopping`` holds every table still. False: it stops alone, and that changes
        nothing at the coordinator (``RemoteClient.server_stopping``)."""
        self.lobby: LobbySnapshot | None = None
        """The newest lobby snapshot the coordinator sent, or this front built from the
        buckets (None before the first)."""
        self._lobby_seq = 0  # the newest lobby's number (bus.LOBBY_HEADER; built: counted)
        self._named: tuple[LobbySnapshot, frozenset[str]] | None = None  # a lobby's names' keys
        self.lobby_watch = LobbyWatch(buckets, self._built) if buckets is not None else None
        self._rewatch: asyncio.Task[None] | None = None  # the buckets read again
        self.boot: str | None = None  # the coordinator's, as its heartbeat says
        self.wire_version = wire.VERSION
        self._mismatched: set[str | None] = set()  # coordinators' wire versions logged
        self.owners: OwnerBuckets | None = None
        """Several coordinators: the owners' buckets (None: one coordinator). Learnt from the
        coordinators heard, not from the buckets' presence (``_learn``)."""
        self._owner_buckets = owners  # (bound, or to bind: buckets of a bus with JetStream)
        self._learning: dict[str, asyncio.Task[None]] = {}  # per coordinator boot heard
        self._boots: dict[str, float] = {}  # several: each coordinator's last heartbeat
        self._moves: set[asyncio.Task[None]] = set()  # sessions of a dead home moving
        self._cut: float | None = None  # loop time this front lost the bus (None: it has it)
        self._told_cut = False  # the players read RECONNECTING
        self._heard = -1e9  # loop time of its last heartbeat
        self._links: dict[str, _Link] = {}
        self._numbers = itertools.count(1)
        self._subscriptions: list[Subscription] = []
        self._tasks: list[asyncio.Task[None]] = []
        self._closing: set[asyncio.Task[None]] = set()  # sessions lost, closed on the coordinator
        self._peers: dict[str, Peer] = {}
        self._counts = wire.FrontAlive(front_id, 0, ())
        self._counts_changed = asyncio.Event()

    # --- life ---------------------------------------------------------------------------------

    async def start(self) -> None:
        self._heard = self._now()  # (the coordinator has SILENCE to be heard from)
        self._subscriptions = [
            await self.nc.subscribe(bus.COORD_ALIVE, cb=self._on_coord_alive),
            await self.nc.subscribe(f"{bus.FRONT_ALIVE}.*", cb=self._on_front_alive),
        ]
        if self.lobby_watch is None:
            self._subscriptions.append(await self.nc.subscribe(bus.LOBBY, cb=self._on_lobby))
        self._tasks = [asyncio.create_task(self._beat(), name="front heartbeat"),
                       asyncio.create_task(self._watch(), name="coordinator watch")]
        await self.nc.flush()
        if self.lobby_watch is not None:
            if self._owner_buckets is not None:  # (coordinators of several living: leases)
                with contextlib.suppress(Exception):
                    if await leased(self._owner_buckets):
                        self.owners = self._owner_buckets
            await self.lobby_watch.start()
            return
        with contextlib.suppress(Refused):  # (none yet: the first one published will do)
            lobby = await self.call("lobby", {})
            if self.lobby is None:
                self.lobby = lobby

    async def stop(self) -> None:
        """Say goodbye (the coordinator closes this front's sessions at once) and stop."""
        rewatch = [self._rewatch] if self._rewatch is not None else []
        learning = list(self._learning.values())
        resyncs = [link.resync for link in self._links.values() if link.resync is not None]
        tasks = [*self._tasks, *self._closing, *rewatch, *self._moves, *learning, *resyncs]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks,
                             return_exceptions=True)
        self._tasks, self._rewatch = [], None
        if self.lobby_watch is not None:
            await self.lobby_watch.stop()
        with contextlib.suppress(Exception):
            await self.nc.publish(self._alive, wire.encode(
                wire.FrontAlive(self.front_id, 0, (), bye=True)))
            await self.nc.flush(timeout=1)
        for link in list(self._links.values()):
            await self._forget(link)
        for subscription in self._subscriptions:
            with contextlib.suppress(Exception):
                await subscription.unsubscribe()
        self._subscriptions = []

    @property
    def coordinator_alive(self) -> bool:
        return self._now() - self._heard <= bus.SILENCE

    # --- clients ------------------------------------------------------------------------------

    def client(self, sid: str | None = None) -> RemoteClient:
        """A new session's client (``sid``: the session's id, else one drawn here)."""
        if sid is None:
            sid = f"{self.front_id}-r{next(self._numbers)}"
        bus.session_subject(self.name, sid)  # (ValueError for a sid that cannot name one)
        return RemoteClient(self, self._link(sid))

    def opened(self, sid: str) -> RemoteClient:
        """A client of the session ``sid``, opened already on this front (``mirror``, or
        another client's ``connect``): its news not read yet waits in it. KeyError for a
        session this front does not hold."""
        link = self._links.get(sid)
        if link is None or not link.connected:
            raise KeyError(f"no session {sid} open on this front")
        return RemoteClient(self, link)

    def connector(self) -> RemoteConnector:
        return RemoteConnector(self)

    def _link(self, sid: str) -> _Link:
        """The session's link: this front's, or a new one, kept once it listens (a client
        that never connects leaves nothing behind)."""
        return self._links.get(sid) or _Link(sid)

    async def _listen(self, link: _Link) -> None:
        """Subscribe to the session's news (before it is opened: none is lost)."""
        self._links[link.sid] = link
        if link.subscription is None:
            link.subscription = await self.nc.subscribe(
                bus.session_subject(self.name, link.sid), cb=self._on_news)

    async def _forget(self, link: _Link) -> None:
        if self._links.get(link.sid) is link:
            del self._links[link.sid]
        if link.subscription is not None:
            with contextlib.suppress(Exception):
                await link.subscription.unsubscribe()
            link.subscription = None

    # --- the front's questions ----------------------------------------------------------------

    def holds_seat(self, identity: str) -> bool:
        """A seat at a table in play or waiting for players, in the newest lobby."""
        lobby = self.lobby
        return lobby is not None and any(
            table.status in ("playing", "waiting")
            and any(seat.kind == "player" and seat.identity == identity
                    for seat in table.seats)
            for table in lobby.tables)

    async def name_owner(self, nickname: str) -> str | None:
        owner: str | None = await self.call("name_owner", {"nickname": nickname})
        return owner

    async def banned(self, identity: str | None, address: str) -> str | None:
        why: str | None = await self.call("banned", {"identity": identity, "address": address})
        return why

    async def mirror(self, table_id: str) -> str:
        """A mirror session of the table (``Coordinator.mirror``) opened under a new sid: its
        client is ``opened(sid)``."""
        link = self._link(f"{self.front_id}-m{next(self._numbers)}")
        link.mirror = True
        await self._listen(link)
        try:
            try:
                _, home = await self.ask("mirror", {"table_id": table_id}, link.sid)
                link.home = home if self.owners is not None else None
            except Refused as refusal:
                if refusal.code != "elsewhere":
                    raise
                link.home = str(refusal.params.get("home"))
                await self.call("mirror", {"table_id": table_id}, link.sid, link.home)
        except Refused:
            await self._forget(link)
            raise
        link.connected = True
        return link.sid

    # --- limits across fronts -----------------------------------------------------------------

    def set_counts(self, sessions: int, addresses: Mapping[str, int]) -> None:
        """This front's sessions playing and admitted connections by address: told to the other
        fronts at once (debounced ``COUNTS_DEBOUNCE``) and with every heartbeat."""
        counts = wire.FrontAlive(self.front_id, sessions,
                                 tuple(sorted((a, n) for a, n in addresses.items() if n)))
        if counts != self._counts:
            self._counts = counts
            self._counts_changed.set()

    def peers(self) -> dict[str, wire.FrontAlive]:
        """The other fronts heard within ``bus.SILENCE``: their last counts, by
        ``NAME/ID`` (their bus name and their id)."""
        now = self._now()
        return {front: peer.alive for front, peer in self._peers.items()
                if now - peer.seen <= bus.SILENCE}

    # --- requests -----------------------------------------------------------------------------

    async def call(self, name: str, args: Mapping[str, Any], sid: str | None = None,
                   home: str | None = None) -> Any:
        """The request's answer, or the Refused it raised; ``unavailable`` when the
        coordinator cannot be reached. ``home``: to that coordinator (several of them), else
        to one of them."""
        return (await self.ask(name, args, sid, home))[0]

    @property
    def connect_timeout(self) -> float:
        """Seconds a connect's answer is waited for: the coordinator may wait through the
        buckets' elections first (``CLAIM_WAIT``). A shorter wait was worse than a refusal: the
        front asked again while the first connect went on, and the second replaced the first
        session, its player told « Vous vous êtes connecté ailleurs » (the 50-kill chaos
        bench, a session moving from a dead coordinator)."""
        return self.timeout + CLAIM_WAIT

    async def ask(self, name: str, args: Mapping[str, Any], sid: str | None = None,
                  home: str | None = None, timeout: float | None = None
                  ) -> tuple[Any, str | None]:
        """``call``, and the boot id of the coordinator that answered (``timeout``: seconds
        to wait for it, the front's request time-out if None)."""
        subject = self._requests if home is None else bus.home_subject(home, self.name)
        try:
            data = wire.encode(wire.Call(name, args))
        except wire.WireError as error:
            raise Refused("bad_request", f"Requête refusée : {error}") from None
        if not self.nc.is_connected:
            raise unavailable()
        headers = {FRONT_HEADER: self.front_id, WIRE_HEADER: str(self.wire_version)}
        if sid is not None:
            headers[SESSION_HEADER] = sid
        try:
            try:
                reply = await self._request(subject, data, headers, timeout)
            except errors.NoRespondersError:
                # nats-server may route a publish by its subscriptions of a moment before: a
                # coordinator that has just subscribed (started, restarted) is then missed,
                # once. Asked again, shortly after, before the coordinator is unavailable.
                await asyncio.sleep(NO_RESPONDERS_AGAIN)
                try:
                    reply = await self._request(subject, data, headers, timeout)
                except errors.NoRespondersError:
                    if home is not None:  # (nobody on its subject: that coordinator is gone)
                        self._boots.pop(home, None)
                    raise
        except Exception as error:  # no responders, time out, the bus closed or reconnecting
            log.info("request %s unanswered: %s", name, type(error).__name__)
            raise unavailable() from None
        version = (reply.headers or {}).get(WIRE_HEADER)
        if version != str(self.wire_version):  # (its answer may not mean what we read)
            if version not in self._mismatched:
                self._mismatched.add(version)
                log.error("the coordinator speaks wire version %s, this front %d: every "
                          "session is refused until both run one version (upgrade them "
                          "together)", version or "(none: older)", self.wire_version)
            raise Refused("wire_version", wire.WIRE_MISMATCH)
        boot = (reply.headers or {}).get(bus.BOOT_HEADER)
        if boot:
            await self._learn(boot)
            self._heard_from(boot)
        try:
            answer = wire.decode(reply.data)
        except wire.WireError as error:
            log.warning("bad answer to %s dropped: %s", name, error)
            raise unavailable() from None
        if isinstance(answer, Refused):
            raise answer
        if not isinstance(answer, wire.Answer) or answer.request != name:
            log.warning("answer to %s dropped: %r", name, type(answer).__name__)
            raise unavailable()
        return answer.value, boot

    async def _request(self, subject: str, data: bytes, headers: dict[str, str],
                       timeout: float | None = None) -> Msg:
        """``nc.request``, given up (``errors.ConnectionClosedError``) once the connection was
        lost with it on its way and its answer has not come ``LOST_ANSWER_WAIT`` later: nats-py
        would keep it waiting for its whole time-out, while the answer, sent as the connection
        was down, is gone (the session's state is asked again meanwhile: ``_back``)."""
        reconnects = self.nc.stats["reconnects"]
        asking = asyncio.ensure_future(
            self.nc.request(subject, data, timeout=timeout or self.timeout, headers=headers))
        try:
            while True:
                await asyncio.wait((asking,), timeout=LOST_CHECK)
                if asking.done():
                    return asking.result()
                if not self.nc.is_connected or self.nc.stats["reconnects"] != reconnects:
                    await asyncio.wait((asking,), timeout=LOST_ANSWER_WAIT)
                    if asking.done():
                        return asking.result()
                    raise errors.ConnectionClosedError
        finally:
            if not asking.done():
                asking.cancel()

    # --- news ---------------------------------------------------------------------------------

    async def _on_news(self, msg: Msg) -> None:
        link = self._links.get(bus.last_token(msg.subject))
        if link is None:
            return
        headers = msg.headers or {}
        try:
            news = wire.decode(msg.data)
            if not isinstance(news, Mail | Player):
                raise wire.WireError(f"expected Mail or Player, got {type(news).__name__}")
            seq = int(headers.get(SEQ_HEADER, ""))
            lobby = int(headers.get(LOBBY_HEADER, "0"))
        except (wire.WireError, ValueError) as error:
            log.warning("bad news of %s dropped: %s", link.sid, error)
            return
        if link.home is not None and headers.get(bus.BOOT_HEADER) != link.home:
            return  # (its former home's, after it moved)
        if seq != link.seq + 1 and link.seq:  # (some news never came: the bus lost a moment)
            log.warning("news of %s lost (%d after %d): its state asked again", link.sid, seq,
                        link.seq)
            self._resync_soon(link)
        link.seq = seq
        if isinstance(news, Mail) and news.closed and not self.stops_with_tree and any(
                notice.code == bus.FRONT_SILENT for notice in news.notices):
            # (the coordinator took this front for dead while it was cut off from the bus:
            # the session is connected again, unseen)
            news = replace(news, closed=False, notices=tuple(
                notice for notice in news.notices if notice.code != bus.FRONT_SILENT))
            self._resync_soon(link)
        if isinstance(news, Player):
            link.player = news
            return
        if link.home is not None and link.table_id is not None and link.settled.is_set() \
                and any(notice.code == "moved" for notice in news.notices):
            # (its table taken over by another coordinator: the session moves there, and the
            # app reads none of this, as on a failover)
            news, lobby = replace(news, left_table=False, lobby=None, notices=tuple(
                n for n in news.notices if n.code not in ("moved", "stopped"))), 0
            self._start_move(link, deposed=True)
        if lobby and self.lobby is not None and self._lobby_seq >= lobby and \
                self._shows_itself(link, self.lobby):
            news = replace(news, lobby=self.lobby)  # (its lobby, or a newer one)
        elif lobby:  # (not read yet: each subscription is read by a task of its own)
            waiting = link.lobby_wanted
            link.lobby_wanted = max(link.lobby_wanted, lobby)
            if self.lobby_watch is not None and not waiting:  # (a name whose key never
                # comes: at most this; one timer while it waits, not one per mail)
                asyncio.get_running_loop().call_later(OWN_NAME_WAIT, self._overdue, link)
        link.replay(news)

    def _shows_itself(self, link: _Link, lobby: LobbySnapshot) -> bool:
        """Whether ``lobby`` may go to ``link`` yet. A lobby built from the buckets lags them
        (it is built at most every 0.5 s): the one a session gets on connecting must show its
        own name, else the player reads an online list without themself (and a profile picker
        with nobody in it). Past ``OWN_NAME_WAIT`` from its connection, any lobby goes."""
        player = link.player or link.hello.get("player")
        if self.lobby_watch is None or link.mirror or not isinstance(player, Player) or \
                self._now() - link.since > OWN_NAME_WAIT:
            return True
        if self._named is None or self._named[0] is not lobby:  # (folded once per lobby,
            # not once per session that just connected)
            self._named = (lobby, frozenset(name_key(entry.name) for entry in lobby.online))
        return name_key(player.name) in self._named[1]

    def _overdue(self, link: _Link) -> None:
        """A session still waiting for its lobby ``OWN_NAME_WAIT`` later gets this front's."""
        if link.open and link.lobby_wanted and self.lobby is not None:
            link.lobby_wanted = 0
            link.mailbox.put_lobby(self.lobby)

    def _lost(self, link: _Link) -> None:
        """The session cannot go on from here: ended, and closed on the coordinator (if it
        hears: else it closes it when this front's heartbeat is missed). Not when the whole
        tree stops: the coordinator and the bus go with it, and the front's own goodbye, not
        « the server restarts », is what the player must read."""
        if not link.open or self.stops_with_tree:
            return
        link.end("coordinator_lost", LOST)
        task = asyncio.create_task(self._close_quietly(link.sid))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def _close_quietly(self, sid: str) -> None:
        with contextlib.suppress(Refused):
            await self.call("close", {}, sid)

    def _built(self, lobby: LobbySnapshot) -> None:
        """A lobby built from the buckets: this front's newest, for every session in the lobby
        here and every one whose news named a lobby."""
        self.lobby = lobby
        self._lobby_seq += 1
        for link in self._links.values():
            if link.open and (link.lobby_wanted or (link.table_id is None and not link.mirror)) \
                    and self._shows_itself(link, lobby):
                link.lobby_wanted = 0
                link.mailbox.put_lobby(lobby)

    async def _read_buckets_again(self) -> None:
        """The bus was lost a moment: the buckets are read whole again (changes made meanwhile
        were never delivered to this front's watchers)."""
        assert self.lobby_watch is not None
        try:
            await self.lobby_watch.start()
        except Exception as error:  # (tried again at the next reconnection)
            log.warning("the lobby's buckets cannot be read: %s", error)

    async def _on_lobby(self, msg: Msg) -> None:
        try:
            lobby = wire.decode(msg.data, expect=LobbySnapshot)
            seq = int((msg.headers or {}).get(LOBBY_HEADER, ""))
        except (wire.WireError, ValueError) as error:
            log.warning("bad lobby dropped: %s", error)
            return
        self.lobby, self._lobby_seq = lobby, seq
        for link in self._links.values():
            if link.lobby_wanted and link.lobby_wanted <= seq:
                link.lobby_wanted = 0
                if link.open:
                    link.mailbox.put_lobby(lobby)

    # --- liveness -----------------------------------------------------------------------------

    @staticmethod
    def _now() -> float:
        return asyncio.get_running_loop().time()

    async def _on_coord_alive(self, msg: Msg) -> None:
        alive = bus.read(msg, wire.CoordAlive, "coordinator heartbeat")
        if alive is not None:
            await self._learn(alive.boot)
            self._heard_from(alive.boot)

    async def _learn(self, boot: str) -> None:
        """Whether the coordinator ``boot``, heard for the first time, is one of several: its
        lease is in ``pioche_leases`` (put before it serves: ``TableOwners.start``). So a
        front learns it whenever the coordinators start, before or after it, and a bus that
        once had several but now has one coordinator (the buckets stay in its store) is not
        taken for several. Once several, for good (a front is restarted to go back to one)."""
        if self.owners is not None or self.lobby_watch is None:
            return
        learning = self._learning.get(boot)
        if learning is None:
            learning = self._learning[boot] = asyncio.ensure_future(self._look_up(boot))
        await asyncio.shield(learning)

    async def _look_up(self, boot: str) -> None:
        try:
            if self._owner_buckets is None:
                self._owner_buckets = await bind_owner_buckets(self.nc)
            buckets = self._owner_buckets
            if buckets is not None and self.owners is None \
                    and await buckets.leases.get(boot) is not None:
                self.owners = buckets
                log.info("coordinator %s is one of several (its lease): sessions have homes",
                         boot)
        except KeyNotFoundError:
            pass
        except Exception as error:  # (the bus: looked up again at the next heartbeat)
            log.warning("whether coordinator %s is one of several is not known yet: %s", boot,
                        error)
            self._learning.pop(boot, None)

    def _heard_from(self, boot: str) -> None:
        """The coordinator ``boot`` is alive (a heartbeat, an answer). A new one knows none of
        the sessions opened on the one before: they end (one coordinator; with several, each
        session follows its own home: ``_watch``)."""
        if self.owners is not None:
            self._boots[boot] = self._now()
        elif boot != self.boot:
            if self.boot is not None:
                log.warning("the coordinator restarted (boot %s): this front's sessions end",
                            boot)
                if self.lobby_watch is None:
                    self._lobby_seq = 0  # (it numbers its lobbies from 1)
            # (A session this very answer opens is not connected yet: it stays.)
            for link in list(self._links.values()):
                link.end("coordinator_lost", LOST)
            self.boot = boot
        self._heard = self._now()

    async def _on_front_alive(self, msg: Msg) -> None:
        alive = bus.read(msg, wire.FrontAlive, "front heartbeat")
        if alive is None:
            return
        key = f"{bus.last_token(msg.subject)}/{alive.front}"  # (ids are said, names pinned)
        if key == f"{self.name}/{self.front_id}":
            return
        if alive.bye:
            self._peers.pop(key, None)
        else:
            self._peers[key] = Peer(alive, self._now())


    async def _watch(self) -> None:
        """Every quarter of a heartbeat: a coordinator silent while this front has the bus is
        lost (one coordinator: the sessions end; several: they move, ``_move_orphans``); the
        bus lost a while is waited for (``_cut_off``) and, once back, each session's state is
        asked again (``_back``): the players see a pause, not a farewell."""
        lost = False
        reconnects = self.nc.stats["reconnects"]
        while True:
            await asyncio.sleep(bus.HEARTBEAT / 4)
            if not self.nc.is_connected:
                self._cut_off()
                continue
            if self.nc.stats["reconnects"] != reconnects:
                reconnects = self.nc.stats["reconnects"]
                self._back()
            alive = self.coordinator_alive
            if not alive and not lost and self.owners is None \
                    and any(link.open for link in self._links.values()):
                log.warning("the coordinator is silent: this front's sessions end")
                for link in list(self._links.values()):
                    self._lost(link)
            lost = not alive
            if self.owners is not None:
                self._move_orphans()

    def _cut_off(self) -> None:
        """This front has no bus (its nats-server died, the network): its sessions wait for it,
        their players told after ``BLIP_SHOW``; past ``BLIP_LIMIT`` they end."""
        now = self._now()
        if self._cut is None:
            self._cut = now
            log.warning("bus lost: this front's sessions wait for it (%.0f s at most)",
                        BLIP_LIMIT)
        if self.stops_with_tree:  # (the tree stops: its own goodbye is what players read)
            return
        if not self._told_cut and now - self._cut >= BLIP_SHOW:
            self._told_cut = True
            for link in self._links.values():
                if link.open and not link.mirror:
                    link.mailbox.put_notice(Notice("reconnecting", RECONNECTING))
        if now - self._cut >= BLIP_LIMIT and any(link.open for link in self._links.values()):
            log.warning("bus lost for %.0f s: this front's sessions end", now - self._cut)
            for link in self._links.values():
                link.end("unreachable", UNREACHABLE)

    def _back(self) -> None:
        """The bus is back (nats-py reconnected, to the same node or another): the news sent
        meanwhile is lost (NATS delivers at most once), so every session's state is asked
        again (``_resync``); the coordinators have ``bus.SILENCE`` again to be heard."""
        now = self._now()
        cut, told = self._cut if self._cut is not None else now, self._told_cut
        self._cut, self._told_cut = None, False
        log.info("bus back after %.1f s: this front's sessions ask for their state", now - cut)
        self._heard = max(self._heard, now)
        for boot, seen in self._boots.items():
            if seen >= cut - bus.SILENCE:  # (alive when the bus was lost)
                self._boots[boot] = now
        self._counts_changed.set()  # (a heartbeat now: the coordinators hear this front)
        if self.lobby_watch is not None:
            if self._rewatch is not None:
                self._rewatch.cancel()
            self._rewatch = asyncio.create_task(self._read_buckets_again(),
                                                name="lobby read again")
        for link in list(self._links.values()):
            if link.open:
                if told and not link.mirror:
                    link.mailbox.put_notice(Notice("reconnected", RECONNECTED))
                self._resync_soon(link)

    def _resync_soon(self, link: _Link) -> None:
        """Ask the session's state again (``_resync``), once more if it is being asked."""
        if link.resync is not None and not link.resync.done():
            link.again = True
            return
        link.again = False
        link.resync = asyncio.create_task(self._resync(link), name=f"resync {link.sid}")

    async def _resync(self, link: _Link) -> None:
        """The session's home puts the session's whole state in its news again (``resync``:
        the lobby, its table's newest view); its next news is taken whatever its number. A
        session its home no longer holds (it took this front for dead, ``bus.FRONT_SILENT``)
        is connected again (``_revive``): its seat given back. Asked again while the
        coordinator cannot be reached, ``BLIP_LIMIT`` at most: then the session ends."""
        started = self._now()
        while link.open:
            if self._now() - started >= BLIP_LIMIT:
                log.warning("session %s: its state cannot be asked again; it ends", link.sid)
                link.end("unreachable", UNREACHABLE)
                return
            with contextlib.suppress(TimeoutError):  # (moving: asked at its new home)
                await asyncio.wait_for(link.settled.wait(), REHOME_WAIT)
            link.again = False
            link.seq = 0
            try:
                table_id = await self.call("resync", {}, link.sid, link.home)
            except Refused as refusal:
                if refusal.code == "not_connected":
                    if await self._revive(link):
                        continue
                    return
                if refusal.code != "unavailable":
                    log.warning("session %s: state not asked again: %s", link.sid, refusal)
                    return
                await asyncio.sleep(REHOME_POLL)
                continue
            if table_id is None and link.table_id is not None:  # (left meanwhile)
                link.mailbox.put_left_table()
                link.table_id = None
            if not link.again:
                return

    async def _revive(self, link: _Link) -> bool:
        """Connect the session again where it was (its coordinator closed it, having taken
        this front for dead). True: its state is to be asked again (not reached yet, or open
        there already); False: done, or it cannot be (it then ends)."""
        try:
            if link.mirror:
                if link.table_id is None:
                    raise Refused("not_connected", "Pas de table à montrer.")
                await self.call("mirror", {"table_id": link.table_id}, link.sid, link.home)
            elif link.hello:
                await self._connect_at(link, link.home)
            else:
                raise Refused("not_connected", "Pas de session à rouvrir.")
        except Refused as refusal:
            if refusal.code in ("unavailable", "connected"):  # (tried again; open there)
                await asyncio.sleep(REHOME_POLL)
                return True
            log.warning("session %s cannot be connected again: %s", link.sid, refusal)
            link.end("coordinator_lost", LOST)
            return False
        log.info("session %s connected again (its front was taken for dead)", link.sid)
        if not link.open:  # (closed by its app meanwhile)
            with contextlib.suppress(Refused):
                await self.call("close", {}, link.sid, link.home)
            return False
        link.again = False
        return False

    def alive(self, cid: str) -> bool:
        """Several coordinators: ``cid`` was heard within ``bus.SILENCE``."""
        return self._now() - self._boots.get(cid, -1e9) <= bus.SILENCE

    def _move_orphans(self) -> None:
        """The sessions whose home fell silent move (``_rehome``)."""
        for link in list(self._links.values()):
            if link.open and link.home is not None and link.settled.is_set() \
                    and not self.alive(link.home):
                self._start_move(link)

    def _start_move(self, link: _Link, deposed: bool = False) -> None:
        link.settled.clear()
        task = asyncio.create_task(self._rehome(link, deposed), name=f"rehome {link.sid}")
        self._moves.add(task)
        task.add_done_callback(self._moves.discard)

    async def _rehome(self, link: _Link, deposed: bool = False) -> None:
        """Connect the session of a dead coordinator where its table is served now (any
        coordinator for one in the lobby), or end it past ``REHOME_WAIT``. ``deposed``: its
        home is alive, but another coordinator took its table over (news ``moved``): the
        session is closed there, and connected at the table's new owner."""
        assert self.owners is not None
        dead, started, left = link.home, self._now(), False
        hint: str | None = None  # where a coordinator said the player's seat is (elsewhere)
        if deposed:
            log.info("table %s of session %s taken over: it moves", link.table_id, link.sid)
        else:
            log.warning("coordinator %s silent: session %s moves", dead, link.sid)
        try:
            while self._now() - started < REHOME_WAIT and link.open:
                if dead is not None and self.alive(dead) and not deposed:  # (it was slow)
                    log.info("coordinator %s heard again: session %s stays", dead, link.sid)
                    return
                home: str | None = None
                found = None
                if link.table_id is not None:
                    with contextlib.suppress(Exception):
                        found = await owner_of(self.owners, link.table_id)
                if found is not None and found[0] != dead:
                    home = found[0] if self.alive(found[0]) else None
                    if home is None:
                        await asyncio.sleep(REHOME_POLL)
                        continue
                elif link.table_id is not None and (
                        found is not None or self._now() - started < ORPHAN_WAIT):
                    await asyncio.sleep(REHOME_POLL)  # (not claimed yet)
                    continue
                elif link.table_id is None and hint is not None and self.alive(hint):
                    home = hint
                if deposed and not left:  # (its former home holds it in its lobby: closed
                    link.home = home  # there, and what it sends now dropped)
                    with contextlib.suppress(Refused):
                        await self.call("close", {}, link.sid, dead)
                    left = True
                try:
                    place = await self._connect_at(link, home)
                except Refused as refusal:
                    if refusal.code == "elsewhere":  # (a session in the lobby whose player
                        # holds a seat at another coordinator's table, as the lobby's bucket
                        # says: there once it is alive; at the dead home's, once claimed. The
                        # bucket may still show a seat just left, its home dying before it
                        # wrote that: the 50-kill chaos bench, seed 13, a session ended so)
                        hint = str(refusal.params.get("home"))
                    elif refusal.code != "unavailable":  # (trying again would not help)
                        log.warning("session %s cannot move: %s", link.sid, refusal)
                        break
                    await asyncio.sleep(REHOME_POLL)
                    continue
                log.info("session %s moved to %s in %.1f s", link.sid, link.home,
                         self._now() - started)
                if link.table_id is not None and place.table != link.table_id:
                    # (its table is not there: gone while it moved, as when the last move,
                    # landed in the log as its home died, ended the game at the claim; the
                    # table closed before its players came. Else its client, told nothing,
                    # would show that table for good: the 50-kill chaos bench, seed 13)
                    log.info("session %s: its table %s is gone", link.sid, link.table_id)
                    link.mailbox.put_left_table()
                    link.table_id = None
                if not link.open:  # (closed by its app meanwhile)
                    with contextlib.suppress(Refused):
                        await self.call("close", {}, link.sid, link.home)
                return
            link.end("coordinator_lost", LOST)
        finally:
            link.settled.set()

    async def _connect_at(self, link: _Link, home: str | None) -> Any:
        """Connect the session at ``home`` (None: any coordinator) with its first
        ``connect``'s arguments; its news from there on are that home's."""
        previous, link.home, link.seq = link.home, home, 0
        try:
            place, boot = await self.ask("connect", link.hello, link.sid, home,
                                         self.connect_timeout)
        except BaseException:
            link.home = previous
            raise
        link.home = boot if self.owners is not None else None
        link.moved.set()
        link.moved = asyncio.Event()
        return place

    async def moved_from(self, link: _Link, home: str) -> bool:
        """A request to the session's home went unanswered, and the home is dead (silent, or
        no responder on its subject: its connection is gone from the bus, ``ask``): the
        session moves (``_rehome``), and True once it has moved: the request is made again
        there (an action made twice is refused as stale)."""
        if self.owners is None or link.home != home or not link.open or self.alive(home):
            return False
        self._move_orphans()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(link.settled.wait(), REHOME_WAIT)
        return link.open and link.home not in (None, home)

    async def move(self, link: _Link, home: str, table_id: str) -> None:
        """Move the session to ``home``, the owner of ``table_id`` (a join or watch refused
        ``elsewhere``): closed on its home, connected there. If that owner does not answer (it
        died a moment ago, its heartbeats still fresh), the session waits for the table's
        claim and goes to its new owner (``REHOME_WAIT`` at most; then back to its old home,
        and refused ``unavailable``). (It was left homed on the dead coordinator: the join
        refused « Le serveur ne répond pas », the session lost until its home was taken for
        dead: the 50-kill chaos bench, seed 7, an SSH player joining a table made 0.1 s before
        its coordinator's kill.)"""
        link.settled.clear()
        started = self._now()
        try:
            old, link.home = link.home, home  # (what the old home sends now is dropped)
            with contextlib.suppress(Refused):
                await self.call("close", {}, link.sid, old)
            while True:
                try:
                    await self._connect_at(link, home)
                    break
                except Refused as refusal:
                    if refusal.code != "unavailable" or self.alive(home) \
                            or self._now() - started > REHOME_WAIT:
                        with contextlib.suppress(Refused):  # (not lost: back where it was)
                            await self._connect_at(link, old)
                        raise
                await asyncio.sleep(REHOME_POLL)
                home = await self.live_owner(table_id) or home
            log.info("session %s moved from %s to %s", link.sid, old, home)
        finally:
            link.settled.set()

    def counting(self, address: str) -> str | None:
        """Several coordinators: the one that counts the resume attempts of ``address``'s
        network (``text.network``), the same for it on every front while the same coordinators
        live, so that an address gets one budget of attempts, not one per coordinator; None
        (any coordinator) with one, or none heard yet."""
        living = sorted(boot for boot in self._boots if self.alive(boot))
        if self.owners is None or not living:
            return None
        digest = hashlib.sha256(network(address).encode()).digest()
        return living[int.from_bytes(digest[:8], "big") % len(living)]

    async def seat_home(self, identity: str) -> str | None:
        """Several coordinators: the owner of the table where ``identity`` holds a seat (in
        this front's lobby), if it is alive; None otherwise."""
        if self.owners is None or self.lobby is None:
            return None
        for table in self.lobby.tables:
            if any(seat.kind == "player" and seat.identity == identity
                   for seat in table.seats) and (owner := await self.live_owner(table.id)):
                return owner
        return None

    async def live_owner(self, table_id: str) -> str | None:
        """Several coordinators: the table's owner if it is alive; None otherwise, and while
        the owners' bucket does not answer (an election: asked again later)."""
        if self.owners is None:
            return None
        with contextlib.suppress(Exception):
            found = await owner_of(self.owners, table_id)
            if found is not None and self.alive(found[0]):
                return found[0]
        return None

    async def _beat(self) -> None:
        while True:
            with contextlib.suppress(Exception):  # (the bus is down: beat again later)
                await self.nc.publish(self._alive, wire.encode(self._counts))
            self._counts_changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._counts_changed.wait(), bus.HEARTBEAT)
                await asyncio.sleep(COUNTS_DEBOUNCE)


class RemoteConnector:
    """``client.Connector`` of a front: each app's client, a new session's."""

    def __init__(self, remote: Remote) -> None:
        self.remote = remote

    def client(self) -> RemoteClient:
        return self.remote.client()


class RemoteClient:
    """``client.CoordinatorClient`` over the bus (see the module's docstring)."""

    def __init__(self, remote: Remote, link: _Link) -> None:
        self._remote = remote
        self._link = link
        self._in_flight: set[asyncio.Future[None]] = set()  # one per request not answered

    @property
    def sid(self) -> str:
        return self._link.sid

    @property
    def table_id(self) -> str | None:
        """The table the session is at as of the newest news delivered (None: the lobby)."""
        return self._link.table_id

    @property
    def player(self) -> Player | None:
        return self._link.player if self._link.connected else None

    @property
    def open(self) -> bool:
        return self._link.open

    @property
    def pending(self) -> bool:
        return self._link.mailbox.pending

    async def _call(self, request: str, /, **args: Any) -> Any:
        answered: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._in_flight.add(answered)
        link = self._link
        try:
            if not link.settled.is_set():  # (moving: its new home answers)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(link.settled.wait(), REHOME_WAIT)
            home = link.home if link.connected else None
            try:
                return await self._at_home(request, args, home)
            except Refused as refusal:
                if refusal.code == "unavailable" and home is not None \
                        and await self._remote.moved_from(link, home):
                    return await self._remote.call(request, args, link.sid, link.home)
                if refusal.code != "elsewhere" or request not in ("join", "watch"):
                    raise
                await self._remote.move(link, str(refusal.params.get("home")),
                                        str(args["table_id"]).strip().upper())
                return await self._remote.call(request, args, link.sid, link.home)
        finally:
            self._in_flight.discard(answered)
            answered.set_result(None)

    async def _at_home(self, request: str, args: dict[str, Any], home: str | None) -> Any:
        """The request at ``home``; made again at the session's new home if the session moves
        while it waits (its home died with the request on its way: no answer would come
        before the time-out)."""
        link, remote = self._link, self._remote
        if home is None or remote.owners is None:
            return await remote.call(request, args, link.sid, home)
        moved = asyncio.ensure_future(link.moved.wait())
        asking = asyncio.ensure_future(remote.call(request, args, link.sid, home))
        try:
            await asyncio.wait((asking, moved), return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            asking.cancel()
            raise
        finally:
            moved.cancel()
        if asking.done():
            return asking.result()
        asking.cancel()
        await asyncio.gather(asking, return_exceptions=True)
        return await remote.call(request, args, link.sid, link.home)

    # --- before connecting -----------------------------------------------------------------

    async def server_info(self) -> ServerInfo:
        info: ServerInfo = await self._call("server_info")
        return info

    async def preferences(self, identity: str) -> dict[str, Any]:
        return dict(await self._call("preferences", identity=identity))

    async def keep_preferences(self, identity: str, data: Mapping[str, Any]) -> bool:
        return bool(await self._call("keep_preferences", identity=identity, data=data))

    async def known_name(self, identity: str) -> str | None:
        name: str | None = await self._call("known_name", identity=identity)
        return name

    async def guest_pass(self) -> GuestPass:
        guest: GuestPass = await self._call("guest_pass")
        return guest

    async def resume(self, token: str, address: str) -> tuple[GuestPass, str]:
        args = {"token": token, "address": address}
        counting = self._remote.counting(address)
        resumed: tuple[GuestPass, str]
        if counting is not None:  # (several coordinators: the address's own, if it answers)
            try:
                resumed = await self._remote.call("resume", args, self.sid, counting)
                return resumed
            except Refused as refusal:
                if refusal.code != "unavailable":
                    raise
        resumed = await self._call("resume", **args)
        return resumed

    async def connect(self, player: Player, guest_pass: GuestPass | None = None) -> Place:
        link = self._link
        if link.open:
            raise Refused("connected", "Session déjà ouverte.")
        if link.mailbox.closed or link.seq:  # (connected before: a fresh mailbox)
            link.mailbox, link.seq, link.player = Mailbox(), 0, None
        await self._remote._listen(link)
        link.hello = {"player": player, "guest_pass": guest_pass}
        link.since = self._remote._now()
        link.home = await self._remote.seat_home(player.identity)
        timeout, hops = self._remote.connect_timeout, 0
        started = self._remote._now()
        try:
            place: Place
            while True:
                try:
                    place, boot = await self._remote.ask("connect", link.hello, link.sid,
                                                         link.home, timeout)
                    break
                except Refused as refusal:
                    late = self._remote._now() - started > REHOME_WAIT
                    if refusal.code == "elsewhere" and not late:  # (a seat held at another
                        # coordinator's table; sent on again, a moment for the coordinators'
                        # views of its owner to agree, not a storm of requests)
                        if hops:
                            await asyncio.sleep(REHOME_POLL)
                        hops += 1
                        link.home = str(refusal.params.get("home"))
                        continue
                    if refusal.code != "unavailable" or link.home is None \
                            or self._remote.alive(link.home) or late:
                        raise
                # The home of the player's table died (not yet taken for dead: its lease and
                # heartbeats are 3 s old at most): wait for another coordinator to claim the
                # table, as a session of that home waits (``_rehome``), and connect there.
                await asyncio.sleep(REHOME_POLL)
                link.home = await self._remote.seat_home(player.identity)
        except BaseException:
            link.home = None
            raise
        link.home = boot if self._remote.owners is not None else None
        link.connected = True
        with contextlib.suppress(Refused):  # (the name as the coordinator gave it)
            link.player = await self._call("player") or link.player
        if link.player is None:
            link.player = player
        return place

    # --- the session ---------------------------------------------------------------------

    async def mail(self) -> Mail:
        """The news, read once every request of this client that was on its way when it came
        has been answered. The host sends what a request did before its answer; in one process
        the app reads it after the request returns (the request never suspends), and screens
        rely on that order: the create dialog closes itself on ``create_table``'s answer, and
        the table's news opens the table screen over the lobby, not over the dialog (whose
        dismissal would then close the table screen instead)."""
        if not self._link.connected:
            raise Refused("not_connected", "Pas de session ouverte.")
        mail = await self._link.mailbox.get()
        if self._in_flight:
            await asyncio.wait(list(self._in_flight))
        return mail

    async def place(self) -> Place:
        place: Place = await self._call("place")
        return place

    async def create_table(self, game: str, *, seats: int,
                           options: Mapping[str, Any] | None = None,
                           bots: Mapping[int, str] | None = None,
                           timer: float | str | None = "default", private: bool = False,
                           sit: bool = True) -> str:
        table: str = await self._call("create_table", game=game, seats=seats, options=options,
                                      bots=bots, timer=timer, private=private, sit=sit)
        return table

    async def quick_play(self, game: str, seats: int = 4,
                         options: Mapping[str, Any] | None = None) -> str:
        table: str = await self._call("quick_play", game=game, seats=seats, options=options)
        return table

    async def learn(self, game: str) -> str:
        table: str = await self._call("learn", game=game)
        return table

    async def join(self, table_id: str, seat: int | None = None, code: str | None = None
                   ) -> None:
        await self._call("join", table_id=table_id, seat=seat, code=code)

    async def watch(self, table_id: str, code: str | None = None) -> None:
        await self._call("watch", table_id=table_id, code=code)

    async def start(self) -> None:
        await self._call("start")

    async def rematch(self, accept: bool = True) -> None:
        await self._call("rematch", accept=accept)

    async def leave(self) -> None:
        await self._call("leave")

    async def act(self, action: Any, step: int | None = None) -> None:
        await self._call("act", action=action, step=step)

    async def chat(self, text: str, to: str | None = None, me: bool = False) -> None:
        await self._call("chat", text=text, to=to, me=me)

    async def ignore(self, name: str) -> tuple[str, ...]:
        names: tuple[str, ...] = await self._call("ignore", name=name)
        return names

    async def unignore(self, name: str) -> tuple[str, ...]:
        names: tuple[str, ...] = await self._call("unignore", name=name)
        return names

    async def ignored(self) -> tuple[str, ...]:
        names: tuple[str, ...] = await self._call("ignored")
        return names

    async def close(self) -> None:
        """Idempotent; never raises (the coordinator gone, it closes the session itself when
        it misses this front's heartbeat, or has lost it already)."""
        link = self._link
        if link.open:
            link.mailbox.close()
            # (else nobody to tell: no 5 s wait; moving: its move closes it where it lands)
            if self._remote.coordinator_alive and link.settled.is_set():
                with contextlib.suppress(Refused):
                    await self._call("close")
        await self._remote._forget(link)

    async def server_stopping(self) -> None:
        """The server this session runs in is the front: when it stops alone, the coordinator
        and every other front's tables go on, and this session's end is a dropped connection
        (its seat waits for the grace period, the player reconnects to another front). Only
        when the coordinator stops too (``Remote.stops_with_tree``) does every table hold still.
        Never raises: the front stops whether the coordinator hears it or not."""
        if self._remote.stops_with_tree and self._remote.coordinator_alive:
            with contextlib.suppress(Refused):
                await self._call("server_stopping")

    async def leaderboard(self, game: str | None, limit: int) -> tuple[LeaderboardRow, ...]:
        rows: tuple[LeaderboardRow, ...] = await self._call("leaderboard", game=game,
                                                            limit=limit)
        return rows

    async def player_stats(self) -> PlayerStats | None:
        stats: PlayerStats | None = await self._call("player_stats")
        return stats

    async def profile(self, name: str) -> Profile | None:
        found: Profile | None = await self._call("profile", name=name)
        return found

    async def replay(self, table_id: str, seat: int | None = None, first: int = 0
                     ) -> Replay:
        told: Replay = await self._call("replay", table_id=table_id, seat=seat,
                                           first=first)
        return told

    async def learned(self) -> tuple[str, ...]:
        learned: tuple[str, ...] = await self._call("learned")
        return learned

    async def note_learned(self, situation: str) -> None:
        await self._call("note_learned", situation=situation)

    async def forget_learned(self) -> None:
        await self._call("forget_learned")

    async def admin_view(self) -> AdminView:
        view: AdminView = await self._call("admin_view")
        return view

    async def admin_act(self, action: str, target: str = "", seconds: float | None = None
                        ) -> str:
        done: str = await self._call("admin_act", action=action, target=target,
                                     seconds=seconds)
        return done
