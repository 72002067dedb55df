"""What crosses coordinators: several coordinators serving one bus (issue 18, second wave).

Each coordinator serves its own sessions (their *home*: the online bucket says which,
``wire.Online.home``, its ``CoordinatorHost.boot``). A ``Crossing`` beside its host (when the bus
runs JetStream) is ``Coordinator.beyond``: what the coordinator reaches of the others.

- **Lobby chat** (``bus.CHAT_LOBBY``): a lobby line said here is checked and counted here (the
  rate limits hold at the speaker's coordinator), stored here (the database's history, shared
  under PostgreSQL, is written once), given to this lobby's sessions, then published; every
  other coordinator keeps it in its own lobby history and gives it to its lobby's sessions,
  with their ignore lists and the bell of a mention (``Coordinator.heard``). A coordinator
  skips its own lines (header ``Pioche-Boot``): each line reaches each lobby session once.
- **Private lines** (``/msg NAME``) and ``/ignore NAME``: a name not online here is looked up in
  the online bucket, which this coordinator follows (a watcher of the whole bucket: lookups are
  local); a private line for a player elsewhere goes to ``bus.tell_subject(home)`` (a
  ``wire.Told``), and that coordinator gives it to the player (``Coordinator.told``). Sent
  without an answer: a player who leaves in the instant between the lookup and the line's
  arrival does not get it (logged at their home), as a line to a player who leaves just after.
- **The admin** (``Console``): the online list shows the sessions of every coordinator (those
  elsewhere from the online bucket, without an address nor an idle time, which the bucket does
  not hold); a kick of a player elsewhere, a ban, an unban, a broadcast and the message of the
  day are done (and stored) where the admin is, then published (``bus.ADMIN_DONE``, a
  ``wire.AdminDone``): every other coordinator applies their effect (``Console.relayed``: the
  kick at the player's home, the ban held and its sessions closed everywhere).
- **Guests** (``bus.GUESTS_BUCKET``): a guest's pass is an HMAC under one coordinator's secret
  (``guests.py``), which the others do not share; so while a seat is held for a guest (there or
  away, within the grace period), the coordinator of its table keeps the digest of their
  reconnect token → the seat (``wire.Resumable``: identity, name, table) in the bucket,
  refreshed every third of the bucket's max age (the grace period) and deleted when the seat
  is no longer held. A coordinator that restores a dead one's table finds its guests' keys in
  the bucket (by identity) and keeps them from then on; those of a table nobody restores
  expire within the max age.
  ``resume`` on any coordinator looks at its own tables first, then at the bucket for a seat
  at a table that is not its own. The key is the token's SHA-256: the bucket is the
  coordinators' alone (a front's role may not read it, ``bus/roles.py``), and they hold the
  secrets anyway.

Rate budgets stay per coordinator (an address spread over m coordinators gets m budgets of
resume attempts and of chat lines), documented in docs/server.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections.abc import Iterable
from typing import Any

from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js.api import KeyValueConfig, StorageType
from nats.js.errors import KeyNotFoundError, NoKeysError, NotFoundError
from nats.js.kv import KeyValue

from .. import bus, wire
from ..bus import BOOT_HEADER
from ..bus.directory import Buckets, ErrorLog, LobbyWatch, decode_entry, make_bucket, online_key
from ..bus.owners import OwnerBuckets, owner_of
from ..store.db import GUEST_PREFIX
from .core import REPLACED, Coordinator, Far
from .mailbox import Notice
from .model import ChatLine, GuestPass, Player, Refused, TableSummary
from .text import name_key

log = logging.getLogger(__name__)

GUESTS_TICK = 1.0  # seconds between two looks at the guests' seats to keep in the bucket
REWATCH_TICK = 1.0  # seconds between two looks at the bus's reconnections


def token_key(token: str) -> str:
    """The guests' bucket key of a canonical reconnect token (``Guests.pass_for``)."""
    return hashlib.sha256(f"pioche-resume:{token}".encode()).hexdigest()


