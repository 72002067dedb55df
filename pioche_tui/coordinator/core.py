"""The coordinator: every session talks to the games only through it.

It keeps who is online, the tables and their seats, runs each table's game, writes its log,
records results in SQLite, and pushes to each session's mailbox the newest view of what that
session may see. It lives on the server's one event loop; its methods never await, so each call
runs to completion and a table only ever has one writer (design.md).

Sessions call it through their :class:`Session` handle, which knows who they are and where they
sit: a session can never act for another seat.

A restart loses nothing a player would miss: unfinished games come back from their logs, and
what the logs do not hold — tables still waiting for players, the time left on each turn, the
table each spectator watches, the last chat lines — is kept in the database as it changes
(docs/reliability.md, round two, item 13).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import heapq
import itertools
import logging
import math
import random
import secrets
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..bus import LOG_PREFIX, log_subject
from ..engine import GAMES
from ..engine.base import BadOptions, Game
from ..store import jslog, retention
from ..store.db import GUEST_PREFIX, KEY_PREFIX, Database, SeatResult, StoreError, open_database
from ..store.log import END, SEAT, LogContents, LogError, LogWriter, TableLog, by_stand_in, read_log
from . import profiles
from .admin import Console
from .clock import later
from .guests import Guests
from .mailbox import Mailbox, Notice
from .model import (
    ChatLine,
    GameInfo,
    GuestPass,
    LobbySnapshot,
    OnlineEntry,
    Player,
    Refused,
    Replay,
    ServerInfo,
)
from .table import NOT_SAVED, NOT_TAKEN, STAND_IN, STOPPED, Seat, Table
from .text import NICKNAME_MAX, RateLimiter, mentions, name_key, nickname, sanitise

if TYPE_CHECKING:
    from nats.aio.client import Client
    from nats.js import JetStreamContext

    from .inprocess import InProcessClient

log = logging.getLogger("pioche.coordinator")

ID_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: ids are read aloud
BOT_NAMES = (
    "Ambre", "Basile", "Capucine", "Désiré", "Eulalie", "Firmin", "Gaspard", "Honorine",
    "Ignace", "Joséphine", "Lucien", "Margot", "Noé", "Octavie", "Prosper", "Rosalie",
)
CHAT_HISTORY = 30  # lines kept per history: the lobby's, a table's players', its spectators'
MENTION_BELL = 30.0
"""Seconds: a player's bell rings for a mention at most once in this time, whoever mentions
them (the line is shown all the same): « @bob » in every line cannot ring bob again and again,
from one sender or from many."""
IGNORE_MAX = 100  # names one session may ignore (its list stays small whatever a client does)
HEARTBEAT = 2.0  # seconds between two notes of "the server is running" (turn timers, 13)
MIN_TIMER, MAX_TIMER = 10.0, 600.0  # what a player may ask for (the server's default, always)
DAY = 86400.0
REMATCH_TIME = 60.0
"""Seconds the players of a finished table have to accept a rematch once one of them asked
(``Coordinator.rematch``): a player who walked away from the screen does not hold the others
for long."""
LEARN_SEATS = 3  # a learn table: the player and two bots (fewer turns to wait through)
LEARN_OPTIONS: dict[str, dict[str, Any]] = {
    "collection": {"mode": "classique"},  # every special card, to learn them all
    "defausse": {"target": 200},  # a game to its end in a sitting (500 by default)
}


@dataclass(frozen=True, slots=True)
class Settings:
    data_dir: Path
    bot_delay: tuple[float, float] = (0.8, 2.0)  # seconds a bot "thinks" (min, max)
    turn_timer: float | None = 60.0  # default per decision at tables with a human
    grace: float = 300.0  # how long a dropped player keeps their seat
    # Tests and demos: table ids, private codes, deals and bot names from one seeded generator,
    # so screens are reproducible. None (production) draws them from the system's randomness.
    seed: int | None = None
    # Seconds between two lobby snapshots sent to the sessions in the lobby: each one costs every
    # such session a repaint, and a crowd connecting at once changes the lobby at every
    # connection. (Screen tests set 0: at once.)
    lobby_interval: float = 0.5
    # Tables (quick games included) one player, and one IP address, may create in any minute.
    # An honest player makes one every few minutes (a game lasts longer); a client opening
    # games and dropping them meets the limit at once (docs/server.md, « Tables »).
    table_rate: tuple[int, int] = (6, 20)
    # How long ended tables' logs are kept (store/retention.py): a finished game's (its result
    # stays in SQLite for good), and an abandoned one's (closed unfinished, after a player moved;
    # one where no player moved is removed as it closes). Seconds, counted from the log's end.
    keep_finished: float = 30 * DAY
    keep_abandoned: float = 7 * DAY
    retention_interval: float = 3600.0  # seconds between two retention passes (one at start)
    # The admins' file (coordinator/admin.py): None for DATA_DIR/admins.
    admins: Path | None = None
    # The database (store/db.py, ``open_database``): sqlite:PATH or postgresql://…; None for
    # DATA_DIR/pioche.sqlite3, the embedded default.
    db: str | None = None
    # Where the tables' logs live: "files" (DATA_DIR/tables, store/log.py) or "jetstream"
    # (the bus's stream PIOCHE_LOGS, store/jslog.py; Coordinator.start is then given the bus),
    # and the stream's replicas if it must be created (1 on one host, 3 in a cluster).
    logs: str = "files"
    log_replicas: int = 1


class Session:
    """One connection's handle on the coordinator. Every method raises Refused on a request
    it cannot grant, with nothing changed."""

    def __init__(self, coordinator: Coordinator, player: Player, key: str) -> None:
        self.coordinator = coordinator
        self.player = player
        self.key = key  # the player's identity, unique among sessions for watchers
        self.name_key = name_key(player.name)
        self.guest_pass: GuestPass | None = None  # a guest's identity and reconnect token
        self.mailbox = Mailbox()
        self.table: Table | None = None
        self.seat: int | None = None  # None while watching or in the lobby
        self.open = True
        self.mirror = False  # a screen shared by spectators (Coordinator.mirror): not counted
        # The players this session does not want to read (/ignore): name key → name shown.
        # Kept for the session (and the newer connection that replaces it): docs/screens.md.
        self.ignoring: dict[str, str] = {}
        self.active = time.monotonic()  # its last request that does something (admin's idle)

    def __repr__(self) -> str:
        return f"<Session {self.player.name}>"

    # The session's requests, all delegated: the coordinator owns every rule about them.
    def create_table(self, game: str, *, seats: int, options: Mapping[str, Any] | None = None,
                     bots: Mapping[int, str] | None = None, timer: float | str | None = "default",
                     private: bool = False, sit: bool = True) -> str:
        self.active = time.monotonic()
        return self.coordinator.create_table(self, game, seats=seats, options=options or {},
                                             bots=bots or {}, timer=timer, private=private,
                                             sit=sit)

    def quick_play(self, game: str, seats: int = 4, options: Mapping[str, Any] | None = None
                   ) -> str:
        self.active = time.monotonic()
        return self.coordinator.quick_play(self, game, seats, options or {})

    def learn(self, game: str) -> str:
        self.active = time.monotonic()
        return self.coordinator.learn(self, game)

    def join(self, table_id: str, seat: int | None = None, code: str | None = None) -> None:
        self.active = time.monotonic()
        self.coordinator.join(self, table_id, seat, code)

    def watch(self, table_id: str, code: str | None = None) -> None:
        self.active = time.monotonic()
        self.coordinator.watch(self, table_id, code)

    def start(self) -> None:
        self.active = time.monotonic()
        self.coordinator.start_table(self)

    def leave(self) -> None:
        self.active = time.monotonic()
        self.coordinator.leave_table(self)

    def act(self, action: Any, step: int | None = None) -> Awaitable[None] | None:
        """None once done (a table logged in files); otherwise what to await for the answer
        (``Coordinator.act``)."""
        self.active = time.monotonic()
        return self.coordinator.act(self, action, step)

    def rematch(self, accept: bool = True) -> None:
        self.coordinator.rematch(self, accept)

    def chat(self, text: str, to: str | None = None, me: bool = False) -> None:
        self.active = time.monotonic()
        self.coordinator.chat(self, text, to, me)

    def ignore(self, name: str) -> tuple[str, ...]:
        return self.coordinator.ignore(self, name)

    def unignore(self, name: str) -> tuple[str, ...]:
        return self.coordinator.unignore(self, name)

    def ignored(self) -> tuple[str, ...]:
        return self.coordinator.ignored(self)

    def close(self) -> None:
        self.coordinator.disconnect(self)




@dataclass(frozen=True)
class Far:
    """A session online on another coordinator of the bus (the online bucket says so): who it
    is, its name's key, and its home's id (``coordinator/cross.py``)."""

    player: Player
    name_key: str
    home: str
    table: str | None = None  # the table it sits at or watches


class Beyond(Protocol):
    """The other coordinators of the bus, as one coordinator reaches them
    (``coordinator/cross.py``); ``Coordinator.beyond`` is None in the embedded mode and under
    one coordinator without JetStream. Its sends never wait: they are published in the
    background, in order."""

    def find(self, key: str) -> Far | None:
        """The session online elsewhere under the name key ``key``, if any."""

    def others(self) -> Iterable[Far]:
        """Every session online elsewhere (the admin's list)."""

    def said(self, line: ChatLine) -> None:
        """A lobby line said here, for the other coordinators' lobbies."""

    def tell(self, line: ChatLine, to: Far) -> None:
        """A private line for ``to``, at its home."""

    def acted(self, by: str, action: str, target: str, until: float | None) -> None:
        """An admin's action done here, for the others to apply (``Console.relayed``)."""

    def serves(self, table_id: str) -> bool:
        """Whether another coordinator serves the table ``table_id`` (the lobby says so)."""


MOVED = "La table est servie par un autre coordinateur : vous y retrouvez votre place."
"""Said (to a session's front, which moves it: its app never reads it) when another coordinator
took the session's table over (``Coordinator.stop_table``)."""
REPLACED = "Vous vous êtes connecté ailleurs."
"""Said to a session replaced by a newer connection of the same player."""
STORE_READ = "Le serveur ne peut pas lire ses données pour le moment ; réessayez dans un instant."
"""Said when the database fails a read the request needs (``Refused("store_read")``)."""
T = TypeVar("T")

REPLAY_PAGES = 20
"""Replay pages one player may ask for in 10 s (twice that from one address): a page is a
hundred moves, a whole long game in a few pages, a step back through it one more."""


class Coordinator:
    def __init__(self, settings: Settings, games: Mapping[str, Game[Any, Any]] | None = None
                 ) -> None:
        self.settings = settings
        self.games = dict(games if games is not None else GAMES)
        self.server_info = ServerInfo(
            tuple(GameInfo(name, game.min_seats, game.max_seats, tuple(game.bot_names()))
                  for name, game in self.games.items()),
            settings.turn_timer, MIN_TIMER, MAX_TIMER, settings.grace)
        """What every session's screens know of this server (built once: it never changes)."""
        self.tables: dict[str, Table] = {}
        self.sessions: dict[str, Session] = {}  # by identity: one live session each
        self._online_names: Counter[str] = Counter()  # the sessions' name keys, live ones
        self.db: Database | None = None
        self.guests: Guests | None = None  # opened by start()
        self._rng = random.Random(settings.seed)  # bot delays and names: no replay needs them
        self._ids: random.Random = (
            secrets.SystemRandom() if settings.seed is None else random.Random(settings.seed)
        )  # table ids, private codes and deal seeds
        # The last lines of each history: by scope, and whether the spectators' (a table's).
        self._chat: dict[tuple[str, bool], deque[ChatLine]] = {}
        self._bells = RateLimiter(1, MENTION_BELL)  # by the identity of the player rung
        self.wall_clock: Callable[[], float] = time.time
        """The chat lines' time (the screens' pictures set a fixed one)."""
        self._chat_limit = RateLimiter(3, 3.0)  # by identity
        # By address too: one address may hold many guests, each a new identity (eight
        # sessions would say 8 lines a second to every lobby screen). Two chatty players' worth.
        self._chat_by_address = RateLimiter(6, 3.0)
        # A replay's page reads and replays its game's log (up to ~25 ms of CPU: under
        # --workers the coordinator's, which no connection's budget pays for).
        self._replays = RateLimiter(REPLAY_PAGES, 10.0)  # by identity
        self._replays_by_address = RateLimiter(2 * REPLAY_PAGES, 10.0)
        per_player, per_address = settings.table_rate
        self._tables_by_player = RateLimiter(per_player, 60.0)  # by identity
        self._tables_by_address = RateLimiter(per_address, 60.0)
        self._lobby_pending = False
        self._lobby_sent = -math.inf  # loop time of the last lobby snapshot sent
        self._lobby_last: LobbySnapshot | None = None  # that snapshot
        self.lobby_listeners: list[Callable[[LobbySnapshot], None]] = []
        """Called with each snapshot sent to the lobby's sessions (the bus's host publishes
        it to the fronts, which cache it: coordinator/host.py)."""
        self._watchers = 0
        self._heartbeat: asyncio.TimerHandle | None = None
        self._clocks: dict[str, dict[int, float]] = {}  # at start: deadlines stored last run
        self._stopped_at: float | None = None  # at start: when the last run was last alive
        self._store_errors: set[str] = set()  # what the database refuses to store, for now
        self.stopping = False  # the server stops: no table moves any more (see freeze)
        self.console = Console(self, settings.admins or settings.data_dir / "admins")
        """The operator's side: admins, bans, the message of the day (coordinator/admin.py)."""
        self.stream: JetStreamContext | None = None
        """The tables' logs' stream (``Settings.logs`` "jetstream"), None for files."""
        self._stream_ids: set[str] = set()  # tables with a log in the stream (_new_id avoids)
        self._discarding: set[asyncio.Task[None]] = set()  # logs being purged (kept alive)
        self.reserved_ids: list[str] = []
        """Several coordinators: ids reserved for the next tables made here, each one's owner
        key made already, so that no two coordinators give a table the same id
        (``coordinator/owners.py``, ``TableOwners.reserve``). Empty: drawn here alone."""
        self.handing_over = False
        """One of several coordinators (``coordinator/owners.py``): a table another took over
        is handed over (``stop_table(…, taken=True)``: its sessions move there), not stopped."""
        self.held: dict[str, tuple[float, list[tuple[Session, int | None]]]] = {}
        """Tables stopped on another writer of their log (``hold_taken``): since when
        (monotonic), and their sessions with their seats, until the owners' next beat says
        where the table is served now (coordinator/owners.py brings back one whose owner key
        names this coordinator still)."""
        self.beyond: Beyond | None = None
        """The other coordinators on the bus (lobby chat, private lines, an admin's actions:
        ``coordinator/cross.py``); None alone."""

    def client(self) -> InProcessClient:
        """A new app's client of this coordinator (``client.Connector``: the embedded mode)."""
        from .inprocess import InProcessClient

        return InProcessClient(self)

    # --- life -----------------------------------------------------------------------------

    @property
    def tables_dir(self) -> Path:
        return self.settings.data_dir / "tables"

    def log_path(self, table_id: str) -> Path:
        return self.tables_dir / f"{table_id}.log"

    def open_log(self, table_id: str, header: dict[str, Any]
                 ) -> tuple[TableLog, asyncio.Future[None] | None]:
        """A new table's log and, unless it is immediate (a file's), the future of its header
        (``Table.start``). OSError: a file log could not be created."""
        if self.stream is None:
            return LogWriter.create(self.log_path(table_id), header), None
        self._stream_ids.add(table_id)
        return jslog.JetStreamLog.create(self.stream, table_id, header)

    def _remove_log(self, table: Table) -> None:
        """A table closed before any player moved leaves no log."""
        if isinstance(table.writer, jslog.JetStreamLog):
            task = asyncio.create_task(table.writer.discard())
            self._discarding.add(task)
            task.add_done_callback(self._discarding.discard)
        else:
            self.log_path(table.id).unlink(missing_ok=True)

    def log_name(self, table_id: str) -> str:
        """The log's name the database keeps with a finished game (``games.log_file``)."""
        return self.log_path(table_id).name if self.stream is None else log_subject(table_id)

    async def start(self, bus: Client | None = None, restore: bool = True) -> None:
        """Open the database and bring back every unfinished table from its log (``bus``:
        the connection whose JetStream holds the logs, with ``Settings.logs`` "jetstream").
        ``restore`` False: none is brought back here; with several coordinators on one bus,
        each table is brought back by the one that claims it (``restore_table``,
        coordinator/owners.py)."""
        from ..bus.directory import through_elections

        if self.settings.logs == "jetstream":
            if bus is None:
                raise ValueError("the tables' logs in JetStream need the bus: pioche coordinator, "
                                 "or pioche serve --workers N")
            made = self.stream = bus.jetstream(timeout=jslog.READ_TIMEOUT)
            await through_elections("the logs' stream", lambda: jslog.ensure_stream(
                made, self.settings.log_replicas))
        self.tables_dir.mkdir(parents=True, exist_ok=True)
        self.db = open_database(self.settings.db, self.settings.data_dir, name_key)
        log.info("database: %s", self.db.where)
        tokens = secrets.SystemRandom() if self.settings.seed is None else random.Random(
            self.settings.seed)  # (its own generator: tests' table ids do not depend on guests)
        self.guests = Guests.open(self.settings.data_dir / "guests.key", tokens)
        self._clocks, self._stopped_at = self.db.clocks(), self.db.alive()
        if not restore:
            if (stream := self.stream) is not None:
                self._stream_ids = set(await through_elections(
                    "the logs' tables", lambda: jslog.table_ids(stream)))
        elif self.stream is None:
            for path in sorted(self.tables_dir.glob("*.log")):
                try:
                    self.restore(path)
                except (LogError, ValueError, KeyError, OSError) as e:
                    log.error("cannot restore %s: %s", path.name, e)
        else:
            await self._restore_stream(self.stream)
        if restore:
            self._restore_waiting()
        self._restore_chat()
        self.console.start()
        self._beat()

    def freeze(self) -> None:
        """The server is about to stop: from now on no table moves — no bot, no stand-in, no
        turn timer runs out — so that the sessions' ends that follow are not taken for players
        dropping (whose turns the stand-in would play), and each turn keeps the time it has
        left for the next start."""
        self.stopping = True
        for table in self.tables.values():
            table.schedule()

    def stop(self) -> None:
        """Tell every session, stop every timer, close logs and the database. Unfinished
        tables stay on disk and come back at the next start."""
        self.freeze()
        for session in list(self.sessions.values()):
            session.mailbox.put_notice(Notice("shutdown", "Le serveur s'arrête. À bientôt !"))
            session.open = False
            session.mailbox.close()
        self.sessions.clear()
        self._online_names.clear()
        for table in self.tables.values():
            table.cancel_timers()
            if table.writer is not None:
                table.writer.close()
        self.tables.clear()
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            self._heartbeat = None
        if self.db is not None:
            # The turn timers stop now: the next start gives each turn the time it has left.
            self._persist("the heartbeat", self.db.set_alive, time.time())
            self.db.close()
            self.db = None

    def _table_from_header(self, h: dict[str, Any]) -> Table:
        """A table as a log's header (or a waiting table's stored row) describes it."""
        game = self.games[h["game"]]
        seats = [Seat.from_log(s) for s in h["seats"]]
        return Table(self, str(h["table"]), game, dict(game.options(h["options"])), seats,
                     str(h.get("creator", "")), h.get("timer"), h.get("code"),
                     h.get("learn") is True)

    async def keep_retention(self) -> None:
        """A retention pass now, then one every ``retention_interval`` seconds, until cancelled
        (the service runs it as a task from start to close: ``app/service.py``)."""
        while True:
            try:
                await self.retention_pass()
            except Exception:  # a bad file must not end the passes for good
                log.exception("retention pass failed")
            await asyncio.sleep(self.settings.retention_interval)

    async def retention_pass(self) -> retention.PassReport:
        """Compact ended tables' logs, remove those past their retention (store/retention.py).

        The file work runs in a thread, in small batches, so the loop never waits on it; the
        database follows on the loop between batches, so ``games.log_file`` only ever names a
        file that exists (a compacted copy before the original goes) or none ("")."""
        keep = retention.Retention(self.settings.keep_finished, self.settings.keep_abandoned)
        report = retention.PassReport()
        if self.stream is not None:
            await self._stream_retention(self.stream, keep, report)
            return report
        ended = await asyncio.to_thread(retention.not_live, self.tables_dir, set(self.tables))
        for batch in retention.batches(ended, retention.BATCH):
            done = await asyncio.to_thread(retention.compact_all, batch, report)
            if self.db is not None:
                self.db.set_log_files({c.table_id: c.path.name for c in done if c.finished})
            await asyncio.to_thread(retention.remove_all, [c.original for c in done], None)
        old = await asyncio.to_thread(retention.expired, self.tables_dir, time.time(), keep)
        for batch in retention.batches(old, retention.BATCH):
            if self.db is not None:
                self.db.set_log_files({retention.table_id(p): "" for p in batch
                                       if retention.is_finished(p)})
            await asyncio.to_thread(retention.remove_all, batch, report)
        if report.compacted or report.removed:
            log.info("retention: %d logs compacted (%d → %d bytes), %d removed (%d bytes)",
                     report.compacted, report.bytes_in, report.bytes_out, report.removed,
                     report.bytes_removed)
        return report

    async def _stream_retention(self, stream: JetStreamContext, keep: retention.Retention,
                                report: retention.PassReport) -> None:
        """The retention of the logs in the stream: an ended table's log is purged once its
        retention is over, counted from its end record's time (the stream's own clock). There
        is no compaction (the stream's store is the storage). Two requests per log and pass
        (the list, then each log's last record): waiting, not this loop's work."""
        now = time.time()
        for table_id in await jslog.table_ids(stream):
            if table_id in self.tables:
                continue
            try:
                record, when = await jslog.last_record(stream, table_id)
            except LogError:
                continue
            if not (isinstance(record, list) and record[:1] == [END]):
                continue  # (not ended: a table to restore, or the operator's to look at)
            finished = record == [END, "finished"]
            if now - when < (keep.finished if finished else keep.abandoned):
                continue
            if finished and self.db is not None:  # (no replay any more; the result stays)
                self.db.set_log_files({table_id: ""})
            await jslog.remove(stream, table_id)
            report.removed += 1
        if report.removed:
            log.info("retention: %d logs removed from the stream", report.removed)

    def restore(self, path: Path) -> None:
        contents = read_log(path)
        if not contents.ended:
            self._restore(contents, lambda: LogWriter.reopen(path, contents))

    async def _restore_stream(self, stream: JetStreamContext) -> None:
        """``restore`` for the logs in the stream: those that have not ended."""
        self._stream_ids = set(await jslog.table_ids(stream))
        for table_id in sorted(self._stream_ids):
            try:
                record, _when = await jslog.last_record(stream, table_id)
                if isinstance(record, list) and record[:1] == [END]:
                    continue
                contents = await jslog.read_table(stream, table_id)
                if not contents.ended:
                    self._restore(contents, functools.partial(jslog.JetStreamLog.reopen,
                                                              stream, contents))
            except (LogError, ValueError, KeyError) as e:
                log.error("cannot restore %s: %s", table_id, e)

    async def restore_table(self, table_id: str, stopped_at: float) -> bool:
        """Bring back the table ``table_id`` another coordinator served until it died (its
        claim won: coordinator/owners.py): from its log in the stream if its game started and
        has not ended, else from the waiting tables of the (shared) database. ``stopped_at``:
        when its last owner stopped (wall clock), for its turn timers. False when there is
        nothing to bring back (the game ended, the table closed)."""
        if table_id in self.tables:
            return True
        assert self.db is not None
        self._clocks, self._stopped_at = self.db.clocks(), stopped_at
        contents = None
        if self.stream is not None:
            with contextlib.suppress(LogError):  # (no log: a table waiting for players)
                record, _when = await jslog.last_record(self.stream, table_id)
                if isinstance(record, list) and record[:1] == [END]:  # (ended: not read)
                    self._stream_ids.add(table_id)
                    return False
                contents = await jslog.read_table(self.stream, table_id)
        if contents is not None and self.stream is not None:
            self._stream_ids.add(table_id)
            if contents.ended:
                return False
            try:
                self._restore(contents, functools.partial(jslog.JetStreamLog.reopen,
                                                          self.stream, contents))
            except (LogError, ValueError, KeyError) as e:
                log.error("cannot restore %s: %s", table_id, e)
                return False
            return True
        self._restore_waiting(table_id)
        return table_id in self.tables

    def _restore(self, contents: LogContents, reopen: Callable[[], TableLog]) -> None:
        """Bring back an unfinished table from its log's ``contents``, appending to it again
        through ``reopen``'s writer."""
        h = contents.header
        table = self._table_from_header(h)
        game = table.game
        table.seed = int(h["seed"])
        table.started_at = float(h.get("started", time.time()))
        table.state = game.new_game(len(table.seats), table.options, table.seed)
        table.bot_rng.seed(table.seed)
        # The history comes back too, but for the table events (drops, stand-ins' marks): the
        # log holds the moves, not who made them.
        table.remember(getattr(table.state, "opening", ()))
        for record in contents.records:
            if record[0] == SEAT:
                table.seats[record[1]] = Seat.from_log(record[2])
            elif record[0] != END:
                table.remember(game.apply(table.state, record[1],
                                          game.action_from_wire(record[2])))
                table.count_move(record[1], by_stand_in(record))
                table.step += 1
        table.writer = reopen()
        table.status = "playing"
        # Conservative: a stand-in's move for a player's seat counts too (the log does not say
        # who pressed the key), so a table is never closed for want of a move it had.
        players = {i for i, s in enumerate(h["seats"]) if s.get("kind") == "player"}
        table.human_acted = any(seat in players for seat, _wire in contents.actions())
        self.tables[table.id] = table
        loop = asyncio.get_running_loop()
        now = loop.time()
        # Everyone was cut off at once: the table waits the grace period for its players and
        # spectators to come back, holding still until one does (Table.schedule), then closes
        # if nobody has.
        table.hold = later(self.settings.grace, self._hold_over, table)
        for i, seat in enumerate(table.seats):
            if seat.kind == "player":
                # Everyone dropped at once: give them the turn timer to come back before the
                # stand-in plays for them (see Seat.patient).
                seat.patient = True
                self._start_grace(table, i, now)
        if contents.dropped_bytes:
            log.warning("table %s: dropped a torn tail of %d bytes", table.id,
                        contents.dropped_bytes)
        log.info("table %s restored at step %d", table.id, table.step)
        self._restore_clock(table)
        table.after_change([])
        self.lobby_changed()

    # --- sessions -------------------------------------------------------------------------

    def connect(self, player: Player, guest_pass: GuestPass | None = None) -> Session:
        """A new session; the player gets back a seat they hold, if any.

        Refused when the name is someone else's: online (a player or a watcher), owned by
        another key, or on a seat held for another player who dropped; each compared by
        ``name_key``. A watcher is never refused: they get the name they asked for, numbered
        if it is taken (« spectateur », « spectateur2 »). A guest comes with the pass their
        identity is from (``guest_pass`` or ``resume``).
        """
        if player.watch_only:  # watchers neither own names nor replace one another
            self._watchers += 1
            key = f"watch#{self._watchers}:{player.identity}"
            player = replace(player, name=self._watcher_name(player.name, player.identity))
        else:
            if nickname(player.name) != player.name:
                raise Refused("bad_name", "Un pseudo : de 2 à 16 lettres, chiffres, _ . ou -.")
            key = player.identity
            self._check_name(player)
            if self.db is not None:
                self._persist("visits", self.db.seen, key, player.name, time.time())
            self._rename_own_watchers(player)
        previous = self.sessions.get(key)
        if previous is not None:  # the same person again: the newest connection wins
            previous.mailbox.put_notice(Notice("replaced", REPLACED))
            self.disconnect(previous, replaced=True)
        session = Session(self, player, key)
        session.guest_pass = guest_pass
        self.sessions[key] = session
        log.info("%s %s connected (%s, %s)", "watcher" if player.watch_only else "player",
                 player.name, player.identity, player.address or "local",
                 extra={"event": "session_opened", "player": player.name,
                        "identity": player.identity, "address": player.address})
        self._online_names[session.name_key] += 1
        if previous is not None and previous.player.identity == player.identity:
            session.ignoring = previous.ignoring  # (the same person: the same list)
        session.mailbox.put_lobby(self.snapshot())
        self._replay(session, "lobby")
        if not player.watch_only:
            self._reclaim(session)
        if session.table is None:
            self._return_to_watched(session)
        self.lobby_changed()
        return session

    # --- names and guests -----------------------------------------------------------------

    def _name_user(self, name: str, identity: str) -> Refused | None:
        """Why ``name`` is not free for ``identity``, or None if it is. Sessions of the same
        identity do not count: a player's newer session replaces the older, and their own
        watchers make way (``_rename_own_watchers``)."""
        key = name_key(name)
        for other in self.sessions.values():
            if other.name_key == key and other.player.identity != identity:
                return Refused("name_taken", f"Le pseudo {name} est déjà en ligne.")
        try:
            owner = self.db.name_owner(name) if self.db is not None else None
        except StoreError as error:  # (unknown: not taken as free, an impostor would get it)
            log.error("cannot read who owns %r: %s", name, error)
            return Refused("store_read", STORE_READ)
        if owner not in (None, identity):
            return Refused("name_owned", f"Le pseudo {name} appartient à un autre joueur.")
        for table in self.tables.values():
            for seat in table.seats:  # (a seated player online was found above)
                if (seat.away and seat.identity != identity
                        and name_key(seat.name) == key):
                    return Refused("name_held",
                                   f"Le pseudo {name} garde une place à la table {table.id}.",
                                   table=table.id)
        return None

    def _check_name(self, player: Player) -> None:
        refused = self._name_user(player.name, player.identity)
        if refused is not None:
            raise refused

    def _watcher_name(self, wanted: str, identity: str, avoid: str = "") -> str:
        """The first of « NAME », « NAME2 », « NAME3 »… that no session shows and nobody else
        owns or holds (NAME: ``wanted`` if it is a nickname, else « spectateur »), and whose
        key is not ``avoid``."""
        base = nickname(wanted) or "spectateur"
        for number in itertools.count(1):
            suffix = str(number) if number > 1 else ""
            name = base[: NICKNAME_MAX - len(suffix)] + suffix
            key = name_key(name)
            # (the count first: at a crowded table most candidates are online, and looking
            # through every session for each was O(candidates × sessions))
            if (key != avoid and not self._online_names[key]
                    and self._name_user(name, identity) is None):
                return name
        raise AssertionError("unreachable")

    def _rename_own_watchers(self, player: Player) -> None:
        """The player's own watch session showing the name the player takes now gets another
        (numbered): one name, one session online."""
        key = name_key(player.name)
        for other in self.sessions.values():
            if other.player.watch_only and other.name_key == key:
                self._rename(other, "")  # not in its own way
                name = self._watcher_name(player.name, other.player.identity, avoid=key)
                other.player = replace(other.player, name=name)
                self._rename(other, name_key(name))

    def _rename(self, session: Session, key: str) -> None:
        """Give an online session another name key, counted (``_online_names``)."""
        self._forget_name(session.name_key)
        session.name_key = key
        self._online_names[key] += 1

    def _forget_name(self, key: str) -> None:
        self._online_names[key] -= 1
        if self._online_names[key] <= 0:
            del self._online_names[key]

    def guest_pass(self) -> GuestPass:
        """A new guest's identity and reconnect token (nothing is stored: see ``guests``)."""
        assert self.guests is not None, "not started"
        return self.guests.issue()

    def resume(self, token: str, address: str) -> tuple[GuestPass, str]:
        """The guest a reconnect token proves, and the name on the seat it holds for them (to
        connect with). Refused, with nothing changed, when ``address`` has tried too often, or
        when the token holds no seat: not a token, the game is over, or the grace period has
        passed (the stand-in has the seat for good)."""
        assert self.guests is not None, "not started"
        if not self.guests.allow_attempt(address, time.monotonic()):
            raise Refused("resume_limit", "Trop d'essais de reprise depuis votre adresse : "
                                          "réessayez dans une minute.")
        guest_pass = self.guests.pass_for(token)
        if guest_pass is not None:
            for table in self.tables.values():
                seat_no = table.seat_of(guest_pass.identity)
                if seat_no is not None and table.status in ("playing", "waiting"):
                    return guest_pass, table.seats[seat_no].name
        raise Refused("resume_unknown", "Ce code ne garde aucune place : la partie est finie, "
                                        "ou le délai pour revenir est passé.")

    def _reclaim(self, session: Session) -> None:
        for table in self.tables.values():
            seat_no = table.seat_of(session.player.identity)
            if seat_no is None or table.status not in ("playing", "waiting"):
                continue
            seat = table.seats[seat_no]
            if seat.grace is not None:
                seat.grace.cancel()
                seat.grace = None
            seat.session, seat.away_since, seat.patient = session, None, False
            seat.name = session.player.name
            self._place(session, table, seat_no)
            table.changed()
            table.schedule()
            if table.status == "playing":
                table.announce("back", seat_no)
            else:
                table.publish()
            session.mailbox.put_notice(Notice("reclaimed", "Vous retrouvez votre place."))
            return

    def disconnect(self, session: Session, *, replaced: bool = False,
                   patient: bool = False) -> None:
        """The connection is gone: a seat in a game in progress is kept for the grace period
        (the stand-in plays meanwhile, if anyone is left at the table to see it); anything else
        is left. A game nobody is left at closes at once unless a player has moved in it
        (see ``_maybe_close``) or the player is ``replaced`` by a newer connection, which
        takes the seat at once. ``patient``: the player is likely on their way back (their
        front fell silent: a bus cut, ``host.py``): the stand-in waits for the turn timer, as
        after a restart (``Seat.patient``)."""
        if not session.open:
            return
        session.open = False
        if not session.mirror:
            log.info("%s %s left", "watcher" if session.player.watch_only else "player",
                     session.player.name,
                     extra={"event": "session_closed", "player": session.player.name,
                            "identity": session.player.identity, "replaced": replaced})
        table, seat_no = session.table, session.seat
        if table is not None and self.stopping:
            self._detach(session)
        elif table is not None and seat_no is not None and table.status == "playing":
            table.unsubscribe(session)
            seat = table.seats[seat_no]
            seat.session, seat.patient = None, patient
            self._start_grace(table, seat_no, asyncio.get_running_loop().time())
            table.changed()
            table.schedule()
            if replaced:  # (a newer connection takes the seat back at once)
                table.publish()
            else:
                table.announce("drop", seat_no)
            session.table = session.seat = None
            if not replaced:
                self._maybe_close(table)
        elif table is not None:
            self._leave(session)
        if self.sessions.get(session.key) is session:
            del self.sessions[session.key]
            self._forget_name(session.name_key)
        self._chat_limit.forget(session.player.identity)
        session.mailbox.close()
        self.lobby_changed()

    def refresh(self, session: Session) -> None:
        """Put the session's whole state in its mailbox again: the lobby, and its table's
        newest view. Its front lost some of its news (the bus lost a moment: NATS delivers at
        most once), and the newest of each kind is all a mailbox ever holds."""
        if not session.open:
            return
        if session.table is not None:  # (leaving it brings a fresh lobby)
            session.table.refresh(session)
        else:  # (the one the lobby got last: its front has it, numbered; a change on its
            # way brings a newer one. One built per session, for every session of a front
            # back on the bus, was one snapshot of everyone online each)
            session.mailbox.put_lobby(self._lobby_last or self.snapshot())

    def _detach(self, session: Session) -> None:
        """The server stops: the session ends, its table stays as it is (a waiting table keeps
        the seat, a table watched by its creator stays open) for the next start."""
        table, seat_no = session.table, session.seat
        assert table is not None
        table.unsubscribe(session)
        if seat_no is not None:
            table.seats[seat_no].session = None
        session.table = session.seat = None

    def _start_grace(self, table: Table, seat_no: int, now: float) -> None:
        seat = table.seats[seat_no]
        seat.away_since = now
        seat.session = None
        seat.grace = later(self.settings.grace, self._grace_over, table, seat_no)

    def _hold_over(self, table: Table) -> None:
        table.hold = None
        self._maybe_close(table)

    def _grace_over(self, table: Table, seat_no: int) -> None:
        seat = table.seats[seat_no]
        seat.grace = None
        if seat.kind == "player" and seat.session is None and table.status == "playing":
            self._hand_to_bot(table, seat_no, "gone")
        elif seat.kind == "player" and seat.session is None and table.status == "waiting":
            self._free_seat(table, seat_no)  # (a waiting table brought back by a restart)
            table.changed()
            table.publish()
        self._maybe_close(table)

    def _hand_to_bot(self, table: Table, seat_no: int, why: str) -> None:
        """The stand-in keeps this seat to the end of the game: the player left (``why`` is
        "leave") or did not come back in time ("gone"); everyone's log says so."""
        seat = table.seats[seat_no]
        seat.kind, seat.bot, seat.session, seat.away_since = "bot", STAND_IN, None, None
        if seat.grace is not None:
            seat.grace.cancel()
            seat.grace = None
        table.log_seat(seat_no)
        table.changed()
        table.schedule()
        table.announce(why, seat_no)

    # --- the lobby ------------------------------------------------------------------------

    def snapshot(self) -> LobbySnapshot:
        tables = tuple(t.summary() for t in self.tables.values() if t.status != "closed")
        online = tuple(sorted(
            (OnlineEntry(s.player.name, s.player.watch_only, s.table.id if s.table else None)
             for s in self.sessions.values()),
            key=lambda e: e.name.casefold(),
        ))
        return LobbySnapshot(tables, online, self.console.motd)

    def lobby_changed(self) -> None:
        """Send the lobby to sessions in it: at the next loop turn, however many changes, and
        then no sooner than ``Settings.lobby_interval`` after the previous snapshot. (A new
        session gets its own snapshot at once.)"""
        if self._lobby_pending:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (start-up or shutdown): nobody to tell
            return
        self._lobby_pending = True
        later(self._lobby_sent + self.settings.lobby_interval - loop.time(), self._send_lobby)

    def _send_lobby(self) -> None:
        self._lobby_pending = False
        self._lobby_sent = asyncio.get_running_loop().time()
        snapshot = self._lobby_last = self.snapshot()
        for session in self.sessions.values():
            if session.table is None:
                session.mailbox.put_lobby(snapshot)
        for listener in self.lobby_listeners:
            listener(snapshot)

    # --- tables ---------------------------------------------------------------------------

    def _game(self, name: str) -> Game[Any, Any]:
        game = self.games.get(name)
        if game is None:
            raise Refused("unknown_game", f"Jeu inconnu : {name}.")
        return game

    def _table(self, table_id: str) -> Table:
        table = self.tables.get(table_id.strip().upper())
        if table is None or table.status == "closed":
            raise Refused("no_table", f"Pas de table {table_id}.")
        return table

    def _table_id(self) -> str:
        """A new table's id: one reserved across coordinators if any (several of them), else
        one drawn here."""
        while self.reserved_ids:
            tid = self.reserved_ids.pop(0)
            if tid not in self.tables:
                return tid
        return self._new_id(4)

    def _new_id(self, length: int) -> str:
        """An id no live table, no log on disk (as written or compacted) and no recorded game
        has: logs are removed after their retention, results never are, and a result recorded
        under a reused id would be lost. After a few collisions the id grows a character, so a
        server that has recorded most ids of one length still finds one at once."""
        attempt = 0
        while True:
            tid = "".join(self._ids.choice(ID_ALPHABET) for _ in range(length + attempt // 8))
            attempt += 1
            if tid in self.tables or tid in self._stream_ids or any(
                (self.tables_dir / name).exists() for name in retention.log_names(tid)
            ):
                continue
            if self.db is None or not self.db.has_game(tid):
                return tid

    def bot_name(self, taken: Iterable[str]) -> str:
        """A name for a bot that is none of the names ``taken`` (compared by ``name_key``)."""
        keys = {name_key(name) for name in taken}
        free = [n for n in BOT_NAMES if name_key(n) not in keys]
        return self._rng.choice(free) if free else f"Robot {len(keys) + 1}"

    def bot_delay(self) -> float:
        low, high = self.settings.bot_delay
        return self._rng.uniform(low, high) if high > 0 else 0.0

    def _require_player(self, session: Session) -> None:
        if session.player.watch_only:
            raise Refused("watch_only", "Session spectateur : vous pouvez regarder, pas jouer.")
        if session.table is not None:
            raise Refused("already_seated", "Quittez d'abord votre table.")

    def create_table(self, session: Session, game_name: str, *, seats: int,
                     options: Mapping[str, Any], bots: Mapping[int, str],
                     timer: float | str | None, private: bool, sit: bool,
                     learn: bool = False) -> str:
        """A new table; the creator takes seat 0 unless ``sit`` is False (then they watch:
        a table of bots only)."""
        self._require_player(session)
        game = self._game(game_name)
        if not game.min_seats <= seats <= game.max_seats:
            raise Refused("seats", f"{game.title} se joue de {game.min_seats} à "
                                   f"{game.max_seats} joueurs.")
        try:
            checked = dict(game.options(options))
        except BadOptions as e:
            raise Refused("bad_options", str(e)) from e
        if timer == "default":
            timer = self.settings.turn_timer
        elif timer is not None:
            timer = float(timer)
            if not self.timer_allowed(timer):
                raise Refused("timer", f"Le minuteur va de {MIN_TIMER:.0f} à {MAX_TIMER:.0f} s.")
        table_seats = [Seat("free") for _ in range(seats)]
        taken: set[str] = {session.player.name}
        for seat_no, bot in bots.items():
            if not 0 <= seat_no < seats or (sit and seat_no == 0):
                raise Refused("bad_seat", f"Pas de siège {seat_no} pour un robot.")
            if bot not in game.bot_names():
                raise Refused("bad_bot", f"Robot inconnu : {bot}.")
            name = self.bot_name(taken)
            taken.add(name)
            table_seats[seat_no] = Seat("bot", name, bot=bot)
        if not sit and any(s.kind == "free" for s in table_seats):
            raise Refused("bad_seat", "Une table sans vous doit n'avoir que des robots.")
        self._count_table(session.player)
        table = Table(self, self._table_id(), game, checked, table_seats,
                      session.player.identity, timer if sit else None,
                      self._new_id(6) if private else None, learn)
        if sit:
            table_seats[0] = Seat("player", session.player.name, session.player.identity,
                                  session=session)
        log.info("table %s created: %s, %d seats, by %s", table.id, game.name, seats,
                 session.player.name, extra={"event": "table_created", "table": table.id,
                                             "game": game.name, "by": session.player.name})
        # On disk before anyone sees it, or refused: its log if it starts now (table.start),
        # else its row among the waiting tables.
        if all(s.kind != "free" for s in table.seats):
            table.start(self._ids.getrandbits(63))
        elif not self.keep_waiting(table):
            raise Refused("storage", NOT_SAVED)
        self.tables[table.id] = table
        self._place(session, table, 0 if sit else None)
        table.changed()
        return table.id

    def timer_allowed(self, timer: float) -> bool:
        """A turn timer a player may ask for (``ServerInfo.timer_allowed``, the rule the
        create dialog follows too)."""
        return self.server_info.timer_allowed(timer)

    def _count_table(self, player: Player) -> None:
        """Count a new table against its creator's and their address's rate
        (``Settings.table_rate``); Refused, with when they may create again, past either."""
        now = time.monotonic()
        by_address = player.address != ""  # a local game has no address to share
        wait_player = self._tables_by_player.wait(player.identity, now)
        wait_address = self._tables_by_address.wait(player.address, now) if by_address else 0.0
        if wait_player or wait_address:
            wait = math.ceil(max(wait_player, wait_address))
            if wait_player >= wait_address:
                n = self._tables_by_player.count
                raise Refused("tables_player", f"Trop de tables créées en une minute ({n} au "
                              f"plus) : vous pourrez en créer une autre dans {wait} s.",
                              n=n, wait=wait)
            n = self._tables_by_address.count
            raise Refused("tables_address", f"Trop de tables créées en une minute depuis votre "
                          f"adresse ({n} au plus) : vous pourrez en créer une autre dans "
                          f"{wait} s.", n=n, wait=wait)
        self._tables_by_player.note(player.identity, now)
        if by_address:
            self._tables_by_address.note(player.address, now)

    def quick_play(self, session: Session, game_name: str, seats: int,
                   options: Mapping[str, Any]) -> str:
        """A table against bots, started at once."""
        game = self._game(game_name)
        seats = max(game.min_seats, min(seats, game.max_seats))
        return self.create_table(session, game_name, seats=seats, options=options,
                                 bots={i: "basic" for i in range(1, seats)}, timer="default",
                                 private=False, sit=True)

    def learn(self, session: Session, game_name: str) -> str:
        """« Apprendre »: a table against bots where the player's screen explains each
        situation the first time it comes up (``app/learn.py``). It starts at once with every
        seat taken, so nobody else joins (anyone may watch); it has no turn timer, the player
        having all the time they need to read; and its result is not recorded
        (``table_finished``), so it counts for no score. docs/server.md, « Learn tables »."""
        game = self._game(game_name)
        seats = max(game.min_seats, min(LEARN_SEATS, game.max_seats))
        return self.create_table(session, game_name, seats=seats,
                                 options=LEARN_OPTIONS.get(game_name, {}),
                                 bots={i: "basic" for i in range(1, seats)}, timer=None,
                                 private=False, sit=True, learn=True)

    def join(self, session: Session, table_id: str, seat_no: int | None, code: str | None
             ) -> None:
        self._require_player(session)
        table = self._table(table_id)
        if table.code is not None and (code or "").strip().upper() != table.code:
            raise Refused("code", "Cette table est privée : il faut son code.")
        if table.status != "waiting":
            raise Refused("started", "La partie a déjà commencé ; vous pouvez la regarder.")
        free = [i for i, s in enumerate(table.seats) if s.kind == "free"]
        if seat_no is None:
            if not free:
                raise Refused("full", "La table est complète.")
            seat_no = free[0]
        elif seat_no not in free:
            raise Refused("seat_taken", "Ce siège n'est pas libre.")
        table.seats[seat_no] = Seat("player", session.player.name, session.player.identity,
                                    session=session)
        for seat in table.seats:  # a bot with the newcomer's name takes another
            if seat.kind == "bot" and name_key(seat.name) == session.name_key:
                seat.name = self.bot_name(s.name for s in table.seats)
        try:  # on disk before it is seen, or refused with the seat free again
            if not any(s.kind == "free" for s in table.seats):
                table.start(self._ids.getrandbits(63))
            elif not self.keep_waiting(table):
                raise Refused("storage", NOT_SAVED)
        except Refused:
            table.seats[seat_no] = Seat("free")
            raise
        self._place(session, table, seat_no)
        table.changed()
        if table.status == "waiting":
            table.publish()

    def watch(self, session: Session, table_id: str, code: str | None) -> None:
        if session.table is not None:
            raise Refused("already_seated", "Quittez d'abord votre table.")
        table = self._table(table_id)
        if table.code is not None and (code or "").strip().upper() != table.code:
            raise Refused("code", "Cette table est privée : il faut son code.")
        self._place(session, table, None)

    def mirror(self, table_id: str) -> Session:
        """A session that sees the table ``table_id`` as its spectators do, for a screen that
        several of them share (the SSH server's shared spectator screens: server/share.py).
        Nobody is online under it (no name, not in the lobby's list), it is not counted among
        the table's spectators (each viewer holds a watching session of their own) and it is
        remembered nowhere. Refused as ``watch`` is (a private table needs its code: never
        shared); ended with ``disconnect``."""
        table = self._table(table_id)
        if table.code is not None:
            raise Refused("code", "Cette table est privée : il faut son code.")
        session = Session(self, Player("", "", watch_only=True), key="")
        session.mirror = True
        session.table = table
        table.subscribe(session, None)
        self._replay(session, table.id, spectators=True)
        return session

    def start_table(self, session: Session) -> None:
        table = session.table
        if table is None or session.seat is None:
            raise Refused("not_seated", "Vous n'êtes assis à aucune table.")
        if table.status != "waiting":
            raise Refused("started", "La partie a déjà commencé.")
        if session.player.identity != table.creator:
            raise Refused("not_creator", "Seul le créateur de la table peut la lancer.")
        table.start(self._ids.getrandbits(63))

    def leave_table(self, session: Session) -> None:
        if session.table is None:
            raise Refused("not_seated", "Vous n'êtes à aucune table.")
        if session.seat is None:  # a spectator who leaves is not brought back
            self._remember_watching(session, None)
        self._leave(session)

    def _leave(self, session: Session) -> None:
        table, seat_no = session.table, session.seat
        assert table is not None
        table.unsubscribe(session)
        session.table = session.seat = None
        session.mailbox.put_left_table()
        if seat_no is not None:
            seat = table.seats[seat_no]
            if table.status == "finished" and not table.rematch_off:  # no rematch without them
                self._rematch_off(table, Notice("rematch_left", "La revanche n'aura pas lieu "
                                                ": un joueur est parti."))
            if table.status == "waiting":
                self._free_seat(table, seat_no)
            elif table.status == "playing":
                seat.session = None
                self._hand_to_bot(table, seat_no, "leave")
            else:
                seat.session = None
            table.changed()
            table.publish()
        if session.open:
            session.mailbox.put_lobby(self.snapshot())
            self._replay(session, "lobby")
        self._maybe_close(table)
        self.lobby_changed()

    def _free_seat(self, table: Table, seat_no: int) -> None:
        """A player leaves a waiting table: the seat is free; the creator's right to start
        passes to another player."""
        identity = table.seats[seat_no].identity
        table.seats[seat_no] = Seat("free")
        humans = table.humans()
        if table.creator == identity and humans:
            table.creator = humans[0].identity or ""
        self.keep_waiting(table)

    def _place(self, session: Session, table: Table, seat_no: int | None) -> None:
        session.table, session.seat = table, seat_no
        table.subscribe(session, seat_no)
        if seat_no is None:  # a spectator: brought back here after a drop or a restart
            self._remember_watching(session, table.id)
        self._replay(session, table.id, spectators=seat_no is None)
        self.lobby_changed()

    def _maybe_close(self, table: Table) -> None:
        """Close a table nobody is at: nobody seated and connected, nobody watching, and nobody
        it must wait for. It waits for a player who dropped (their grace period) only once a
        player has moved there (``Table.human_acted``): a game everyone left before their first
        move, or a table of bots only, closes at once. A table restored after a restart waits
        for its people (``Table.hold``). Meanwhile it holds still (``Table.schedule``).

        An unfinished log ends 'closed' (abandoned); one without any player's move holds nobody's
        play and is removed (an abandoned quick game leaves no file). A finished table's log
        stays (its retention: ``store/retention.py``)."""
        if table.status == "closed" or table.subscribers or table.hold is not None:
            return
        if table.status == "playing" and table.human_acted and any(
            s.grace is not None for s in table.seats
        ):
            return
        table.cancel_timers()
        if table.status == "playing":
            table.close_log("closed" if table.human_acted else None)
            if not table.human_acted:
                self._remove_log(table)
        log.info("table %s closed (%s)", table.id,
                 "abandoned" if table.status == "playing" else table.status,
                 extra={"event": "table_closed", "table": table.id, "status": table.status})
        table.status = "closed"
        del self.tables[table.id]
        self._chat.pop((table.id, False), None)
        self._chat.pop((table.id, True), None)
        if self.db is not None:  # its waiting row, clocks, chat and spectators' places
            self._persist("closed tables", self.db.forget_table, table.id)
        self.lobby_changed()

    # --- play -----------------------------------------------------------------------------

    def act(self, session: Session, action: Any, step: int | None) -> Awaitable[None] | None:
        """A seated player's move (``Table.submit``). None once done; with a table whose log
        is not immediate (JetStream), what to await for the answer: a move arriving while the
        table's previous one is on its way to the log waits its turn, then is checked as if it
        had arrived after it (a move for the step before is refused as stale then)."""
        table, seat_no = session.table, session.seat
        if table is None and any(session is one for _since, held in self.held.values()
                                 for one, _seat in held):  # (its seat back within a beat)
            raise Refused("paused", NOT_TAKEN)
        if table is None or seat_no is None or table.seats[seat_no].session is not session:
            raise Refused("not_seated", "Vous n'êtes assis à aucune table.")
        if table.appending is not None:
            return self._act_in_turn(session, table.appending, action, step)
        return table.submit(seat_no, action, step)

    async def _act_in_turn(self, session: Session, appending: asyncio.Future[None],
                           action: Any, step: int | None) -> None:
        await asyncio.wait((appending,))
        answer = self.act(session, action, step)
        if answer is not None:
            await answer

    # --- the rematch (« Revanche »: docs/server.md) ----------------------------------------

    def rematch(self, session: Session, accept: bool) -> None:
        """At a finished table, a seated player asks for a rematch (the first one opens the
        proposal, for ``REMATCH_TIME`` seconds) or accepts it (``accept``), or declines it,
        which leaves the table. Once every player of the table has asked, a new table starts
        at once with the same seats (the order turned by one: the second player is first),
        options, bots, timer and private code, and everyone at the old table follows,
        spectators too. A decline, a player who leaves, or the time running out calls it off
        for all, told to all; each goes on as after any game."""
        table, seat_no = session.table, session.seat
        if table is None or seat_no is None:
            raise Refused("not_seated", "Vous n'êtes assis à aucune table.")
        if table.learn:
            raise Refused("rematch_learn", "Pas de revanche à une table d'apprentissage.")
        if table.status != "finished":
            raise Refused("not_finished", "La partie n'est pas finie.")
        if table.rematch_off:
            raise Refused("rematch_off", "La revanche n'aura pas lieu à cette table.")
        if not accept:
            self._leave(session)  # (calls it off: _leave)
            return
        gone = next((s.name for s in table.humans() if s.session is None), None)
        if gone is not None:  # (a player who dropped before the end, or left the podium)
            raise Refused("rematch_gone", f"{gone} a quitté la table : pas de revanche.",
                          name=gone)
        if table.rematch_handle is None:
            table.rematch_deadline = asyncio.get_running_loop().time() + REMATCH_TIME
            table.rematch_handle = later(REMATCH_TIME, self._rematch_over, table)
        if seat_no not in table.rematch:
            table.rematch.append(seat_no)
        humans = {i for i, s in enumerate(table.seats) if s.kind == "player"}
        if humans <= set(table.rematch):
            self._rematch_start(table)
        else:
            table.publish()

    def _rematch_over(self, table: Table) -> None:
        table.rematch_handle = None
        if table.status == "finished" and not table.rematch_off:
            self._rematch_off(table, Notice("rematch_timeout",
                                            "La revanche n'aura pas lieu : le temps est écoulé."))

    def _rematch_off(self, table: Table, notice: Notice) -> None:
        """No rematch at this table: everyone still there is told (if one was asked for)."""
        asked = bool(table.rematch)
        table.cancel_rematch()
        table.rematch_off = True
        if asked:
            for session in table.subscribers:
                session.mailbox.put_notice(notice)
        table.publish()

    def _rematch_start(self, table: Table) -> None:
        """Every player asked: the new table, started, and everyone at the old one moved to
        it. Not counted against the players' table rate (it is one table for a game that was
        played to its end). A new table the disk refuses calls the rematch off."""
        turned = table.seats[1:] + table.seats[:1]
        seats: list[Seat] = []
        for old in turned:
            if old.kind == "player":
                seats.append(Seat("player", old.name, old.identity, session=old.session))
            elif old.identity is None:  # a bot of the table
                seats.append(Seat("bot", old.name, bot=old.bot))
            else:  # a player's seat their stand-in kept: a bot of its own now
                seats.append(Seat("bot", self.bot_name(s.name for s in turned), bot=STAND_IN))
        players = [s.identity or "" for s in seats if s.kind == "player"]
        creator = table.creator if table.creator in players else players[0]
        new = Table(self, self._table_id(), table.game, dict(table.options), seats, creator,
                    table.timer, table.code)
        try:
            new.start(self._ids.getrandbits(63))
        except Refused:
            self._rematch_off(table, Notice("storage", NOT_SAVED))
            return
        table.cancel_rematch()
        self.tables[new.id] = new
        log.info("table %s: rematch at table %s", table.id, new.id)
        for session, seat_no in list(table.subscribers.items()):
            table.unsubscribe(session)
            if seat_no is not None:
                table.seats[seat_no].session = None
                self._place(session, new, next(
                    i for i, s in enumerate(seats) if s.session is session))
            elif session.mirror:  # (a shared screen follows too; it is remembered nowhere)
                session.table = new
                new.subscribe(session, None)
            else:
                self._place(session, new, None)
        table.rematch_off = True
        new.changed()
        self._maybe_close(table)

    def table_finished(self, table: Table, seats: list[SeatResult], rounds: int) -> None:
        """Record the result, then end the log; absent players' seats need no keeping any more.
        A learn table's result is not recorded: it counts for no score (``learn``).

        A result the database refuses (a full disk) leaves the log without its end: the next
        start replays it, finds the game over, and records the result then. The database
        records a table's game once (its id is unique), and its ratings with it: a game
        finished again after a restart counts once."""
        recorded = self.db is None or table.learn or self._persist(
            "results", self.db.record_game, table.id, table.game.name, table.options,
            table.started_at, time.time(), rounds, self.log_name(table.id), seats,
            table.unrated)
        table.close_log("finished" if recorded else None)
        standing = sorted(seats, key=lambda r: r.place)
        log.info("table %s finished after %d rounds: %s", table.id, rounds,
                 ", ".join(f"{r.place}. {r.name} {r.score}" for r in standing),
                 extra={"event": "table_finished", "table": table.id, "game": table.game.name,
                        "result": [[r.name, r.score, r.place] for r in standing]})
        for seat in table.seats:
            if seat.grace is not None:
                seat.grace.cancel()
                seat.grace = None
        if table.hold is not None:  # (restored, then found over: nobody to wait for)
            table.hold.cancel()
            table.hold = None
        later(0, self._maybe_close, table)

    def notify_seat(self, table: Table, seat_no: int, code: str, text: str) -> None:
        session = table.seats[seat_no].session
        if session is not None:
            session.mailbox.put_notice(Notice(code, text))

    # --- replays (docs/server.md, « Profiles and replays ») ---------------------------------

    async def replay(self, player: Player, table_id: str, seat: int | None, first: int
                     ) -> Replay:
        """A page of a finished game's replay for ``player`` (``profiles.replay``): refused
        past ``REPLAY_PAGES`` in 10 s, or twice that from their address (a page this refuses
        counts for neither; one refused for another reason counts). A game whose log is in
        the stream is read from it (``jslog.read_table``: a request per thousand records)."""
        if self.db is None:
            raise Refused("no_game", "Aucune partie terminée sous ce numéro.")
        self._count_replay(player)
        contents = None
        try:
            if self.stream is not None:
                record = self.db.game_record(table_id.strip().upper())
                if record is not None and record[0].startswith(LOG_PREFIX):
                    with contextlib.suppress(LogError):  # (gone: purged past its retention)
                        contents = await jslog.read_table(self.stream,
                                                          record[0][len(LOG_PREFIX):])
            return profiles.replay(self.db, self.tables_dir, self.games, player.identity,
                                   table_id, seat, first, contents)
        except StoreError as error:
            log.error("cannot read the game %s: %s", table_id, error)
            raise Refused("store_read", STORE_READ) from None

    def read(self, what: str, read: Callable[..., T], *args: Any, default: T) -> T:
        """One database read for a screen (the scores, a profile); ``default`` when the
        database fails it (a lost PostgreSQL connection: the next query connects again), so
        that the screen shows nothing rather than the session ending."""
        try:
            return read(*args)
        except StoreError as error:
            log.error("cannot read %s: %s", what, error)
            return default

    def _count_replay(self, player: Player) -> None:
        at = time.monotonic()
        if self._replays.wait(player.identity, at) or (
                player.address and self._replays_by_address.wait(player.address, at)):
            raise Refused("replay_rate", "Doucement : attendez quelques secondes avant de "
                          "revoir la suite.")
        self._replays.note(player.identity, at)
        if player.address:
            self._replays_by_address.note(player.address, at)

    # --- chat (docs/screens.md, « The chat ») ---------------------------------------------

    def chat(self, session: Session, text: str, to: str | None = None, me: bool = False
             ) -> None:
        """Say ``text`` where the session is: to the lobby, to its table's players (a seated
        player) or to its table's spectators (a spectator: players never read the spectators'
        chat; spectators read both). With ``to``, privately to that player alone, wherever
        each of them is; such a line is kept nowhere. ``me``: an action (« * alice … »).

        Refused, with nothing changed and nothing counted: a watch-only session, an empty
        line, a private line to nobody online who can read it, or to oneself; then the rate
        limits (a line either one refuses counts for none)."""
        if session.player.watch_only:
            raise Refused("watch_only", "Session spectateur : pas de messages.")
        clean = sanitise(text)
        if not clean:
            raise Refused("empty", "Message vide.")
        addressee = self._addressee(session, to) if to is not None else None
        # As tables are counted (_count_table): a line either limit refuses counts for none.
        at = time.monotonic()
        identity, address = session.player.identity, session.player.address
        if self._chat_limit.wait(identity, at):
            raise Refused("chat_rate", "Doucement : 3 messages toutes les 3 secondes au plus.")
        if address and self._chat_by_address.wait(address, at):
            raise Refused("chat_rate_address", "Doucement : 6 messages toutes les 3 secondes au "
                          "plus depuis votre adresse.")
        self._chat_limit.note(identity, at)
        if address:
            self._chat_by_address.note(address, at)
        now = self.wall_clock()  # (the line's time, shown and stored)
        if addressee is not None:
            line = ChatLine("", session.player.name, clean, now, me=me,
                            to=addressee.player.name)
            if isinstance(addressee, Far):  # (its home delivers it: told())
                self._deliver(line, (session,), session)
                if self.beyond is not None:
                    self.beyond.tell(line, addressee)
                return
            self._deliver(line, (session, addressee), session)
            return
        table = session.table
        spectators = table is not None and session.seat is None
        scope = table.id if table is not None else "lobby"
        line = ChatLine(scope, session.player.name, clean, now, me=me, spectators=spectators)
        self._chat.setdefault((scope, spectators), deque(maxlen=CHAT_HISTORY)).append(line)
        if self.db is not None:  # (a line the disk refuses is still said: chat goes on)
            self._persist("chat", self.db.add_chat, scope, line.name, line.text, now,
                          CHAT_HISTORY, me, spectators)
        readers: Iterable[Session]
        if table is None:
            readers = [s for s in self.sessions.values() if s.table is None]
        elif spectators:
            readers = [s for s, seat in table.subscribers.items() if seat is None]
        else:
            readers = list(table.subscribers)
        self._deliver(line, readers, session)
        if table is None and self.beyond is not None:
            self.beyond.said(line)

    def heard(self, line: ChatLine) -> None:
        """A lobby line said on another coordinator (the rate limits counted there, the line
        stored there): kept in this lobby's history and given to this lobby's sessions, as
        one said here (ignores, bells)."""
        self._chat.setdefault(("lobby", False), deque(maxlen=CHAT_HISTORY)).append(line)
        self._deliver(line, [s for s in self.sessions.values() if s.table is None], None)

    def told(self, line: ChatLine, key: str) -> bool:
        """A private line from a player on another coordinator, for the player online here
        under the name key ``key``; False if there is none (gone meanwhile)."""
        found = next((s for s in self.sessions.values()
                      if s.name_key == key and not s.player.watch_only and not s.mirror), None)
        if found is None:
            return False
        self._deliver(line, (found,), None)
        return True

    def _online(self, name: str) -> Session | Far:
        """The session online under ``name`` (by ``name_key``), here or on another coordinator;
        Refused if there is none."""
        key = name_key(name)
        found: Session | Far | None = next(
            (s for s in self.sessions.values() if key and s.name_key == key), None)
        if found is None and key and self.beyond is not None:
            found = self.beyond.find(key)
        if found is None:
            shown = nickname(name) or sanitise(name, NICKNAME_MAX)
            raise Refused("not_online", f"{shown} n'est pas en ligne.", name=shown)
        return found

    def _addressee(self, session: Session, name: str) -> Session | Far:
        """The player online under ``name`` who may get a private line from ``session``."""
        other = self._online(name)
        if other.player.identity == session.player.identity:
            raise Refused("msg_self", "C'est vous : un message privé va à un autre joueur.")
        if other.player.watch_only:
            raise Refused("msg_watcher", f"{other.player.name} regarde seulement les tables : "
                          "pas de message privé.", name=other.player.name)
        return other

    def _deliver(self, line: ChatLine, readers: Iterable[Session], sender: Session | None
                 ) -> None:
        """``line`` to each reader but those who ignore its sender (the sender always reads
        their own line; None: a sender on another coordinator, known by the line's name);
        the one it mentions gets the copy that rings (``MENTION_BELL``)."""
        mentioned = mentions(line.text) if "@" in line.text else frozenset()
        at = time.monotonic()
        sender_key = sender.name_key if sender is not None else name_key(line.name)
        for reader in readers:
            if reader is not sender and sender_key in reader.ignoring:
                continue
            if (reader is not sender and reader.name_key in mentioned
                    and self._bells.allow(reader.player.identity, at)):
                reader.mailbox.put_chat(replace(line, bell=True))
            else:
                reader.mailbox.put_chat(line)

    def _replay(self, session: Session, scope: str, spectators: bool = False) -> None:
        """The last lines said in ``scope``, for a session that arrives there: a table's
        spectators get its players' lines and their own, in the order they were said. None
        rings; none from a player the session ignores."""
        lines: Iterable[ChatLine] = self._chat.get((scope, False), ())
        if spectators:
            lines = heapq.merge(lines, self._chat.get((scope, True), ()),
                                key=lambda line: line.time)
        for line in lines:
            if name_key(line.name) not in session.ignoring:
                session.mailbox.put_chat(line)

    def ignore(self, session: Session, name: str) -> tuple[str, ...]:
        """Hide the lines of the player online under ``name`` from this session (their
        private lines and mentions too: they ring no bell), for the session's life; the
        names ignored now."""
        if name_key(name) not in session.ignoring:
            other = self._online(name)
            if other.player.identity == session.player.identity:
                raise Refused("ignore_self", "C'est vous : on n'ignore que les autres.")
            if len(session.ignoring) >= IGNORE_MAX:
                raise Refused("ignore_full", f"Vous ignorez déjà {IGNORE_MAX} joueurs : "
                              "/unignore d'abord.", n=IGNORE_MAX)
            session.ignoring[other.name_key] = other.player.name
        return self.ignored(session)

    def unignore(self, session: Session, name: str) -> tuple[str, ...]:
        """Read ``name``'s lines again; the names still ignored."""
        if session.ignoring.pop(name_key(name), None) is None:
            shown = nickname(name) or sanitise(name, NICKNAME_MAX)
            raise Refused("not_ignored", f"Vous n'ignorez pas {shown}.", name=shown)
        return self.ignored(session)

    def ignored(self, session: Session) -> tuple[str, ...]:
        return tuple(sorted(session.ignoring.values(), key=name_key))

    # --- learn tables: the explanations a key has read ------------------------------------

    def learned(self, identity: str) -> set[str]:
        """The explanations this player was shown at learn tables: a key's, from the database
        (empty if it cannot be read); a guest's are their session's alone (the app's)."""
        if self.db is None or not identity.startswith(KEY_PREFIX):
            return set()
        try:
            return self.db.learned(identity)
        except StoreError:
            return set()

    def note_learned(self, identity: str, situation: str) -> None:
        if self.db is not None and identity.startswith(KEY_PREFIX):
            self._persist("learned", self.db.note_learned, identity, situation)

    def forget_learned(self, identity: str) -> None:
        if self.db is not None and identity.startswith(KEY_PREFIX):
            self._persist("learned", self.db.forget_learned, identity)

    def preferences(self, identity: str) -> dict[str, Any]:
        """The settings a player saved ({} for a guest, or if they cannot be read)."""
        if self.db is None or identity.startswith(GUEST_PREFIX):
            return {}
        try:
            return self.db.preferences(identity)
        except StoreError:
            log.exception("could not read the settings of %s", identity)
            return {}

    def keep_preferences(self, identity: str, data: Mapping[str, Any]) -> bool:
        """Keep a player's settings; False if the database refused them (a guest's are their
        session's alone: True, nothing written)."""
        if self.db is None or identity.startswith(GUEST_PREFIX):
            return True
        return self._persist("preferences", self.db.set_preferences, identity, data)

    # --- what survives a restart beside the logs (docs/reliability.md, round two, 13) ------

    def _persist(self, what: str, write: Callable[..., object], *args: Any) -> bool:
        """One database write; False if the database refused it (a full disk). A refusal is
        logged once per kind of write, until one succeeds again."""
        try:
            write(*args)
        except StoreError as e:
            if what not in self._store_errors:
                self._store_errors.add(what)
                log.error("cannot store %s: %s", what, e)
            return False
        if what in self._store_errors:
            self._store_errors.discard(what)
            log.info("storing %s again", what)
        return True

    def _beat(self) -> None:
        """Note that the server runs, every HEARTBEAT seconds: after a crash, the last note
        stands for the moment it stopped (turn timers lose no time while it is down)."""
        if self.db is None:
            return
        self._persist("the heartbeat", self.db.set_alive, time.time())
        self._heartbeat = later(HEARTBEAT, self._beat)

    def keep_waiting(self, table: Table) -> bool:
        """Store a table waiting for players as it stands; forget it once it has started or
        closed (its log, or nothing, holds it then). False if the database refused."""
        if self.db is None:
            return True
        if table.status == "waiting":
            saved = self._persist("waiting tables", self.db.save_waiting, table.id,
                                  table.header())
            table.saved_waiting = table.saved_waiting or saved
            return saved
        if table.saved_waiting:
            table.saved_waiting = not self._persist("waiting tables", self.db.forget_waiting,
                                                    table.id)
        return True

    def _restore_waiting(self, only: str | None = None) -> None:
        """Bring back the tables that were waiting for players (``only``: that one); their
        players get their seats back when they return within the grace period."""
        assert self.db is not None
        now = asyncio.get_running_loop().time()
        for data in self.db.waiting_tables():
            table_id = str(data.get("table"))
            if only is not None and table_id != only:
                continue
            if table_id in self.tables or table_id in self._stream_ids or self.log_path(
                    table_id).exists():  # it started
                self._persist("waiting tables", self.db.forget_waiting, table_id)
                continue
            try:
                table = self._table_from_header(data)
            except (KeyError, ValueError, TypeError, BadOptions) as e:
                log.error("cannot restore waiting table %s: %s", table_id, e)
                continue
            table.saved_waiting = True
            self.tables[table.id] = table
            for i, seat in enumerate(table.seats):
                if seat.kind == "player":
                    seat.patient = True
                    self._start_grace(table, i, now)
            log.info("waiting table %s restored", table.id)

    def keep_clock(self, table: Table) -> None:
        """Store the deadlines of the table's running turn timers, as wall-clock times."""
        table.clock_saved = dict(table.deadlines)
        if self.db is None:
            return
        now, wall = asyncio.get_running_loop().time(), time.time()
        deadlines = {seat: wall + (deadline - now) for seat, deadline in table.deadlines.items()}
        self._persist("turn timers", self.db.set_clock, table.id, deadlines)

    def _restore_clock(self, table: Table) -> None:
        """Give each turn the time it had left when the server stopped (its last heartbeat,
        after a crash): the time the server was down does not count."""
        stored = self._clocks.get(table.id)
        if not stored or self._stopped_at is None or table.timer is None:
            return
        now = asyncio.get_running_loop().time()
        actors = table.game.to_act(table.state)
        for seat_no, deadline in stored.items():
            if seat_no in actors and table.seats[seat_no].kind == "player":
                left = min(table.timer, max(0.0, deadline - self._stopped_at))
                table.deadlines[seat_no] = now + left

    def _restore_chat(self) -> None:
        """The last chat lines of the lobby and of every table still there."""
        assert self.db is not None
        gone: set[str] = set()
        for scope, name, text, when, me, spectators in self.db.chat_lines():
            if scope == "lobby" or scope in self.tables:
                self._chat.setdefault((scope, spectators), deque(maxlen=CHAT_HISTORY)).append(
                    ChatLine(scope, name, text, when, me=me, spectators=spectators))
            else:
                gone.add(scope)
        for scope in gone:  # a table that ended while its lines could not be forgotten
            self._persist("closed tables", self.db.forget_table, scope)

    def _remember_watching(self, session: Session, table_id: str | None) -> None:
        if self.db is not None:
            self._persist("spectators", self.db.set_watching, session.player.identity, table_id)

    def _return_to_watched(self, session: Session) -> None:
        """A spectator who comes back (after a drop or a restart) finds the table they
        watched, if it is still there."""
        if self.db is None:
            return
        try:
            table_id = self.db.watching(session.player.identity)
        except StoreError:
            return
        table = self.tables.get(table_id) if table_id is not None else None
        if table is None or table.status not in ("waiting", "playing"):
            return
        self._place(session, table, None)
        session.mailbox.put_notice(Notice("watching_again",
                                          "Vous retrouvez la table que vous regardiez."))

    def stop_table(self, table: Table, taken: bool = False) -> None:
        """A table whose log can be neither written nor read back stops taking moves: everyone
        at it is sent to the lobby and told why. Its log stays as it is; the next start brings
        the table back from it. ``taken``: another coordinator took the table over; when this
        one is one of several (``handing_over``), the sessions are told ``moved`` instead
        (``MOVED``), and their fronts move them to the table's new owner, where they find
        their seats again (``remote.py``): the players see nothing of it."""
        table.close_log(None)
        self._evict(table, self._away_notice(taken and self.handing_over))

    @staticmethod
    def _away_notice(moved: bool) -> Notice:
        """What the sessions of a table stopped here are told: ``moved`` (another coordinator
        serves it: their fronts move them there), or ``stopped``."""
        return Notice("moved", MOVED) if moved else Notice("stopped", STOPPED)

    def hold_taken(self, table: Table) -> None:
        """Another writer appended to the table's log: it takes no more moves here. Alone,
        it stops (``stop_table``). One of several coordinators cannot tell yet who wrote: a
        deposed owner's late move (the table comes back here from its log, that move in it) or
        another coordinator that claimed the table (it is served there). The owners' next beat
        (``coordinator/owners.py``) reads the table's key and says: meanwhile its sessions
        are held, told nothing, then seated again here (``seat_held``) or moved
        (``let_go_held``). (Told ``moved`` at once, the sessions of a table brought back here
        waited at their fronts for a new owner that never came, and ended after 30 s: the
        chaos bench.)"""
        if not self.handing_over:
            self.stop_table(table, taken=True)
            return
        table.close_log(None)
        self.held[table.id] = (time.monotonic(),
                               [(session, session.seat) for session in table.subscribers])
        self._evict(table, None)

    def seat_held(self, table_id: str) -> None:
        """The held table is served here again: each of its sessions still connected gets its
        seat back (« Vous retrouvez votre place »), or watches again."""
        _since, sessions = self.held.pop(table_id, (0.0, []))
        table = self.tables.get(table_id)
        for session, seat_no in sessions:
            if not session.open or session.table is not None:
                continue
            if seat_no is not None:
                self._reclaim(session)
            elif table is not None:
                self._place(session, table, None)

    def let_go_held(self, table_id: str, moved: bool) -> None:
        """The held table is not served here: its sessions still connected are told ``moved``
        (another coordinator serves it: their fronts move them there) or ``stopped``, and go
        to the lobby."""
        _since, sessions = self.held.pop(table_id, (0.0, []))
        notice, snapshot = self._away_notice(moved), self.snapshot()
        for session, _seat in sessions:
            if session.open and session.table is None:
                self._send_away(session, notice, snapshot)

    def close_table(self, table: Table, notice: Notice) -> None:
        """An admin closes the table (coordinator/admin.py): a game in play ends as abandoned
        (its log ends 'closed', kept as abandoned games' are), a waiting table is forgotten;
        everyone at it is told ``notice`` and sent to the lobby."""
        log.info("table %s closed by an admin (%s)", table.id, table.status,
                 extra={"event": "table_closed", "table": table.id, "status": table.status,
                        "admin": True})
        if table.status == "playing":
            table.close_log("closed")
        if self.db is not None:
            self._persist("closed tables", self.db.forget_table, table.id)
        self._chat.pop((table.id, False), None)
        self._chat.pop((table.id, True), None)
        self._evict(table, notice)

    def _evict(self, table: Table, notice: Notice | None) -> None:
        """The table takes no more moves and leaves the lobby; everyone at it is sent there
        and told ``notice`` (None: nothing said, nothing sent: ``hold_taken``)."""
        table.cancel_timers()
        if table.hold is not None:
            table.hold.cancel()
            table.hold = None
        table.status = "closed"
        self.tables.pop(table.id, None)
        for seat in table.seats:
            seat.session = None
            if seat.grace is not None:
                seat.grace.cancel()
                seat.grace = None
        snapshot = self.snapshot()
        for session in list(table.subscribers):
            table.unsubscribe(session)
            session.table = session.seat = None
            if notice is not None:
                self._send_away(session, notice, snapshot)
        self.lobby_changed()

    @staticmethod
    def _send_away(session: Session, notice: Notice, snapshot: LobbySnapshot) -> None:
        """The session's table is gone: it is told ``notice``, and shown the lobby."""
        session.mailbox.put_notice(notice)
        session.mailbox.put_left_table()
        session.mailbox.put_lobby(snapshot)
