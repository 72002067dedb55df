"""What PostgreSQL adds to the store: several coordinators on one database (the name key's
unique index and a game's single record hold across connections), a connection the server drops
made again, URLs and passwords (``--db``, ``PIOCHE_DB``), and ``pioche serve`` — alone and as the
coordinator of ``--workers`` — keeping its players there, not in a SQLite file."""

from __future__ import annotations

import argparse
import asyncio
import random
import signal
import threading
from pathlib import Path

import asyncssh
import psycopg
import pytest

from pioche_tui.cli import build_parser
from pioche_tui.coordinator import ratings
from pioche_tui.coordinator.core import Coordinator, Settings
from pioche_tui.coordinator.inprocess import InProcessClient
from pioche_tui.coordinator.model import Player, Refused
from pioche_tui.coordinator.text import name_key
from pioche_tui.store.db import (
    DEFAULT_FILE,
    Database,
    PostgresDatabase,
    SeatResult,
    StoreError,
    has_password,
    open_database,
    redact,
    sqlite_path,
)
from server.serve import DB_ENV, DEFAULT_APP, app_settings, database_url
from server.workers import coordinator_argv
from tests.hostile.test_restart_live import login
from tests.server.process import serve_process, wait_gone

from .postgres import PostgresServer

ALICE, BOB = "SHA256:alice", "SHA256:bob"


def drop(postgres: PostgresServer, db: Database) -> None:
    """End ``db``'s connection from the server's side, as a server restart or an operator
    would (returns once that backend is gone)."""
    (pid,) = db._one("SELECT pg_backend_pid()")
    with psycopg.connect(postgres.url("postgres"), autocommit=True) as admin:
        assert admin.execute("SELECT pg_terminate_backend(%s, 10000)", (pid,)).fetchone() == (
            True,)


def test_two_coordinators_on_one_database(postgres: PostgresServer) -> None:
    url = postgres.new_database()
    one, two = PostgresDatabase(url, name_key), PostgresDatabase(url, name_key)
    try:
        one.seen(ALICE, "Élise", 1.0)
        assert two.name_owner("elise") == ALICE
        with pytest.raises(ValueError, match="appartient"):
            two.seen(BOB, "ELISE", 2.0)
        seats = [SeatResult(0, ALICE, "Élise", None, 10, True, 1, rated=True),
                 SeatResult(1, BOB, "Bob", None, 5, False, 2, rated=True)]
        for db in (one, two, one):  # the same end recorded by each: it counts once
            db.record_game("t1", "defausse", {}, 1.0, 2.0, 1, "t1.log", seats)
        assert two.game_count() == 1
        stats = one.player_stats(BOB)
        assert stats is not None and stats.games == 1 and stats.ratings[0][1] == 1
    finally:
        one.close()
        two.close()


