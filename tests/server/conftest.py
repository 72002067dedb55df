"""Real SSH clients (asyncssh, with a pty) against a real server on 127.0.0.1, port 0."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import re
import unicodedata
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import asyncssh
import pytest

from server.driver import configure_textual
from server.limits import Limits
from server.ssh import PiocheServer
from tests.server.demo_app import DemoService
from tests.server.process import LikeOpenSSH

WAIT = 10.0  # seconds any expected screen may take to appear (a loaded CI machine)


class Screen:
    """Just enough of a terminal to read what Textual draws: cursor moves and text.

    Textual paints with absolute cursor positioning (CSI row;col H) and styled text; every other
    sequence (styles, modes, queries) changes no character, so it is skipped. A sequence cut
    between two feeds (its bytes came in two reads) waits for its end, as in a terminal: fed
    as text, its tail would draw characters nobody sent (« [1;38;5;58m » beside « jaune »).
    """

    _SEQUENCE = re.compile(
        r"\x1b\[(?P<params>[0-9;?<>=$]*)[ -/]*(?P<final>[@-~])"  # CSI
        r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC
        r"|\x1b[^\[\]]"  # any other escape
    )
    _UNFINISHED = re.compile(r"\x1b(?:\[[0-9;?<>=$]*[ -/]*|\][^\x07\x1b]*\x1b?)?\Z")

    def __init__(self, width: int = 80, height: int = 24) -> None:
        self._pending = ""  # the start of a sequence cut by the end of the last feed
        self.resize(width, height)

    def resize(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.rows = [[" "] * width for _ in range(height)]
        self.x = self.y = 0

    def feed(self, text: str) -> None:
        text, self._pending = self._pending + text, ""
        position = 0
        for match in self._SEQUENCE.finditer(text):
            self._put(text[position : match.start()])
            position = match.end()
            if match["final"] == "H":
                row, _, col = (match["params"] or "1;1").partition(";")
                self.y = max(int(row or 1) - 1, 0)
                self.x = max(int(col or 1) - 1, 0)
        rest = text[position:]
        if cut := self._UNFINISHED.search(rest):
            rest, self._pending = rest[: cut.start()], rest[cut.start() :]
        self._put(rest)

    def _put(self, text: str) -> None:
        for char in text:
            if char == "\r":
                self.x = 0
            elif char == "\n":
                self.y += 1
            elif unicodedata.combining(char):  # joins the character before, as terminals do
                if self.x and self.y < self.height and self.x <= self.width:
                    self.rows[self.y][self.x - 1] += char
            elif char >= " ":
                if self.y < self.height and self.x < self.width:
                    self.rows[self.y][self.x] = char
                self.x += 1

    def text(self) -> str:
        return "\n".join("".join(row).rstrip() for row in self.rows)


class Client(asyncssh.SSHClientSession[bytes]):
    """One session as a player sees it: what the server wrote, on a screen, and on stderr."""

    def __init__(self) -> None:
        self.raw = bytearray()
        self.stderr = bytearray()
        self.screen = Screen()
        self._decode = codecs.getincrementaldecoder("utf-8")("replace").decode
        self._changed = asyncio.Event()
        self.chan: asyncssh.SSHClientChannel[bytes] | None = None
        self.conn: asyncssh.SSHClientConnection | None = None
        self.closed = asyncio.Event()

    def connection_made(self, chan: asyncssh.SSHClientChannel[bytes]) -> None:
        self.chan = chan

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        if datatype == asyncssh.EXTENDED_DATA_STDERR:
            self.stderr += data
        else:
            self.raw += data
            self.screen.feed(self._decode(data))
        self._changed.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed.set()
        self._changed.set()

    @property
    def output(self) -> str:
        """Everything written to stdout, escapes and all."""
        return bytes(self.raw).decode("utf-8", "replace")

    async def wait_for(
        self, check: str | Callable[[str], bool], timeout: float = WAIT
    ) -> str:
        """Wait until the screen shows ``check`` (a text, or a test of the whole screen)."""
        test = check if callable(check) else (lambda screen: check in screen)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not test(self.screen.text()):
            self._changed.clear()
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"never shown: {check!r}; screen:\n{self.screen.text()}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)
        return self.screen.text()

    def send(self, data: str | bytes) -> None:
        assert self.chan is not None
        self.chan.write(data.encode() if isinstance(data, str) else data)

    def resize(self, width: int, height: int) -> None:
        assert self.chan is not None
        self.chan.change_terminal_size(width, height)
        self.screen.resize(min(width, 400) or 80, min(height, 200) or 24)

    async def finished(self) -> int | None:
        """Wait for the channel to close; the exit status the server sent."""
        await asyncio.wait_for(self.closed.wait(), WAIT)
        assert self.chan is not None
        return self.chan.get_exit_status()


Connect = Callable[..., Awaitable[Client]]


async def all_sessions_gone(server: PiocheServer, service: DemoService) -> None:
    """Wait (boundedly) until the server runs no session and the demo service no app."""
    for _attempt in range(int(WAIT / 0.05)):
        if not server.sessions and not service.apps:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"still running: {server.sessions}, {service.apps}")


@pytest.fixture(scope="session")
def client_key() -> asyncssh.SSHKey:
    return asyncssh.generate_private_key("ssh-ed25519")


@pytest.fixture(scope="session")
def host_key() -> asyncssh.SSHKey:
    return asyncssh.generate_private_key("ssh-ed25519")


@pytest.fixture
def service() -> DemoService:
    return DemoService()


@pytest.fixture
def limits() -> Limits:
    return Limits()


@pytest.fixture
async def server(
    service: DemoService, host_key: asyncssh.SSHKey, limits: Limits
) -> AsyncIterator[PiocheServer]:
    configure_textual()
    server = PiocheServer(
        service.make_app, host_key, name_owner=service.name_owner,
        holds_seat=service.holds_seat, limits=limits,
        sharing=service if hasattr(service, "shared_app") else None,  # (the real service's)
    )
    await server.start("127.0.0.1", 0)
    yield server
    await server.close()


@pytest.fixture
async def connect(server: PiocheServer) -> AsyncIterator[Connect]:
    """``await connect(username, ...)``: an SSH connection with one session, by default a pty
    80x24 and no key (a guest)."""
    connections: list[asyncssh.SSHClientConnection] = []

    async def open_session(
        username: str = "alice",
        *,
        client_keys: Any = (),
        term_type: str | None = "xterm-256color",
        term_size: tuple[int, int] = (80, 24),
        command: str | None = None,
        subsystem: str | None = None,
        env: dict[str, str] | None = None,
        **options: Any,
    ) -> Client:
        conn = await asyncssh.connect(
            "127.0.0.1", server.port, username=username, known_hosts=None,
            client_factory=options.pop("client_factory", LikeOpenSSH),
            client_keys=list(client_keys) or None, agent_path=None, config=None,
            preferred_auth=options.pop("preferred_auth", "publickey,keyboard-interactive"),
            **options,
        )
        connections.append(conn)
        session_options: dict[str, Any] = {"encoding": None, "env": env or {}}
        if term_type is not None:
            session_options.update(term_type=term_type, term_size=term_size)
        _chan, client = await conn.create_session(
            Client, command, subsystem=subsystem, **session_options
        )
        client.conn = conn
        if term_type is not None:
            client.screen.resize(*server.limits.clamp_size(*term_size))
        return client

    yield open_session
    for conn in connections:
        conn.close()
    await asyncio.gather(*(conn.wait_closed() for conn in connections))
