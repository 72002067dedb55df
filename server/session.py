"""The seam between the SSH server and the app: what a session is, and what the server asks of
the app.

The server builds one ``SessionInfo`` per connection and calls ``make_app(info)`` (an
``AppFactory``) to get the Textual app it runs for that connection. When the server stops, it posts
``ServerShutdown`` to every app, waits ``grace`` seconds for them to exit, then makes them exit.
An app that sets a ``farewell`` text before it exits has it written on the client's terminal once
its screen is gone (``farewell_of``).
"""

from __future__ import annotations

import itertools
import os
import secrets
from collections.abc import Awaitable, Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from textual.app import App
from textual.message import Message

_tag = secrets.token_hex(4)
_numbers: Iterator[int] = itertools.count(1)


def _forked() -> None:
    # A forked child is another process: its sessions must not take its parent's ids.
    global _tag, _numbers
    _tag, _numbers = secrets.token_hex(4), itertools.count(1)


os.register_at_fork(after_in_child=_forked)


def process_tag() -> str:
    """This process's part of every session id: 8 hex digits drawn at start (and again in a
    forked child), logged with the pid when the server starts listening. Random, not the pid:
    pids repeat across machines (the fronts of a cluster) and across restarts on one machine (a
    log covering several runs); a 32-bit random tag practically never does."""
    return _tag


def new_session_id() -> str:
    """``"TAG-N"``: this process's tag and its N-th session (counted across every server of
    the process), unique across the processes that serve one game."""
    return f"{_tag}-{next(_numbers)}"


@dataclass(frozen=True)
class SessionInfo:
    """One SSH session, as the app sees it. Every text field is already sanitised."""

    session_id: str
    """``"TAG-N"`` (``new_session_id``): unique across processes, stable for the session's
    life. Opaque: compare it, log it, never parse it."""
    identity: str | None
    """SHA256 fingerprint (``SHA256:…``) of the key the client signed with; None for a guest."""
    nickname: str | None
    """The nickname the SSH username asks for (see ``identity.sanitize_nickname``); None when the
    app must ask (invalid, a default login name like ``root``, or bound to someone else's key), and
    for ``watch@`` sessions."""
    must_ask_nickname: bool
    """The app must ask this player for a nickname before they sit or chat. Never for watchers."""
    watch_only: bool
    """``watch@host`` (with no command) or the ``watch [TABLE]`` command: browse and watch, never
    sit or chat."""
    watch_table: str | None
    """The table ``watch TABLE`` asked for, as typed (letters, digits, ``_-``); None otherwise."""
    peer: str
    """The client's IP address."""
    term: str
    """The client's TERM, sanitised (``xterm-256color`` when absent or odd)."""
    lang: str | None
    """LC_ALL, LC_MESSAGES or LANG as the client sent it (``fr_FR.UTF-8``), or None."""
    size: tuple[int, int]
    """Terminal size (columns, rows) at connection, clamped to the server's limits."""
    resume_token: str | None = None
    """``resume TOKEN``: the reconnect token a guest gives to get their seat back (lower case,
    words joined by « - », not checked yet: the coordinator knows the tokens); None otherwise."""
    address: tuple[str, int] | None = None
    """The server's address and port as this client reached them, for the commands the app
    shows (``ssh -t -p PORT HOST resume TOKEN``); None when unknown."""
    colorterm: str | None = None
    """The client's COLORTERM, sanitised (``truecolor``, ``24bit``), or None when not sent (OpenSSH
    sends it only when told: ``SendEnv COLORTERM``)."""
    no_color: bool = False
    """The client sent NO_COLOR, not empty (``ssh -o SetEnv=NO_COLOR=1``): no colours."""
    join_table: str | None = None
    """The table ``join TABLE [CODE]`` asked for, as typed (letters, digits, ``_-``)."""
    join_code: str | None = None
    """That table's code, as typed, if given."""

    @property
    def guest(self) -> bool:
        """No key: the player came in through keyboard-interactive auth."""
        return self.identity is None


def nickname_of(app: App[Any] | None) -> str | None:
    """The name the app's session ended with (its ``player_name``: the one the player chose,
    or the coordinator gave), if it says."""
    name = getattr(app, "player_name", None)
    return name if isinstance(name, str) and name.isprintable() else None


def farewell_of(app: App[Any] | None, attribute: str = "farewell") -> str | None:
    """Why the app ended its session, if it says (its ``farewell`` attribute, a line of text:
    « Vous vous êtes connecté ailleurs. »), printable characters only. The server writes it
    after the app has left the alternate screen, so that it stays on the player's terminal
    once the connection is closed. When the server stops it writes its own line instead, and
    then the app's ``way_back`` if it has one (a guest's resume command)."""
    text = getattr(app, attribute, None)
    if not isinstance(text, str):
        return None
    return "".join(char for char in text if char.isprintable()).strip() or None


