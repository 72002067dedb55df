"""Names and identities in figures (docs/reliability.md, « Round two », items 7, 8 and 11): how
many look-alike names the coordinator accepts for another key or guest, how many distinct names
the online list shows with watchers, how many ``players`` rows guest visits leave, and the CPU
cost of a connection's name checks (300 online, 100 tables of four), in process CPU time.

    uv run python bench/identity.py
    # the code of an older commit, for comparison:
    git archive COMMIT | tar -x -C /tmp/old
    PYTHONPATH=/tmp/old .venv/bin/python bench/identity.py

The coordinator is called directly (no SSH, no app): what is measured is its rules. Identities
are written out by hand (any string is one to the coordinator), so older code runs it too.
"""

from __future__ import annotations

import asyncio
import sqlite3
import tempfile
import time
from pathlib import Path

from pioche_tui.coordinator.core import Coordinator, Settings
from pioche_tui.coordinator.model import Player, Refused
from pioche_tui.coordinator.text import nickname

OWNED = {"élise": ["Élise", "ÉLISE", "elise", "Elise"],
         "alice": ["ɑlice", "alıce", "aǀice", "aʟice", "alicė", "aIice", "al1ce", "ALICE",
                   "Alice"]}
ONLINE = ["Zoe", "ZOÉ", "zoe", "Zoé"]  # against a guest « zoé » online


def accepted(c: Coordinator, players: list[Player]) -> int:
    """How many of ``players`` connect under the name they ask for (a name the alphabet refuses
    is not theirs: a login name loses those letters)."""
    count = 0
    for player in players:
        if nickname(player.name) != player.name:
            continue
        try:
            c.connect(player).close()
            count += 1
        except Refused:
            pass
    return count


def player_rows(data: Path) -> int:
    db = sqlite3.connect(data / "pioche.sqlite3")
    try:
        return int(db.execute("SELECT COUNT(*) FROM players").fetchone()[0])
    finally:
        db.close()


async def measure(data: Path) -> None:
    c = Coordinator(Settings(data, turn_timer=None, bot_delay=(0, 0)))
    await c.start()
    for owner, key in (("élise", "SHA256:E"), ("alice", "SHA256:A")):
        c.connect(Player(key, owner)).close()
    looks = [name for names in OWNED.values() for name in names]
    n = accepted(c, [Player("SHA256:B", name) for name in looks])
    print(f"look-alikes of owned names accepted for another key: {n}/{len(looks)}")
    c.connect(Player("guest:zoé@10.0.0.1", "zoé", guest=True))
    n = accepted(c, [Player(f"guest:{name}@10.0.0.2", name, guest=True) for name in ONLINE])
    print(f"look-alikes of an online guest's name accepted for another guest: {n}/{len(ONLINE)}")

    c.connect(Player("SHA256:W", "bob"))
    for i in range(3):
        c.connect(Player(f"w{i}", "bob", watch_only=True))
        c.connect(Player(f"v{i}", "spectateur", watch_only=True))
    names = [entry.name.casefold() for entry in c.snapshot().online]
    print(f"online entries {len(names)}, distinct names {len(set(names))}")

    before = player_rows(data)
    for i in range(50):
        c.connect(Player(f"guest:gus{i}@10.0.1.{i}", f"gus{i}", guest=True)).close()
    print(f"players rows added by 50 guest visits: {player_rows(data) - before}")

    seated = [c.connect(Player(f"SHA256:p{i}", f"Joueur{i}")) for i in range(300)]
    for session in seated[:100]:
        session.create_table("defausse", seats=4, bots={1: "basic", 2: "basic", 3: "basic"},
                             timer=None)
    rounds = 300
    start = time.process_time()
    for i in range(rounds):
        c.connect(Player(f"SHA256:q{i}", f"Nouveau{i}")).close()
    cpu = (time.process_time() - start) / rounds
    print(f"connect + close, 300 online and 100 tables: {cpu * 1e3:.2f} ms of CPU each")
    c.stop()


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="pioche-identity-") as data:
        asyncio.run(measure(Path(data)))


if __name__ == "__main__":
    main()
