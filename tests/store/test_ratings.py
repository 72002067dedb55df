"""Ratings per game (coordinator/ratings.py) and how the database keeps them: the model's
math on a few finishing orders, which games are unrated, a game counted once, the board of a
game by conservative rating with its minimum, and a database from before ratings."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from pioche_tui.coordinator.model import (
    MIN_RATED_GAMES,
    UNRATED_BEFORE,
    UNRATED_BOTS,
    UNRATED_GUESTS,
    UNRATED_STAND_IN,
    conservative,
)
from pioche_tui.coordinator.ratings import NEW, Rating, SeatPlay, rate, unrated_reason
from pioche_tui.coordinator.text import name_key
from pioche_tui.engine.base import Outcome, places_by
from pioche_tui.store.db import Database, SeatResult, SQLiteDatabase


def key(name: str) -> str:
    return f"SHA256:{name}"


def record(db: Database, table: str, order: list[str], game: str = "defausse",
           unrated: str = "", places: list[int] | None = None) -> None:
    """A game of key players finishing in ``order`` (first is the winner), a bot last."""
    places = places or list(range(1, len(order) + 1))
    seats = [SeatResult(i, key(name), name, None, 100 - 10 * place, place == 1, place, True)
             for i, (name, place) in enumerate(zip(order, places, strict=True))]
    seats.append(SeatResult(len(order), None, "Robot", "basic", 0, False, len(order) + 1))
    db.record_game(table, game, {}, 1.0, 2.0, 1, f"{table}.log", seats, unrated)


# --- the math --------------------------------------------------------------------------


def test_a_win_raises_the_mean_a_loss_lowers_it_and_both_grow_surer() -> None:
    first, second = rate([NEW, NEW], [1, 2])
    assert first.mu > NEW.mu > second.mu
    assert first.sigma < NEW.sigma and second.sigma < NEW.sigma


def test_players_tied_move_alike_and_places_count_by_their_order() -> None:
    winner, tied_a, tied_b = rate([NEW, NEW, NEW], [1, 2, 2])
    assert tied_a == tied_b and winner.mu > tied_a.mu
    # only the order counts: places 1, 3, 3 (two share second) are places 1, 2, 2
    assert rate([NEW, NEW, NEW], [1, 3, 3]) == [winner, tied_a, tied_b]
    # a tie of two equal players changes no mean
    a, b = rate([NEW, NEW], [1, 1])
    assert a.mu == b.mu == NEW.mu


def test_beating_a_stronger_player_gains_more() -> None:
    strong = Rating(35.0, 3.0)
    upset, _ = rate([NEW, strong], [1, 2])
    expected, _ = rate([NEW, Rating(15.0, 3.0)], [1, 2])
    assert upset.mu - NEW.mu > expected.mu - NEW.mu > 0
    assert conservative(strong.mu, strong.sigma) == 26.0


def test_each_game_ranks_as_its_rules_say() -> None:
    # Défausse (fallback and its own): the winners, then by score; a single round's losers tie
    assert Outcome((0, 45, 0, 0), (1,)).standing() == (2, 1, 2, 2)
    assert places_by([(False, 120), (True, 510), (False, 300)]) == (3, 1, 2)
    # Collection: (points, objectives) in Classique, ties shared
    assert places_by([(40, 3), (40, 4), (40, 3), (12, 5)]) == (2, 1, 2, 4)
    # a game's own places win over the fallback
    assert Outcome((10, 30), (0,), places=(1, 2)).standing() == (1, 2)


# --- which games are rated ---------------------------------------------------------------


def test_unrated_games() -> None:
    alice, bob = SeatPlay(True, True, 20, 3), SeatPlay(True, True, 18, 5)
    bot, guest = SeatPlay(False, False), SeatPlay(True, False, 10, 0)
    assert unrated_reason([alice, bob, bot]) == ""
    assert unrated_reason([alice, bot, bot]) == UNRATED_BOTS
    assert unrated_reason([alice, guest, bot]) == UNRATED_GUESTS
    # more than half of Bob's decisions by his stand-in (9 of 17): unrated; half is not more
    assert unrated_reason([alice, SeatPlay(True, True, 8, 9)]) == UNRATED_STAND_IN
    assert unrated_reason([alice, SeatPlay(True, True, 8, 8)]) == ""
    # a guest's stand-in is a bot to the key players' order
    assert unrated_reason([alice, bob, SeatPlay(True, False, 0, 30)]) == ""


# --- the database ------------------------------------------------------------------------


def test_a_rated_game_updates_each_rated_player_once(db: Database) -> None:
    record(db, "t1", ["Alice", "Bob", "Carol"])
    alice, bob, carol = (db.rating(key(n), "defausse") for n in ("Alice", "Bob", "Carol"))
    assert alice and bob and carol and alice.mu > bob.mu > carol.mu
    assert db.rating(key("Alice"), "collection") is None  # one rating per game
    record(db, "t1", ["Carol", "Bob", "Alice"])  # the same table again: nothing changes
    assert db.rating(key("Alice"), "defausse") == alice
    assert [r for _, r in db.rating_history(key("Alice"), "defausse")] == [alice]
    assert db.game_count() == 1 and db.unrated("t1") == ""
    assert [s.place for s in db.game_seats("t1")] == [1, 2, 3, 4]


def test_an_unrated_game_is_recorded_and_says_why(db: Database) -> None:
    record(db, "t1", ["Alice", "Bob"], unrated=UNRATED_STAND_IN)
    assert db.unrated("t1") == UNRATED_STAND_IN and db.unrated("t2") is None
    assert db.rating(key("Alice"), "defausse") is None
    stats = db.player_stats(key("Alice"))
    assert stats is not None and stats.games == 1 and stats.ratings == ()


def test_the_board_of_a_game_by_conservative_rating_from_the_minimum(db: Database) -> None:
    assert MIN_RATED_GAMES == 3
    db.seen(key("Alice"), "Alice", 1.0)
    for i in range(MIN_RATED_GAMES - 1):
        record(db, f"a{i}", ["Alice", "Bob"])
    assert db.leaderboard("defausse") == []  # two rated games each: nobody yet
    record(db, "a2", ["Bob", "Alice"])
    record(db, "c0", ["Carol", "Dan"], game="collection")
    board = db.leaderboard("defausse")
    assert [(r.name, r.rated, r.games, r.wins) for r in board] == [
        ("Alice", 3, 3, 2), ("Bob", 3, 3, 1)]
    assert board[0].rating > board[1].rating
    assert board[0].rating == pytest.approx(board[0].mu - 3 * board[0].sigma)
    # A player surer of a lower mean may pass one less sure of a higher: the board sorts by
    # mu − 3σ. Dan, new, loses to Erin four times then beats her once: Erin ranks by rating.
    for i in range(4):
        record(db, f"d{i}", ["Erin", "Dan"])
    record(db, "d4", ["Dan", "Erin"])
    board = db.leaderboard("defausse")
    ratings = [r.rating for r in board]
    assert ratings == sorted(ratings, reverse=True) and len(board) == 4
    assert db.leaderboard("defausse", limit=2) == board[:2]
    stats = db.player_stats(key("Alice"))
    assert stats is not None and [(g, n) for g, n, _, _ in stats.ratings] == [("defausse", 3)]


def test_places_among_rated_players_alone(db: Database) -> None:
    """Bots and guests take places too, but only the rated players' order counts."""
    seats = [SeatResult(0, None, "Robot", "basic", 90, True, 1),
             SeatResult(1, "guest:x", "Gus", None, 50, False, 2),
             SeatResult(2, key("Alice"), "Alice", None, 40, False, 3, True),
             SeatResult(3, key("Bob"), "Bob", None, 10, False, 4, True)]
    db.record_game("t1", "defausse", {}, 1.0, 2.0, 1, "t1.log", seats)
    alice, bob = db.rating(key("Alice"), "defausse"), db.rating(key("Bob"), "defausse")
    assert [alice, bob] == rate([NEW, NEW], [1, 2])
    assert db.rating("guest:x", "defausse") is None


