"""What an SSH front runs: one PiocheApp per SSH session, over a coordinator.

The server hands each session's facts (``server.session.SessionInfo``); the app reads only the
fields below, so it needs nothing from the server package (imports point server → app).

``PiocheService`` works over a ``client.FrontDesk`` and the apps' clients alone: the same
service runs in ``pioche serve`` (the embedded coordinator, ``InProcessFront``) and in each
``pioche front`` (its coordinator over the bus: ``server/front.py``). This is also the embedded
mode's wiring, the one module of ``app/`` that knows the coordinator itself
(tests/app/test_imports.py): ``open_service`` opens it, and ``EmbeddedService`` asks it through
``InProcessFront``. Nothing else here reads it.
"""

from __future__ import annotations

import asyncio
import contextlib
import textwrap
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rich.cells import cell_len

from ..coordinator.client import CoordinatorClient, FrontDesk
from ..coordinator.control import ControlServer
from ..coordinator.core import Coordinator, Settings
from ..coordinator.inprocess import InProcessFront
from ..coordinator.model import GuestPass, Player, Refused
from ..i18n import Catalogue, pick_lang
from .app import PiocheApp
from .colours import terminal_depth
from .prefs import Preferences

if TYPE_CHECKING:
    from nats.aio.client import Client


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
    def join_table(self) -> str | None: ...
    @property
    def join_code(self) -> str | None: ...
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


@dataclass(frozen=True)
class Held:
    """What a spectator holds while they share a screen (``PiocheService.join``): their own
    watching session's open client, their guest pass if they are a guest, and the language
    their screens speak (their settings', else their terminal's)."""

    client: CoordinatorClient
    guest_pass: GuestPass | None
    lang: str


class _Handed:
    """A connector handing over a client opened already (``client.Connector``): a spectator's
    own watching session, for the app they get when they leave a shared screen, or a table's
    mirror, for the app of a shared screen. The app finds its client open and takes the
    session as it is (``PiocheApp.on_mount``)."""

    def __init__(self, client: CoordinatorClient) -> None:
        self._client = client

    def client(self) -> CoordinatorClient:
        return self._client


