"""The database: players, finished games, the leaderboard and per-player stats.

One interface (``Database``), two backends: SQLite, the embedded default (one file,
``pioche.sqlite3`` under the data directory, in WAL mode), and PostgreSQL, for coordinators on
several machines (``--db postgresql://…``; ``open_database`` chooses from the URL). The SQL is
written once, in the words both dialects share (``?`` placeholders, ``INSERT … ON CONFLICT``,
``RETURNING``); the few they spell differently are ``Dialect``'s. Both are used from the
coordinator's one event loop: every query is small and indexed, so calls are synchronous
(docs/performance.md, « Several machines »: a PostgreSQL query over its Unix socket costs a round
trip of tens of microseconds). Every failure of the backend is raised as ``StoreError``.

Identities: a player with a key is ``SHA256:…`` (their key's fingerprint); a guest is
``guest:…``, drawn anew for each guest session (``coordinator.guests``). Only key identities own a
nickname: once a key has used a name, nobody else — key or guest — may use it, nor any name with
the same key (``name_key``: case, accents and look-alike letters folded), which a unique index
guarantees. Guests leave no row in ``players``: their identity does not outlive their session and
its seat, and they own nothing. (Their finished games stay in ``game_seats``, as results.)

Beside the results, it keeps what a restart must not lose and the tables' logs do not hold
(docs/reliability.md, round two, item 13): tables still waiting for players, the turn timers'
deadlines, the last chat lines of each scope, the table each spectator watches, and the last
moment the server was known to run. These are written as they change; with ``synchronous=NORMAL``
in WAL mode a commit survives the process being killed (not a power cut: the logs, fsync'd per
record, are what holds the moves).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

if TYPE_CHECKING:
    import psycopg

# The scores cross the seam as they are (coordinator/model.py holds them, as GuestPass).
from ..coordinator import ratings
from ..coordinator.model import (
    MIN_RATED_GAMES,
    UNRATED_BEFORE,
    GamePlayed,
    LeaderboardRow,
    PlayerStats,
)

log = logging.getLogger("pioche.store")

KEY_PREFIX = "SHA256:"  # a key's identity: the only kind that owns a nickname
GUEST_PREFIX = "guest:"  # a guest's identity: never recorded in players

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    identity   TEXT PRIMARY KEY,
    nickname   TEXT NOT NULL,
    first_seen {real} NOT NULL,
    last_seen  {real} NOT NULL,
    name_key   TEXT                    -- name_key(nickname) for a key that owns it, else NULL
);
CREATE TABLE IF NOT EXISTS games (
    id         {id},
    table_id   TEXT NOT NULL UNIQUE,
    game       TEXT NOT NULL,
    options    TEXT NOT NULL,          -- JSON
    started    {real} NOT NULL,
    finished   {real} NOT NULL,
    rounds     INTEGER NOT NULL,
    log_file   TEXT NOT NULL,          -- under tables/: ID.log, ID.log.gz once compacted, ''
                                       -- once removed past its retention (store/retention.py)
    unrated    TEXT NOT NULL DEFAULT '' -- why the game is not rated (model.UNRATED_…), '' if it is
);
CREATE TABLE IF NOT EXISTS game_seats (
    game_id    INTEGER NOT NULL REFERENCES games (id),
    seat       INTEGER NOT NULL,
    identity   TEXT,                   -- NULL for a bot
    name       TEXT NOT NULL,
    bot        TEXT,                   -- the bot's name for a bot seat
    score      INTEGER NOT NULL,
    winner     INTEGER NOT NULL,       -- 1 when among the winners
    place      INTEGER,                -- finishing place (1 first, ties share); NULL: before
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX IF NOT EXISTS game_seats_identity ON game_seats (identity);
CREATE TABLE IF NOT EXISTS ratings (
    identity   TEXT NOT NULL,          -- a key's identity (only keys are rated)
    game       TEXT NOT NULL,
    mu         {real} NOT NULL,
    sigma      {real} NOT NULL,
    games      INTEGER NOT NULL,       -- rated games played
    wins       INTEGER NOT NULL,       -- rated games won
    PRIMARY KEY (identity, game)
);
CREATE TABLE IF NOT EXISTS rating_history (
    identity   TEXT NOT NULL,
    game_id    INTEGER NOT NULL REFERENCES games (id),
    mu         {real} NOT NULL,          -- the player's rating after this game
    sigma      {real} NOT NULL,
    PRIMARY KEY (identity, game_id)    -- (one b-tree: read by player, each game once)
) {without_rowid};
CREATE TABLE IF NOT EXISTS waiting_tables (
    table_id   TEXT PRIMARY KEY,{saved}
    data       TEXT NOT NULL           -- JSON: game, options, seats, creator, timer, code
);
CREATE TABLE IF NOT EXISTS turn_clocks (
    table_id   TEXT NOT NULL,
    seat       INTEGER NOT NULL,
    deadline   {real} NOT NULL,          -- wall-clock time this seat's turn runs out
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE IF NOT EXISTS chat (
    id         {id},
    scope      TEXT NOT NULL,          -- "lobby" or a table id
    name       TEXT NOT NULL,
    text       TEXT NOT NULL,
    time       {real} NOT NULL,
    me         INTEGER NOT NULL DEFAULT 0,  -- an action (« /me »)
    spectators INTEGER NOT NULL DEFAULT 0   -- said among a table's spectators
);
CREATE TABLE IF NOT EXISTS watching (
    identity   TEXT PRIMARY KEY,       -- a spectator's identity
    table_id   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS learned (
    identity   TEXT NOT NULL,          -- a key's fingerprint (a guest's session remembers its own)
    situation  TEXT NOT NULL,          -- an explanation shown at a learn table (app/learn.py)
    PRIMARY KEY (identity, situation)
);
CREATE TABLE IF NOT EXISTS preferences (
    identity   TEXT PRIMARY KEY,       -- a key's identity (a guest's settings last their session)
    data       TEXT NOT NULL           -- JSON: the player's settings (app.prefs.Preferences)
);
CREATE TABLE IF NOT EXISTS server (
    key        TEXT PRIMARY KEY,       -- "alive": the last moment the server was known to run
    value      {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS bans (      -- the operator's bans (coordinator/admin.py)
    kind       TEXT NOT NULL,          -- "key" (a SHA256 fingerprint) or "address" (an IP)
    value      TEXT NOT NULL,
    until      {real},                   -- epoch seconds it ends; NULL: for good
    "by"       TEXT NOT NULL,          -- the admin who banned (quoted: a word of SQL)
    since      {real} NOT NULL,
    PRIMARY KEY (kind, value)
);
CREATE TABLE IF NOT EXISTS server_text (
    key        TEXT PRIMARY KEY,       -- "motd": the message of the day shown in the lobby
    value      TEXT NOT NULL
);
"""
NAME_KEY_INDEX = "CREATE UNIQUE INDEX IF NOT EXISTS players_name_key ON players (name_key)"
CHAT_INDEX = "CREATE INDEX IF NOT EXISTS chat_history ON chat (scope, spectators, id)"