AppFactory = Callable[[SessionInfo], App[Any]]
"""Builds the app for one session. Called on the server's event loop; must not block."""

NameOwner = Callable[[str], str | Awaitable[str | None] | None]
"""Who owns a nickname: the owner's key fingerprint, or None if the name is free. Called once per
session on the event loop (a quick SQLite lookup is fine), and awaited if it returns an
awaitable (a front asks its coordinator over the bus: ``pioche front``)."""


BanCheck = Callable[[str | None, str], Awaitable[str | None]]
"""Why a login with this key (None: a guest) from this address is refused (an operator's ban),
or None. Awaited once per session, before its app starts."""


SeatHolder = Callable[[str], bool]
"""Whether the player with this key (its ``SHA256:…`` fingerprint) has a seat at a table in play
or waiting for players: a returning player, let in even when the server is full. Called at most
twice per login on the event loop; must be quick."""


class Sharing(Protocol):
    """What the server asks of the app to let spectators share a screen (server/share.py).

    Sessions that ``join`` with the same key (and whose terminals have the same size) see the
    same screen: one app, built by ``shared_app``, paints it for all of them. Each such session
    still holds what a viewer holds (their own watching session, counted and named as any
    spectator's); when it needs a screen of its own (a key), ``own_app`` builds its app on
    what it holds. ``shows`` says when an app shows what its viewers expect (the table):
    until then its frames are kept from them.

    What may ask the coordinator is awaitable (over the bus it is a request: ``pioche
    front``); what the server asks in its synchronous callbacks is not, and answers from what
    the app and its client know already.
    """

    async def join(self, session: SessionInfo) -> tuple[Hashable, object] | None:
        """What decides the screen this session sees, and what the viewer holds while sharing
        (opened now); None when it must have its own app."""

    async def shared_app(self, session: SessionInfo) -> App[Any] | None:
        """An app showing the screen of ``session``'s key, to be shared; None if it cannot."""

    def own_app(self, session: SessionInfo, held: object) -> App[Any]:
        """The viewer's own app, taking over what ``join`` opened, on the same screen."""

    async def discard(self, app: App[Any]) -> None:
        """A shared ``app`` has ended, or will never run: let go of what it was made with
        (nothing if it ran and let go of it itself)."""

    async def release(self, held: object) -> None:
        """The viewer left while sharing: close what ``join`` opened."""

    def shows(self, app: App[Any]) -> bool:
        """``app`` shows what its viewers expect (the table, or the lobby if it is gone)."""

    def quit_question(self, held: object, size: tuple[int, int], yes: bool) -> str:
        """Escape codes that draw, over a shared screen of ``size``, the question the quit key
        of the viewer holding ``held`` asks (« Quitter Pioche ? »); ``yes``: its « yes » is
        highlighted."""

    def lost_table(self, app: App[Any]) -> bool:
        """A shared ``app`` no longer shows the table it was made for (the table closed)."""


class ServerShutdown(Message):
    """Posted to every running app when the server stops.

    Handle it on the App (``def on_server_shutdown(self, message)``: Textual dispatches by name,
    so the app need not import this module): tell the player, then ``self.exit()`` within
    ``grace`` seconds. An app that has not exited by then is made to exit; its session then gets
    a one-line goodbye and is closed.
    """

    def __init__(self, grace: float) -> None:
        super().__init__()
        self.grace = grace


class Service(Protocol):
    """What ``pioche serve`` runs: the app behind the server, with its coordinator and store.

    ``pioche serve --app MODULE:FUNCTION`` calls ``FUNCTION(data_dir)`` on the running event loop
    (with keyword arguments for the coordinator's settings it was given: ``ServiceOpener``)
    to open it (awaiting it if it is a coroutine), and ``await service.close()`` once every
    session has ended (flush the table logs, close SQLite there).
    """

    def make_app(self, session: SessionInfo) -> App[Any]: ...

    def name_owner(self, nickname: str) -> str | Awaitable[str | None] | None: ...

    def holds_seat(self, identity: str) -> bool: ...

    async def close(self) -> None: ...


ServiceOpener = Callable[..., Service | Awaitable[Service]]
"""``opener(data_dir, **settings)``: ``settings`` holds the coordinator's settings that
``pioche serve`` was given (``turn_timer``, ``bot_delay``, ``grace``), none by default."""
