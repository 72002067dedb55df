"""One coordinator among several on a bus (``pioche coordinator --several``): its lease, the
tables it owns, and the dead coordinators' tables it takes over (issue 18).

Every ``owners.LEASE_EVERY`` seconds, ``TableOwners.run``:

1. puts this coordinator's lease (key: its boot id). One it could not put for
   ``owners.LEASE_MAX_AGE`` may be gone, and another may claim its tables: it goes on serving
   them until it learns of a claim (4., or an append refused), and no game can fork meanwhile
   (a claimed table's next append here is refused by the stream). It does not stop them all
   at once: the bus's loss of a NATS node (the leases' bucket electing a leader, 4–9 s) cuts
   every coordinator's puts at the same moment, and a coordinator whose lease comes back
   would have left its tables served by nobody and claimed by nobody (the chaos test);
2. makes the owner key of each new table (a table made here, a rematch; those of a request are
   made at once by the host: ``created``), and deletes the key of each table gone (ended,
   closed); and keeps ``RESERVED`` ids reserved for the next tables (``reserve``: each id's
   owner key made by ``create`` before any table has it, so ids are unique across
   coordinators by construction; the host tops the reserve up before each request that makes
   a table);
3. claims, by compare-and-set, each table whose owner's lease is gone (missing from the
   bucket's listing and from a read of its key; not in the beat after this coordinator's own
   put failed: every lease may have expired while the bucket was out of reach, and each
   coordinator puts its own again within a beat) *and* whose owner is silent on the bus (no
   heartbeat, ``bus.COORD_ALIVE``, for ``bus.SILENCE`` while this one heard its own: ``heard``).
   The heartbeats are core NATS, which a NATS node's death interrupts for the moment a client
   takes to connect to another node, while the leases' bucket is out of reach until its
   stream has elected a leader (4–9 s) and a put in flight to the dead node waits for its
   time-out (5 s): each coordinator's lease may then be missing for seconds after the
   other's is back (the cluster test: the two claimed each other's tables). A dead
   coordinator's heartbeats stop when its puts do, so its tables are claimed as soon as
   before (both are at most ``LEASE_MAX_AGE`` = ``SILENCE`` old at its death). Then it brings
   the table back
   (``Coordinator.restore_table``: its log in the stream, grace timers and patient stand-ins
   as after a restart; a table waiting for players from the shared database), then its summary
   goes to the lobby's bucket as any change does. A table whose game ended meanwhile is
   forgotten (its owner key and its lobby key deleted);
4. stops serving a table whose key names another coordinator (it was claimed while this one
   was paused or cut off); a table in play learns it sooner, from its next append, refused by
   the stream (``jslog.LogTaken``): its sessions are held (``Coordinator.hold_taken``) until
   the next beat reads the table's key. One naming this coordinator still (the other writer
   was a deposed owner, late) brings the table back from its log, and its sessions get their
   seats back (``Coordinator.seat_held``); one naming another, and a table claimed by another,
   tell the sessions ``moved`` (``Coordinator.handing_over``), and their fronts move them to
   the table's new owner, as on a failover.

At start, the coordinator takes the guests' secret of the bus (``owners.share_guest_secret``:
its own ``guests.key`` if it is the first, else the first one's), so that a guest's pass and
reconnect token prove the same identity on any coordinator: a guest's session moved to another
coordinator keeps its identity, and its seat there is given back by ``resume`` there.

At start, the unfinished tables that no coordinator owns (a log in the stream, a table waiting
in the database: left by a server of one coordinator, or by all of them stopped) are claimed by
``create``, one winner each.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time

from .. import bus, wire
from ..bus import owners
from ..bus.directory import ErrorLog, unavailable
from ..bus.owners import LEASE_EVERY, LEASE_MAX_AGE, OwnerBuckets
from .core import Coordinator

log = logging.getLogger(__name__)

RESERVED = 4  # table ids each coordinator holds reserved (owner keys made) for its next tables
HOLD_WAIT = 15.0  # seconds the sessions of a table stopped on another writer wait to be seated


class TableOwners:
    """The owner keys of ``coordinator``'s tables, under the id ``cid``."""

    def __init__(self, coordinator: Coordinator, buckets: OwnerBuckets, cid: str,
                 lobby: object | None = None) -> None:
        self.coordinator = coordinator
        self.buckets = buckets
        self.cid = cid
        self.lobby = lobby  # the lobby's bucket (a KeyValue): a table forgotten leaves it
        self.revisions: dict[str, int] = {}  # the tables this coordinator owns: their key's
        self._lease = wire.encode(wire.Lease(time.time(), socket.gethostname()))
        self._renewed = time.monotonic()
        self._lost = False  # the lease was not put for LEASE_MAX_AGE (said once)
        self._steady = True  # the last beat put the lease: the bucket answers
        self._errors = ErrorLog("owners' buckets")
        self._unrestored: set[str] = set()  # claimed here, their restore failed: tried again
        self._reserved: dict[str, int] = {}  # ids reserved, not a table's yet: key revisions
        self._reserving = asyncio.Lock()
        self.claimed = 0  # tables taken over (logs, tests)
        self.idle = asyncio.Event()
        """Set while no claimed table is being brought back: a session that finds its table's
        new owner in the bucket may connect before the table is back (``CoordinatorHost``
        waits for this before a connect, a join, a watch)."""
        self.idle.set()
        self._heard: dict[str, float] = {}  # each coordinator's last heartbeat (monotonic)
        self._listening = False  # ``heard`` is told the heartbeats (``listen``)
        self._hearing_since = 0.0  # this one hears its own heartbeats since then
        self._own = -1e9  # this one's own last heartbeat, heard back
        self._listened = 0.0  # when ``listen`` was called
        self._unheard = False  # its own heartbeat never came back (said once)
        coordinator.handing_over = True  # (a table taken over: its sessions move there)

    async def start(self) -> None:
        """Take the guests' secret, put the lease, take the unfinished tables nobody owns,
        then reserve ids for the next tables."""
        coordinator = self.coordinator
        guests = coordinator.guests
        if self.buckets.keys is not None and guests is not None:
            shared = await owners.share_guest_secret(self.buckets.keys, guests.secret)
            if shared != guests.secret:
                log.info("guests' identities signed with the secret of the bus's coordinators "
                         "(%s), not this one's guests.key", bus.KEYS_BUCKET)
                guests.share(shared)
        await self.buckets.leases.put(self.cid, self._lease)
        self._renewed = time.monotonic()
        assert coordinator.db is not None
        candidates = set(coordinator._stream_ids) | {
            str(data.get("table")) for data in coordinator.db.waiting_tables()}
        known = await owners.owners(self.buckets)
        for table_id in sorted(candidates - set(known)):
            self.idle.clear()
            try:
                revision = await owners.create(self.buckets, table_id, self.cid)
                if revision is not None:
                    await self._bring_back(table_id, revision, time.time())
            finally:
                self.idle.set()
        await self.reserve()

    def listen(self) -> None:
        """From now on, ``heard`` is told every coordinator's heartbeat (``CoordinatorHost``
        subscribes): a claim then also waits for its owner's silence on the bus. Without it
        (tests of the leases alone) a lease gone is enough."""
        self._listening = True
        self._hearing_since = self._listened = time.monotonic()

    def heard(self, cid: str) -> None:
        """A heartbeat of the coordinator ``cid`` (this one's own included: back from the bus,
        it says the bus reaches this one; after a gap, the others' silence counts anew)."""
        now = time.monotonic()
        if cid == self.cid:
            if now - self._own > 2 * bus.HEARTBEAT:
                self._hearing_since = now
            self._own = now
        self._heard[cid] = now

    def _silent(self, cid: str) -> bool:
        """Nothing heard from ``cid`` for ``bus.SILENCE`` while this one heard the bus (its
        own heartbeats coming back): true of a dead coordinator, not of one whose lease the
        leases' bucket lost or could not take for a while."""
        if not self._listening:
            return True
        now = time.monotonic()
        if self._own < self._listened and now - self._listened > bus.SILENCE:
            if not self._unheard:  # (a bus whose permissions predate the subscription)
                self._unheard = True
                log.error("this coordinator does not hear its own heartbeats (%s): claims "
                          "follow the leases alone", bus.COORD_ALIVE)
            return True
        if now - self._own > 2 * bus.HEARTBEAT:  # (this one does not hear the bus now)
            return False
        return now - max(self._heard.get(cid, -1e9), self._hearing_since) > bus.SILENCE

    async def run(self) -> None:
        while True:
            try:
                await self.beat()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # (the bus down a moment: the next beat tries again)
                self._errors.failed(error)
            await asyncio.sleep(LEASE_EVERY)

    async def beat(self) -> None:
        """One turn (the module's docstring)."""
        try:
            await self.buckets.leases.put(self.cid, self._lease)
            self._renewed = time.monotonic()
        except Exception as error:
            self._errors.failed(error)
            if time.monotonic() - self._renewed > LEASE_MAX_AGE and not self._lost:
                self._lost = True
                log.warning("lease not put for %.0f s: its tables may be claimed (each stops "
                            "here once it is)", time.monotonic() - self._renewed)
            self._steady = False
            return
        self._lost = False
        steady, self._steady = self._steady, True
        tables = self.coordinator.tables
        for table_id in sorted(set(tables) - set(self.revisions)):
            await self.created(table_id)
        for table_id in [tid for tid in self._reserved  # (drawn for a table then refused)
                         if tid not in self.coordinator.reserved_ids and tid not in tables]:
            await owners.release(self.buckets, table_id, self._reserved.pop(table_id))
        await self.reserve()
        known = await owners.owners(self.buckets)
        living = await owners.alive(self.buckets)
        again: list[tuple[str, int]] = []
        for table_id, revision in list(self.revisions.items()):
            if table_id not in tables:
                del self.revisions[table_id]
                retry = table_id in self.coordinator.held or table_id in self._unrestored
                self._unrestored.discard(table_id)
                if retry and known.get(table_id) == (self.cid, revision):
                    # (its key names this one still: another writer appended to its log, a
                    # deposed owner's moves made before it learned of this one's claim, which
                    # are in the log; or its restore failed, the stream electing a leader.
                    # The table comes back from its log. It was released: nobody served it,
                    # its players in the lobby; the chaos test, seed 5, and bench, seed 13)
                    again.append((table_id, revision))
                    continue
                await owners.release(self.buckets, table_id, revision)
                named = known.get(table_id)
                self.coordinator.let_go_held(table_id, moved=named is not None
                                             and named[0] != self.cid)
        for table_id, revision in again:
            log.info("table %s brought back from its log again", table_id)
            try:
                await self._bring_back(table_id, revision, time.time())
            except Exception as error:
                self._unrestored.add(table_id)
                log.error("table %s not brought back (tried again at the next beat): %r",
                          table_id, error)
                continue
            if table_id in self.coordinator.tables:
                self.coordinator.seat_held(table_id)
            else:  # (its game ended: nothing to serve)
                self.coordinator.let_go_held(table_id, moved=False)
        for table_id, (since, _sessions) in list(self.coordinator.held.items()):
            if time.monotonic() - since > HOLD_WAIT:  # (its restore failing beat after beat)
                self.coordinator.let_go_held(table_id, moved=False)
        self._depose({tid for tid, (cid, _rev) in known.items()
                      if cid != self.cid and tid in tables}, "another coordinator claimed it",
                     taken=True)
        if not steady:  # (the bucket was out of reach: the others' leases too, which may
            return  # have expired meanwhile; each puts its own again within a beat)
        gone: dict[str, bool] = {}
        claimed: list[tuple[str, int]] = []
        try:
            for table_id, (cid, revision) in sorted(known.items()):
                if cid == self.cid or cid in living:
                    continue
                if cid not in gone:
                    gone[cid] = self._silent(cid) and await owners.lease_gone(self.buckets,
                                                                             cid)
                if gone[cid]:
                    self.idle.clear()  # (from the claim on: the owner key names this one)
                    won = await owners.claim(self.buckets, table_id, self.cid, revision)
                    if won is not None:
                        log.info("table %s of the coordinator %s (its lease is gone) claimed",
                                 table_id, cid)
                        claimed.append((table_id, won))
        finally:
            try:
                if claimed:
                    await self._bring_back_claimed(claimed)
            finally:
                self.idle.set()

    async def _bring_back_claimed(self, claimed: list[tuple[str, int]]) -> None:
        """All brought back at once: one after the other, a dead coordinator's tenth table
        waited for the nine before it (0.5-3 s each on a busy machine: the chaos test's tables
        stood still up to 21 s). A table whose restore failed is tried again at the next
        beat."""
        stopped_at = time.time() - LEASE_MAX_AGE
        # Its own lease put meanwhile: restores outlasting the lease let it expire, and the
        # other coordinator claimed every table of this one (the chaos test, seed 5: two live
        # coordinators claiming each other's tables in turn).
        keeping = asyncio.create_task(self._keep_lease(), name="lease kept")
        try:
            results = await asyncio.gather(
                *(self._bring_back(table_id, won, stopped_at) for table_id, won in claimed),
                return_exceptions=True)
        finally:
            keeping.cancel()
            await asyncio.gather(keeping, return_exceptions=True)
        for (table_id, _won), result in zip(claimed, results, strict=True):
            if isinstance(result, Exception):
                self._unrestored.add(table_id)
                log.error("table %s not brought back (tried again at the next beat): %r",
                          table_id, result)
            elif isinstance(result, BaseException):
                raise result

    async def _keep_lease(self) -> None:
        """Put the lease every ``LEASE_EVERY`` while a beat waits for something long (a
        failed put is the next beat's to tell)."""
        while True:
            await asyncio.sleep(LEASE_EVERY)
            with contextlib.suppress(Exception):
                await self.buckets.leases.put(self.cid, self._lease)
                self._renewed = time.monotonic()

    async def created(self, table_id: str) -> None:
        """A table made here: its owner key. Its id drawn by another coordinator too (the key
        exists, naming another): this one stops serving it, the other's stands. A key that
        names this coordinator is its own: the request's ``created`` and the beat's, both
        under way for a table just made (the beat found it before the request's create was
        answered), or a create that landed although its answer was lost."""
        if table_id in self.revisions:
            return
        if table_id in self._reserved:  # (its key made as it was reserved)
            self.revisions[table_id] = self._reserved.pop(table_id)
            return
        revision = await owners.create(self.buckets, table_id, self.cid)
        if revision is None:
            found = await owners.owner_of(self.buckets, table_id)
            if found is not None and found[0] == self.cid:
                self.revisions[table_id] = found[1]
                return
            log.error("table %s: its id is another coordinator's table's; it stops here",
                      table_id)
            self._depose({table_id}, "its id is taken")
        else:
            self.revisions[table_id] = revision

    async def reserve(self) -> None:
        """Hold ``RESERVED`` ids for the next tables made here (``Coordinator.reserved_ids``):
        each drawn as any id is (no live table, log or recorded game has it), then its owner key
        made by ``create``, which no other coordinator's can be: an id another coordinator
        holds or uses is drawn again. (Another coordinator that finds a reserved key of a dead
        coordinator claims it, finds no table to bring back, and deletes it.)"""
        async with self._reserving:
            pool = self.coordinator.reserved_ids
            while len(pool) < RESERVED:
                table_id = self.coordinator._new_id(4)
                if table_id in self._reserved:
                    continue
                revision = await owners.create(self.buckets, table_id, self.cid)
                if revision is not None:
                    self._reserved[table_id] = revision
                    pool.append(table_id)

    async def reserve_for_request(self) -> None:
        """Before a request that makes a table: ``reserve``. While the owners' bucket does
        not answer (a NATS node's death: its stream electing a leader, seconds), the table takes
        an id reserved before, if one is left; with none left, the request is refused
        ``unavailable`` (asked again, it waits for the bucket), never as an internal error
        (the chaos bench: tables made at a node's kill were refused « Erreur interne du
        serveur », and their players made no more tables)."""
        try:
            await self.reserve()
        except Exception as error:  # (counted, not logged per request: asked again and
            self._errors.failed(error)  # again while the election lasts)
            if not self.coordinator.reserved_ids:
                raise unavailable() from None

    async def _bring_back(self, table_id: str, revision: int, stopped_at: float) -> None:
        self.revisions[table_id] = revision
        if await self.coordinator.restore_table(table_id, stopped_at):
            self.claimed += 1
            log.info("table %s served here now", table_id)
            return
        del self.revisions[table_id]  # (its game ended: nothing to serve)
        await owners.release(self.buckets, table_id, revision)
        if self.lobby is not None:
            with contextlib.suppress(Exception):
                await self.lobby.delete(table_id)  # type: ignore[attr-defined]

    def _depose(self, table_ids: set[str], why: str, taken: bool = False) -> None:
        """Stop serving these tables; ``taken``: another coordinator claimed them, and their
        sessions move there."""
        for table_id in sorted(table_ids):
            self.revisions.pop(table_id, None)
            table = self.coordinator.tables.get(table_id)
            if table is not None:
                log.warning("table %s no longer served here: %s", table_id, why)
                self.coordinator.stop_table(table, taken=taken)

    async def stop(self) -> None:
        """A clean stop: the lease goes at once, so the others claim the tables now (their
        logs hold them; ``Coordinator.stop`` held them still)."""
        with contextlib.suppress(Exception):
            await self.buckets.leases.delete(self.cid)
        reserved, self._reserved = self._reserved, {}
        self.coordinator.reserved_ids.clear()
        for table_id, revision in reserved.items():
            with contextlib.suppress(Exception):
                await owners.release(self.buckets, table_id, revision)