def test_games_recorded_at_once_by_two_coordinators_rate_in_turn(
        postgres: PostgresServer) -> None:
    """Two coordinators record games of the same players at the same moment: each game's
    ratings start from the previous game's (none read before another's write and lost), so
    replaying the games in their order gives the ratings stored."""
    url = postgres.new_database()
    players = [f"SHA256:p{i}" for i in range(3)]
    rng = random.Random(5)
    games = [[SeatResult(i, who, who, None, 0, place == 1, place, rated=True)
              for i, (who, place) in enumerate(zip(players, rng.sample([1, 2, 3], 3),
                                                   strict=True))] for _ in range(40)]
    dbs = [PostgresDatabase(url, name_key) for _ in range(2)]
    try:
        def record(n: int) -> None:
            for k in range(n, len(games), 2):
                dbs[n].record_game(f"t{k}", "defausse", {}, 1.0, 2.0, 1, "", games[k])

        threads = [threading.Thread(target=record, args=(n,)) for n in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        order = [int(table[1:]) for (table,) in dbs[0]._all(
            "SELECT table_id FROM games ORDER BY id")]
        assert sorted(order) == list(range(len(games)))
        expected = {who: ratings.NEW for who in players}
        for k in order:
            seats = games[k]
            after = ratings.rate([expected[s.identity or ""] for s in seats],
                                 [s.place for s in seats])
            expected.update({s.identity or "": r for s, r in zip(seats, after, strict=True)})
        for who in players:
            stored = dbs[0].rating(who, "defausse")
            assert stored is not None
            assert stored.mu == pytest.approx(expected[who].mu)
            assert stored.sigma == pytest.approx(expected[who].sigma)
    finally:
        for db in dbs:
            db.close()


def test_results_wait_for_the_disk_the_rest_does_not(postgres: PostgresServer) -> None:
    db = PostgresDatabase(postgres.new_database(), name_key)
    try:
        assert db._one("SHOW synchronous_commit") == ("off",)  # a turn timer, a chat line…
        with db._transaction(durable=True):  # a result, a name, a ban
            assert db._one("SHOW synchronous_commit") == ("on",)
        assert db._one("SHOW statement_timeout") == ("5s",)
    finally:
        db.close()


def test_a_dropped_connection_is_made_again(postgres: PostgresServer) -> None:
    db = PostgresDatabase(postgres.new_database(), name_key)
    try:
        db.seen(ALICE, "Alice", 1.0)
        drop(postgres, db)
        with pytest.raises(StoreError):  # the query that finds it gone fails, and says why
            db.nickname_of(ALICE)
        assert db.nickname_of(ALICE) == "Alice"  # the next one has a new connection
    finally:
        db.close()


async def test_a_coordinator_whose_connection_dropped(tmp_path: Path,
                                                      postgres: PostgresServer) -> None:
    """The reads a request needs fail while the connection is found gone: a name that cannot be
    checked is refused (never taken as free), the scores show nothing (the session goes on);
    the next request connects again."""
    c = Coordinator(Settings(tmp_path, db=postgres.new_database(), turn_timer=None))
    await c.start()
    try:
        c.connect(Player(ALICE, "Alice")).close()
        assert c.db is not None
        drop(postgres, c.db)
        with pytest.raises(Refused) as refused:
            c.connect(Player(BOB, "alice"))
        assert refused.value.code == "store_read"
        with pytest.raises(Refused) as refused:  # connected again: the owner is known
            c.connect(Player(BOB, "alice"))
        assert refused.value.code == "name_owned"
        bob = c.connect(Player(BOB, "Bob"))
        client = InProcessClient(c)
        client.session = bob
        drop(postgres, c.db)
        assert await client.player_stats() is None
        assert await client.player_stats() is not None  # (his visit: a row, no game yet)
    finally:
        c.stop()


def test_urls_and_passwords(tmp_path: Path) -> None:
    assert sqlite_path("sqlite:/var/lib/pioche/p.sqlite3") == "/var/lib/pioche/p.sqlite3"
    assert sqlite_path("postgresql://pioche@db.example/pioche") is None
    assert sqlite_path("postgres://db/pioche") is None
    for bad in ("mysql://db/pioche", "sqlite:", "pioche.sqlite3", "postgresql:db"):
        with pytest.raises(ValueError, match="sqlite:PATH or postgresql"):
            sqlite_path(bad)
    for secret in ("postgresql://pioche:s3cret@db/pioche",
                   "postgresql://pioche@db/pioche?sslmode=require&password=s3cret",
                   "postgresql://pioche:s3cret@/pioche?host=/run/postgresql"):
        assert has_password(secret)
        assert "s3cret" not in redact(secret) and "pioche" in redact(secret)
        with pytest.raises(argparse.ArgumentTypeError, match=DB_ENV):
            database_url(secret)
    assert not has_password("postgresql://pioche@db/pioche?sslmode=require")
    assert redact("postgresql://pioche@/p?host=/run/postgresql") == (
        "postgresql://pioche@/p?host=/run/postgresql")
    # sqlite:PATH is a file of its own; no URL is the data directory's
    db = open_database(f"sqlite:{tmp_path / 'elsewhere.sqlite3'}", tmp_path / "data", name_key)
    db.close()
    assert (tmp_path / "elsewhere.sqlite3").exists()
    assert not (tmp_path / "data" / DEFAULT_FILE).exists()
    with pytest.raises(StoreError, match="cannot open the database postgresql://pioche@/"):
        open_database("postgresql://pioche:s3cret@/nowhere?host=/nonexistent", tmp_path,
                      name_key)


def test_the_environment_gives_the_database_when_the_flag_does_not(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DB_ENV, "postgresql://pioche:s3cret@db/pioche")
    assert app_settings(argparse.Namespace())["db"] == "postgresql://pioche:s3cret@db/pioche"
    assert app_settings(argparse.Namespace(db="sqlite:x"))["db"] == "sqlite:x"
    monkeypatch.delenv(DB_ENV)
    assert "db" not in app_settings(argparse.Namespace())
    # pioche serve --workers hands --db (never with a password) to its coordinator
    args = build_parser().parse_args(["serve", "--workers", "2", "--db", "sqlite:/srv/p.db"])
    assert coordinator_argv(args, 3)[-2:] == ["--db", "sqlite:/srv/p.db"]
    assert "--db" not in coordinator_argv(build_parser().parse_args(["serve"]), 3)


@pytest.mark.parametrize("workers", [None, 1], ids=["serve", "workers"])
async def test_pioche_serve_keeps_its_players_in_postgresql(
        tmp_path: Path, postgres: PostgresServer, monkeypatch: pytest.MonkeyPatch,
        workers: int | None) -> None:
    url = postgres.new_database()
    flag: tuple[str, ...] = ("--db", url)
    if workers is not None:  # the coordinator child gets it from the supervisor's environment
        monkeypatch.setenv(DB_ENV, url)
        flag = ()
    key = asyncssh.generate_private_key("ssh-ed25519")
    with serve_process(tmp_path, *flag, app=DEFAULT_APP, workers=workers) as served:
        tree = served.tree() if workers is not None else {}
        conn, client = await login(served.port, "alice", key)
        async with conn:
            await client.wait_for("Bonjour alice")
        served.process.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(served.wait, 60) == 0
        assert wait_gone([pid for pids in tree.values() for pid in pids]) == []
        assert f"database: {url}" in served.log_text()
    with psycopg.connect(url) as check:
        rows = check.execute("SELECT nickname FROM players").fetchall()
        alive = check.execute("SELECT value FROM server WHERE key = 'alive'").fetchone()
    assert rows == [("alice",)] and alive is not None  # her visit, and the server's stop
    assert not (tmp_path / "data" / DEFAULT_FILE).exists()