class Crossing:
    """One coordinator's side of the others on its bus (``Coordinator.beyond``)."""

    def __init__(self, coordinator: Coordinator, nc: Client, boot: str, buckets: Buckets,
                 owners: OwnerBuckets | None = None) -> None:
        self.coordinator = coordinator
        self.owners = owners  # several coordinators (``pioche coordinator --several``)
        self.nc = nc
        self.boot = boot
        self.buckets = buckets
        self.guests: KeyValue | None = None  # opened by start()
        self.watch = LobbyWatch(buckets, None, heard=self._replaced)  # (builds nothing)
        self._outbox: asyncio.Queue[tuple[str, bytes, dict[str, str] | None]] = asyncio.Queue()
        self._subscriptions: list[Subscription] = []
        self._tasks: list[asyncio.Task[None]] = []
        self._kept: dict[str, tuple[wire.Resumable, float]] = {}  # key → (value, put at)
        self._keys: dict[str, str] = {}  # a seated guest's identity → their key in the bucket
        self._strangers: set[str] = set()  # guests seated here whose key is not known
        self._sought: set[str] = set()  # those already looked for in the bucket
        self._errors = ErrorLog("guests bucket")
        self._unsent = ErrorLog("between coordinators")

    # --- life ---------------------------------------------------------------------------------

    async def start(self) -> None:
        """Open the guests' bucket (the online bucket's replicas; max age: the grace period),
        follow the online bucket, and listen to the other coordinators."""
        status = await self.buckets.online.status()
        replicas = status.stream_info.config.num_replicas or 1
        js = self.nc.jetstream(timeout=bus.REQUEST_TIMEOUT)
        self.guests = await make_bucket(js, KeyValueConfig(
            bucket=bus.GUESTS_BUCKET, description="Pioche: the guests' seats, by token",
            history=1, ttl=self.coordinator.settings.grace, replicas=replicas,
            storage=StorageType.FILE))
        await self._follow_online()
        self._subscriptions = [
            await self.nc.subscribe(bus.CHAT_LOBBY, cb=self._on_lobby_line),
            await self.nc.subscribe(bus.tell_subject(self.boot), cb=self._on_told),
            await self.nc.subscribe(bus.ADMIN_DONE, cb=self._on_admin),
        ]
        self._tasks = [asyncio.create_task(self._send(), name="cross send"),
                       asyncio.create_task(self._keep_guests(), name="cross guests"),
                       asyncio.create_task(self._rewatch(), name="cross rewatch")]
        self.coordinator.beyond = self

    async def stop(self) -> None:
        if self.coordinator.beyond is self:
            self.coordinator.beyond = None
        for subscription in self._subscriptions:
            with contextlib.suppress(Exception):
                await subscription.unsubscribe()
        self._subscriptions = []
        while not self._outbox.empty() and self.nc.is_connected:  # (the last lines, sent)
            subject, data, headers = self._outbox.get_nowait()
            with contextlib.suppress(Exception):
                await self.nc.publish(subject, data, headers=headers)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        await self.watch.stop()

    # --- Beyond: what the coordinator asks of the others --------------------------------------

    def find(self, key: str) -> Far | None:
        entry = self.online.get(online_key(key))
        if entry is None or not entry.home or entry.home == self.boot:
            return None  # (here, the coordinator found it itself)
        return self._far(entry)

    def others(self) -> Iterable[Far]:
        return [self._far(entry) for entry in self.online.values()
                if entry.home and entry.home != self.boot]

    def said(self, line: ChatLine) -> None:
        self._post(bus.CHAT_LOBBY, line, {BOOT_HEADER: self.boot})

    def tell(self, line: ChatLine, to: Far) -> None:
        self._post(bus.tell_subject(to.home), wire.Told(line, to.name_key))

    def acted(self, by: str, action: str, target: str, until: float | None) -> None:
        self._post(bus.ADMIN_DONE, wire.AdminDone(by, action, target, until),
                   {BOOT_HEADER: self.boot})

    def serves(self, table_id: str) -> bool:
        return table_id in self.tables and table_id not in self.coordinator.tables

    @staticmethod
    def _far(entry: wire.Online) -> Far:
        player = Player(entry.identity, entry.name, guest=entry.identity.startswith(
            GUEST_PREFIX), watch_only=entry.watch_only)
        return Far(player, name_key(entry.name), entry.home, entry.table)

    def _post(self, subject: str, value: Any, headers: dict[str, str] | None = None) -> None:
        self._outbox.put_nowait((subject, wire.encode(value), headers))

    async def _send(self) -> None:
        """Publish what was posted, in order (the coordinator's calls never wait)."""
        while True:
            subject, data, headers = await self._outbox.get()
            try:
                await self.nc.publish(subject, data, headers=headers)
            except Exception as error:  # (the bus is down: lost, as a line said then)
                self._unsent.failed(error)

    # --- what the others send ----------------------------------------------------------------

    def _own(self, msg: Msg) -> bool:
        return (msg.headers or {}).get(BOOT_HEADER) == self.boot

    async def _on_lobby_line(self, msg: Msg) -> None:
        if self._own(msg):
            return
        line = bus.read(msg, ChatLine, "lobby line")
        if line is None:
            return
        if line.scope != "lobby" or line.to or line.spectators or line.bell:
            log.warning("lobby line dropped: not a lobby line (%r)", line.scope)
            return
        self.coordinator.heard(line)

    async def _on_told(self, msg: Msg) -> None:
        told = bus.read(msg, wire.Told, "private line")
        if told is None:
            return
        if not told.line.to or told.line.scope or told.line.bell:
            log.warning("private line dropped: not a private line")
            return
        if not self.coordinator.told(told.line, told.to):
            log.info("private line from %s lost: %s is no longer online here", told.line.name,
                     told.line.to)

    async def _on_admin(self, msg: Msg) -> None:
        if self._own(msg):
            return
        done = bus.read(msg, wire.AdminDone, "admin action")
        if done is not None:
            self.coordinator.console.relayed(done.by, done.action, done.target, done.until)

    # --- the online bucket, followed ---------------------------------------------------------

    async def _follow_online(self) -> None:
        """Read the online and the lobby's buckets whole, then follow their changes (again
        after the bus was lost: the watchers are gone with the connection)."""
        await self.watch.start()

    @property
    def online(self) -> dict[str, wire.Online]:
        """The online bucket, followed."""
        return self.watch.online

    @property
    def tables(self) -> dict[str, TableSummary]:
        """The lobby's bucket, followed: every coordinator's tables."""
        return self.watch.tables

    def seat_elsewhere(self, identity: str) -> tuple[str, str] | None:
        """The table, not this coordinator's, where ``identity`` holds a player's seat (in
        play or waiting for players), as the lobby's bucket says, and the seat's name; None if
        none (``Coordinator.resume``'s rule)."""
        for table_id, table in self.tables.items():
            if table_id in self.coordinator.tables or table.status not in ("playing", "waiting"):
                continue
            for seat in table.seats:
                if seat.kind == "player" and seat.identity == identity:
                    return table_id, seat.name
        return None

    def _replaced(self, online: wire.Online) -> None:
        """A player's name taken over by their newer connection on another coordinator (the
        key's holder changed to the same identity elsewhere): their session here is replaced,
        as the older of two connections is on one coordinator. (A session that moves between
        coordinators is closed here before it connects there: nothing to replace.)"""
        if online.watch_only or not online.home or online.home == self.boot:
            return
        session = self.coordinator.sessions.get(online.identity)
        if session is not None and session.open and not session.player.watch_only:
            log.info("%s connected on the coordinator %s: the session here is replaced",
                     session.player.name, online.home)
            session.mailbox.put_notice(Notice("replaced", REPLACED))
            self.coordinator.disconnect(session)

    async def _rewatch(self) -> None:
        reconnects = self.nc.stats["reconnects"]
        while True:
            await asyncio.sleep(REWATCH_TICK)
            if self.nc.stats["reconnects"] != reconnects and self.nc.is_connected:
                try:
                    await self._follow_online()
                except Exception as error:  # (tried again at the next look)
                    log.warning("online bucket not read again: %s", error)
                    continue
                reconnects = self.nc.stats["reconnects"]

    # --- guests ------------------------------------------------------------------------------

    def _seats(self) -> dict[str, wire.Resumable]:
        """The seats held here for guests, by their tokens' keys: exactly those
        ``Coordinator.resume`` gives back (a player's seat at a table playing or waiting, the
        guest there or away). A key is known from the guest's session here, or found in the
        bucket (``_adopt``); the guests seated whose key is not known yet (a table restored
        from a coordinator that died) are left in ``_strangers``."""
        for session in self.coordinator.sessions.values():
            if session.guest_pass is not None:
                self._keys[session.guest_pass.identity] = token_key(session.guest_pass.token)
        seats: dict[str, wire.Resumable] = {}
        held, strangers = set(), set()
        for table in self.coordinator.tables.values():
            if table.status not in ("playing", "waiting"):
                continue
            for seat in table.seats:
                identity = seat.identity
                if seat.kind != "player" or not identity or not identity.startswith(
                        GUEST_PREFIX):
                    continue
                key = self._keys.get(identity)
                if key is None:
                    strangers.add(identity)
                else:
                    seats[key] = wire.Resumable(identity, seat.name, table.id)
                    held.add(identity)
        online = {s.player.identity for s in self.coordinator.sessions.values()}
        for identity in set(self._keys) - held - online:
            del self._keys[identity]
        self._strangers = strangers
        return seats

    async def _adopt(self, identities: set[str]) -> None:
        """The bucket's keys of these guests' seats, found by reading the whole bucket (once
        for each guest: after a failover, the dead coordinator's keys name the tables this one
        restored); from then on kept here as its own."""
        assert self.guests is not None
        try:
            keys = await self.guests.keys()
        except NoKeysError:
            return
        except Exception as error:
            self._errors.failed(error)
            return
        for key in keys:
            if key in self._kept:
                continue
            try:
                entry = await self.guests.get(key)
            except Exception:  # (gone meanwhile, or the bus: looked at no more)
                continue
            seat = decode_entry(entry.value or b"", wire.Resumable, "guest's seat")
            if seat is not None and seat.identity in identities:
                self._keys[seat.identity] = key

    async def _keep_guests(self) -> None:
        while True:
            await self.keep_guests()
            await asyncio.sleep(GUESTS_TICK)

    async def keep_guests(self) -> None:
        """Bring the guests' bucket to the seats held here: a new or changed seat written, each
        refreshed a third of the max age after its last write, a seat no longer held (the
        game over, the guest gone from it, the grace period over) deleted."""
        assert self.guests is not None
        now = time.monotonic()
        refresh = self.coordinator.settings.grace / 3
        seats = self._seats()
        unsought = self._strangers - self._sought
        self._sought = self._sought & self._strangers | unsought
        if unsought:
            await self._adopt(unsought)
            seats = self._seats()
        jobs: list[tuple[str, wire.Resumable | None]] = []  # (None: delete)
        for key, value in seats.items():
            kept = self._kept.get(key)
            if kept is None or kept[0] != value or now - kept[1] >= refresh:
                jobs.append((key, value))
        jobs += [(key, None) for key in set(self._kept) - set(seats)]
        for key, job in jobs:
            try:
                if job is None:
                    await self.guests.delete(key)
                else:
                    await self.guests.put(key, wire.encode(job))
            except Exception as error:  # (tried again at the next look)
                self._errors.failed(error)
                if job is not None:
                    self._kept.pop(key, None)
                continue
            if job is None:  # (kept until deleted: resume judges its table here meanwhile)
                self._kept.pop(key, None)
            else:
                self._kept[key] = (job, now)

    def _tables(self) -> set[str]:
        """The tables this coordinator judges alone: its own, and those of the keys it wrote
        (until they are deleted: a table closed here a moment ago)."""
        return {*self.coordinator.tables, *(seat.table for seat, _at in self._kept.values())}

    async def resume(self, token: str, address: str) -> tuple[GuestPass, str]:
        """``Coordinator.resume``, then, for a token whose seat is not here, the guests'
        bucket (the attempt counted once, here). A seat at a table of this coordinator is its
        own to judge (the game over, the guest gone from it): the bucket is not asked."""
        try:
            return self.coordinator.resume(token, address)
        except Refused as refusal:
            if refusal.code != "resume_unknown" or self.coordinator.guests is None:
                raise
            canonical = self.coordinator.guests.pass_for(token)
            if canonical is None:
                raise
            # (several coordinators sign with the bus's one secret: the token proves this
            # identity here too, and the lobby's bucket shows its seat at once, at a table
            # whose owner says it is another's: not one closed here a moment ago)
            seated = self.seat_elsewhere(canonical.identity)
            if seated is not None and self.owners is not None:
                owner = await owner_of(self.owners, seated[0])
                if owner is not None and owner[0] != self.boot:
                    return canonical, seated[1]
            if self.guests is None:
                raise
            try:
                entry = await self.guests.get(token_key(canonical.token))
            except (KeyNotFoundError, NotFoundError):
                raise refusal from None
            except Exception as error:
                self._errors.failed(error)
                raise refusal from None
            seat = decode_entry(entry.value or b"", wire.Resumable, "guest's seat")
            if seat is None or seat.table in self._tables():
                raise
            return GuestPass(seat.identity, canonical.token), seat.name
