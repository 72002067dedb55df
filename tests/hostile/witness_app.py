"""``pioche serve --app tests.hostile.witness_app:open_service``: the real service, plus busy
tables and a witness that writes down what it was shown (a fixture for the restart tests).

On start (after the coordinator has restored every unfinished table from its log) it makes sure
a few tables of bots are playing — one per game and player count below, fast bots, a far target
so games last — and watches every table as a spectator. Each update the witness receives becomes
one line of ``witness.txt`` in the data directory, written straight to the kernel (a SIGKILL does
not lose it):

    start PID
    seen TABLE STEP DIGEST

``DIGEST`` is the SHA-256 of the spectator's view (its ``repr``): what everybody was shown at
that step. Since a table writes an action to its log (fsync'd) before publishing it, every
``seen`` step must be in the log, and the log replayed to that step must give the same view.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path
from typing import Any

from pioche_tui.app.service import PiocheService
from pioche_tui.coordinator.core import Coordinator, Session, Settings
from pioche_tui.coordinator.mailbox import Mail
from pioche_tui.coordinator.model import Player
from pioche_tui.engine import GAMES

TABLES = (("defausse", 2), ("defausse", 4), ("collection", 3), ("collection", 5))
OPTIONS: dict[str, dict[str, Any]] = {"defausse": {"target": 1000}}


def digest(view: Any) -> str:
    return hashlib.sha256(repr(view).encode()).hexdigest()[:16]


class WitnessService(PiocheService):
    def __init__(self, coordinator: Coordinator, path: Path) -> None:
        super().__init__(coordinator)
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self._tasks: list[asyncio.Task[None]] = []
        self._sessions: list[Session] = []
        self._write(f"start {os.getpid()}")

    def _write(self, line: str) -> None:
        os.write(self._fd, (line + "\n").encode())

    def open_tables(self) -> None:
        c = self.coordinator
        for number, table in enumerate(sorted(c.tables)):  # restored ones: watch them
            self._watch(c.connect(Player(f"witness:{number}", f"Temoin{number}")), table)
        if c.tables:
            return
        for number, (game, seats) in enumerate(t for t in TABLES if t[0] in GAMES):
            creator = c.connect(Player(f"creator:{number}", f"Createur{number}"))
            table = creator.create_table(game, seats=seats, options=OPTIONS.get(game, {}),
                                         bots=dict.fromkeys(range(seats), "basic"),
                                         timer=None, sit=False)
            self._watch(creator, table)

    def _watch(self, session: Session, table: str) -> None:
        if session.table is None:
            session.watch(table)
        self._sessions.append(session)
        self._tasks.append(asyncio.create_task(self._read(session)))

    async def _read(self, session: Session) -> None:
        while True:
            mail = await session.mailbox.get()
            self._note(mail)
            if mail.closed:
                return

    def _note(self, mail: Mail) -> None:
        update = mail.table
        if update is not None and update.view is not None:
            self._write(f"seen {update.table.id} {update.step} {digest(update.view)}")

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for session in self._sessions:  # what was published but not read yet
            mail = session.mailbox.take()
            if mail is not None:
                self._note(mail)
        await super().close()
        os.close(self._fd)


async def open_service(data_dir: Path) -> WitnessService:
    coordinator = Coordinator(Settings(data_dir, bot_delay=(0.002, 0.01), turn_timer=None))
    await coordinator.start()
    service = WitnessService(coordinator, data_dir / "witness.txt")
    service.open_tables()
    return service
