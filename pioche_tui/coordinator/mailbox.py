"""A session's mailbox: the newest of each kind of news, never a growing queue.

The coordinator writes, the session's app reads. However slow the reader, a mailbox holds one
lobby snapshot, one table update (whose events pile up to a cap, newest kept; the table's
history it carries after subscribing is bounded by the table), and the last few chat lines and
notices: memory stays bounded whatever a client does.

A table update's ``time_left`` is the turn's time left when it was put; ``take`` takes off the
time it waited here (on this process's monotonic clock, which never leaves the mailbox), so the
reader gets the time left as it reads: the moment the update crosses to it.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass, replace

from .model import ChatLine, LobbySnapshot, TableUpdate

MAX_EVENTS = 64  # events kept in one pending update: more than a screen's log shows
MAX_CHAT = 50
MAX_NOTICES = 8


@dataclass(frozen=True, slots=True)
class Notice:
    """A one-off message for the session's screen (``code`` for translation, as Refused)."""

    code: str
    text: str


@dataclass(frozen=True, slots=True)
class Mail:
    """Everything that arrived since the last read; None or empty where nothing did."""

    lobby: LobbySnapshot | None
    table: TableUpdate | None
    left_table: bool  # the session's table is gone (left, closed, moved elsewhere)
    chat: tuple[ChatLine, ...]
    notices: tuple[Notice, ...]
    closed: bool  # the coordinator ended this session (server stopping, replaced)


def waited(update: TableUpdate, seconds: float) -> TableUpdate:
    """``update`` with the ``seconds`` it waited taken off its durations (the turn's time
    left, a rematch's)."""
    if update.time_left is not None:
        update = replace(update, time_left=max(0.0, update.time_left - seconds))
    if update.rematch_left is not None:
        update = replace(update, rematch_left=max(0.0, update.rematch_left - seconds))
    return update


class Mailbox:
    def __init__(self) -> None:
        self._lobby: LobbySnapshot | None = None
        self._table: TableUpdate | None = None
        self._table_put = 0.0  # time.monotonic() when _table was put
        self._left_table = False
        self._chat: deque[ChatLine] = deque(maxlen=MAX_CHAT)
        self._notices: deque[Notice] = deque(maxlen=MAX_NOTICES)
        self._closed = False
        self._ready = asyncio.Event()

    def put_lobby(self, snapshot: LobbySnapshot) -> None:
        self._lobby = snapshot
        self._ready.set()

    def put_table(self, update: TableUpdate) -> None:
        pending = self._table
        if pending is not None and pending.table.id == update.table.id:
            if pending.events:
                update = replace(update, events=(pending.events + update.events)[-MAX_EVENTS:])
            if pending.history and not update.history:  # (sent once: kept until read)
                update = replace(update, history=pending.history)
        self._table = update
        self._table_put = time.monotonic()
        self._left_table = False
        self._ready.set()

    def put_left_table(self) -> None:
        self._table = None
        self._left_table = True
        self._ready.set()

    def put_chat(self, line: ChatLine) -> None:
        self._chat.append(line)
        self._ready.set()

    def put_notice(self, notice: Notice) -> None:
        self._notices.append(notice)
        self._ready.set()

    def close(self) -> None:
        self._closed = True
        self._ready.set()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def pending(self) -> bool:
        """News waits to be taken."""
        return self._ready.is_set()

    def take(self) -> Mail | None:
        """What is waiting, or None if nothing is; never blocks."""
        if not self._ready.is_set():
            return None
        table = self._table
        if table is not None:
            table = waited(table, time.monotonic() - self._table_put)
        mail = Mail(
            self._lobby, table, self._left_table, tuple(self._chat),
            tuple(self._notices), self._closed,
        )
        self._lobby = self._table = None
        self._left_table = False
        self._chat.clear()
        self._notices.clear()
        self._ready.clear()
        return mail

    async def get(self) -> Mail:
        """Wait for news and take it all."""
        while True:
            await self._ready.wait()
            mail = self.take()
            if mail is not None:
                return mail
