"""The SQLite database: players, finished games, the leaderboard and per-player stats.

One file (``pioche.sqlite3`` under the data directory) in WAL mode, used from the server's one
event loop. Every query is small and indexed, so calls are synchronous.

Identities: a player with a key is ``SHA256:…`` (their key's fingerprint); a guest is
``guest:NAME@ADDRESS``. Only key identities own a nickname: once a key has used a name, nobody
else — key or guest — may use it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    identity   TEXT PRIMARY KEY,
    nickname   TEXT NOT NULL,
    first_seen REAL NOT NULL,
    last_seen  REAL NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS players_nickname ON players (nickname COLLATE NOCASE)
    WHERE identity LIKE 'SHA256:%';
CREATE TABLE IF NOT EXISTS games (
    id         INTEGER PRIMARY KEY,
    table_id   TEXT NOT NULL UNIQUE,
    game       TEXT NOT NULL,
    options    TEXT NOT NULL,          -- JSON
    started    REAL NOT NULL,
    finished   REAL NOT NULL,
    rounds     INTEGER NOT NULL,
    log_file   TEXT NOT NULL           -- under tables/: ID.log, ID.log.gz once compacted, ''
                                       -- once removed past its retention (store/retention.py)
);
CREATE TABLE IF NOT EXISTS game_seats (
    game_id    INTEGER NOT NULL REFERENCES games (id),
    seat       INTEGER NOT NULL,
    identity   TEXT,                   -- NULL for a bot
    name       TEXT NOT NULL,
    bot        TEXT,                   -- the bot's name for a bot seat
    score      INTEGER NOT NULL,
    winner     INTEGER NOT NULL,       -- 1 when among the winners
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX IF NOT EXISTS game_seats_identity ON game_seats (identity);
"""


@dataclass(frozen=True, slots=True)
class SeatResult:
    seat: int
    identity: str | None
    name: str
    bot: str | None
    score: int
    winner: bool


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    name: str
    identity: str
    games: int
    wins: int
    points: int


@dataclass(frozen=True, slots=True)
class PlayerStats:
    identity: str
    name: str
    games: int
    wins: int
    points: int
    best_score: int
    by_game: tuple[tuple[str, int, int], ...]  # (game, games, wins)


