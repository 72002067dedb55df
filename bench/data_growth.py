"""How much the data directory grows per played game (issue 12, item 11). Never part of the test
run; results go to docs/reliability.md.

    uv run python bench/data_growth.py [--games 40] [--seed 1]

For each game, with its default options: ``--games`` games, each a player (played by the basic
bot through the player's own session, as a person at the keyboard) against three bots, in the
real coordinator on a temporary data directory (real msgpack logs, a real SQLite file). Then the
retention pass compacts the logs. It prints one JSON line per game: actions per game, the log's
bytes as written and compacted (mean and max; and the compacted file's blocks on disk), and the
SQLite file's growth per game (its pages after a WAL checkpoint: the ``games`` row, four
``game_seats`` rows and their indexes).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pioche_tui.coordinator.core import Coordinator, Session, Settings  # noqa: E402
from pioche_tui.coordinator.model import Player  # noqa: E402
from pioche_tui.engine import GAMES  # noqa: E402
from pioche_tui.store.log import read_log  # noqa: E402


def sqlite_bytes(path: Path) -> int:
    """The database's size once the write-ahead log is folded in."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        return int(pages * size)
    finally:
        conn.close()


async def play_one(c: Coordinator, session: Session, game: str, rng: random.Random) -> str:
    table_id = session.quick_play(game, 4)
    table = c.tables[table_id]
    bot = table.game.bot("basic")
    while table.status == "playing":
        if 0 in table.game.to_act(table.state):
            legal = table.game.legal_actions(table.state, 0)
            session.act(bot.choose(table.state, 0, legal, rng), table.step)
        await asyncio.sleep(0)
    session.leave()
    return table_id


async def measure(game: str, games: int, seed: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="pioche-growth-") as tmp:
        data = Path(tmp)
        c = Coordinator(Settings(data, bot_delay=(0.0, 0.0), turn_timer=None, seed=seed,
                                 table_rate=(10**6, 10**6)))
        await c.start()
        session = c.connect(Player("SHA256:" + "x" * 43, "Mesure"))
        rng = random.Random(seed)
        first = await play_one(c, session, game, rng)  # the schema's pages, the player's row
        db_path = data / "pioche.sqlite3"
        base = sqlite_bytes(db_path)
        ids = [first] + [await play_one(c, session, game, rng) for _ in range(games - 1)]
        db_growth = (sqlite_bytes(db_path) - base) / (games - 1)
        raw = [c.log_path(tid).stat().st_size for tid in ids]
        steps = [len(list(read_log(c.log_path(tid)).actions())) for tid in ids]
        report = await c.retention_pass()
        stats = [(c.tables_dir / f"{tid}.log.gz").stat() for tid in ids]
        packed = [s.st_size for s in stats]
        blocks = [s.st_blocks * 512 for s in stats]  # what the file system gives each file
        c.stop()
    return {
        "game": game, "games": games,
        "actions_mean": round(statistics.mean(steps)),
        "log_bytes_mean": round(statistics.mean(raw)), "log_bytes_max": max(raw),
        "compacted_bytes_mean": round(statistics.mean(packed)), "compacted_bytes_max": max(packed),
        "compacted_on_disk_mean": round(statistics.mean(blocks)),
        "compacted": report.compacted,
        "sqlite_bytes_per_game": round(db_growth),
    }


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for game in sorted(GAMES):
        print(json.dumps(await measure(game, args.games, args.seed)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