@dataclass(frozen=True, slots=True)
class Dialect:
    """What one backend spells its own way; everything else is the same SQL."""

    schema_words: Mapping[str, str]  # ``SCHEMA``'s fields
    waiting_order: str  # the column that orders waiting tables as they were first saved
    rating_lock: str | None  # a statement that serializes rating updates among writers
    durable_commit: str | None  # makes a transaction's COMMIT wait for the disk, when it does not


SQLITE = Dialect(
    {"id": "INTEGER PRIMARY KEY", "real": "REAL", "without_rowid": "WITHOUT ROWID",
     "saved": ""},
    waiting_order="rowid",
    rating_lock=None,  # (one coordinator holds the data directory, and its file)
    durable_commit=None,  # (synchronous=NORMAL: a commit survives the process, not a power cut)
)
POSTGRES = Dialect(
    # REAL is a 4-byte float in PostgreSQL: 1 s resolution is lost on a time since 1970.
    {"id": "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", "real": "DOUBLE PRECISION",
     "without_rowid": "",
     "saved": "\n    saved      BIGINT GENERATED ALWAYS AS IDENTITY,  -- SQLite's rowid"},
    waiting_order="saved",
    # Several coordinators may record games at once; a rating is read, then written: one
    # game recorded at a time (a game's end, rare beside moves), whatever players they share.
    rating_lock="SELECT pg_advisory_xact_lock(7346)",
    # PostgresDatabase's connection commits without waiting for the WAL's flush (a flush per
    # turn timer would hold the coordinator's loop for milliseconds: docs/performance.md);
    # what must never be lost once acknowledged waits for it: results, names, bans.
    durable_commit="SET LOCAL synchronous_commit = on",
)
SCHEMA_LOCK = "SELECT pg_advisory_xact_lock(7345)"
"""Coordinators starting at once on one PostgreSQL database create its tables one at a time
(concurrent ``CREATE TABLE IF NOT EXISTS`` may collide in PostgreSQL's catalogue)."""


class StoreError(Exception):
    """The database failed or refused a query (a full disk, a lost server, a constraint);
    the message is the backend's."""


class Conflict(StoreError):
    """A unique constraint refused a row (a name another key owns)."""