class Database:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._conn = sqlite3.connect(path, isolation_level=None)  # autocommit; explicit BEGIN
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("PRAGMA foreign_keys=ON")
        self._conn.executescript(SCHEMA)

    def close(self) -> None:
        self._conn.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN … COMMIT around the block, ROLLBACK if it raises."""
        conn = self._conn
        conn.execute("BEGIN")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    # --- players --------------------------------------------------------------------------

    def name_owner(self, nickname: str) -> str | None:
        """The key identity that owns this nickname (case-insensitive), if any."""
        row = self._conn.execute(
            "SELECT identity FROM players WHERE nickname = ? COLLATE NOCASE"
            " AND identity LIKE 'SHA256:%'",
            (nickname,),
        ).fetchone()
        return row[0] if row else None

    def nickname_of(self, identity: str) -> str | None:
        row = self._conn.execute(
            "SELECT nickname FROM players WHERE identity = ?", (identity,)
        ).fetchone()
        return row[0] if row else None

    def seen(self, identity: str, nickname: str, now: float) -> None:
        """Record a visit: creates the player or updates their nickname and last visit.

        Raises ValueError if a key identity takes a name another key owns (callers check
        :meth:`name_owner` first; this is the database's own guarantee).
        """
        try:
            self._conn.execute(
                "INSERT INTO players (identity, nickname, first_seen, last_seen)"
                " VALUES (?, ?, ?, ?)"
                " ON CONFLICT (identity) DO UPDATE SET nickname = excluded.nickname,"
                " last_seen = excluded.last_seen",
                (identity, nickname, now, now),
            )
        except sqlite3.IntegrityError as e:
            raise ValueError(f"le pseudo {nickname!r} appartient à quelqu'un d'autre") from e

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
    ) -> None:
        """Store a finished game; recording the same table twice is a no-op."""
        with self._transaction() as conn:
            cur = conn.execute(
                "INSERT INTO games (table_id, game, options, started, finished, rounds, log_file)"
                " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (table_id) DO NOTHING",
                (table_id, game, json.dumps(options, sort_keys=True), started, finished, rounds,
                 log_file),
            )
            if cur.rowcount:
                conn.executemany(
                    "INSERT INTO game_seats (game_id, seat, identity, name, bot, score, winner)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [
                        (cur.lastrowid, s.seat, s.identity, s.name, s.bot, s.score, int(s.winner))
                        for s in seats
                    ],
                )

    def has_game(self, table_id: str) -> bool:
        """A game was recorded under this table id (ids are never reused)."""
        return self._conn.execute(
            "SELECT 1 FROM games WHERE table_id = ?", (table_id,)
        ).fetchone() is not None

    def set_log_files(self, log_files: Mapping[str, str]) -> None:
        """Where each table's log now is (a compacted copy's name), or "" when it is gone: the
        game's result stays."""
        if not log_files:
            return
        with self._transaction() as conn:
            conn.executemany("UPDATE games SET log_file = ? WHERE table_id = ?",
                             [(name, table_id) for table_id, name in log_files.items()])

    def log_file(self, table_id: str) -> str | None:
        row = self._conn.execute(
            "SELECT log_file FROM games WHERE table_id = ?", (table_id,)
        ).fetchone()
        return row[0] if row else None

    def game_count(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def game_seats(self, table_id: str) -> list[SeatResult]:
        rows = self._conn.execute(
            "SELECT s.seat, s.identity, s.name, s.bot, s.score, s.winner FROM game_seats s"
            " JOIN games g ON g.id = s.game_id WHERE g.table_id = ? ORDER BY s.seat",
            (table_id,),
        ).fetchall()
        return [SeatResult(r[0], r[1], r[2], r[3], r[4], bool(r[5])) for r in rows]

    def leaderboard(self, game: str | None = None, limit: int = 20) -> list[LeaderboardRow]:
        """Human players by wins, then win rate, then points; bots are not ranked."""
        rows = self._conn.execute(
            "SELECT COALESCE(p.nickname, MAX(s.name)), s.identity, COUNT(*), SUM(s.winner),"
            " SUM(s.score)"
            " FROM game_seats s JOIN games g ON g.id = s.game_id"
            " LEFT JOIN players p ON p.identity = s.identity"
            " WHERE s.identity IS NOT NULL AND (?1 IS NULL OR g.game = ?1)"
            " GROUP BY s.identity"
            " ORDER BY SUM(s.winner) DESC, 1.0 * SUM(s.winner) / COUNT(*) DESC, SUM(s.score) DESC"
            " LIMIT ?2",
            (game, limit),
        ).fetchall()
        return [LeaderboardRow(r[0], r[1], r[2], r[3], r[4]) for r in rows]

    def player_stats(self, identity: str) -> PlayerStats | None:
        row = self._conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(winner), 0), COALESCE(SUM(score), 0),"
            " COALESCE(MAX(score), 0), MAX(name) FROM game_seats WHERE identity = ?",
            (identity,),
        ).fetchone()
        name = self.nickname_of(identity) or row[4]
        if name is None:
            return None
        by_game = self._conn.execute(
            "SELECT g.game, COUNT(*), SUM(s.winner) FROM game_seats s"
            " JOIN games g ON g.id = s.game_id WHERE s.identity = ? GROUP BY g.game"
            " ORDER BY g.game",
            (identity,),
        ).fetchall()
        return PlayerStats(
            identity, name, row[0], row[1], row[2], row[3],
            tuple((g, n, w) for g, n, w in by_game),
        )
