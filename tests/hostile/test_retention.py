"""Every quick game used to leave its log forever (issue 12, item 11). A real ``pioche serve``
started on a data directory of real logs and a real SQLite file: its start-up retention pass
compacts the logs of ended tables and removes those past their retention; every result stays,
and ``pioche replay`` tells what is kept, or says plainly what is gone."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from pioche_tui.coordinator.core import Coordinator
from pioche_tui.coordinator.model import Player
from pioche_tui.coordinator.text import name_key
from pioche_tui.store.db import SQLiteDatabase
from tests.coordinator.conftest import until
from tests.coordinator.test_churn import finished_game
from tests.coordinator.test_lifecycle import moves_once
from tests.hostile.conftest import coordinator_settings
from tests.server.process import ROOT, serve_process

REAL_APP = "pioche_tui.app:open_service"
DAY = 86400.0


def replay(log: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pioche_tui.cli", "replay", str(log),
                           "--lang", "fr"], cwd=ROOT, capture_output=True, text=True, timeout=60)


async def test_the_start_up_pass_compacts_removes_and_keeps_every_result(tmp_path: Path) -> None:
    data = tmp_path / "data"
    c = Coordinator(coordinator_settings(data, bot_delay=(0.0, 0.0)))
    await c.start()
    creator = c.connect(Player("SHA256:ann", "Ann"))
    recent, old = await finished_game(c, creator), await finished_game(c, creator)
    bob = c.connect(Player("SHA256:bob", "Bob"))
    abandoned = bob.quick_play("defausse", seats=2)
    await moves_once(c, bob)
    bob.leave()
    cid = c.connect(Player("SHA256:cid", "Cid"))
    forgotten = cid.quick_play("defausse", seats=2)
    await moves_once(c, cid)
    cid.leave()
    unfinished = c.connect(Player("SHA256:dee", "Dee")).quick_play("defausse", seats=2)
    c.stop()
    tables = data / "tables"
    for tid, age in ((old, 31 * DAY), (forgotten, 8 * DAY)):
        then = time.time() - age
        os.utime(tables / f"{tid}.log", (then, then))
    db = SQLiteDatabase(data / "pioche.sqlite3", name_key)
    results = {tid: db.game_seats(tid) for tid in (recent, old)}
    db.close()
    told = replay(tables / f"{recent}.log").stdout
    assert told.startswith(f"Collection · table {recent}")

    expected = sorted([f"{recent}.log.gz", f"{abandoned}.closed.log.gz", f"{unfinished}.log"])
    with serve_process(tmp_path, "--app", REAL_APP) as served:
        await until(lambda: sorted(p.name for p in tables.iterdir()) == expected, timeout=20)
        await until(lambda: "retention: 4 logs compacted" in served.log_text())
    assert "2 removed" in served.log_text()
    db = SQLiteDatabase(data / "pioche.sqlite3", name_key)
    assert {tid: db.game_seats(tid) for tid in (recent, old)} == results  # results stay
    assert (db.log_file(recent), db.log_file(old)) == (f"{recent}.log.gz", "")
    db.close()
    # The log as it was named, or its compacted copy, is told as before; a removed one is not.
    for name in (f"{recent}.log", f"{recent}.log.gz"):
        done = replay(tables / name)
        assert (done.returncode, done.stdout) == (0, told)
    gone = replay(tables / f"{old}.log")
    assert gone.returncode == 1 and "removed after the server's retention" in gone.stderr
