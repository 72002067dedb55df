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
import textwrap
from collections.abc import Hashable
from pathlib import Path
from typing import Any, Protocol

from rich.cells import cell_len

from ..coordinator.client import FrontDesk
from ..coordinator.core import Coordinator, Session, Settings
from ..coordinator.inprocess import InProcessClient, InProcessFront, Opened
from ..coordinator.model import Player, Refused
from ..i18n import Catalogue, pick_lang
from .app import PiocheApp
from .colours import terminal_depth
from .prefs import Preferences


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


QUESTION_WIDTH = 60  # the dialogs' width (dialogs.tcss)
BUTTON_WIDTH = 14  # a compact button's, as the dialog shows it


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

    def make_app(self, session: SessionFacts, held: Session | None = None) -> PiocheApp:
        """``session``'s app; on the coordinator session ``held`` as it is, if given (see
        PiocheApp): then it asks for no table (the session is at its own already)."""
        guest = session.identity is None
        app = PiocheApp(
            self.coordinator if held is None else Opened(self.coordinator, held),
            identity=self._identity(session),
            name=None if session.must_ask_nickname else session.nickname,
            guest=guest,
            watch_only=session.watch_only,
            watch_table=None if held is not None else session.watch_table,
            lang=session.lang,
            resume_token=session.resume_token,
            peer=session.peer,
            server_address=self.address_for(session.address),
            term=session.term,
            colorterm=session.colorterm,
            no_color=session.no_color,
        )
        if held is not None:
            app.guest_pass = held.guest_pass
        return app

    @staticmethod
    def _identity(session: SessionFacts) -> str:
        """The app's identity: a key's fingerprint, or a guest's address."""
        return session.peer if session.identity is None else str(session.identity)

    # Spectators who share a screen (the server's ``Sharing``: server/share.py). Shared: a
    # ``watch TABLE`` session of a table anyone may watch. Their screen depends on the table,
    # the language and the colours they get (their settings, else their terminal's: as
    # ``PiocheApp.colours``, before the operator's cap, which is the same for everyone), and on
    # the size of their terminal (the server's part of the key).

    def share_key(self, session: SessionFacts) -> Hashable | None:
        if not session.watch_only or session.watch_table is None or session.resume_token:
            return None
        table = self.coordinator.tables.get(session.watch_table.strip().upper())
        if table is None or table.status == "closed" or table.private:
            return None  # (its own app says why it cannot watch)
        prefs = self._prefs(session)
        lang = prefs.lang or pick_lang(session.lang)
        if prefs.colours == "auto":
            colours = (terminal_depth(session.term, session.colorterm), session.no_color)
        else:
            colours = (prefs.colours, False)
        return (table.id, lang, colours)

    def _prefs(self, session: SessionFacts) -> Preferences:
        return Preferences.from_dict(self.coordinator.preferences(self._identity(session)))

    def join(self, session: SessionFacts) -> Session | None:
        """The spectator's own watching session, as their app would open it (``PiocheApp``'s
        ``connect``): named, counted, remembered; None if the table cannot be watched."""
        coordinator = self.coordinator
        guest_pass = coordinator.guest_pass() if session.identity is None else None
        identity = guest_pass.identity if guest_pass is not None else self._identity(session)
        name = session.nickname or Catalogue(
            self._prefs(session).lang or pick_lang(session.lang))("watcher.name")
        held = coordinator.connect(
            Player(identity, name, guest_pass is not None, True, session.peer), guest_pass)
        try:
            if held.table is not None:  # (brought back to the table watched last time)
                held.leave()
            assert session.watch_table is not None
            held.watch(session.watch_table)
        except Refused:
            held.close()
            return None
        return held

    def shared_app(self, session: SessionFacts) -> PiocheApp | None:
        """The app of a shared screen: ``session``'s settings, on the table's ``mirror``."""
        assert session.watch_table is not None
        try:
            mirror = self.coordinator.mirror(session.watch_table)
        except Refused:
            return None
        return self.make_app(session, mirror)

    def own_app(self, session: SessionFacts, held: object) -> PiocheApp:
        """The spectator's own app, on their watching session as it is: its mailbox, never
        read while they shared, holds the table's update with its history."""
        assert isinstance(held, Session)
        return self.make_app(session, held)

    def discard(self, app: Any) -> None:
        """An app that will not run (any more): the session it was handed (``make_app``'s
        ``held``) and has not taken (no lobby yet) is closed."""
        session = self._session_of(app)
        if session is not None and app.lobby is None:
            session.close()

    def release(self, held: object) -> None:
        assert isinstance(held, Session)
        held.close()

    def shows(self, app: Any) -> bool:
        """The app shows its session's table (its screen is up), or the lobby if it has no
        table (any more)."""
        session = self._session_of(app)
        if session is None:
            return False
        if session.table is None:
            return app.lobby is not None and app.lobby.is_mounted
        screen = app.table_screen
        return screen is not None and screen.ready and screen.table_id == session.table.id

    def quit_question(self, session: SessionFacts, size: tuple[int, int], yes: bool) -> str:
        """The question Ctrl+Q asks a spectator (``PiocheApp.action_quit``: « Quitter Pioche ? »,
        nothing to lose), drawn over their shared screen as the ``Confirm`` dialog lays it out
        (60 columns, centred, round border, the two buttons, the keys), in bold, reverse and
        dim only: right on every colour depth. ``yes``: « Oui » is highlighted, else « Non »."""
        t = Catalogue(self._prefs(session).lang or pick_lang(session.lang))
        width, height = size
        outer = min(QUESTION_WIDTH, width)
        inner = max(outer - 6, 1)  # (border and padding: 1 + 2 each side)
        # The two buttons as the dialog places them: BUTTON_WIDTH cells each (at least),
        # their label centred, 2 cells of margin on each side, the pair centred.
        shown, plain = "", 0
        for text, lit in ((t("confirm.yes"), yes), (t("confirm.no"), not yes)):
            button = max(BUTTON_WIDTH, cell_len(text) + 2)
            before = (button - cell_len(text)) // 2 - 1
            label = f"\x1b[1;7m {text} \x1b[0m" if lit else f" {text} "
            shown += "  " + " " * before + label + " " * (button - before - cell_len(text) - 2)
            shown += "  "
            plain += button + 4
        indent = max((inner - plain) // 2, 0)
        rows = [("", 0)]
        rows += [(f"\x1b[1m{line}\x1b[0m", cell_len(line))
                 for line in textwrap.wrap(t("confirm.quit"), inner)]
        rows += [("", 0), (" " * indent + shown, indent + plain), ("", 0)]
        rows += [(f"\x1b[2m{line}\x1b[0m", cell_len(line))
                 for line in textwrap.wrap(t("confirm.keys"), inner)]
        rows.append(("", 0))
        top = max((height - len(rows) - 2) // 2, 0)
        left = max((width - outer) // 2, 0)
        out = [f"\x1b[{top + 1};{left + 1}H\x1b[0m╭{'─' * (outer - 2)}╮"]
        for number, (text, cells) in enumerate(rows, start=top + 2):
            pad = " " * max(inner - cells, 0)
            out.append(f"\x1b[{number};{left + 1}H│  {text}{pad}  │")
        out.append(f"\x1b[{top + len(rows) + 2};{left + 1}H╰{'─' * (outer - 2)}╯")
        return "".join(out)

    def lost_table(self, app: Any) -> bool:
        session = self._session_of(app)
        return session is not None and session.table is None

    @staticmethod
    def _session_of(app: Any) -> Session | None:
        """The coordinator session an app of this service holds (its in-process client's)."""
        assert isinstance(app, PiocheApp) and isinstance(app.client, InProcessClient)
        return app.client.session

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
