"""The SQLite database: a real file, names bound to keys, leaderboard and stats."""

from __future__ import annotations

from pathlib import Path

import pytest

from pioche_tui.store.db import Database, SeatResult

ALICE = "SHA256:alice"
BOB = "SHA256:bob"


@pytest.fixture
def db(tmp_path: Path) -> Database:
    d = Database(tmp_path / "pioche.sqlite3")
    yield d
    d.close()


def test_wal_mode_on_a_real_file(db: Database) -> None:
    assert db._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.path.exists()


def test_a_name_bound_to_a_key_is_nobody_elses(db: Database) -> None:
    db.seen(ALICE, "Alice", 1.0)
    assert db.name_owner("alice") == ALICE
    with pytest.raises(ValueError, match="appartient"):
        db.seen(BOB, "ALICE", 2.0)
    # a guest may be recorded under any name, but never owns it
    db.seen("guest:Zoé@127.0.0.1", "Zoé", 2.0)
    assert db.name_owner("Zoé") is None
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
    assert [r.name for r in db.leaderboard("defausse")] == ["Bob", "Alice"]  # 620 > 590 points
    stats = db.player_stats(BOB)
    assert stats is not None
    assert (stats.games, stats.wins, stats.points, stats.best_score) == (3, 1, 820, 500)
    assert stats.by_game == (("collection", 1, 0), ("defausse", 2, 1))
    assert db.player_stats("SHA256:nobody") is None
    assert [s.name for s in db.game_seats("t3")] == ["Alice", "Bob", "Robot"]
