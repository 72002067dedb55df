"""The lobby and the online names across processes: two JetStream key-value buckets.

When the bus has JetStream (``pioche serve --workers N`` turns it on, its files under
DATA_DIR/bus/), the lobby no longer travels as one snapshot on ``pioche.lobby``:

- **The lobby** (``bus.LOBBY_BUCKET``): each table's owner (``LobbyBoard``, in the coordinator's
  host) writes the table's ``TableSummary`` under its id when it changes and deletes it when
  the table closes; the message of the day is the key ``motd``. Every front watches the bucket
  (``LobbyWatch``) and builds its own ``LobbySnapshot`` from it, at most every
  ``BUILD_INTERVAL``: one decode per change per front, whatever its sessions (each session's
  mail names the front's lobby instead of carrying one). A front that starts, or comes back
  after the bus was lost, reads the whole bucket at once.
- **Who is online** (``bus.ONLINE_BUCKET``): one key per session, player or watcher, keyed by
  its name's ``name_key`` (``online_key``), valued by a ``wire.Online``. The session's owner
  (``OnlineNames``) creates the key atomically before the player connects: a name is online
  at most once across every coordinator and front (a newer connection of the same identity
  takes the key over, as it takes the session over). It refreshes its keys every third of the
  bucket's max age while the sessions live, deletes them when they close, and when the owner
  dies (SIGKILL, a lost machine) its keys expire within the max age. The fronts' lobbies list
  the online sessions from this bucket.

Every value is ``wire``-encoded; a value that does not decode is dropped with a warning, as
``bus.read`` drops a bad message. Bucket errors (the bus lost a moment) are logged and tried
again at the next change or refresh: the buckets are derived state, rewritten by their owners.

In this wave one coordinator owns every table and session: at its start it deletes the lobby's
keys of tables it does not hold (left by a coordinator that died before it could). With
several coordinators, the table owners' bucket (next wave) says whose keys those are.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from nats.aio.client import Client
from nats.errors import NoRespondersError
from nats.js import JetStreamContext
from nats.js.api import KeyValueConfig, StorageType
from nats.js.errors import (
    BadRequestError,
    BucketNotFoundError,
    KeyNotFoundError,
    KeyWrongLastSequenceError,
    NoKeysError,
    NoStreamResponseError,
    NotFoundError,
    ServiceUnavailableError,
)
from nats.js.kv import KV_DEL, KV_PURGE, KeyValue

from .. import wire
from ..coordinator.model import LobbySnapshot, OnlineEntry, Refused, TableSummary
from . import LOBBY_BUCKET, ONLINE_BUCKET, REQUEST_TIMEOUT

log = logging.getLogger(__name__)
T = TypeVar("T")

MOTD_KEY = "motd"  # (table ids are upper case: no table has this key)
BUILD_INTERVAL = 0.5  # seconds: a front builds its lobby at most this often
ONLINE_MAX_AGE = 15.0  # seconds an online key lives without a refresh
ERROR_LOG_INTERVAL = 5.0  # seconds between two warnings of a bucket's failures
BIND_WAIT = 30.0  # seconds a front waits for the coordinator to have made the buckets
BIND_RETRY = 0.25  # seconds between two looks
LEADER_WAIT = 10.0  # seconds a bucket just made is given to elect its stream's leader
ELECTION_WAIT = 30.0  # seconds a process that starts waits for JetStream through an election
CLAIM_WAIT = 12.0
"""Seconds a connect's work in the buckets (the name's claim, the owner of the player's table)
waits at most through an election (a node's death: 4–9 s measured, tests/cluster/
test_leases.py; ``CoordinatorHost._dispatch`` bounds it); a front waits that much longer for a
connect's answer than for other requests (``RemoteClient.connect``)."""
JS_TEMPORARILY_UNAVAILABLE = 10008  # JetStream's error code while its meta leader is elected


def online_key(name_key: str) -> str:
    """The bucket's key of a name's ``name_key``: its UTF-8 bytes in hex (a key allows
    ``[-/_=.a-zA-Z0-9]`` only, and a name key is any lower-case letter)."""
    return name_key.encode().hex()


