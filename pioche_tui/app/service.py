"""What ``pioche serve`` runs: the coordinator and its store, and one PiocheApp per SSH session.

The server hands each session's facts (``server.session.SessionInfo``); the app reads only the
fields below, so it needs nothing from the server package (imports point server → app).
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any, Protocol

from ..coordinator.core import Coordinator, Settings
from .app import PiocheApp


class SessionFacts(Protocol):
    """The fields of the server's ``SessionInfo`` the app uses."""

    @property
    def identity(self) -> str | None: ...  # a key's ``SHA256:…``; None for a guest
    @property
    def nickname(self) -> str | None: ...
    @property
    def must_ask_nickname(self) -> bool: ...
    @property
    def watch_only(self) -> bool: ...
    @property
    def watch_table(self) -> str | None: ...
    @property
    def peer(self) -> str: ...
    @property
    def lang(self) -> str | None: ...


class PiocheService:
    def __init__(self, coordinator: Coordinator) -> None:
        self.coordinator = coordinator
        self.retention: asyncio.Task[None] | None = None  # set by open_service

    def make_app(self, session: SessionFacts) -> PiocheApp:
        guest = session.identity is None
        return PiocheApp(
            self.coordinator,
            identity=session.peer if guest else str(session.identity),
            name=None if session.must_ask_nickname else session.nickname,
            guest=guest,
            watch_only=session.watch_only,
            watch_table=session.watch_table,
            lang=session.lang,
            address=session.peer,
        )

    def name_owner(self, nickname: str) -> str | None:
        db = self.coordinator.db
        return db.name_owner(nickname) if db is not None else None

    def holds_seat(self, identity: str) -> bool:
        """A seat at a table in play or waiting for players: what a returning player finds."""
        return any(
            table.status in ("playing", "waiting") and table.seat_of(identity) is not None
            for table in self.coordinator.tables.values()
        )

    async def close(self) -> None:
        if self.retention is not None:
            self.retention.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.retention
        self.coordinator.stop()


async def open_service(data_dir: Path, **settings: Any) -> PiocheService:
    """The service over ``data_dir`` (tables' logs and the database), unfinished tables back,
    and the retention of ended tables' logs running (a pass now, then periodically).

    ``settings`` are the coordinator's (``turn_timer``, ``bot_delay``, ``grace``: ``pioche
    serve``'s flags); a name that is not one raises TypeError."""
    coordinator = Coordinator(Settings(data_dir, **settings))
    await coordinator.start()
    service = PiocheService(coordinator)
    service.retention = asyncio.create_task(coordinator.keep_retention(), name="retention")
    return service