class Cursor(Protocol):
    """What both backends' cursors offer (sqlite3's and psycopg's)."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


@dataclass(frozen=True, slots=True)
class SeatResult:
    seat: int
    identity: str | None
    name: str
    bot: str | None
    score: int
    winner: bool
    place: int = 0  # finishing place (``Outcome.standing``)
    rated: bool = False  # a player rated when the game is: one with a key (``Table.finish``)


class Database:
    """The store's one interface, over a backend (``SQLiteDatabase``, ``PostgresDatabase``;
    ``open_database`` opens the one a URL names). ``name_key`` is the coordinator's rule for
    when two nicknames are the same name (``coordinator.text.name_key``); the database stores
    its result and indexes it. ``where`` names the database for a log (no password)."""

    dialect: Dialect
    where: str
    # The backend's error classes: any error, and a unique constraint's (set by each backend;
    # its errors are raised as StoreError and Conflict).
    _error: type[Exception]
    _integrity_error: type[Exception]

    def __init__(self, name_key: Callable[[str], str]) -> None:
        self.name_key = name_key

    # --- the backend: each subclass runs a statement and closes ---------------------------

    def _cursor(self, sql: str, args: Sequence[Any]) -> Cursor:
        """Run one statement (``?`` placeholders); the backend's errors as they are."""
        raise NotImplementedError

    def _executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    # (Each query below catches the backend's errors itself rather than through a context
    # manager: the embedded store's queries cost microseconds, and one would add a third.)

    def _translate(self, error: Exception) -> StoreError:
        kind = Conflict if isinstance(error, self._integrity_error) else StoreError
        return kind(str(error))

    def _run(self, sql: str, args: Sequence[Any] = ()) -> int:
        """Run a statement; the rows it changed."""
        try:
            return self._cursor(sql, args).rowcount
        except self._error as e:
            raise self._translate(e) from e

    def _one(self, sql: str, args: Sequence[Any] = ()) -> Any:
        """The first row of a query (a tuple), None when there is none."""
        try:
            return self._cursor(sql, args).fetchone()
        except self._error as e:
            raise self._translate(e) from e

    def _all(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        try:
            return self._cursor(sql, args).fetchall()
        except self._error as e:
            raise self._translate(e) from e

    def _many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            try:
                self._executemany(sql, rows)
            except self._error as e:
                raise self._translate(e) from e

    def _durably(self, sql: str, args: Sequence[Any]) -> None:
        """Run one write that must not be lost once it returns (``Dialect.durable_commit``;
        on SQLite, as every write)."""
        if self.dialect.durable_commit is None:
            self._run(sql, args)
            return
        with self._transaction(durable=True):
            self._run(sql, args)

    @contextmanager
    def _transaction(self, durable: bool = False) -> Iterator[None]:
        """BEGIN … COMMIT around the block, ROLLBACK if it raises. ``durable``: the COMMIT
        returns once the block's writes are on the server's disk (``Dialect.durable_commit``)."""
        self._run("BEGIN")
        if durable and self.dialect.durable_commit is not None:
            self._run(self.dialect.durable_commit)
        try:
            yield
        except BaseException:
            with suppress(StoreError):  # (a lost connection: its transaction went with it)
                self._run("ROLLBACK")
            raise
        self._run("COMMIT")

    # --- players --------------------------------------------------------------------------

    def name_owner(self, nickname: str) -> str | None:
        """The key identity that owns this nickname, or a name with the same key, if any."""
        row = self._one(
            "SELECT identity FROM players WHERE name_key = ?", (self.name_key(nickname),)
        )
        return row[0] if row else None

    def nickname_of(self, identity: str) -> str | None:
        row = self._one(
            "SELECT nickname FROM players WHERE identity = ?", (identity,)
        )
        return row[0] if row else None

    def seen(self, identity: str, nickname: str, now: float) -> None:
        """Record a visit: creates the player or updates their nickname and last visit. A guest
        is not recorded.

        Raises ValueError if a key identity takes a name another key owns (callers check
        :meth:`name_owner` first; this is the database's own guarantee).
        """
        if identity.startswith(GUEST_PREFIX):
            return
        key = self.name_key(nickname) if identity.startswith(KEY_PREFIX) else None
        try:
            self._durably(  # (a name owned is never lost once told)
                "INSERT INTO players (identity, nickname, first_seen, last_seen, name_key)"
                " VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (identity) DO UPDATE SET nickname = excluded.nickname,"
                " last_seen = excluded.last_seen, name_key = excluded.name_key",
                (identity, nickname, now, now, key),
            )
        except Conflict as e:
            raise ValueError(f"le pseudo {nickname!r} appartient à quelqu'un d'autre") from e

    def preferences(self, identity: str) -> dict[str, Any]:
        """The settings this key saved (``set_preferences``), {} when none."""
        row = self._one(
            "SELECT data FROM preferences WHERE identity = ?", (identity,))
        data = json.loads(row[0]) if row else {}
        return data if isinstance(data, dict) else {}

    def set_preferences(self, identity: str, data: Mapping[str, Any]) -> None:
        """Keep a player's settings (a guest's are not kept: their identity ends with the
        session)."""
        if identity.startswith(GUEST_PREFIX):
            return
        self._run(
            "INSERT INTO preferences (identity, data) VALUES (?, ?)"
            " ON CONFLICT (identity) DO UPDATE SET data = excluded.data",
            (identity, json.dumps(dict(data), sort_keys=True)),
        )

    # --- games ----------------------------------------------------------------------------

    def record_game(
        self,
        table_id: str,
        game: str,
        options: dict[str, Any],
        started: float,
        finished: float,
        rounds: int,
        log_file: str,
        seats: Sequence[SeatResult],
        unrated: str = "",
    ) -> None:
        """Store a finished game and, unless it is ``unrated`` (why not), its rated seats'
        new ratings, in one transaction; recording the same table twice is a no-op, so a
        game counts once in the ratings whatever replays its end. Durable: once this returns,
        the result is on the database's disk."""
        with self._transaction(durable=True):
            if self.dialect.rating_lock is not None:  # (before the game's id is drawn: the
                self._one(self.dialect.rating_lock)  # ids' order is the ratings' order)
            row = self._one(
                "INSERT INTO games (table_id, game, options, started, finished, rounds, log_file,"
                " unrated) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (table_id) DO NOTHING"
                " RETURNING id",
                (table_id, game, json.dumps(options, sort_keys=True), started, finished, rounds,
                 log_file, unrated),
            )
            if row is None:  # recorded already
                return
            game_id: int = row[0]
            self._many(
                "INSERT INTO game_seats (game_id, seat, identity, name, bot, score, winner,"
                " place) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(game_id, s.seat, s.identity, s.name, s.bot, s.score, int(s.winner), s.place)
                 for s in seats],
            )
            rated = [s for s in seats if s.rated and s.identity is not None]
            if not unrated and len(rated) >= 2:
                self._rate(game_id, game, rated)

    def _rate(self, game_id: int, game: str, seats: Sequence[SeatResult]) -> None:
        """The rated seats' new ratings in ``game`` from their places among themselves; the
        history keeps each one."""
        before = [self.rating(s.identity, game) or ratings.NEW for s in seats if s.identity]
        after = ratings.rate(before, [s.place for s in seats])
        for seat, new in zip(seats, after, strict=True):
            self._run(
                "INSERT INTO ratings (identity, game, mu, sigma, games, wins)"
                " VALUES (?, ?, ?, ?, 1, ?) ON CONFLICT (identity, game) DO UPDATE SET"
                " mu = excluded.mu, sigma = excluded.sigma, games = ratings.games + 1,"
                " wins = ratings.wins + excluded.wins",
                (seat.identity, game, new.mu, new.sigma, int(seat.winner)))
            self._run(
                "INSERT INTO rating_history (identity, game_id, mu, sigma) VALUES (?, ?, ?, ?)",
                (seat.identity, game_id, new.mu, new.sigma))

    def rating(self, identity: str, game: str) -> ratings.Rating | None:
        """A player's rating in a game, None before their first rated game of it."""
        row = self._one(
            "SELECT mu, sigma FROM ratings WHERE identity = ? AND game = ?", (identity, game)
        )
        return ratings.Rating(row[0], row[1]) if row else None

    def rating_history(self, identity: str, game: str) -> list[tuple[float, ratings.Rating]]:
        """A player's rating in a game after each of their rated games, oldest first, with
        the moment each game finished."""
        rows = self._all(
            "SELECT g.finished, h.mu, h.sigma FROM rating_history h"
            " JOIN games g ON g.id = h.game_id WHERE h.identity = ? AND g.game = ?"
            " ORDER BY h.game_id", (identity, game))
        return [(r[0], ratings.Rating(r[1], r[2])) for r in rows]

    def unrated(self, table_id: str) -> str | None:
        """Why a recorded game is not rated ("" when it is); None when no game was recorded
        under this table id."""
        row = self._one(
            "SELECT unrated FROM games WHERE table_id = ?", (table_id,))
        return row[0] if row else None

    def has_game(self, table_id: str) -> bool:
        """A game was recorded under this table id (ids are never reused)."""
        return self._one(
            "SELECT 1 FROM games WHERE table_id = ?", (table_id,)
        ) is not None

    def set_log_files(self, log_files: Mapping[str, str]) -> None:
        """Where each table's log now is (a compacted copy's name), or "" when it is gone: the
        game's result stays."""
        if not log_files:
            return
        with self._transaction():
            self._many("UPDATE games SET log_file = ? WHERE table_id = ?",
                             [(name, table_id) for table_id, name in log_files.items()])

    def log_file(self, table_id: str) -> str | None:
        row = self._one(
            "SELECT log_file FROM games WHERE table_id = ?", (table_id,)
        )
        return row[0] if row else None

    def game_count(self) -> int:
        return int(self._one("SELECT COUNT(*) FROM games")[0])

    def game_seats(self, table_id: str) -> list[SeatResult]:
        rows = self._all(
            "SELECT s.seat, s.identity, s.name, s.bot, s.score, s.winner, s.place"
            " FROM game_seats s"
            " JOIN games g ON g.id = s.game_id WHERE g.table_id = ? ORDER BY s.seat",
            (table_id,),
        )
        return [SeatResult(r[0], r[1], r[2], r[3], r[4], bool(r[5]), r[6] or 0) for r in rows]

    def leaderboard(self, game: str | None = None, limit: int = 20) -> list[LeaderboardRow]:
        """One game's board: the players with at least ``MIN_RATED_GAMES`` rated games of it,
        by their conservative rating (mu − 3σ), then more rated games; with ``game`` None,
        every game's: human players by wins, then win rate, then points. Bots are not ranked,
        nor guests: a guest's identity lasts one session, so each of their visits would be a
        row of its own, under a name nobody owns."""
        if game is not None:
            return self._rated_board(game, limit)
        rows = self._all(
            "SELECT COALESCE(MAX(p.nickname), MAX(s.name)), s.identity, COUNT(*), SUM(s.winner),"
            " SUM(s.score)"
            " FROM game_seats s"
            " LEFT JOIN players p ON p.identity = s.identity"
            " WHERE s.identity IS NOT NULL AND s.identity NOT LIKE ? || '%'"
            " GROUP BY s.identity"  # (MAX(p.nickname): the one nickname of that identity)
            " ORDER BY SUM(s.winner) DESC, 1.0 * SUM(s.winner) / COUNT(*) DESC, SUM(s.score) DESC,"
            " s.identity"
            " LIMIT ?",
            (GUEST_PREFIX, limit),
        )
        return [LeaderboardRow(r[0], r[1], r[2], r[3], r[4]) for r in rows]

    def _rated_board(self, game: str, limit: int) -> list[LeaderboardRow]:
        rows = self._all(
            "SELECT COALESCE(MAX(p.nickname), MAX(s.name)), r.identity, COUNT(*), SUM(s.winner),"
            " SUM(s.score), r.games, r.mu, r.sigma"
            " FROM ratings r JOIN game_seats s ON s.identity = r.identity"
            " JOIN games g ON g.id = s.game_id AND g.game = r.game"
            " LEFT JOIN players p ON p.identity = r.identity"
            " WHERE r.game = ? AND r.games >= ?"
            " GROUP BY r.identity, r.game"  # (r's primary key: PostgreSQL then takes r.mu…)
            " ORDER BY r.mu - 3 * r.sigma DESC, r.games DESC, r.identity"
            " LIMIT ?",
            (game, MIN_RATED_GAMES, limit),
        )
        return [LeaderboardRow(*r) for r in rows]

    def player_stats(self, identity: str) -> PlayerStats | None:
        row = self._one(
            "SELECT COUNT(*), COALESCE(SUM(winner), 0), COALESCE(SUM(score), 0),"
            " COALESCE(MAX(score), 0), MAX(name) FROM game_seats WHERE identity = ?",
            (identity,),
        )
        name = self.nickname_of(identity) or row[4]
        if name is None:
            return None
        by_game = self._all(
            "SELECT g.game, COUNT(*), SUM(s.winner) FROM game_seats s"
            " JOIN games g ON g.id = s.game_id WHERE s.identity = ? GROUP BY g.game"
            " ORDER BY g.game",
            (identity,),
        )
        rated = self._all(
            "SELECT game, games, mu, sigma FROM ratings WHERE identity = ? ORDER BY game",
            (identity,))
        return PlayerStats(
            identity, name, row[0], row[1], row[2], row[3],
            tuple((g, n, w) for g, n, w in by_game), tuple(tuple(r) for r in rated),
        )

    def last_games(self, identity: str, limit: int) -> list[GamePlayed]:
        """A player's last ``limit`` finished games, newest first (``Profile.last``)."""
        rows = self._all(
            "SELECT g.table_id, g.game, g.finished, s.seat,"
            " (SELECT COUNT(*) FROM game_seats o WHERE o.game_id = g.id),"
            " COALESCE(s.place, 0), g.unrated, g.log_file != ''"
            " FROM game_seats s JOIN games g ON g.id = s.game_id"
            " WHERE s.identity = ? ORDER BY g.finished DESC, g.id DESC LIMIT ?",
            (identity, limit))
        return [GamePlayed(r[0], r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7])) for r in rows]

    def game_record(self, table_id: str) -> tuple[str, float, str] | None:
        """A recorded game's log file (``log_file``), when it finished and why it is unrated
        ("" when it is rated); None when no game was recorded under this table id."""
        row = self._one(
            "SELECT log_file, finished, unrated FROM games WHERE table_id = ?", (table_id,)
        )
        return (row[0], row[1], row[2]) if row else None

    # --- learn tables: the explanations each key has read --------------------------------

    def learned(self, identity: str) -> set[str]:
        """The situations whose explanation this key was shown at a learn table."""
        return {row[0] for row in self._all(
            "SELECT situation FROM learned WHERE identity = ?", (identity,))}

    def note_learned(self, identity: str, situation: str) -> None:
        self._run("INSERT INTO learned (identity, situation) VALUES (?, ?)"
                  " ON CONFLICT DO NOTHING", (identity, situation))

    def forget_learned(self, identity: str) -> None:
        """Show this key every explanation again."""
        self._run("DELETE FROM learned WHERE identity = ?", (identity,))

    # --- what a restart must not lose (every method may raise StoreError) -----------------

    def save_waiting(self, table_id: str, data: dict[str, Any]) -> None:
        self._run(
            "INSERT INTO waiting_tables (table_id, data) VALUES (?, ?)"
            " ON CONFLICT (table_id) DO UPDATE SET data = excluded.data",
            (table_id, json.dumps(data, sort_keys=True)),
        )

    def forget_waiting(self, table_id: str) -> None:
        self._run("DELETE FROM waiting_tables WHERE table_id = ?", (table_id,))

    def waiting_tables(self) -> list[dict[str, Any]]:
        """Every waiting table's data, in the order they were saved."""
        rows = self._all(f"SELECT data FROM waiting_tables ORDER BY {self.dialect.waiting_order}")
        return [json.loads(row[0]) for row in rows]

    def set_clock(self, table_id: str, deadlines: dict[int, float]) -> None:
        """The wall-clock deadline of each seat's running turn timer at this table (replaces
        the table's previous ones)."""
        with self._transaction():
            self._run("DELETE FROM turn_clocks WHERE table_id = ?", (table_id,))
            self._many(
                "INSERT INTO turn_clocks (table_id, seat, deadline) VALUES (?, ?, ?)",
                [(table_id, seat, deadline) for seat, deadline in sorted(deadlines.items())],
            )

    def clocks(self) -> dict[str, dict[int, float]]:
        found: dict[str, dict[int, float]] = {}
        for table_id, seat, deadline in self._all(
                "SELECT table_id, seat, deadline FROM turn_clocks"):
            found.setdefault(table_id, {})[seat] = deadline
        return found

    def add_chat(self, scope: str, name: str, text: str, time: float, keep: int,
                 me: bool = False, spectators: bool = False) -> None:
        """A chat line; only the newest ``keep`` lines of its history are kept (a table's
        players' chat and its spectators' are two histories)."""
        with self._transaction():
            self._run("INSERT INTO chat (scope, name, text, time, me, spectators)"
                      " VALUES (?, ?, ?, ?, ?, ?)", (scope, name, text, time, int(me),
                                                     int(spectators)))
            self._run(
                "DELETE FROM chat WHERE scope = ? AND spectators = ? AND id <= (SELECT id"
                " FROM chat WHERE scope = ? AND spectators = ? ORDER BY id DESC LIMIT 1"
                " OFFSET ?)", (scope, int(spectators), scope, int(spectators), keep),
            )

    def chat_lines(self) -> list[tuple[str, str, str, float, bool, bool]]:
        """Every kept line, oldest first: (scope, name, text, time, me, spectators)."""
        return [(scope, name, text, when, bool(me), bool(spectators))
                for scope, name, text, when, me, spectators in self._all(
                    "SELECT scope, name, text, time, me, spectators FROM chat ORDER BY id")]

    def set_watching(self, identity: str, table_id: str | None) -> None:
        """The table this spectator watches (None: none)."""
        if table_id is None:
            self._run("DELETE FROM watching WHERE identity = ?", (identity,))
        else:
            self._run(
                "INSERT INTO watching (identity, table_id) VALUES (?, ?)"
                " ON CONFLICT (identity) DO UPDATE SET table_id = excluded.table_id",
                (identity, table_id),
            )

    def watching(self, identity: str) -> str | None:
        row = self._one(
            "SELECT table_id FROM watching WHERE identity = ?", (identity,)
        )
        return row[0] if row else None

    def forget_table(self, table_id: str) -> None:
        """A table is gone: its waiting row, clocks, chat and spectators' places with it."""
        with self._transaction():
            for name, column in (("waiting_tables", "table_id"), ("turn_clocks", "table_id"),
                                 ("chat", "scope"), ("watching", "table_id")):
                self._run(f"DELETE FROM {name} WHERE {column} = ?", (table_id,))

    def set_alive(self, now: float) -> None:
        self._run(
            "INSERT INTO server (key, value) VALUES ('alive', ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (now,),
        )

    def alive(self) -> float | None:
        """The last moment the server was known to run (its last heartbeat, or its stop)."""
        row = self._one("SELECT value FROM server WHERE key = 'alive'")
        return float(row[0]) if row else None

    # --- the operator's (coordinator/admin.py) ---------------------------------------------

    def ban(self, kind: str, value: str, until: float | None, by: str, since: float) -> None:
        self._durably(
            'INSERT INTO bans (kind, value, until, "by", since) VALUES (?, ?, ?, ?, ?)'
            ' ON CONFLICT (kind, value) DO UPDATE SET until = excluded.until,'
            ' "by" = excluded."by", since = excluded.since',
            (kind, value, until, by, since),
        )

    def unban(self, kind: str, value: str) -> bool:
        """False when there was no such ban."""
        return self._run("DELETE FROM bans WHERE kind = ? AND value = ?", (kind, value)) > 0

    def bans(self, now: float) -> list[tuple[str, str, float | None, str, float]]:
        """The bans in force at ``now`` (kind, value, until, by, since); those past are
        removed."""
        self._run("DELETE FROM bans WHERE until IS NOT NULL AND until <= ?", (now,))
        return [(str(k), str(v), None if u is None else float(u), str(b), float(s))
                for k, v, u, b, s in self._all(
                    'SELECT kind, value, until, "by", since FROM bans ORDER BY since')]

    def server_text(self, key: str) -> str:
        row = self._one("SELECT value FROM server_text WHERE key = ?", (key,))
        return str(row[0]) if row else ""

    def set_server_text(self, key: str, value: str) -> None:
        self._run(
            "INSERT INTO server_text (key, value) VALUES (?, ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))


class SQLiteDatabase(Database):
    """The embedded store: one SQLite file (``path``) in WAL mode. Files of earlier versions
    are brought up to date as they open (the ``_add_…`` migrations)."""

    dialect = SQLITE
    _error = sqlite3.Error
    _integrity_error = sqlite3.IntegrityError

    def __init__(self, path: Path, name_key: Callable[[str], str]) -> None:
        super().__init__(name_key)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.where = str(path)
        try:
            self._conn = sqlite3.connect(path, isolation_level=None)  # autocommit; BEGIN
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute("PRAGMA foreign_keys=ON")
            self._conn.executescript(SCHEMA.format(**self.dialect.schema_words))
        except sqlite3.Error as e:
            raise StoreError(str(e)) from e
        self._add_name_keys()
        self._run(NAME_KEY_INDEX)
        self._add_chat_kinds()
        self._add_ratings()

    def _cursor(self, sql: str, args: Sequence[Any]) -> Cursor:
        return self._conn.execute(sql, args)

    def _executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self._conn.executemany(sql, rows)

    def close(self) -> None:
        self._conn.close()

    def _columns(self, table: str) -> set[str]:
        return {row[1] for row in self._all(f"PRAGMA table_info({table})")}

    def _add_chat_kinds(self) -> None:
        """Bring a chat table from before « /me » and the spectators' chat up to date (its
        lines were all said to their scope), then index it by what each history keeps."""
        columns = self._columns("chat")
        with self._transaction():
            for column in ("me", "spectators"):
                if column not in columns:
                    self._run(f"ALTER TABLE chat ADD COLUMN {column} INTEGER NOT NULL DEFAULT 0")
            self._run("DROP INDEX IF EXISTS chat_scope")
            self._run(CHAT_INDEX)

    def _add_name_keys(self) -> None:
        """Bring a database from before name keys (a NOCASE index, guests' rows) up to date.

        Each key's nickname gets its name key. Where two keys' names now have the same key
        (« Élise » and « élise », « alice » and « aIice »), the one seen first keeps the name
        and the others lose it: their row stays, with their name for their stats, but owns
        nothing, and they are asked for a new nickname at their next visit. Guests' rows are
        deleted (they never owned anything). Nothing is done when the column already exists.
        """
        if "name_key" in self._columns("players"):
            return
        with self._transaction():
            self._run("ALTER TABLE players ADD COLUMN name_key TEXT")
            self._run("DROP INDEX IF EXISTS players_nickname")
            self._run("DELETE FROM players WHERE identity LIKE ? || '%'", (GUEST_PREFIX,))
            owners: dict[str, str] = {}
            rows = self._all(
                "SELECT identity, nickname FROM players WHERE identity LIKE ? || '%'"
                " ORDER BY first_seen, identity", (KEY_PREFIX,))
            for identity, name in rows:
                key = self.name_key(name)
                if key in owners:
                    log.warning("the nickname %r of %s is the same name as %r's: released",
                                name, identity, owners[key])
                    continue
                owners[key] = name
                self._run("UPDATE players SET name_key = ? WHERE identity = ?", (key, identity))

    def _add_ratings(self) -> None:
        """Bring a database from before ratings up to date: its games were not rated
        (``UNRATED_BEFORE``: nobody counted their stand-ins) and their places are unknown.
        The ratings' own tables are new (``SCHEMA`` creates them). Nothing is done when the
        columns already exist."""
        if "unrated" in self._columns("games"):
            return
        with self._transaction():
            self._run("ALTER TABLE games ADD COLUMN unrated TEXT NOT NULL DEFAULT ''")
            self._run("UPDATE games SET unrated = ?", (UNRATED_BEFORE,))
            self._run("ALTER TABLE game_seats ADD COLUMN place INTEGER")


@lru_cache(maxsize=256)
def postgres_sql(sql: str) -> str:
    """``sql`` in psycopg's placeholders: ``?`` becomes ``%s``, a literal ``%`` doubles. (No
    statement of ours has a ``?`` inside a string literal.)"""
    return sql.replace("%", "%%").replace("?", "%s")


STATEMENT_TIMEOUT_MS = 5000
"""The longest a query may run on the server (ours take well under a millisecond): past it, a
stuck server or a lock held elsewhere fails the query (a ``StoreError``, logged) rather than
freezing the coordinator's loop, which waits for each query."""
CONNECT_TIMEOUT = 10  # seconds to reach the server (at start, and to reconnect)


class PostgresDatabase(Database):
    """The store on a PostgreSQL server (``url``: a libpq URL, ``postgresql://…``), shared by
    coordinators on several machines. One connection, in autocommit (``BEGIN`` … ``COMMIT``
    where several statements go together, as on SQLite). A connection the server dropped is
    made again at the next query (the one that found it gone fails: a ``StoreError``).

    Commits do not wait for the server's disk (``synchronous_commit=off``: a turn timer's
    deadline, a chat line, a spectator's table, the heartbeat may be lost if the *server*
    crashes in the next fraction of a second, never by the coordinator's crash), except those
    of ``Dialect.durable_commit``: results and ratings, names, bans.

    Every database starts from ``SCHEMA``: there are no PostgreSQL databases of earlier
    versions to migrate."""

    dialect = POSTGRES

    def __init__(self, url: str, name_key: Callable[[str], str]) -> None:
        import psycopg  # (here: the embedded mode never loads it)

        super().__init__(name_key)
        self._error, self._integrity_error = psycopg.Error, psycopg.IntegrityError
        self.url = url
        self.where = redact(url)
        try:
            self._conn = self._connect()
        except psycopg.Error as e:
            raise StoreError(str(e)) from e
        with self._transaction():
            self._one(SCHEMA_LOCK)
            self._run(SCHEMA.format(**self.dialect.schema_words))  # (one text, many statements)
            self._run(NAME_KEY_INDEX)
            self._run(CHAT_INDEX)

    def _connect(self) -> psycopg.Connection[Any]:
        import psycopg
        from psycopg.conninfo import conninfo_to_dict

        given = conninfo_to_dict(self.url).get("options") or ""  # (the operator's: last)
        return psycopg.connect(
            self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT,
            options=f"-c statement_timeout={STATEMENT_TIMEOUT_MS} "
                    f"-c synchronous_commit=off {given}".strip())

    def _cursor(self, sql: str, args: Sequence[Any]) -> Cursor:
        if self._conn.broken:
            self._conn = self._connect()
        if not args:  # (no placeholders: sent as it is, as one text of one or more statements)
            return self._conn.execute(sql)
        return self._conn.execute(postgres_sql(sql), args)

    def _executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self._conn.cursor() as cursor:
            cursor.executemany(postgres_sql(sql), rows)

    def close(self) -> None:
        self._conn.close()


DEFAULT_FILE = "pioche.sqlite3"  # the embedded database, under the data directory


def open_database(url: str | None, data_dir: Path, name_key: Callable[[str], str]) -> Database:
    """The database ``url`` names (``--db``): ``sqlite:PATH`` or ``postgresql://…``; None is
    the embedded default, ``DATA_DIR/pioche.sqlite3``. Raises ValueError for any other URL,
    StoreError when the database cannot be opened."""
    path = data_dir / DEFAULT_FILE if url is None else sqlite_path(url)
    try:
        if path is not None:
            return SQLiteDatabase(Path(path), name_key)
        assert url is not None
        return PostgresDatabase(url, name_key)
    except StoreError as error:
        raise StoreError(f"cannot open the database {redact(url or str(path))}: {error}"
                         ) from error


def sqlite_path(url: str) -> str | None:
    """The file of a ``sqlite:PATH`` URL, None for a PostgreSQL URL; ValueError for any
    other."""
    scheme, colon, rest = url.partition(":")
    if colon and scheme == "sqlite" and rest:
        return rest
    if colon and scheme in ("postgresql", "postgres") and rest.startswith("//"):
        return None
    raise ValueError(f"unknown database {redact(url)!r}: sqlite:PATH or postgresql://…")


def has_password(url: str) -> bool:
    """A URL that holds a password (in its user part, or as libpq's ``password=``)."""
    parts = urlsplit(url)
    return parts.password is not None or any(
        name == "password" for name, _ in parse_qsl(parts.query, keep_blank_values=True))


def redact(url: str) -> str:
    """``url`` without its password, fit for a log."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if parts.password is not None:
        user, _, host = netloc.rpartition("@")
        netloc = f"{user.partition(':')[0]}@{host}"
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                       if k != "password"], safe="/")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