def name_taken(name: str) -> Refused:
    return Refused("name_taken", f"Le pseudo {name} est déjà en ligne.")


UNAVAILABLE = "Le serveur ne répond pas ; réessayez dans un instant."


def unavailable() -> Refused:
    """The refusal of a request the bus could not carry (or a bucket not answer)."""
    return Refused("unavailable", UNAVAILABLE)


async def has_jetstream(nc: Client) -> bool:
    """Whether the bus runs JetStream: a plain nats-server answers no responder, an account
    without JetStream « unavailable ». Anything else (a timeout: a bus that froze or went the
    moment after it answered) is raised: taken for « no JetStream », it would leave this
    process on ``pioche.lobby`` while the others use the buckets."""
    try:
        await nc.jetstream(timeout=REQUEST_TIMEOUT).account_info()
    except (NoRespondersError, ServiceUnavailableError) as error:
        if electing(error):
            raise
        log.info("no JetStream on the bus (%s)", type(error).__name__)
        return False
    return True


def electing(error: BaseException) -> bool:
    """Whether ``error`` is what JetStream answers while it elects a leader, a node having just
    died: a timeout, « JetStream system temporarily unavailable », or no answer from a stream
    to a write (its leader gone). Worth asking again."""
    return isinstance(error, (TimeoutError, NoStreamResponseError)) or (
        isinstance(error, ServiceUnavailableError) and error.err_code == JS_TEMPORARILY_UNAVAILABLE)


async def through_elections(what: str, ask: Callable[[], Awaitable[T]],
                               wait: float = ELECTION_WAIT) -> T:
    """``ask()``'s answer, asked again while JetStream elects a leader (``electing``), for
    ``wait`` seconds at most (then its error is raised). A process that starts while a node of
    the cluster has just died waits for the cluster instead of exiting; its start is raced
    against its stop (``server.workers.serve_until_stopped``), so a stop still stops it."""
    deadline = time.monotonic() + wait
    warned = False
    while True:
        try:
            return await ask()
        except Exception as error:
            if not electing(error) or time.monotonic() > deadline:
                raise
            if not warned:
                log.warning("%s: %s; asked again for %.0f s at most", what,
                            str(error) or type(error).__name__, wait)
                warned = True
        await asyncio.sleep(BIND_RETRY)


async def buckets_of(nc: Client, replicas: int = 1, create: bool = True) -> Buckets | None:
    """The buckets when the bus runs JetStream, None when it does not (the lobby then travels
    on ``pioche.lobby``, and names are checked by the one coordinator alone). ``create``: the
    coordinator's, which makes them if missing; a front only binds to them (its role may not
    create a stream: ``bus/roles.py``), waiting while the coordinator starts."""
    if not await has_jetstream(nc):
        log.info("the lobby travels on %s (no JetStream on the bus)", "pioche.lobby")
        return None
    buckets = await (open_buckets(nc, replicas) if create else bind_buckets(nc))
    log.info("the lobby and the online names in the buckets %s and %s", LOBBY_BUCKET,
             ONLINE_BUCKET)
    return buckets


@dataclass(frozen=True)
class Buckets:
    """The two buckets on one connection."""

    lobby: KeyValue
    online: KeyValue
    max_age: float  # the online bucket's


async def open_buckets(nc: Client, replicas: int = 1, max_age: float = ONLINE_MAX_AGE
                       ) -> Buckets:
    """The buckets, created if missing (file storage, one value per key, ``replicas``
    copies: 1 on one host, 3 in a cluster). A bucket that exists already with another
    configuration (another max age, another replica count) is used as it is, with a warning:
    an operator changes it with the ``nats`` tool, not by restarting one process."""
    js = nc.jetstream(timeout=REQUEST_TIMEOUT)
    lobby = await make_bucket(js, KeyValueConfig(
        bucket=LOBBY_BUCKET, description="Pioche: the tables of the lobby", history=1,
        replicas=replicas, storage=StorageType.FILE))
    online = await make_bucket(js, KeyValueConfig(
        bucket=ONLINE_BUCKET, description="Pioche: who is online, by name", history=1,
        ttl=max_age, replicas=replicas, storage=StorageType.FILE,
        # (an expired key leaves a marker, so that watchers see it go)
        limit_marker_ttl=max_age))
    return Buckets(lobby, online, max_age)