OLD_GAMES = """
CREATE TABLE games (
    id INTEGER PRIMARY KEY, table_id TEXT NOT NULL UNIQUE, game TEXT NOT NULL,
    options TEXT NOT NULL, started REAL NOT NULL, finished REAL NOT NULL,
    rounds INTEGER NOT NULL, log_file TEXT NOT NULL
);
CREATE TABLE game_seats (
    game_id INTEGER NOT NULL REFERENCES games (id), seat INTEGER NOT NULL, identity TEXT,
    name TEXT NOT NULL, bot TEXT, score INTEGER NOT NULL, winner INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)
);
INSERT INTO games VALUES (1, 'old1', 'defausse', '{}', 1.0, 2.0, 1, 'old1.log');
INSERT INTO game_seats VALUES (1, 0, 'SHA256:Alice', 'Alice', NULL, 50, 1);
INSERT INTO game_seats VALUES (1, 1, 'SHA256:Bob', 'Bob', NULL, 0, 0);
"""


def test_a_database_from_before_ratings_keeps_its_games_unrated(tmp_path: Path) -> None:
    path = tmp_path / "pioche.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript(OLD_GAMES)
    conn.close()
    db = SQLiteDatabase(path, name_key)
    try:
        assert db.unrated("old1") == UNRATED_BEFORE
        assert [s.place for s in db.game_seats("old1")] == [0, 0]  # (unknown)
        assert db.rating(key("Alice"), "defausse") is None
        record(db, "new1", ["Bob", "Alice"])  # the next games are rated
        bob = db.rating(key("Bob"), "defausse")
        assert bob is not None and bob.mu > NEW.mu
    finally:
        db.close()
    db = SQLiteDatabase(path, name_key)  # opening it again changes nothing
    try:
        assert db.unrated("old1") == UNRATED_BEFORE and db.unrated("new1") == ""
        assert db.rating(key("Bob"), "defausse") == bob and db.game_count() == 2
    finally:
        db.close()


def test_a_profiles_last_games_newest_first_with_their_logs(db: Database) -> None:
    """``last_games``: newest first, bounded, each with its seat, the seats at the table, the
    place, why unrated and whether its log is still kept (``set_log_files``: "" once gone)."""
    record(db, "T1", ["Alice", "Bob"])
    record(db, "T2", ["Bob", "Alice"], unrated=UNRATED_STAND_IN)
    record(db, "T3", ["Alice", "Carl"])
    db.set_log_files({"T1": ""})
    games = db.last_games(key("Alice"), 2)
    assert [(g.table_id, g.seat, g.seats, g.place, g.unrated, g.replay) for g in games] == [
        ("T3", 0, 3, 1, "", True), ("T2", 1, 3, 2, UNRATED_STAND_IN, True)]
    assert [g.replay for g in db.last_games(key("Alice"), 10)] == [True, True, False]
    assert db.game_record("T1") == ("", 2.0, "") and db.game_record("T9") is None
