"""What one store query costs on each backend (issue 18, ``--db``). Never part of the test run;
results go to docs/performance.md, « Several machines (issue 18) », « The database ».

    uv run python bench/store.py [--calls 1000]

The coordinator waits for each query (store/db.py: calls are synchronous), so what matters is
how long one call holds its event loop: the wall time of each call (p50, p99), beside the
coordinator process's own CPU time per call (``time.process_time``: the client's share, not
the server's). Backends:

- ``sqlite``: a file in a temporary directory, as ``pioche serve`` opens it (WAL,
  ``synchronous=NORMAL``);
- ``postgresql``: a server started from the machine's binaries (tests/store/postgres.py) with
  PostgreSQL's default settings (``fsync=on``, ``synchronous_commit=on``), reached over its
  Unix socket, as ``PostgresDatabase`` connects: its commits do not wait for the WAL's flush,
  except the durable ones (``record_game``, ``seen``);
- ``postgresql-all-durable``: the same server, every commit waiting for the flush
  (``?options=-c synchronous_commit=on`` in the URL: PostgreSQL's default).

Each backend first gets 200 players and 500 rated four-player games (then, on PostgreSQL,
``ANALYZE``, as its autovacuum would have done by then); then each query runs
``--calls`` times: ``nickname_of`` (a read by primary key: the round trip's floor), ``seen``
(a returning player's visit), ``set_clock`` (a turn timer, at every
turn of a timed table), ``record_game`` (a rated four-player game's end), ``leaderboard`` (one
game's board, and all games').
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pioche_tui.coordinator.text import name_key  # noqa: E402
from pioche_tui.store.db import (  # noqa: E402
    Database,
    PostgresDatabase,
    SeatResult,
    SQLiteDatabase,
)
from tests.store.postgres import postgres_server  # noqa: E402

PLAYERS = [f"SHA256:{'k' * 39}{i:04d}" for i in range(200)]
WARM_GAMES = 500


def seats(rng: random.Random) -> list[SeatResult]:
    four = rng.sample(PLAYERS, 4)
    order = rng.sample(range(4), 4)
    return [SeatResult(i, who, f"p{PLAYERS.index(who)}", None, rng.randrange(500),
                       order[i] == 0, order[i] + 1, rated=True) for i, who in enumerate(four)]


def fill(db: Database, rng: random.Random) -> None:
    for i, who in enumerate(PLAYERS):
        db.seen(who, f"p{i}", 1.0)
    for n in range(WARM_GAMES):
        db.record_game(f"w{n}", "defausse", {"target": 500}, 1.0, 2.0, 5, f"w{n}.log",
                       seats(rng))
    if isinstance(db, PostgresDatabase):
        db._run("ANALYZE")


def timed(call: Callable[[int], object], calls: int) -> dict[str, float]:
    """Microseconds per call: wall p50 and p99 (what the coordinator's loop waits: µs, finer
    than bench/measure.py's milliseconds), and CPU time on average."""
    walls = []
    cpu = time.process_time()
    for n in range(calls):
        start = time.perf_counter()
        call(n)
        walls.append(time.perf_counter() - start)
    cpu = time.process_time() - cpu
    walls.sort()
    return {"p50_us": round(statistics.median(walls) * 1e6, 1),
            "p99_us": round(walls[int(len(walls) * 0.99) - 1] * 1e6, 1),
            "cpu_us": round(cpu / calls * 1e6, 1)}


def measure(db: Database, calls: int) -> dict[str, dict[str, float]]:
    rng = random.Random(7)
    fill(db, rng)
    deadline = time.time() + 60
    return {
        "nickname_of": timed(lambda n: db.nickname_of(PLAYERS[n % 200]), calls),
        "seen": timed(lambda n: db.seen(PLAYERS[n % 200], f"p{n % 200}", float(n)), calls),
        "set_clock": timed(lambda n: db.set_clock("T1", {n % 4: deadline + n}), calls),
        "record_game": timed(lambda n: db.record_game(
            f"g{n}", "defausse", {"target": 500}, 1.0, 2.0, 5, f"g{n}.log", seats(rng)), calls),
        "leaderboard(game)": timed(lambda n: db.leaderboard("defausse"), calls),
        "leaderboard(all)": timed(lambda n: db.leaderboard(None), calls),
    }


@contextmanager
def backends() -> Iterator[Iterator[tuple[str, Database]]]:
    with tempfile.TemporaryDirectory() as tmp, postgres_server({}) as server:
        def each() -> Iterator[tuple[str, Database]]:
            yield "sqlite", SQLiteDatabase(Path(tmp) / "pioche.sqlite3", name_key)
            yield "postgresql", PostgresDatabase(server.new_database(), name_key)
            on = quote("-c synchronous_commit=on")
            yield "postgresql-all-durable", PostgresDatabase(
                f"{server.new_database()}&options={on}", name_key)
        yield each()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000)
    args = parser.parse_args()
    with backends() as each:
        for name, db in each:
            try:
                figures = measure(db, args.calls)
                print(json.dumps({"backend": name, **figures, "load": os.getloadavg()}),
                      flush=True)
            finally:
                db.close()


if __name__ == "__main__":
    main()