async def bind_buckets(nc: Client, wait: float = BIND_WAIT) -> Buckets:
    """The buckets a coordinator made, found within ``wait`` seconds (BucketNotFoundError
    past that: no coordinator has run on this bus)."""
    js = nc.jetstream(timeout=REQUEST_TIMEOUT)
    deadline = time.monotonic() + wait
    while True:
        try:
            lobby = await js.key_value(LOBBY_BUCKET)
            online = await js.key_value(ONLINE_BUCKET)
        except BucketNotFoundError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(BIND_RETRY)
            continue
        return Buckets(lobby, online, ONLINE_MAX_AGE)


async def make_bucket(js: JetStreamContext, config: KeyValueConfig) -> KeyValue:
    """The bucket ``config`` names, created if missing; one that exists with another
    configuration is used as it is, with a warning (every bucket of Pioche's is made here)."""
    try:
        bucket = await js.create_key_value(config)
    except BadRequestError as error:
        log.warning("bucket %s exists with another configuration (%s): used as it is",
                    config.bucket, error.description)
        bucket = await js.key_value(config.bucket)
    await led(js, f"KV_{config.bucket}")
    return bucket


async def led(js: JetStreamContext, stream: str) -> None:
    """Once the stream has a leader (``LEADER_WAIT`` at most: then its first write tells). A
    replicated bucket another process has just created is found at once, before its stream has
    elected a leader: the first write had no answer (NoStreamResponseError), and a coordinator
    started beside another crashed so (the chaos test, seed 5)."""
    deadline = time.monotonic() + LEADER_WAIT
    while True:
        with contextlib.suppress(Exception):  # (no answer yet: no leader)
            info = await js.stream_info(stream)
            if info.cluster is None or info.cluster.leader:
                return
        if time.monotonic() > deadline:
            return
        await asyncio.sleep(BIND_RETRY)