class PiocheService:
    """The apps of an SSH front, over its coordinator's ``desk`` (``client.FrontDesk``).
    Everything goes through the desk and the apps' clients, so that the same service runs
    embedded (``EmbeddedService``) and on a front over the bus (``pioche front``).

    ``public_host`` (``pioche serve --public-host HOST[:PORT]``) is the server's name as
    players reach it, for the ``ssh … resume TOKEN`` command a guest is shown. By default the
    command names the address and port the guest's own connection reached: right when players
    connect straight to the server, wrong behind a NAT or a proxy, which is what the setting is
    for. (The name the player typed is never sent by SSH.)"""

    def __init__(self, desk: FrontDesk, public_host: str | None = None) -> None:
        self.desk = desk
        self.public_host = split_host(public_host) if public_host else None

    def make_app(self, session: SessionFacts, held: CoordinatorClient | None = None,
                 guest_pass: GuestPass | None = None) -> PiocheApp:
        """``session``'s app; on the open client ``held``, as it is, if given (see PiocheApp):
        then it asks for no table (the session is at its own already); ``guest_pass`` is that
        session's, for a guest."""
        guest = session.identity is None
        app = PiocheApp(
            self.desk.connector() if held is None else _Handed(held),
            identity=self._identity(session),
            name=None if session.must_ask_nickname else session.nickname,
            guest=guest,
            watch_only=session.watch_only,
            watch_table=None if held is not None else session.watch_table,
            join_table=None if held is not None else session.join_table,
            join_code=session.join_code,
            lang=session.lang,
            resume_token=session.resume_token,
            peer=session.peer,
            server_address=self.address_for(session.address),
            term=session.term,
            colorterm=session.colorterm,
            no_color=session.no_color,
        )
        if held is not None:
            app.guest_pass = guest_pass
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

    async def join(self, session: SessionFacts) -> tuple[Hashable, Held] | None:
        """The screen ``session`` shares, and what it holds meanwhile: its own watching
        session, as its app would open it (``PiocheApp``'s ``connect``: named, counted,
        remembered). None if it may not share (it gets an app of its own, which says why it
        cannot watch, if it cannot)."""
        if not session.watch_only or session.watch_table is None or session.resume_token:
            return None
        table = self.desk.table(session.watch_table)
        if table is None or table.status == "closed" or table.private:
            return None
        client = self.desk.connector().client()
        try:
            prefs = Preferences.from_dict(await client.preferences(self._identity(session)))
            lang = prefs.lang or pick_lang(session.lang)
            if prefs.colours == "auto":
                colours = (terminal_depth(session.term, session.colorterm), session.no_color)
            else:
                colours = (prefs.colours, False)
            guest_pass = await client.guest_pass() if session.identity is None else None
            identity = guest_pass.identity if guest_pass is not None else self._identity(session)
            name = session.nickname or Catalogue(lang)("watcher.name")
            place = await client.connect(
                Player(identity, name, guest_pass is not None, True, session.peer), guest_pass)
            if place.table is not None:  # (brought back to the table watched last time)
                await client.leave()
            await client.watch(session.watch_table)
        except Refused:
            await client.close()
            return None
        return (table.id, lang, colours), Held(client, guest_pass, lang)

    async def shared_app(self, session: SessionFacts) -> PiocheApp | None:
        """The app of a shared screen: ``session``'s settings, on the table's ``mirror``."""
        assert session.watch_table is not None
        try:
            mirror = await self.desk.mirror(session.watch_table)
        except Refused:
            return None
        return self.make_app(session, mirror)

    def own_app(self, session: SessionFacts, held: object) -> PiocheApp:
        """The spectator's own app, on their watching session as it is: its mailbox, never
        read while they shared, holds the table's update with its history."""
        assert isinstance(held, Held)
        return self.make_app(session, held.client, held.guest_pass)

    async def discard(self, app: Any) -> None:
        """An app that will not run (any more): the session it was handed (``make_app``'s
        ``held``) and has not taken (no lobby yet) is closed."""
        assert isinstance(app, PiocheApp)
        if app.lobby is None:
            await app.client.close()

    async def release(self, held: object) -> None:
        assert isinstance(held, Held)
        await held.client.close()

    def shows(self, app: Any) -> bool:
        """The app shows its session's table (its screen is up), or the lobby if it has no
        table (any more)."""
        assert isinstance(app, PiocheApp)
        table_id = app.client.table_id
        if table_id is None:
            return app.lobby is not None and app.lobby.is_mounted
        screen = app.table_screen
        return screen is not None and screen.ready and screen.table_id == table_id

    def quit_question(self, held: object, size: tuple[int, int], yes: bool) -> str:
        """The question Ctrl+Q asks a spectator (``PiocheApp.action_quit``: « Quitter Pioche ? »,
        nothing to lose), drawn over their shared screen as the ``Confirm`` dialog lays it out
        (60 columns, centred, round border, the two buttons, the keys), in bold, reverse and
        dim only: right on every colour depth. ``yes``: « Oui » is highlighted, else « Non »."""
        assert isinstance(held, Held)
        t = Catalogue(held.lang)
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
        assert isinstance(app, PiocheApp)
        return app.client.table_id is None

    def address_for(self, reached: tuple[str, int] | None) -> tuple[str, int] | None:
        """The host and port to show in commands: ``public_host`` where given (with its port,
        else the one the client reached), else what the client reached."""
        if self.public_host is None:
            return reached
        host, port = self.public_host
        return (host, port if port is not None else reached[1] if reached else 22)

    async def name_owner(self, nickname: str) -> str | None:
        return await self.desk.name_owner(nickname)

    def holds_seat(self, identity: str) -> bool:
        """A seat at a table in play or waiting for players: what a returning player finds."""
        return self.desk.holds_seat(identity)

    async def banned(self, identity: str | None, address: str) -> str | None:
        """Why this login is refused (an admin's ban), or None."""
        return await self.desk.banned(identity, address)

    async def close(self) -> None:
        await self.desk.close()


class EmbeddedService(PiocheService):
    """The service of ``pioche serve``: over ``coordinator``, this process's own."""

    def __init__(self, coordinator: Coordinator, public_host: str | None = None) -> None:
        super().__init__(InProcessFront(coordinator), public_host)
        self.coordinator = coordinator
        self.retention: asyncio.Task[None] | None = None  # set by open_service
        self.control: ControlServer | None = None  # ``pioche admin``'s socket: open_service

    async def close(self) -> None:
        if self.control is not None:
            self.control.close()
        if self.retention is not None:
            self.retention.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.retention
        await super().close()


async def open_service(
    data_dir: Path, public_host: str | None = None, bus: Client | None = None,
    restore: bool = True, **settings: Any
) -> EmbeddedService:
    """The service over ``data_dir`` (tables' logs and the database), unfinished tables back,
    the retention of ended tables' logs running (a pass now, then periodically), and the
    control socket of ``pioche admin`` open (``coordinator/control.py``).

    ``settings`` are the coordinator's (``turn_timer``, ``bot_delay``, ``grace``: ``pioche
    serve``'s flags); a name that is not one raises TypeError. ``public_host``: see
    ``PiocheService``. ``bus``: the coordinator's connection to the bus (``pioche
    coordinator``), where its tables' logs are with ``logs="jetstream"`` (ValueError without
    one). ``restore`` False: no table brought back here (``Coordinator.start``)."""
    coordinator = Coordinator(Settings(data_dir, **settings))
    await coordinator.start(bus, restore)
    service = EmbeddedService(coordinator, public_host)
    service.retention = asyncio.create_task(coordinator.keep_retention(), name="retention")
    service.control = ControlServer(coordinator, data_dir)
    await service.control.start()
    return service
