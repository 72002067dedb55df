"""How much a rated game grows the SQLite file beside its result (issue 17, ratings). Never part
of the test run; results go to docs/server.md, « Ratings ».

    uv run python bench/rating_growth.py [--games 2000]

Records ``--games`` games of Défausse straight into a real SQLite file (``Database.record_game``,
no engine: the result's rows are what is measured), after 200 to warm the tables up, three ways:
one key player and three bots (unrated), four key players unrated, four key players rated (their
``ratings`` rows updated, four ``rating_history`` rows). Forty players take turns at the seats.
Prints one JSON line per way: bytes per game (the file's pages after a WAL checkpoint).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pioche_tui.coordinator.text import name_key  # noqa: E402
from pioche_tui.store.db import Database, SeatResult, SQLiteDatabase  # noqa: E402

PLAYERS = [f"SHA256:{'k' * 39}{i:04d}" for i in range(40)]  # a fingerprint's 50 characters
WARM = 200


def size(path: Path) -> int:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    return int(pages * page)


def record(db: Database, i: int, keys: bool, rated: bool) -> None:
    ids = ([PLAYERS[(i * 4 + j) % len(PLAYERS)] for j in range(4)] if keys
           else [PLAYERS[i % len(PLAYERS)], None, None, None])
    seats = [SeatResult(j, ids[j], f"name{j}", None if ids[j] else "basic", 100 * j, j == 3,
                        4 - j, ids[j] is not None) for j in range(4)]
    db.record_game(f"T{i:06d}", "defausse", {"target": 500}, 1.0, 2.0, 3, f"T{i:06d}.log",
                   seats, "" if rated else "bots")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    args = parser.parse_args()
    for name, keys, rated in (("unrated, 1 key", False, False), ("unrated, 4 keys", True, False),
                              ("rated, 4 keys", True, True)):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "pioche.sqlite3"
            db = SQLiteDatabase(path, name_key)
            for i in range(WARM):
                record(db, i, keys, rated)
            before = size(path)
            for i in range(WARM, WARM + args.games):
                record(db, i, keys, rated)
            per_game = (size(path) - before) / args.games
            db.close()
        print(json.dumps({"games": name, "bytes_per_game": round(per_game)}))


if __name__ == "__main__":
    main()
