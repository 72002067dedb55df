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
A line the file refuses (a file-size limit: tests/hostile/test_disk_full.py) is kept and written
when the file takes it again.

``open_hands_service`` adds tables where two players — sessions of the real coordinator, as an
app's are — keep playing and press again whenever a move is refused, as people at a keyboard
do; each such table is noted ``hands TABLE``, and every notice its players get,
``notice TABLE CODE``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import random
from pathlib import Path
from typing import Any

from pioche_tui.app.service import EmbeddedService
from pioche_tui.coordinator.core import Coordinator, Session, Settings
from pioche_tui.coordinator.mailbox import Mail
from pioche_tui.coordinator.model import Player, Refused
from pioche_tui.engine import GAMES

TABLES = (("defausse", 2), ("defausse", 4), ("collection", 3), ("collection", 5))
OPTIONS: dict[str, dict[str, Any]] = {"defausse": {"target": 1000}}


def digest(view: Any) -> str:
    return hashlib.sha256(repr(view).encode()).hexdigest()[:16]


class WitnessService(EmbeddedService):
    def __init__(self, coordinator: Coordinator, path: Path) -> None:
        super().__init__(coordinator)
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self._tasks: list[asyncio.Task[None]] = []
        self._sessions: list[Session] = []
        self._unwritten = b""  # what the file refused so far
        self._write(f"start {os.getpid()}")

    def _write(self, line: str) -> None:
        self._unwritten += (line + "\n").encode()
        try:
            while self._unwritten:
                self._unwritten = self._unwritten[os.write(self._fd, self._unwritten):]
        except OSError:
            pass  # kept for the next line

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


async def open_service(data_dir: Path, kind: type[WitnessService] = WitnessService
                       ) -> WitnessService:
    coordinator = Coordinator(Settings(data_dir, bot_delay=(0.002, 0.01), turn_timer=None))
    await coordinator.start()
    service = kind(coordinator, data_dir / "witness.txt")
    service.open_tables()
    return service


HANDS = 2  # tables of two players who keep pressing keys


class HandsService(WitnessService):
    def open_tables(self) -> None:
        super().open_tables()
        c = self.coordinator
        for number in range(HANDS):
            # Back in their seats after a restart, or seated at a new table.
            hands = [c.connect(Player(f"hand:{number}:{seat}", f"Main{number}{seat}"))
                     for seat in range(2)]
            if hands[0].table is None:
                table = hands[0].create_table("defausse", seats=2, options=OPTIONS["defausse"],
                                              timer=None)
                hands[1].join(table)
                self._watch(c.connect(Player(f"witness:hands{number}", f"TemoinM{number}")),
                            table)
            assert hands[0].table is not None
            self._write(f"hands {hands[0].table.id}")
            for seat, hand in enumerate(hands):
                self._tasks.append(asyncio.create_task(self._play(hand, random.Random(seat))))

    async def _play(self, session: Session, rng: random.Random) -> None:
        """Play whenever it is this seat's turn, and again whenever a move is refused."""
        while session.open:
            table, seat = session.table, session.seat
            if table is not None and seat is not None and table.status == "playing" and (
                seat in table.game.to_act(table.state)
            ):
                legal = table.game.legal_actions(table.state, seat)
                action = table.game.bot("basic").choose(table.state, seat, legal, rng)
                with contextlib.suppress(Refused):  # paused, or changed: press again
                    session.act(action, table.step)
            for notice in (mail.notices if (mail := session.mailbox.take()) else ()):
                self._write(f"notice {table.id if table else '-'} {notice.code}")
            await asyncio.sleep(0.002)


async def open_hands_service(data_dir: Path) -> WitnessService:
    return await open_service(data_dir, HandsService)
