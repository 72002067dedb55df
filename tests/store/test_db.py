"""The database, on SQLite and PostgreSQL (conftest.py): names bound to keys, leaderboard and
stats; SQLite files of earlier versions brought up to date."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from pioche_tui.coordinator.text import name_key
from pioche_tui.store.db import Conflict, Database, SeatResult, SQLiteDatabase

ALICE = "SHA256:alice"
BOB = "SHA256:bob"


def test_wal_mode_on_a_real_file(tmp_path: Path) -> None:
    db = SQLiteDatabase(tmp_path / "pioche.sqlite3", name_key)
    try:
        assert db._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.path.exists()
    finally:
        db.close()


def test_a_name_bound_to_a_key_is_nobody_elses(db: Database) -> None:
    db.seen(ALICE, "Alice", 1.0)
    assert db.name_owner("alice") == ALICE
    with pytest.raises(ValueError, match="appartient"):
        db.seen(BOB, "ALICE", 2.0)
    # a guest is not recorded at all: no row, no name owned
    db.seen("guest:k3xq7", "Zoé", 2.0)
    assert db.name_owner("Zoé") is None and db.nickname_of("guest:k3xq7") is None
    # Alice may change her own name, which frees the old one
    db.seen(ALICE, "Alicia", 3.0)
    assert db.name_owner("Alice") is None and db.name_owner("Alicia") == ALICE


def test_leaderboard_and_stats(db: Database) -> None:
    db.seen(ALICE, "Alice", 1.0)
    db.seen(BOB, "Bob", 1.0)

    def game(table: str, name: str, alice: int, bob: int, bot: int, winner: int) -> None:
        seats = [
            SeatResult(0, ALICE, "Alice", None, alice, winner == 0),
            SeatResult(1, BOB, "Bob", None, bob, winner == 1),
            SeatResult(2, None, "Robot", "basic", bot, winner == 2),
        ]
        db.record_game(table, name, {"target": 500}, 1.0, 2.0, 3, f"{table}.log", seats)

    game("t1", "defausse", 510, 120, 30, 0)
    game("t2", "defausse", 80, 500, 20, 1)
    game("t3", "collection", 300, 200, 400, 2)
    game("t3", "collection", 0, 0, 0, 0)  # the same table again: ignored
    assert db.game_count() == 3
    board = db.leaderboard()
    assert [(r.name, r.games, r.wins) for r in board] == [("Alice", 3, 1), ("Bob", 3, 1)]
    assert db.leaderboard("defausse") == []  # a game's board is by rating: none was rated
    stats = db.player_stats(BOB)
    assert stats is not None
    assert (stats.games, stats.wins, stats.points, stats.best_score) == (3, 1, 820, 500)
    assert stats.by_game == (("collection", 1, 0), ("defausse", 2, 1))
    assert db.player_stats("SHA256:nobody") is None
    assert [s.name for s in db.game_seats("t3")] == ["Alice", "Bob", "Robot"]


LOOK_ALIKES = ["Élise", "ÉLISE", "elise", "Elise", "e1ise", "eIise"]


@pytest.mark.parametrize("name", LOOK_ALIKES)
def test_one_key_for_case_accents_and_look_alikes(db: Database, name: str) -> None:
    db.seen(ALICE, "élise", 1.0)
    assert db.name_owner(name) == ALICE
    with pytest.raises(ValueError, match="appartient"):
        db.seen(BOB, name, 2.0)
    # the unique index itself, whatever the callers do
    with pytest.raises(Conflict):
        db._run(
            "INSERT INTO players VALUES ('SHA256:eve', ?, 3.0, 3.0, ?)", (name, name_key(name)))


# pioche.sqlite3's players table and index before name keys (the games tables are unchanged)
OLD_PLAYERS = """
CREATE TABLE players (
    identity   TEXT PRIMARY KEY,
    nickname   TEXT NOT NULL,
    first_seen REAL NOT NULL,
    last_seen  REAL NOT NULL
);
CREATE UNIQUE INDEX players_nickname ON players (nickname COLLATE NOCASE)
    WHERE identity LIKE 'SHA256:%';
"""


def test_a_database_from_before_name_keys_keeps_its_owners(tmp_path: Path) -> None:
    path = tmp_path / "pioche.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript(OLD_PLAYERS)
    conn.executemany("INSERT INTO players VALUES (?, ?, ?, ?)", [
        ("SHA256:elise", "élise", 1.0, 9.0),
        ("SHA256:alice", "alice", 2.0, 9.0),
        ("SHA256:other-elise", "Élise", 3.0, 9.0),  # NOCASE let both in: ASCII only
        ("SHA256:aiice", "aIice", 4.0, 9.0),  # so did the look-alike
        ("local:zoe", "Zoé", 5.0, 9.0),  # pioche play: kept, owns nothing (as before)
        ("guest:Bob@10.0.0.1", "Bob", 6.0, 9.0),
        ("guest:Bob@10.0.0.2", "Bob", 7.0, 9.0),
    ])
    conn.commit()
    conn.close()

    db = SQLiteDatabase(path, name_key)
    try:
        assert db.name_owner("ELISE") == "SHA256:elise"  # the first seen keeps the name
        assert db.name_owner("alice") == "SHA256:alice"
        assert db.name_owner("Zoé") is None
        # the later look-alikes own nothing, but keep their row (their name, for their stats)
        assert db.nickname_of("SHA256:other-elise") == "Élise"
        assert db.nickname_of("SHA256:aiice") == "aIice"
        # and may take a name of their own
        db.seen("SHA256:aiice", "Iris", 10.0)
        assert db.name_owner("iris") == "SHA256:aiice"
        rows = db._conn.execute("SELECT identity FROM players ORDER BY identity").fetchall()
        assert [r[0] for r in rows] == [
            "SHA256:aiice", "SHA256:alice", "SHA256:elise", "SHA256:other-elise", "local:zoe"]
    finally:
        db.close()
    again = SQLiteDatabase(path, name_key)  # opening it again changes nothing
    try:
        assert again.name_owner("élise") == "SHA256:elise"
        assert again.name_owner("Iris") == "SHA256:aiice"
    finally:
        again.close()


def test_guests_are_not_ranked(db: Database) -> None:
    db.seen(ALICE, "Alice", 1.0)
    seats = [SeatResult(0, ALICE, "Alice", None, 10, False),
             SeatResult(1, "guest:k3xq7", "Gus", None, 50, True)]
    db.record_game("t1", "defausse", {}, 1.0, 2.0, 1, "t1.log", seats)
    assert [r.name for r in db.leaderboard()] == ["Alice"]
    assert [s.name for s in db.game_seats("t1")] == ["Alice", "Gus"]  # the result is kept
