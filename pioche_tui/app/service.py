"""What ``pioche serve`` runs: the coordinator and its store, and one PiocheApp per SSH session.

The server hands each session's facts (``server.session.SessionInfo``); the app reads only the
fields below, so it needs nothing from the server package (imports point server → app).

This is the embedded mode's wiring, the one module of ``app/`` that knows the coordinator
itself (tests/app/test_imports.py): it opens and stops it, gives each app a client of it
(``Coordinator.client``: the seam, ``coordinator/client.py``) and answers the SSH front's
questions through ``InProcessFront`` (``client.FrontDesk``). Nothing else here reads it.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any, Protocol

from ..coordinator.client import FrontDesk
from ..coordinator.core import Coordinator, Settings
from ..coordinator.inprocess import InProcessFront
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
    @property
    def term(self) -> str: ...
    @property
    def colorterm(self) -> str | None: ...
    @property
    def no_color(self) -> bool: ...
    @property
    def resume_token(self) -> str | None: ...
    @property
    def address(self) -> tuple[str, int] | None: ...  # the server's, as the client reached it


def split_host(text: str) -> tuple[str, int | None]:
    """``HOST``, ``HOST:PORT``, ``[IPV6]`` or ``[IPV6]:PORT`` (a bare IPv6 address is a host
    alone) as a host and a port or None. Raises ValueError on a port that is not one."""
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else None
        if rest and port is None:
            host = ""  # text after the brackets that is no port
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
    else:
        host, port = text, None
    if not host or (port is not None and not (port.isdigit() and 0 < int(port) < 65536)):
        raise ValueError(f"not a host, HOST:PORT or [IPV6]:PORT: {text!r}")
    return host, int(port) if port is not None else None


class PiocheService:
    """``public_host`` (``pioche serve --public-host HOST[:PORT]``) is the server's name as
    players reach it, for the ``ssh … resume TOKEN`` command a guest is shown. By default the
    command names the address and port the guest's own connection reached: right when players
    connect straight to the server, wrong behind a NAT or a proxy, which is what the setting is
    for. (The name the player typed is never sent by SSH.)"""

    def __init__(self, coordinator: Coordinator, public_host: str | None = None) -> None:
        self.coordinator = coordinator
        self.front: FrontDesk = InProcessFront(coordinator)
        self.retention: asyncio.Task[None] | None = None  # set by open_service
        self.public_host = split_host(public_host) if public_host else None

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
            resume_token=session.resume_token,
            peer=session.peer,
            server_address=self.address_for(session.address),
            term=session.term,
            colorterm=session.colorterm,
            no_color=session.no_color,
        )

    def address_for(self, reached: tuple[str, int] | None) -> tuple[str, int] | None:
        """The host and port to show in commands: ``public_host`` where given (with its port,
        else the one the client reached), else what the client reached."""
        if self.public_host is None:
            return reached
        host, port = self.public_host
        return (host, port if port is not None else reached[1] if reached else 22)

    def name_owner(self, nickname: str) -> str | None:
        return self.front.name_owner(nickname)

    def holds_seat(self, identity: str) -> bool:
        """A seat at a table in play or waiting for players: what a returning player finds."""
        return self.front.holds_seat(identity)

    async def close(self) -> None:
        if self.retention is not None:
            self.retention.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.retention
        self.coordinator.stop()


async def open_service(
    data_dir: Path, public_host: str | None = None, **settings: Any
) -> PiocheService:
    """The service over ``data_dir`` (tables' logs and the database), unfinished tables back,
    and the retention of ended tables' logs running (a pass now, then periodically).

    ``settings`` are the coordinator's (``turn_timer``, ``bot_delay``, ``grace``: ``pioche
    serve``'s flags); a name that is not one raises TypeError. ``public_host``: see
    ``PiocheService``."""
    coordinator = Coordinator(Settings(data_dir, **settings))
    await coordinator.start()
    service = PiocheService(coordinator, public_host)
    service.retention = asyncio.create_task(coordinator.keep_retention(), name="retention")
    return service