class ErrorLog:
    """Warnings of a bucket's failures, one every ``ERROR_LOG_INTERVAL`` at most."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.count = 0
        self.logged = -math.inf

    def failed(self, error: BaseException) -> None:
        self.count += 1
        now = time.monotonic()
        if now - self.logged >= ERROR_LOG_INTERVAL:
            log.warning("%s: %d failures (last: %s: %s)", self.what, self.count,
                        type(error).__name__, error)
            self.count, self.logged = 0, now


# --- the owner's side: the coordinator's host -------------------------------------------------


class LobbyBoard:
    """Writes the lobby's bucket from the coordinator's snapshots (``write``: one each time it
    sends one to its lobby's sessions, ``Settings.lobby_interval`` apart): a table's summary
    when it differs from the one written last, a delete for a table gone."""

    def __init__(self, kv: KeyValue, sweep: bool = True) -> None:
        self.kv = kv
        self._written: dict[str, TableSummary] = {}
        self._motd: str | None = None
        # the keys of tables not ours deleted (at the first write); not with several
        # coordinators, whose tables are not ours (a dead one's: coordinator/owners.py)
        self._swept = not sweep
        self._errors = ErrorLog("lobby bucket")

    async def write(self, snapshot: LobbySnapshot) -> None:
        tables = {table.id: table for table in snapshot.tables}
        gone = set(self._written) - set(tables)
        if not self._swept:
            try:
                gone |= {key for key in await self.kv.keys() if key != MOTD_KEY} - set(tables)
                self._swept = True
            except NoKeysError:
                self._swept = True
            except Exception as error:  # (swept at the next snapshot)
                self._errors.failed(error)
        jobs = [self._put(tid, table) for tid, table in tables.items()
                if self._written.get(tid) != table]
        jobs += [self._delete(tid) for tid in gone]
        if snapshot.motd != self._motd:
            jobs.append(self._put_motd(snapshot.motd))
        if jobs:
            await asyncio.gather(*jobs)

    async def _put(self, tid: str, table: TableSummary) -> None:
        try:
            await self.kv.put(tid, wire.encode(table))
        except Exception as error:  # (tried again at the next snapshot)
            self._written.pop(tid, None)
            self._errors.failed(error)
        else:
            self._written[tid] = table

    async def _delete(self, tid: str) -> None:
        try:
            await self.kv.delete(tid)
        except Exception as error:
            self._swept = False  # (found again by the next sweep)
            self._errors.failed(error)
        self._written.pop(tid, None)

    async def _put_motd(self, text: str) -> None:
        try:
            await self.kv.put(MOTD_KEY, wire.encode(wire.Motd(text)))
        except Exception as error:
            self._errors.failed(error)
        else:
            self._motd = text


@dataclass(eq=False)
class _Claim:
    key: str
    revision: int
    entry: wire.Online


class OnlineNames:
    """The online bucket's keys of the sessions a coordinator holds, by session id.

    ``claim`` creates a player's key before the player connects (Refused ``name_taken`` when
    someone else holds it); ``want`` says what every session's entry is now (its name may have
    changed: a watcher renumbered; its table), and a single task (``run``) brings the bucket
    to it: creates, updates, deletes, and refreshes every key each third of the max age. Every
    write of a held key names its last revision: a key taken over meanwhile (the same identity
    connected elsewhere) is left to its new holder."""

    def __init__(self, kv: KeyValue, max_age: float) -> None:
        self.kv = kv
        self.max_age = max_age
        self._claims: dict[str, _Claim] = {}
        self._wanted: dict[str, wire.Online] = {}
        self._keys: dict[str, str] = {}  # the key of each wanted entry
        self._orphans: list[_Claim] = []  # keys of sessions that hold another one now
        self._changed = asyncio.Event()
        self._errors = ErrorLog("online bucket")

    @property
    def held(self) -> dict[str, str]:
        """The keys held, by session id (tests, logs)."""
        return {sid: claim.key for sid, claim in self._claims.items()}

    async def claim(self, key: str, entry: wire.Online) -> None:
        """Hold ``key`` for the session ``entry.sid``: created if free, taken over from a
        session of the same identity; Refused ``name_taken`` if another identity holds it,
        ``unavailable`` if the bucket does not answer. While the bucket's stream elects a
        leader (a node's death) it is asked again (``CLAIM_WAIT``; the caller bounds the whole
        connect): the player waits a few seconds more to get in, rather than being refused."""
        try:
            revision = await through_elections(f"the online bucket, {entry.name}'s claim",
                                               lambda: self._take(key, entry), CLAIM_WAIT)
        except Refused:
            raise
        except Exception as error:
            self._errors.failed(error)
            raise unavailable() from None
        self._hold(key, revision, entry)

    async def _take(self, key: str, entry: wire.Online) -> int:
        """``key`` written with ``entry``, if free or held by the same identity: its revision
        (Refused ``name_taken`` otherwise; the bucket's errors raised)."""
        for _ in range(3):  # (a refresh of the key taken over may come between)
            try:
                return await self.kv.create(key, wire.encode(entry))
            except KeyWrongLastSequenceError:
                pass
            try:
                held = await self.kv.get(key)
            except (KeyNotFoundError, NotFoundError):
                continue  # (gone meantime: create again)
            holder = decode_entry(held.value or b"", wire.Online, "online entry")
            if holder is not None and holder.identity != entry.identity:
                raise name_taken(entry.name)
            try:
                return await self.kv.update(key, wire.encode(entry), last=held.revision)
            except KeyWrongLastSequenceError:
                continue
        raise name_taken(entry.name)

    def _hold(self, key: str, revision: int, entry: wire.Online) -> None:
        old = self._claims.get(entry.sid)
        self._claims[entry.sid] = _Claim(key, revision, entry)
        self._wanted[entry.sid], self._keys[entry.sid] = entry, key
        if old is not None and old.key != key:
            self._orphans.append(old)
            self._changed.set()

    def want(self, entries: Mapping[str, tuple[str, wire.Online]]) -> None:
        """Every session's key and entry now, by session id (a session not in it: its key
        goes)."""
        wanted = {sid: entry for sid, (_key, entry) in entries.items()}
        keys = {sid: key for sid, (key, _entry) in entries.items()}
        if wanted != self._wanted or keys != self._keys:
            self._wanted, self._keys = wanted, keys
            self._changed.set()

    def release(self, sid: str) -> None:
        """The session closed: its key goes (at the next turn of ``run``)."""
        if self._wanted.pop(sid, None) is not None or sid in self._claims:
            self._keys.pop(sid, None)
            self._changed.set()

    async def run(self) -> None:
        """Bring the bucket to what is wanted, on each change, and refresh every key held each
        third of the max age."""
        refresh_at = time.monotonic() + self.max_age / 3
        while True:
            # (asyncio.timeout, not wait_for: 3.11's wait_for loses a cancellation that comes
            # as the event is set, and the host's stop would wait for this task for ever)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(0.0, refresh_at - time.monotonic())):
                    await self._changed.wait()
            self._changed.clear()
            refresh = time.monotonic() >= refresh_at
            if refresh:
                refresh_at = time.monotonic() + self.max_age / 3
            await self.sync(refresh)

    async def sync(self, refresh: bool = False) -> None:
        jobs = [self._delete(claim) for claim in self._orphans]
        self._orphans = []
        for sid, claim in list(self._claims.items()):
            entry, key = self._wanted.get(sid), self._keys.get(sid)
            if entry is None or key != claim.key:
                del self._claims[sid]
                jobs.append(self._delete(claim))
            if entry is not None and key == claim.key and (refresh or entry != claim.entry):
                jobs.append(self._update(claim, entry))
        for sid, entry in list(self._wanted.items()):
            if sid not in self._claims:
                jobs.append(self._create(self._keys[sid], entry))
        if jobs:
            await asyncio.gather(*jobs)

    async def _update(self, claim: _Claim, entry: wire.Online) -> None:
        try:
            claim.revision = await self.kv.update(claim.key, wire.encode(entry),
                                                  last=claim.revision)
            claim.entry = entry
        except KeyWrongLastSequenceError:  # taken over (or expired and taken): not ours now
            if self._claims.get(entry.sid) is claim:
                del self._claims[entry.sid]
                self._wanted.pop(entry.sid, None)
                self._keys.pop(entry.sid, None)
            log.info("online name %s of %s held elsewhere now", entry.name, entry.sid)
        except Exception as error:
            self._errors.failed(error)

    async def _create(self, key: str, entry: wire.Online) -> None:
        """A session's key not held yet (a watcher's, named by the coordinator; a key expired
        while the bus was lost): written if free or the same identity's (a watcher back after
        a restart). A watcher's name is the coordinator's choice among the names its sessions
        leave free; another identity's session under it (another coordinator's: none in this
        wave) leaves it out of the online list, with a warning."""
        try:
            revision = await self._take(key, entry)
        except Refused as refusal:
            if refusal.code == "name_taken":
                log.warning("online name %s of %s: held by another session", entry.name,
                            entry.sid)
                self._wanted.pop(entry.sid, None)
                self._keys.pop(entry.sid, None)
            return
        if self._wanted.get(entry.sid) is not None:
            self._claims[entry.sid] = _Claim(key, revision, entry)
        else:  # (closed meanwhile)
            await self._delete(_Claim(key, revision, entry))

    async def _delete(self, claim: _Claim) -> None:
        try:
            await self.kv.delete(claim.key, last=claim.revision)
        except KeyWrongLastSequenceError:
            pass  # (taken over: the new holder's)
        except BadRequestError as error:  # (the same refusal, under its API error code)
            if error.err_code not in (10071, 10164):
                self._errors.failed(error)
        except Exception as error:  # (expires by itself within the max age)
            self._errors.failed(error)

    async def close(self) -> None:
        """Delete every key held (a clean stop)."""
        claims, self._claims = list(self._claims.values()), {}
        self._wanted.clear()
        self._keys.clear()
        await asyncio.gather(*(self._delete(claim) for claim in claims))


# --- the front's side --------------------------------------------------------------------------


class LobbyWatch:
    """A front's lobby, built from both buckets: each change read once, the snapshot built
    at most every ``interval`` seconds and given to ``built``. (A coordinator of several follows
    them too, building nothing: ``built`` None; ``heard``: each online entry written.)"""

    def __init__(self, buckets: Buckets, built: Callable[[LobbySnapshot], None] | None,
                 interval: float = BUILD_INTERVAL,
                 heard: Callable[[wire.Online], None] | None = None) -> None:
        self.buckets = buckets
        self.built = built
        self.heard = heard
        self.interval = interval
        self.tables: dict[str, TableSummary] = {}
        self.online: dict[str, wire.Online] = {}
        self.motd = ""
        self._dirty = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._watchers: list[Any] = []

    async def start(self) -> None:
        """Read both buckets whole, build the lobby, then follow their changes."""
        await self.stop()
        self.tables, self.online, self.motd = {}, {}, ""
        loaded = [asyncio.Event(), asyncio.Event()]
        for kv, apply, event in ((self.buckets.lobby, self._lobby, loaded[0]),
                                 (self.buckets.online, self._online, loaded[1])):
            # (a front that starts just after a node's death found the buckets, and their
            # streams may still be electing: the watch's consumer is asked again meanwhile)
            watcher = await through_elections(f"watching {kv._name}", kv.watchall)
            self._watchers.append(watcher)
            self._tasks.append(asyncio.create_task(self._follow(watcher, apply, event),
                                                   name=f"watch {kv._name}"))
        async with asyncio.timeout(REQUEST_TIMEOUT):
            for event in loaded:
                await event.wait()
        self._dirty.clear()
        if self.built is not None:
            self.built(self.snapshot())
            self._tasks.append(asyncio.create_task(self._build(), name="lobby build"))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for watcher in self._watchers:
            with contextlib.suppress(Exception):
                await watcher.stop()
        self._tasks, self._watchers = [], []

    def snapshot(self) -> LobbySnapshot:
        online = sorted((OnlineEntry(o.name, o.watch_only, o.table)
                         for o in self.online.values()), key=lambda e: e.name.casefold())
        return LobbySnapshot(tuple(self.tables.values()), tuple(online), self.motd)

    async def _follow(self, watcher: Any, apply: Callable[[str, bytes | None], None],
                      loaded: asyncio.Event) -> None:
        async for entry in watcher:
            if entry is None:  # (the bucket read whole)
                loaded.set()
                continue
            gone = entry.operation in (KV_DEL, KV_PURGE)
            apply(entry.key, None if gone else entry.value)
            if entry.delta == 0:
                loaded.set()
            self._dirty.set()

    def _lobby(self, key: str, value: bytes | None) -> None:
        if key == MOTD_KEY:
            motd = None if value is None else decode_entry(value, wire.Motd, "motd")
            self.motd = motd.text if motd is not None else ""
            return
        table = None if value is None else decode_entry(value, TableSummary, "lobby entry")
        if table is None or table.id != key or table.status == "closed":
            self.tables.pop(key, None)
        else:
            self.tables[key] = table

    def _online(self, key: str, value: bytes | None) -> None:
        entry = None if value is None else decode_entry(value, wire.Online, "online entry")
        if entry is None:
            self.online.pop(key, None)
        else:
            self.online[key] = entry
            if self.heard is not None:
                self.heard(entry)

    async def _build(self) -> None:
        built = self.built
        assert built is not None
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            built(self.snapshot())
            await asyncio.sleep(self.interval)


def decode_entry(data: bytes, expect: type[Any], what: str) -> Any:
    """A bucket entry's ``expect`` value; None, with a warning, for anything else."""
    try:
        return wire.decode(data, expect=expect)
    except wire.WireError as error:
        log.warning("bad %s dropped: %s", what, error)
        return None


def entries_of(sessions: Iterable[tuple[str, str, wire.Online]]
               ) -> dict[str, tuple[str, wire.Online]]:
    """``OnlineNames.want``'s argument from (sid, name key, entry) triples."""
    return {sid: (online_key(key), entry) for sid, key, entry in sessions if key}
