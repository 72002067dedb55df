"""The coordinator's side of the bus: it serves the fronts' requests and sends them the news.

One ``CoordinatorHost`` per coordinator process, over its NATS connection (``bus.connect``):

- **Requests** (``pioche.coord.req.<name>``): a ``wire.Call`` answered by a ``wire.Answer`` or
  the ``Refused`` it raised. A request naming a session (header ``Pioche-Session``) is made on
  that session's own ``InProcessClient``, exactly as in the embedded mode; one without, or for a
  session not connected yet, on a client with no session (the requests allowed before
  ``connect``). A session belongs to the front that opened it (its bus name, from the subject,
  which the bus's permissions pin, and its process id, header ``Pioche-Front``): another
  front's request for it is refused. The answer goes only into the inbox of the front the
  subject names (``bus.inbox_prefix``): a request with another reply subject is dropped, so a
  front cannot make the coordinator publish where it may not. Anything that is not a
  well-formed ``Call`` is answered ``bad_request`` and logged; nothing a request carries can
  stop the host.
- **News**: one task per remote session reads its mailbox here (latest-wins holds on this side:
  a slow front gets the newest, merged) and publishes each ``Mail`` on
  ``pioche.s.<name>.<sid>``, with a sequence number (header ``Pioche-Seq``) so that the front
  sees a lost one; before it, the session's ``Player`` when the coordinator renamed it.
- **Lobby** (``bus.LOBBY``): each snapshot the coordinator sends its lobby's sessions
  (``Coordinator.lobby_listeners``), numbered (``Pioche-Lobby``), for the fronts' caches; a
  session's mail that holds that snapshot names it instead of carrying it.
  With ``buckets`` (the bus has JetStream: ``bus.directory``), each snapshot is written to the
  lobby's bucket instead (the tables changed since the last one), every session's mail names
  its front's lobby (built from the bucket) instead of carrying one, and the sessions' names
  are held in the online bucket: a player's is created before the coordinator connects them
  (Refused ``name_taken`` when another identity holds it anywhere), a watcher's once the
  coordinator has named them, each refreshed while its session lives and deleted when it
  ends.
- **Several coordinators** (``owners``: the owners' buckets, ``pioche coordinator --several``):
  the requests on ``pioche.coord.req.<name>`` are shared among the coordinators (queue group
  ``bus.COORD_QUEUE``): what any of them answers, and what makes a table (the one that answers
  owns it); a connected session's go to ``pioche.coord.home.<boot>.<name>``, its home's. A
  ``join``, ``watch`` or ``mirror`` of a table another coordinator owns is refused
  ``elsewhere`` (param ``home``: that coordinator), and the front moves the session there
  (``remote.py``). ``TableOwners`` keeps the lease and the tables' owner keys, and takes over a
  dead coordinator's tables. Every news carries the boot id too (``Pioche-Boot``): a front
  drops what a session's former home still sends.
- **Liveness**: the coordinator's heartbeat (its boot id) every ``bus.HEARTBEAT``, and the boot
  id on every answer (``Pioche-Boot``); the sessions of
  a front silent for ``bus.SILENCE`` (no heartbeat, no request), or that said ``bye``, are
  closed as dropped connections are (a seat in play waits the grace period).

Stopping: stop the coordinator first (``Coordinator.stop`` tells every session why), then the
host (it publishes those last mails, then stops serving).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import secrets
from dataclasses import dataclass, field, replace
from typing import Any

import nats.errors
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from .. import bus, wire
from ..bus import (
    BOOT_HEADER,
    FRONT_HEADER,
    LOBBY_HEADER,
    SEQ_HEADER,
    SESSION_HEADER,
    WIRE_HEADER,
)
from ..bus.directory import (
    CLAIM_WAIT,
    Buckets,
    LobbyBoard,
    OnlineNames,
    entries_of,
    online_key,
    through_elections,
    unavailable,
)
from ..bus.owners import OwnerBuckets, owner_of
from .core import Coordinator
from .cross import Crossing
from .inprocess import InProcessClient, InProcessFront
from .mailbox import Mail, Notice
from .model import LobbySnapshot, Player, Refused
from .owners import TableOwners
from .text import name_key

log = logging.getLogger(__name__)

FrontKey = tuple[str, str]
"""A front process as the host knows it: its bus name (from the subjects, pinned by the bus's
permissions) and its id (as it says)."""

NOT_YOURS = "Cette session appartient à un autre serveur."
ELSEWHERE = "Cette table est servie par un autre coordinateur."
MAKERS = ("create_table", "quick_play", "learn")  # the requests that make a table
STOP_FLUSH = 1.0  # seconds stop() waits for the sessions' last mails to go out
UNSENT_LOG_INTERVAL = 5.0  # seconds between two warnings of news the bus refused


@dataclass(eq=False)
class _Remote:
    """One remote session: its front, its client here, the task pumping its news."""

    sid: str
    front: FrontKey
    client: InProcessClient
    pump: asyncio.Task[None] | None = None
    seq: int = 0
    player: Player | None = None  # as last published


@dataclass(eq=False)
class _Front:
    last_seen: float
    sids: set[str] = field(default_factory=set)


class CoordinatorHost:
    def __init__(self, coordinator: Coordinator, nc: Client, buckets: Buckets | None = None,
                 owners: OwnerBuckets | None = None) -> None:
        self.coordinator = coordinator
        self.nc = nc
        # (several coordinators: a table not in this one's snapshot may be another's)
        self.board = LobbyBoard(buckets.lobby, sweep=owners is None) \
            if buckets is not None else None
        self.names = OnlineNames(buckets.online, buckets.max_age) \
            if buckets is not None else None
        self.boot = secrets.token_hex(8)
        self.cross = Crossing(coordinator, nc, self.boot, buckets, owners) \
            if buckets is not None else None
        """What crosses to the other coordinators of the bus (coordinator/cross.py)."""
        self.owners = TableOwners(coordinator, owners, self.boot,
                                  buckets.lobby if buckets is not None else None) \
            if owners is not None else None
        self.wire_version = wire.VERSION
        self._answer_headers = {BOOT_HEADER: self.boot,  # (every answer says whose it is,
                                WIRE_HEADER: str(self.wire_version)}  # and in which wire)
        self._mismatched: set[tuple[str, str, str | None]] = set()  # fronts logged
        # (several coordinators: every news too, for a front to drop a former home's)
        self._news_headers = {BOOT_HEADER: self.boot} if owners is not None else {}
        self._free = InProcessClient(coordinator)  # requests before a session, or without one
        self._desk = InProcessFront(coordinator)
        self._remotes: dict[str, _Remote] = {}
        self._fronts: dict[FrontKey, _Front] = {}
        self._subscriptions: list[Subscription] = []
        self._tasks: list[asyncio.Task[None]] = []
        self._requests: set[asyncio.Task[None]] = set()  # being answered (see _on_request)
        self._lobby: LobbySnapshot | None = None  # the newest sent to the lobby, to publish
        self._lobby_ready = asyncio.Event()
        self._lobby_seq = 0  # of the newest published on bus.LOBBY
        self._lobby_published: LobbySnapshot | None = None  # that one
        self._memo: wire.Memo = {}
        self._unsent = 0  # mails the bus refused since the last warning
        self._unsent_logged = -math.inf
        self._memo_in_use = False

    # --- life ---------------------------------------------------------------------------------

    async def start(self) -> None:
        if self.owners is not None:
            await self.owners.start()
            self._subscriptions = [
                await self.nc.subscribe(f"{bus.COORD_REQ}.*", queue=bus.COORD_QUEUE,
                                        cb=self._on_request),
                await self.nc.subscribe(f"{bus.COORD_HOME}.{self.boot}.*", cb=self._on_request),
                await self.nc.subscribe(bus.COORD_ALIVE, cb=self._on_coord_alive),
            ]
            self.owners.listen()
        else:
            self._subscriptions = [
                await self.nc.subscribe(f"{bus.COORD_REQ}.*", cb=self._on_request)]
        self._subscriptions.append(
            await self.nc.subscribe(f"{bus.FRONT_ALIVE}.*", cb=self._on_front_alive))
        self.coordinator.lobby_listeners.append(self._lobby_sent)
        self._tasks = [asyncio.create_task(self._beat(), name="bus heartbeat"),
                       asyncio.create_task(self._publish_lobby(), name="bus lobby")]
        if self.names is not None:
            self._tasks.append(asyncio.create_task(self.names.run(), name="online names"))
        if self.owners is not None:
            self._tasks.append(asyncio.create_task(self.owners.run(), name="table owners"))
        if self.board is not None:  # (the tables restored at start, written at once)
            self._lobby_sent(self.coordinator.snapshot())
        if self.cross is not None:
            await self.cross.start()
        await self.nc.flush()
        log.info("coordinator on the bus (boot %s)", self.boot)

    async def stop(self) -> None:
        if self.cross is not None:
            await self.cross.stop()
        with contextlib.suppress(ValueError):
            self.coordinator.lobby_listeners.remove(self._lobby_sent)
        for subscription in self._subscriptions:
            with contextlib.suppress(Exception):
                await subscription.unsubscribe()
        self._subscriptions = []
        pumps = [r.pump for r in self._remotes.values() if r.pump is not None]
        closing = [r.pump for r in self._remotes.values()
                   if r.pump is not None and r.client.session is not None
                   and r.client.session.mailbox.closed]
        if closing:  # (their last mails: Coordinator.stop closed every mailbox)
            await asyncio.wait(closing, timeout=STOP_FLUSH)
        requests = list(self._requests)
        for task in [*pumps, *self._tasks, *requests]:
            task.cancel()
        await asyncio.gather(*pumps, *self._tasks, *requests, return_exceptions=True)
        self._tasks = []
        self._remotes.clear()
        self._fronts.clear()
        # (a clean stop: the names are free at once; with the bus gone, they expire)
        if self.names is not None and self.nc.is_connected:
            await self.names.close()
        if self.owners is not None and self.nc.is_connected:
            await self.owners.stop()
        if self.nc.is_connected:
            with contextlib.suppress(Exception):
                await self.nc.flush(timeout=int(STOP_FLUSH) or 1)

    @property
    def sessions(self) -> dict[str, str]:
        """The remote sessions open: their front's id by sid (tests, logs)."""
        return {sid: remote.front[1] for sid, remote in self._remotes.items()}

    # --- requests -----------------------------------------------------------------------------

    async def _on_request(self, msg: Msg) -> None:
        name = bus.last_token(msg.subject)
        if msg.reply and not msg.reply.startswith(bus.inbox_prefix(bus.FRONT, name) + "."):
            log.warning("request of %s dropped: its reply subject %r is not its inbox", name,
                        msg.reply)
            return
        if self.coordinator.stream is not None:
            # (tables logged in JetStream: a move's answer waits for its record to be in the
            # stream; nats-py hands this callback one request at a time, so the others must
            # not wait behind it. Each request's work on the coordinator still runs in the
            # order they came: a task's first step, up to that wait, runs in FIFO order.)
            task = asyncio.create_task(self._respond(msg, name))
            self._requests.add(task)
            task.add_done_callback(self._requests.discard)
            return
        await self._respond(msg, name)

    async def _respond(self, msg: Msg, name: str) -> None:
        try:
            answer: Any = await self._answer(msg, name)
        except Refused as refusal:
            answer = refusal
        except (nats.errors.Error, TimeoutError) as error:  # a bucket or stream that did not
            # answer (its leader elected after a node's death): asked again, not a bug
            log.warning("request %s: the bus did not answer (%s: %s)", name,
                        type(error).__name__, error)
            answer = unavailable()
        except Exception:  # a bug of ours: the front gets a refusal, the host goes on
            log.exception("request failed")
            answer = Refused("error", "Erreur interne du serveur.")
        await self._send_news()  # (before the answer: the contract's ordering)
        if not msg.reply:
            return
        try:
            data = wire.encode(answer)
        except wire.WireError as error:
            log.error("answer not sent: %s", error)
            data = wire.encode(Refused("error", "Erreur interne du serveur."))
        with contextlib.suppress(Exception):  # (the bus is gone: the front will time out)
            await self.nc.publish(msg.reply, data, headers=self._answer_headers)

    async def _answer(self, msg: Msg, name: str) -> Any:
        headers = msg.headers or {}
        front_id = headers.get(FRONT_HEADER)
        sid = headers.get(SESSION_HEADER)
        version = headers.get(WIRE_HEADER)
        if version != str(self.wire_version):  # (what it sends may not mean what we read)
            speaker = (name, str(front_id), version)
            if speaker not in self._mismatched:
                self._mismatched.add(speaker)
                log.error("front %s/%s speaks wire version %s, this coordinator %d: its "
                          "requests are refused (upgrade it)", name, front_id,
                          version or "(none: older)", self.wire_version)
            raise Refused("wire_version", wire.WIRE_MISMATCH)
        try:
            call = wire.decode(msg.data, expect=wire.Call)
            if not front_id:
                raise wire.WireError(f"no {FRONT_HEADER} header")
            if sid is not None:
                bus.session_subject(name, sid)  # (a sid must name a subject)
        except (wire.WireError, ValueError) as error:
            log.warning("bad request dropped (front %s/%r): %s", name, front_id, error)
            raise Refused("bad_request", f"Requête refusée : {error}") from None
        front = (name, front_id)
        self._seen(front)
        remote = self._remotes.get(sid) if sid is not None else None
        if remote is not None and remote.front != front:
            log.warning("front %s/%s asked %s for session %s of front %s/%s",
                        *front, call.name, sid, *remote.front)
            raise Refused("not_yours", NOT_YOURS)
        return wire.Answer(call.name, await self._dispatch(call, front, sid, remote))

    async def _dispatch(self, call: wire.Call, front: FrontKey, sid: str | None,
                        remote: _Remote | None) -> Any:
        name, args = call.name, call.args
        if name == "mail":  # (news goes out on the session's subject, never as an answer)
            raise Refused("bad_request", "Les nouvelles arrivent sur le sujet de la session.")
        if name == "name_owner":
            return await self._desk.name_owner(args["nickname"])
        if name == "banned":
            return await self._desk.banned(args["identity"], args["address"])
        if name == "lobby":
            return self.coordinator.snapshot()
        if name == "player":
            return remote.client.player if remote is not None else None
        if name == "resync":
            return self._resync(remote)
        if name == "resume" and self.cross is not None:  # (a seat elsewhere: the bucket's)
            return await self.cross.resume(**args)
        if self.owners is not None and name in ("connect", "mirror", "join", "watch"):
            await self.owners.idle.wait()  # (a table claimed a moment ago: back first)
        if name in ("connect", "mirror"):
            if sid is None:
                raise Refused("bad_request", f"{SESSION_HEADER} manquant.")
            if remote is not None and remote.client.open:
                raise Refused("connected", "Session déjà ouverte.")
            client = InProcessClient(self.coordinator)
            if name == "mirror":
                await self._here(args["table_id"])
            if name == "connect":
                # (the buckets' elections after a node's death are waited through, CLAIM_WAIT
                # at most in all: the front waits that much longer for a connect's answer)
                async with asyncio.timeout(CLAIM_WAIT):
                    await self._seated_elsewhere(args["player"])
                    await self._claim(args["player"], front, sid)
                try:
                    result = await client.connect(**args)
                except BaseException:
                    if self.names is not None:
                        self.names.release(sid)
                    raise
            else:
                client.session = self.coordinator.mirror(args["table_id"])
                result = None
            self._open(sid, front, client)
            if self.names is not None:
                self.names.want(self._online())
            return result
        if name in ("join", "watch"):
            await self._here(args["table_id"])
        client = remote.client if remote is not None else self._free
        if self.owners is not None and name in (*MAKERS, "rematch"):
            await self.owners.reserve_for_request()  # (its id reserved across coordinators)
        result = await getattr(client, name)(**args)
        if name in MAKERS and self.owners is not None:
            await self.owners.created(result)
        return result

    def _resync(self, remote: _Remote | None) -> str | None:
        """The session's whole state in its next news (its front lost some: ``resync``), and
        the table it is at; Refused ``not_connected`` for a session not open here (closed
        meanwhile, or its front taken for dead: the front connects it again)."""
        session = remote.client.session if remote is not None else None
        if session is None or not session.open:
            raise Refused("not_connected", "Pas de session ouverte.")
        self.coordinator.refresh(session)
        return session.table.id if session.table is not None else None

    async def _here(self, table_id: str, wait: float = 0.0) -> None:
        """Refused ``elsewhere`` when another coordinator owns the table (several of them);
        the owners' bucket asked again through an election for ``wait`` seconds at most."""
        if self.owners is None or table_id.strip().upper() in self.coordinator.tables:
            return
        buckets, key = self.owners.buckets, table_id.strip().upper()
        owner = await through_elections(f"the owners' bucket, {key}'s owner",
                                        lambda: owner_of(buckets, key), wait)
        if owner is not None and owner[0] != self.boot:
            raise Refused("elsewhere", ELSEWHERE, home=owner[0])

    async def _seated_elsewhere(self, player: Any) -> None:
        """Several coordinators: a player holding a seat at a table another coordinator owns
        is refused ``elsewhere`` (the front connects them there, and they get their seat
        back), whichever coordinator the front asked (its lobby may not show the seat yet)."""
        if self.owners is None or self.cross is None or not isinstance(player, Player) \
                or player.watch_only:
            return
        seated = self.cross.seat_elsewhere(player.identity)
        if seated is not None:
            await self._here(seated[0], CLAIM_WAIT)

    async def _claim(self, player: Any, front: FrontKey, sid: str) -> None:
        """A player's name held in the online bucket before the coordinator connects them
        (a watcher's once it has named them: ``_online``)."""
        if self.names is None or not isinstance(player, Player) or player.watch_only:
            return
        key = name_key(player.name)
        if key:
            await self.names.claim(online_key(key), wire.Online(
                player.name, player.identity, False, None, front[1], sid, self.boot))

    def _online(self) -> dict[str, tuple[str, wire.Online]]:
        """The online bucket's entry of every session open here."""
        entries = []
        for sid, remote in self._remotes.items():
            session = remote.client.session
            if session is None or not session.open or session.mirror:
                continue
            player = session.player
            entries.append((sid, session.name_key, wire.Online(
                player.name, player.identity, player.watch_only,
                session.table.id if session.table is not None else None, remote.front[1], sid,
                self.boot)))
        return entries_of(entries)

    def _open(self, sid: str, front: FrontKey, client: InProcessClient) -> None:
        remote = _Remote(sid, front, client)
        self._remotes[sid] = remote
        self._fronts.setdefault(front, _Front(self._now())).sids.add(sid)
        remote.pump = asyncio.create_task(self._pump(remote), name=f"bus mail {sid}")

    # --- news ---------------------------------------------------------------------------------

    async def _send_news(self) -> None:
        """Publish every remote session's news waiting now. After a request, before its
        answer: what the request did reaches every front before the answer does (NATS keeps
        one connection's messages in order, and each front reads them so), as in the embedded
        mode, where it is in every mailbox when the request returns."""
        for remote in list(self._remotes.values()):
            session = remote.client.session
            if session is not None and session.mailbox.pending:
                mail = session.mailbox.take()
                if mail is not None:
                    await self._send(remote, mail)

    async def _send(self, remote: _Remote, mail: Mail) -> None:
        subject = bus.session_subject(remote.front[0], remote.sid)
        player = remote.client.player
        if player is not None and player != remote.player:
            await self._publish(subject, player, remote)
            remote.player = player
        headers = {}
        if mail.lobby is not None and self.board is not None:
            mail = replace(mail, lobby=None)  # (the front's own, from the lobby's bucket)
            headers[LOBBY_HEADER] = "1"
        if mail.lobby is not None and mail.lobby is self._lobby:
            await self._send_lobby()  # (first: the mail below names it)
        if mail.lobby is not None and mail.lobby is self._lobby_published:
            mail = replace(mail, lobby=None)  # (the front has it: bus.LOBBY)
            headers[LOBBY_HEADER] = str(self._lobby_seq)
        await self._publish(subject, mail, remote, headers)
        if mail.closed:  # (its last mail: the session is over)
            self._forget(remote)

    async def _pump(self, remote: _Remote) -> None:
        """Publish the session's news as it comes (bots, timers, the lobby, other fronts'
        requests: ``_send_news`` sends a request's), until its mail says it is closed."""
        try:
            while self._remotes.get(remote.sid) is remote:
                await self._send(remote, await remote.client.mail())
        finally:
            self._forget(remote)

    def _forget(self, remote: _Remote) -> None:
        if self._remotes.get(remote.sid) is remote:
            del self._remotes[remote.sid]
            front = self._fronts.get(remote.front)
            if front is not None:
                front.sids.discard(remote.sid)
            if self.names is not None:
                self.names.release(remote.sid)
        if remote.pump is not None and remote.pump is not asyncio.current_task():
            remote.pump.cancel()

    def _shared(self) -> wire.Memo:
        """The encoding memo of this turn of the loop: a table's publication wakes every
        subscriber's pump in one turn, and its update's parts are encoded once for all of them
        (``wire.encode``'s memo); emptied at the next turn."""
        if not self._memo_in_use:
            self._memo_in_use = True
            asyncio.get_running_loop().call_soon(self._forget_memo)
        return self._memo

    def _forget_memo(self) -> None:
        self._memo.clear()
        self._memo_in_use = False

    async def _publish(self, subject: str, value: Any, remote: _Remote,
                       headers: dict[str, str] | None = None) -> None:
        try:
            data = wire.encode(value, self._shared())
        except wire.WireError as error:  # (a value without a codec: a bug, logged, skipped)
            log.error("news of %s not sent: %s", remote.sid, error)
            return
        remote.seq += 1
        try:
            await self.nc.publish(subject, data, headers={
                **(headers or {}), **self._news_headers, SEQ_HEADER: str(remote.seq)})
        except Exception as error:  # the bus is down: the front sees the gap or the silence
            self._unsent += 1
            now = self._now()
            if now - self._unsent_logged >= UNSENT_LOG_INTERVAL:
                log.warning("news not sent (%d mails since the last warning; %s: %s)",
                            self._unsent, remote.sid, type(error).__name__)
                self._unsent, self._unsent_logged = 0, now

    def _lobby_sent(self, snapshot: LobbySnapshot) -> None:
        self._lobby = snapshot
        self._lobby_ready.set()

    async def _publish_lobby(self) -> None:
        while True:
            await self._lobby_ready.wait()
            self._lobby_ready.clear()
            if self.board is None:
                await self._send_lobby()
                continue
            snapshot, self._lobby = self._lobby, None
            if self.names is not None:
                self.names.want(self._online())
            if snapshot is not None:
                await self.board.write(snapshot)

    async def _send_lobby(self) -> None:
        """Publish the newest snapshot the coordinator sent its lobby, numbered: the sessions'
        mails that carry it name it instead (header ``Pioche-Lobby``), and each front puts its
        own copy in them (a big lobby is 40 KiB: decoded once per front, not per session)."""
        snapshot, self._lobby = self._lobby, None
        if snapshot is None:
            return
        self._lobby_seq += 1
        self._lobby_published = snapshot  # (before the await: its bytes are queued first)
        try:
            await self.nc.publish(bus.LOBBY, wire.encode(snapshot, self._shared()),
                                  headers={LOBBY_HEADER: str(self._lobby_seq)})
        except Exception as error:
            log.warning("lobby not sent: %s", error)

    # --- liveness -----------------------------------------------------------------------------

    @staticmethod
    def _now() -> float:
        return asyncio.get_running_loop().time()

    def _seen(self, front: FrontKey) -> None:
        known = self._fronts.get(front)
        if known is None:
            self._fronts[front] = _Front(self._now())
        else:
            known.last_seen = self._now()

    async def _on_front_alive(self, msg: Msg) -> None:
        alive = bus.read(msg, wire.FrontAlive, "front heartbeat")
        if alive is None:
            return
        front = (bus.last_token(msg.subject), alive.front)
        if alive.bye:
            log.info("front %s/%s stops: its sessions close", *front)
            self._drop_front(front)
        else:
            self._seen(front)

    async def _on_coord_alive(self, msg: Msg) -> None:
        """Several coordinators: each one's heartbeat, this one's too (``TableOwners.heard``:
        a claim waits for its owner's silence)."""
        alive = bus.read(msg, wire.CoordAlive, "coordinator heartbeat")
        if alive is not None and self.owners is not None:
            self.owners.heard(alive.boot)

    async def _beat(self) -> None:
        beat = wire.encode(wire.CoordAlive(self.boot))
        reconnects = self.nc.stats["reconnects"]
        while True:
            with contextlib.suppress(Exception):  # (the bus is down: beat again later)
                await self.nc.publish(bus.COORD_ALIVE, beat)
            now = self._now()
            if reconnects != self.nc.stats["reconnects"] or not self.nc.is_connected:
                # (this side lost the bus: the fronts' silence is its own; once back, each
                # front has bus.SILENCE again to be heard)
                reconnects = self.nc.stats["reconnects"]
                for front in self._fronts.values():
                    front.last_seen = now
            for key, front in list(self._fronts.items()):
                if now - front.last_seen > bus.SILENCE:
                    if front.sids:
                        log.warning("front %s/%s silent for %.0f s: its %d sessions close",
                                    *key, now - front.last_seen, len(front.sids))
                    self._drop_front(key, silent=True)
            await asyncio.sleep(bus.HEARTBEAT)

    def _drop_front(self, key: FrontKey, silent: bool = False) -> None:
        """The front is gone: its sessions end as dropped connections do. ``silent``: taken
        for dead by its silence, each session's last mail says so (``FRONT_SILENT``: a front
        that reads it was only cut off from the bus a while, and connects the session again),
        and its players' stand-ins wait for the turn timer (``Coordinator.disconnect``'s
        ``patient``): they are likely on their way back."""
        front = self._fronts.pop(key, None)
        if front is None:
            return
        for sid in sorted(front.sids):
            remote = self._remotes.get(sid)
            session = remote.client.session if remote is not None else None
            if session is not None:
                if silent:
                    session.mailbox.put_notice(
                        Notice(bus.FRONT_SILENT, "Frontal silencieux : session fermée."))
                self.coordinator.disconnect(session, patient=silent)
