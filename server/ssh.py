"""The SSH server: who may connect, who they are, what they may open; one Textual app each.

One ``PiocheServer`` per process. Each TCP connection gets a ``_Connection`` (asyncssh's
``SSHServer``: limits and authentication); its one session channel gets a ``_Session`` (asyncssh's
``SSHServerSession``: refusals, input budget, flow control), which runs the app that
``make_app(SessionInfo)`` builds on a ``driver.Terminal``. Everything runs on one event loop.

Identity: any public key is accepted and its SHA256 fingerprint is the player's identity, bound
once authentication completes; clients without a key get in through keyboard-interactive auth
with no prompt, as guests.

Admission: a connection is *pending* until its app starts (key exchange, login, opening its
session; or once its session is over), then *playing*. Pending connections are few
(``Limits.max_pending``) and bounded in time; when they are too many, the oldest one of the
address that has the most is closed for a newcomer. Players are capped (``max_sessions``), except
returning players (a key with a seat at a table: ``holds_seat``).

asyncssh's private parts used, and why: a channel's ``_process_<request>_request`` handlers
(requests it has no callback for), the connection's ``_transport`` and its
``pause_writing``/``resume_writing`` (asyncssh ignores the socket's flow control, see
``_Connection._watch_socket``) and ``_deferred_packets`` (output held during a key exchange).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections import Counter
from collections.abc import Mapping
from typing import Any, Protocol

import asyncssh
from asyncssh.kex import get_kex_algs
from textual.app import App

from pioche_tui.coordinator.model import Refused
from pioche_tui.coordinator.text import nickname as sanitize_nickname
from pioche_tui.i18n import pick_lang as ui_lang

from .budget import AddressBuckets, Bucket, Meter, Reading, meter_reading
from .collector import Collector
from .driver import Terminal
from .failures import FailureLog
from .identity import (
    WATCH_USERNAME,
    BadCommand,
    JoinRequest,
    ResumeRequest,
    WatchRequest,
    is_default_login_name,
    parse_command,
    pick_lang,
    reached_address,
    sanitize_colorterm,
    sanitize_term,
    wants_no_color,
)
from .keys import fingerprint
from .limits import DEFAULT_SIZE, Limits
from .session import (
    AppFactory,
    BanCheck,
    NameOwner,
    SeatHolder,
    ServerShutdown,
    SessionInfo,
    Sharing,
    farewell_of,
    new_session_id,
    nickname_of,
)
from .share import Hub, Member

log = logging.getLogger("pioche.server")

# Why a connection attempt failed, one per kind of failure: each is rate-limited on its own
# (server/failures.py). Logged as warnings, but for connections that sent nothing of SSH (port
# scans, load balancers' health checks), logged as information.
KEX_FAILED = "key exchange failed"  # before the client asked to log in
AUTH_FAILED = "authentication failed"  # asked to log in, never logged in
CONNECTION_REFUSED = "refused a connection"  # the server is full, or closing
NO_SESSION = "left before any session"  # logged in, then gone (PuTTY's -no-trivial-auth)
SESSION_REFUSED = "refused a session"  # logged in, asked for something Pioche does not do
NO_SSH = "no SSH handshake"

# Modern algorithms only: no SHA-1 anywhere (no group14-sha1, no hmac-sha1, no ssh-rsa
# signatures), no 64-bit MACs, no CBC, no finite-field Diffie-Hellman (costly for the server to
# compute for anyone who connects).
#
# Key exchange: the client's order picks the algorithm (OpenSSH >= 9.9 lists ML-KEM first and
# gets it), so ours matters only to a client that sends its first key-exchange packet on a guess
# (RFC 4253 section 7): Dropbear does. It keeps its guess only when both sides list the same
# algorithm first; asyncssh takes the guessed packet whenever the algorithm agreed on is the
# client's first. When they disagree, the client's second packet meets a finished key exchange
# and the client is thrown out. So each guessing client's first algorithm must be our first or
# absent: Dropbear 2020.79-2024.86 guess curve25519-sha256 (first here), Dropbear >= 2025.87
# sntrup761x25519-sha512 (left out, although asyncssh has it when liboqs is installed).
# tests/server/test_algorithms.py checks this.
KEX_PREFERENCE = (
    "curve25519-sha256", "mlkem768x25519-sha256", "curve25519-sha256@libssh.org",
    "ecdh-sha2-nistp256", "ecdh-sha2-nistp384", "ecdh-sha2-nistp521",
)
KEX_ALGS = tuple(alg for alg in KEX_PREFERENCE if alg.encode() in get_kex_algs())
ENCRYPTION_ALGS = (
    "chacha20-poly1305@openssh.com", "aes256-gcm@openssh.com", "aes128-gcm@openssh.com",
    "aes256-ctr", "aes192-ctr", "aes128-ctr",
)
MAC_ALGS = (
    "hmac-sha2-256-etm@openssh.com", "hmac-sha2-512-etm@openssh.com", "umac-128-etm@openssh.com",
    "hmac-sha2-256", "hmac-sha2-512", "umac-128@openssh.com",
)
MAX_ENV_REQUESTS = 32  # environment variables taken per session; the rest are refused
FORWARDING_HANDLERS = ("_process_auth_agent_req_at_openssh_dot_com_request",
                       "_process_x11_req_request")  # a channel's handlers a session replaces
CLIENT_CLOSE_WAIT = 1.0  # seconds clients get, at shutdown, to close after their session ended
INPUT_WINDOW = 64 * 1024  # SSH receive window: what a client may send before the server reads
DRAIN_CHECK = 0.1  # seconds between looks at a client's queue while its output is held back
SOCKET_FULL = "socket full"  # why a connection's reading is held: it does not take its output
SHA1_SIGNATURES = frozenset({b"ssh-rsa"})
SIGNATURE_ALGS = (  # what a client's key may sign with (advertised as server-sig-algs)
    "ssh-ed25519", "sk-ssh-ed25519@openssh.com",
    "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
    "sk-ecdsa-sha2-nistp256@openssh.com", "rsa-sha2-512", "rsa-sha2-256",
)

# What a refused client reads: one line, in French like the game. Those written on the channel
# (stderr, stdout) may use any character; those sent inside SSH messages (disconnect and
# channel-open failure reasons) are ASCII, since OpenSSH shows other bytes as octal escapes.
MSG_NO_PTY = (
    "Pioche se joue dans un terminal : connectez-vous sans -T "
    "(et avec -t si vous passez une commande)."
)
MSG_FILE_TRANSFER = "Pioche ne transfère pas de fichiers : ni sftp, ni scp, ni sous-système."
MSG_SHUTDOWN = "Pioche s'arrête pour maintenance : à tout à l'heure !"
MSG_CRASH = "Pioche a rencontré une erreur et ferme cette session. Désolé !"
# A session's goodbyes in English, for a client whose locale is English (as its app is).
MSG_SHUTDOWN_EN = "Pioche is stopping for maintenance: see you soon!"
MSG_CRASH_EN = "Pioche ran into an error and is closing this session. Sorry!"
MSG_FORWARDING = "Pioche ne fait aucune redirection (ports, sockets, tunnels)."
MSG_FORWARDING_ASKED = (
    "Pioche ne fait aucune redirection : reconnectez-vous sans -A, -X ni -R "
    "(ForwardAgent, ForwardX11, RemoteForward)."
)
MSG_ONE_SESSION = "Une seule session par connexion SSH."
MSG_FULL = "Pioche est complet ({limit} joueurs au plus) : revenez dans un moment."
MSG_BUSY = "Trop de connexions en cours d'ouverture : revenez dans un moment."
MSG_MADE_ROOM = (
    "Pioche est complet et cette connexion n'a pas encore ouvert de session : "
    "revenez dans un moment."
)
MSG_ADDRESS_FULL = "Trop de connexions depuis votre adresse ({limit} au plus)."
MSG_CLOSING = "Pioche ferme pour maintenance : revenez dans un moment."
MSG_STALLED = "Votre terminal ne lit plus rien depuis {seconds:.0f} s : au revoir."
MSG_NO_SESSION = "Aucune session ouverte depuis {seconds:.0f} s : au revoir."
MSG_KEY_ATTEMPTS = "Trop de tentatives d'authentification ({limit} cles au plus)."


class Elsewhere(Protocol):
    """The other servers sharing this one's limits (the fronts of ``pioche serve --workers``,
    ``server/front.py``): ``max_sessions`` and ``max_per_address`` count their connections
    too. None in one process."""

    def sessions(self) -> int:
        """Players (connections running an app) on the others."""

    def from_address(self, peer: str) -> int:
        """Connections admitted (pending or playing) from ``peer`` on the others."""

    def changed(self, sessions: int, by_address: Mapping[str, int]) -> None:
        """This server's counts changed: its players, and its connections admitted (pending
        or playing) by address. Tell the others, soon."""


class PiocheServer:
    """The SSH server. ``await start()``, then ``await close()`` to stop."""

    def __init__(
        self,
        make_app: AppFactory,
        host_key: asyncssh.SSHKey,
        *,
        name_owner: NameOwner | None = None,
        holds_seat: SeatHolder | None = None,
        banned: BanCheck | None = None,
        limits: Limits | None = None,
        collector: Collector | None = None,
        sharing: Sharing | None = None,
        elsewhere: Elsewhere | None = None,
    ) -> None:
        self.make_app = make_app
        self.elsewhere = elsewhere
        self.collector = collector  # told when a session ends (its app's cycles to sweep)
        self.host_key = host_key
        self.name_owner: NameOwner = name_owner or (lambda _name: None)
        self.holds_seat: SeatHolder = holds_seat or (lambda _identity: False)
        self.banned = banned
        self.limits = limits or Limits()
        self._acceptor: asyncssh.SSHAcceptor | None = None
        self._open: set[_Connection] = set()  # admitted or being refused
        self._open_from: Counter[str] = Counter()
        self._admitted_from: Counter[str] = Counter()  # pending or playing, by address
        self._pending: dict[_Connection, None] = {}  # admitted, no app running: oldest first
        self._pending_from: Counter[str] = Counter()
        self._playing: set[_Connection] = set()  # admitted, its app running or starting
        self._sessions: dict[str, _Session] = {}
        self._startups = asyncio.Semaphore(self.limits.max_startups)
        # Spectators who see the same screen share one app (server/share.py), if the app says
        # which ones do (``sharing``).
        self.hub = (Hub(sharing, self.limits, self._startups) if sharing is not None
                    else None)
        self.failures = FailureLog(
            log, self.limits.failure_log_burst, self.limits.failure_log_window
        )
        self.address_buckets = AddressBuckets(
            self.limits.address_cpu_rate, self.limits.address_cpu_burst,
            busy_rate=self.limits.address_busy_rate, calm_load=self.limits.calm_load,
        )
        self.closing = False

    async def start(
        self, host: str = "127.0.0.1", port: int = 2222, *, reuse_port: bool = False
    ) -> None:
        """Listen on ``host``:``port``. ``reuse_port`` sets SO_REUSEPORT: other processes
        listening on the same port with it too share its connections (the kernel spreads them),
        as the fronts of ``pioche serve --workers`` will; without it, a port in use is an
        error."""
        limits = self.limits
        self._acceptor = await asyncssh.create_server(
            lambda: _Connection(self), host, port,
            reuse_port=reuse_port,
            server_host_keys=[self.host_key],
            server_version="Pioche",
            kex_algs=list(KEX_ALGS),
            encryption_algs=list(ENCRYPTION_ALGS),
            mac_algs=list(MAC_ALGS),
            signature_algs=list(SIGNATURE_ALGS),
            login_timeout=limits.login_timeout,
            keepalive_interval=limits.keepalive_interval,
            keepalive_count_max=limits.keepalive_count_max,
            window=INPUT_WINDOW,
            encoding=None,  # bytes in and out: the driver decodes, bad UTF-8 never disconnects
            line_editor=False,
            agent_forwarding=False,
            x11_forwarding=False,
            allow_scp=False,
        )
        self.address_buckets.watch()

    @property
    def port(self) -> int:
        assert self._acceptor is not None, "not started"
        port: int = self._acceptor.get_port()
        return port

    @property
    def sessions(self) -> list[SessionInfo]:
        """The sessions whose app is running or starting, oldest first."""
        return [session.info for session in self._sessions.values() if session.info is not None]

    async def close(self) -> None:
        """Stop: accept nobody more, post ``ServerShutdown`` to every app, wait for them to exit
        (making them exit after ``shutdown_grace``), then for clients to leave; then close every
        connection left."""
        if self.closing:
            return
        self.closing = True
        self.address_buckets.stop()
        if self._acceptor is not None:
            self._acceptor.close()
        sessions = list(self._sessions.values())
        log.info("stopping: %d session(s) to close", len(sessions))
        # (shared screens first: their members end with them)
        shared = self.hub.close() if self.hub is not None else []
        for session in sessions:
            session.post_to_app(ServerShutdown(self.limits.shutdown_grace))
        tasks = [session.task for session in sessions if session.task is not None] + shared
        if tasks:
            _done, late = await asyncio.wait(tasks, timeout=self.limits.shutdown_grace)
            for session in sessions:
                if session.task in late:
                    session.exit_app()
            if late:
                _done, stuck = await asyncio.wait(late, timeout=1.0)
                for task in stuck:
                    task.cancel()
                await asyncio.gather(*stuck, return_exceptions=True)
        # Clients close their connection once their session has ended; closing it first could
        # lose the session's last bytes (a disconnect aborts the socket). Those left are closed.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + CLIENT_CLOSE_WAIT
        while self._open and loop.time() < deadline:
            await asyncio.sleep(0.05)
        for connection in list(self._open):
            connection.close(MSG_CLOSING)
        if self._acceptor is not None:
            await self._acceptor.wait_closed()
        if self.hub is not None:  # (shared screens' viewers let go of their sessions)
            await self.hub.settle()
        self.failures.flush()
        log.info("stopped")

    # Admission. Nobody can be told apart before logging in, so newcomers are let in as pending
    # connections, a few at a time, each bounded in time; a flood of them from a few addresses
    # only ever pushes out its own (see _make_room). Once logged in, a key with a seat at a
    # table always gets its app; a newcomer only if there is room among the players.

    def _admit(self, connection: _Connection) -> str | None:
        """Count a new connection in, as pending; None if admitted, else why it is refused."""
        limits = self.limits
        peer = connection.peer
        self._open.add(connection)
        self._open_from[peer] += 1
        if self.closing:
            return MSG_CLOSING
        admitted = self._admitted_from[peer]
        if self.elsewhere is not None:
            admitted += self.elsewhere.from_address(peer)
        if admitted >= limits.max_per_address:
            return MSG_ADDRESS_FULL.format(limit=limits.max_per_address)
        if len(self._pending) >= limits.max_pending and not self._make_room(peer):
            return MSG_BUSY
        self._admitted_from[peer] += 1
        self._changed()
        self._pending[connection] = None
        self._pending_from[peer] += 1
        return None

    def _make_room(self, peer: str) -> bool:
        """Close the oldest pending connection of the address with the most pending ones, if
        it has more than ``peer``; False if none has."""
        most = max(self._pending_from.values(), default=0)
        if most <= self._pending_from[peer]:
            return False
        victim = next(c for c in self._pending if self._pending_from[c.peer] == most)
        log.info("%s: pending connection closed to make room for %s", victim.peer, peer)
        self._forget(victim)
        victim.close(MSG_MADE_ROOM, asyncssh.DISC_TOO_MANY_CONNECTIONS)
        return True

    def _room_for(self, connection: _Connection) -> str | None:
        """None if this logged-in connection may start its app, else why not."""
        if connection.identity is not None and self.holds_seat(connection.identity):
            return None  # a returning player: their table is in play, their seat waits
        playing = len(self._playing)
        if self.elsewhere is not None:
            playing += self.elsewhere.sessions()
        if playing >= self.limits.max_sessions:
            return MSG_FULL.format(limit=self.limits.max_sessions)
        return None

    def _start_playing(self, connection: _Connection) -> str | None:
        """The connection's app starts: it leaves the pending ones. None, or why it may not."""
        if connection not in self._pending:
            return MSG_MADE_ROOM  # closed meanwhile
        refusal = self._room_for(connection)
        if refusal is None:
            self._uncount(self._pending_from, connection.peer)
            del self._pending[connection]
            self._playing.add(connection)
            self._changed()
        return refusal

    def _stop_playing(self, connection: _Connection) -> None:
        """Its session is over: pending again (newest), until it leaves or times out."""
        if connection in self._playing:
            self._playing.remove(connection)
            self._pending[connection] = None
            self._pending_from[connection.peer] += 1
            self._changed()

    def _flooded(self, peer: str) -> bool:
        """So many connections that refused ones are dropped at once, not told why."""
        limits = self.limits
        return (
            self._open_from[peer] > 2 * limits.max_per_address
            or len(self._open) > 2 * (limits.max_sessions + limits.max_pending)
        )

    def _forget(self, connection: _Connection) -> None:
        """The connection is gone (or going: closed to make room)."""
        if connection not in self._open:
            return
        peer = connection.peer
        self._open.remove(connection)
        self._uncount(self._open_from, peer)
        if connection in self._pending:
            del self._pending[connection]
            self._uncount(self._pending_from, peer)
        elif connection in self._playing:
            self._playing.remove(connection)
        else:
            return  # it was refused
        self._uncount(self._admitted_from, peer)
        self._changed()

    def _changed(self) -> None:
        if self.elsewhere is not None:
            self.elsewhere.changed(len(self._playing), self._admitted_from)

    @staticmethod
    def _uncount(counter: Counter[str], peer: str) -> None:
        counter[peer] -= 1
        if not counter[peer]:
            del counter[peer]

    async def _may_take(self, nickname: str, identity: str | None) -> bool:
        """``nickname`` is free, or ``identity``'s. Not when the coordinator does not answer
        (a front's, away): the app asks the player, and says what is wrong when it connects."""
        try:
            owner = self.name_owner(nickname)
            if inspect.isawaitable(owner):
                owner = await owner
        except Refused:
            return False
        return owner in (None, identity)

    async def _ban(self, connection: _Connection) -> str | None:
        """Why an operator's ban refuses this login, or None. A coordinator that does not
        answer (a front's, away) lets it in: its app says what is wrong when it connects."""
        if self.banned is None:
            return None
        try:
            return await self.banned(connection.identity, connection.peer)
        except Refused:
            return None

    async def _session_info(
        self, connection: _Connection, term_type: str | None, size: tuple[int, int],
        command: str | None, env: Mapping[str, str],
    ) -> SessionInfo:
        request = parse_command(command) if command is not None else None
        watch = request if isinstance(request, WatchRequest) else None
        resume = request if isinstance(request, ResumeRequest) else None
        join = request if isinstance(request, JoinRequest) else None
        watch_only = watch is not None or (
            request is None and connection.username.casefold() == WATCH_USERNAME)
        nickname = None
        if connection.username.casefold() != WATCH_USERNAME:
            nickname = sanitize_nickname(connection.username)
        if nickname is not None and (
            is_default_login_name(nickname)
            or not await self._may_take(nickname, connection.identity)
        ):
            nickname = None
        return SessionInfo(
            session_id=new_session_id(),
            identity=connection.identity,
            nickname=nickname,
            must_ask_nickname=nickname is None and not watch_only,
            watch_only=watch_only,
            watch_table=watch.table if watch is not None else None,
            peer=connection.peer,
            term=sanitize_term(term_type),
            colorterm=sanitize_colorterm(env.get("COLORTERM")),
            no_color=wants_no_color(dict(env)),
            lang=pick_lang(dict(env)),
            size=size,
            resume_token=resume.token if resume is not None else None,
            join_table=join.table if join is not None else None,
            join_code=join.code if join is not None else None,
            address=reached_address(
                connection._conn.get_extra_info("sockname") if connection._conn else None),
        )


class _Connection(asyncssh.SSHServer):
    """One TCP connection: admission, authentication, and at most one session channel."""

    def __init__(self, server: PiocheServer) -> None:
        self._server = server
        self._conn: asyncssh.SSHServerConnection | None = None
        self.peer = "?"
        self.username = ""
        self._refusal: str | None = None
        self._last_key: asyncssh.SSHKey | None = None
        self._key_attempts = 0
        self.identity: str | None = None
        self._session: _Session | None = None
        self.forwarding_asked = False  # -R, -A or -X asked for: the session is refused
        self._idle: asyncio.TimerHandle | None = None  # set while logged in with no session
        self._lost = False
        self._logging_in = False  # the client asked to log in: the key exchange is over
        self._logged_in = False
        self._told = False  # how this connection ends is told already, or is the server's doing
        self.meter: Meter | None = None  # what it costs, from its first byte (server/budget.py)
        self._reading: Reading | None = None  # its socket's reading, held for its budget or more

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        peername = conn.get_extra_info("peername")
        if peername:
            self.peer = str(peername[0])
        limits = self._server.limits
        self.meter = Meter(Bucket(limits.cpu_rate, limits.cpu_burst),
                           self._server.address_buckets.take(self.peer))
        assert conn._transport is not None  # (set before asyncssh tells us of the connection)
        self._reading = meter_reading(conn, conn._transport, self.meter)
        self._refusal = self._server._admit(self)
        if self._refusal is not None and self._server._flooded(self.peer):
            self.failed(CONNECTION_REFUSED, f"dropped untold (a flood): {self._refusal}")
            conn.abort()
            return
        self._watch_socket(conn)

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_idle()
        self._lost = True
        self._server._forget(self)
        if self.meter is not None:
            self._server.address_buckets.give_back(self.peer)
        # asyncssh says nothing of these (a key exchange that fails, a client that gives up):
        # without a line a whole class of clients could fail unseen.
        why = "the client closed the connection" if exc is None else (
            f"{type(exc).__name__}: {exc}")
        if self._conn is None or self._conn.get_extra_info("client_version") is None:
            self.failed(NO_SSH, why, logging.INFO)
        elif not self._logging_in:
            self.failed(KEX_FAILED, why)
        elif not self._logged_in:
            self.failed(AUTH_FAILED, why)
        elif self._session is None:
            self.failed(NO_SESSION, why)
        # Let go of asyncssh's connection and of the session (which holds this object), and
        # take back what was lent to asyncssh's connection (the reading's meter, the socket
        # watch: they hold it and this object): cycles would keep them after the connection
        # (server/cycles.py says why that matters).
        if self._reading is not None:
            self._reading.close()
        if self._conn is not None:
            for lent in ("pause_writing", "resume_writing"):
                vars(self._conn).pop(lent, None)
        self._conn = self._session = None

    def failed(self, reason: str, detail: str, level: int = logging.WARNING) -> None:
        """Tell the operator that this connection attempt failed, and why (once)."""
        if self._told:
            return
        self._told = True
        client = self._conn.get_extra_info("client_version") if self._conn is not None else None
        self._server.failures.failed(reason, self.peer, client, detail, level)

    # What the client does not read. asyncssh writes every packet straight into the socket's
    # transport and ignores the transport's flow control (its pause_writing does nothing): a
    # client that stops reading its socket has all the server writes queued in memory, replies
    # to its own requests included. So past write_buffer bytes queued there, the server stops
    # reading this client (it can make the server write nothing more) until it has taken most
    # of them; its session's output is held back too (_Session.check_output), and cut off.

    def _watch_socket(self, conn: asyncssh.SSHServerConnection) -> None:
        transport = conn._transport
        assert transport is not None  # (set before asyncssh tells us of the connection)
        transport.set_write_buffer_limits(high=self._server.limits.write_buffer)
        conn.pause_writing = self._socket_full  # type: ignore[method-assign]
        conn.resume_writing = self._socket_drained  # type: ignore[method-assign]

    def _socket_full(self) -> None:
        assert self._reading is not None
        self._reading.hold(SOCKET_FULL)
        if self._session is not None:
            self._session.check_output()

    def _socket_drained(self) -> None:
        assert self._reading is not None
        self._reading.release(SOCKET_FULL)

    def queued(self) -> int:
        """Bytes written for this client that it has not taken: in the socket's transport, and
        held by asyncssh while a key exchange is in progress."""
        conn = self._conn
        if conn is None or conn._transport is None:  # closed
            return 0
        deferred = sum(len(part) for _type, parts in conn._deferred_packets for part in parts)
        size: int = conn._transport.get_write_buffer_size()
        return size + deferred

    # A pending connection (logged in, and no app running: no session yet, its session not
    # started, or its one session over) may stay so only login_timeout seconds.

    def _start_idle(self) -> None:
        if self._lost:  # (its session's channel may close after the connection)
            return
        self._stop_idle()
        seconds = self._server.limits.login_timeout
        self._idle = asyncio.get_running_loop().call_later(seconds, self._idle_out, seconds)

    def _stop_idle(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None

    def _idle_out(self, seconds: float) -> None:
        log.info("%s: no session for %.0f s, disconnected", self.peer, seconds)
        self.close(MSG_NO_SESSION.format(seconds=seconds))

    def session_playing(self) -> None:
        self._stop_idle()

    def session_closed(self) -> None:
        self._server._stop_playing(self)
        self._start_idle()  # one session per connection: nothing more can happen on it

    def close(self, reason: str, code: int = asyncssh.DISC_BY_APPLICATION) -> None:
        self._told = True  # the server's own doing, logged where it is decided
        if self._conn is not None:
            self._conn.disconnect(code, reason)

    # Authentication: any key, or none. The identity is the key that signed the request that
    # succeeded, never a key that was only offered.

    def begin_auth(self, username: str) -> bool:
        if self._refusal is not None:
            # Told now, not when the connection came: the client is waiting for an answer, so
            # it reads this before the server closes (earlier, its packets in flight would meet
            # a closed socket and the reset could swallow the message).
            self.failed(CONNECTION_REFUSED, self._refusal)
            self.close(self._refusal, asyncssh.DISC_TOO_MANY_CONNECTIONS)
            return True
        self._logging_in = True
        self.username = username
        self._last_key = None
        return True  # authentication required: a "none" request fails, then key or kbdint

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        # Called for each public-key request, offered (no signature) or signed; asyncssh then
        # checks the signature if there is one, with this very key object, and succeeds only if
        # it is valid. Its signature_algs option does not cover client keys: narrow the key's
        # own list so that a SHA-1 signature (ssh-rsa) does not verify.
        self._key_attempts += 1
        limit = self._server.limits.max_key_attempts
        if self._key_attempts > limit:
            # asyncssh has no cap of its own (OpenSSH's MaxAuthTries): without one a client
            # could offer keys, or make us check signatures, for the whole login timeout.
            self.failed(AUTH_FAILED, f"more than {limit} key attempts, disconnected")
            self.close(MSG_KEY_ATTEMPTS.format(limit=limit),
                       asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE)
            return False
        key.all_sig_algorithms = set(key.all_sig_algorithms) - SHA1_SIGNATURES
        self._last_key = key
        return True

    def kbdint_auth_supported(self) -> bool:
        return True

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        self._last_key = None  # a guest, whatever keys were offered before
        return True  # success without a prompt

    def auth_completed(self) -> None:
        # Called right after the success of the request just processed: either a signed
        # public-key request (its key is _last_key, validated within that same request) or
        # keyboard-interactive (which cleared _last_key).
        self.identity = fingerprint(self._last_key) if self._last_key is not None else None
        self._logged_in = True
        refusal = self._server._room_for(self)
        if refusal is not None:  # told now rather than after opening a session
            self.failed(CONNECTION_REFUSED, refusal)
            self.close(refusal, asyncssh.DISC_TOO_MANY_CONNECTIONS)
            return
        self._start_idle()

    # Channels: one session; no forwarding of any kind.

    def session_requested(self) -> _Session:
        if self._session is not None:
            raise asyncssh.ChannelOpenError(
                asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, MSG_ONE_SESSION
            )
        self._session = _Session(self._server, self)  # (still pending: the idle timer runs)
        return self._session

    def connection_requested(
        self, dest_host: str, dest_port: int, orig_host: str, orig_port: int
    ) -> bool:
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, MSG_FORWARDING)

    def unix_connection_requested(self, dest_path: str) -> bool:
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, MSG_FORWARDING)

    def tun_requested(self, unit: int | None) -> bool:
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, MSG_FORWARDING)

    def tap_requested(self, unit: int | None) -> bool:
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, MSG_FORWARDING)

    def server_requested(self, listen_host: str, listen_port: int) -> bool:
        self.forwarding_asked = True  # ssh -R: refused, and so is the session that follows
        return False

    def unix_server_requested(self, listen_path: str) -> bool:
        self.forwarding_asked = True
        return False


class _Session(asyncssh.SSHServerSession[bytes]):
    """The session channel: checked at start, then one app on a Terminal until either side ends."""

    def __init__(self, server: PiocheServer, connection: _Connection) -> None:
        self._server = server
        self._connection = connection
        self._limits = server.limits
        self._loop = asyncio.get_running_loop()
        self._chan: asyncssh.SSHServerChannel[bytes] | None = None
        self._term_type: str | None = None
        self._size = DEFAULT_SIZE
        self._command: str | None = None
        self._subsystem: str | None = None
        self._terminal: Terminal | Member | None = None  # a Member while it shares a screen
        # What the client typed before its app's terminal existed (while the session started
        # and its app waited its turn to be built): kept, the channel's reading stopped, and
        # given to the terminal once it exists (None from then on).
        self._early: list[bytes] | None = []
        self._app: App[Any] | None = None
        self._ended = False  # the client left or closed its input: no app to start or run
        self.info: SessionInfo | None = None
        self.task: asyncio.Task[None] | None = None
        # Output held back (the client does not take it): since when, and the next look.
        self._held_since: float | None = None
        self._drain_timer: asyncio.TimerHandle | None = None
        self._most_queued = 0
        self._env_requests = 0

    # What the client asks for, before the session starts.

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self._chan = chan
        # OpenSSH asks for agent (-A) and X11 (-X) forwarding without waiting for the answer:
        # asyncssh's denial goes unseen and the game would start as if all were well. asyncssh
        # has no callback for these two requests, so this channel's handlers for them are
        # replaced by one that denies and remembers; session_started then refuses the session.
        # (asyncssh names a request's handler `_process_<request>_request`.)
        for handler in FORWARDING_HANDLERS:
            setattr(chan, handler, self._forwarding_requested)
        # Same for environment variables, which asyncssh keeps without limit: only the first
        # MAX_ENV_REQUESTS are taken (OpenSSH sends LANG, LC_* and SetEnv's, a handful).
        take_env = chan._process_env_request

        def env_requested(packet: asyncssh.packet.SSHPacket) -> bool:
            self._env_requests += 1
            return self._env_requests <= MAX_ENV_REQUESTS and take_env(packet)

        chan._process_env_request = env_requested  # type: ignore[method-assign]

    def _forwarding_requested(self, packet: object) -> bool:
        self._connection.forwarding_asked = True
        return False  # denied

    def pty_requested(
        self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Mapping[int, int]
    ) -> bool:
        self._term_type = term_type
        self._size = self._limits.clamp_size(term_size[0], term_size[1])
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        self._command = command
        return True  # accepted so that session_started can say why it is refused, if it is

    def subsystem_requested(self, subsystem: str) -> bool:
        self._subsystem = subsystem
        return True  # same: refused in session_started, with a message on stderr

    def session_started(self) -> None:
        # (the room among players is asked for last: it counts this connection in)
        refusal = self._refusal() or self._server._start_playing(self._connection)
        if refusal is not None:
            self._connection.failed(SESSION_REFUSED, refusal)
            assert self._chan is not None
            self._chan.write_stderr((refusal + "\r\n").encode())
            self._chan.exit(1)
            return
        self._connection.session_playing()
        self.task = asyncio.create_task(self._run())

    def _refusal(self) -> str | None:
        if self._connection.forwarding_asked:
            return MSG_FORWARDING_ASKED
        if self._subsystem is not None:
            return MSG_FILE_TRANSFER
        if self._command is not None:
            if self._command.split()[:1] == ["scp"]:
                return MSG_FILE_TRANSFER
            try:
                parse_command(self._command)
            except BadCommand as bad:
                return str(bad)
        if self._term_type is None:
            return MSG_NO_PTY
        return None

    # The app.

    async def _run(self) -> None:
        status = 1
        started = time.monotonic()
        banned = await self._server._ban(self._connection)
        if banned is not None:  # (told on stderr, as the other refusals of a session are)
            self._connection.failed(SESSION_REFUSED, f"banned: {banned}")
            if self._chan is not None and not self._chan.is_closing():
                self._chan.write_stderr((banned + "\r\n").encode())
                self._chan.exit(1)
            return
        try:
            status = await self._run_app()
        except Exception:
            log.exception("session from %s: the app failed", self._connection.peer)
        finally:
            if self.info is not None:
                del self._server._sessions[self.info.session_id]
                name = nickname_of(self._app) or self.info.nickname
                log.info(
                    "session %s%s: closed after %.0f s (code %d)", self.info.session_id,
                    f" ({name})" if name else "", time.monotonic() - started, status,
                    extra={"event": "ssh_session_closed", "session": self.info.session_id,
                           "player": name, "identity": self.info.identity,
                           "address": self.info.peer},
                )
            self._say_goodbye(status, farewell_of(self._app),
                              farewell_of(self._app, "way_back"))
            self._app = self._terminal = None  # nothing of the app outlives it here
            collector = self._server.collector
            if collector is not None and not self._server.closing:
                collector.session_ended(len(self._server._sessions))

    async def _run_app(self) -> int:
        server = self._server
        assert self._chan is not None
        info = self.info = await server._session_info(
            self._connection, self._term_type, self._size, self._command,
            self._chan.get_environment(),
        )
        server._sessions[info.session_id] = self
        log.info(
            "session %s from %s: %s, %s%s", info.session_id, info.peer,
            f"nickname {info.nickname}" if info.nickname else "nickname to ask",
            info.identity or "guest", ", watch only" if info.watch_only else "",
        )
        # A spectator who may share a screen does so (server/share.py) until they need an app
        # of their own: then it is built on what they held, showing the same table.
        held: object | None = None
        assert self._connection.meter is not None
        member = None
        if server.hub is not None and not self._ended:
            # (what the client sends meanwhile waits: the member looks at it once it exists)
            member = await server.hub.member(self, info, self._connection.meter)
        if member is not None:
            self._take_terminal(member)
            if self._ended:  # (gone while it joined)
                member.hang_up()
            elif self._size != info.size:  # (resized while it joined)
                member.resize(*self._size)
            if not await member.run() or self._ended or server.closing:
                self.write(member.goodbye())
                return 0
            held = member.held
        # At most max_startups apps are being built at once: building one (CSS, first layout)
        # takes a burst of CPU. The slot is released once the app has painted its first frame.
        await server._startups.acquire()
        released = False

        def release_startup() -> None:
            nonlocal released
            if not released:
                released = True
                server._startups.release()

        try:
            if self._ended or server.closing:
                if member is not None:  # (its terminal was set up while it shared)
                    self.write(member.goodbye())
                return 0
            # What the app costs is measured with the connection's meter, and its input waits
            # while the connection or its address is over budget.
            terminal = Terminal(
                self, self._size, max_paste=self._limits.max_paste,
                resize_interval=self._limits.resize_interval, meter=self._connection.meter,
                name=f"session {info.session_id} from {info.peer}",
                on_first_frame=release_startup,
                **self._handover(member, held) if member is not None else {},
            )
            if member is None:
                self._take_terminal(terminal)
                self._app = server.make_app(info)
            else:  # (the member gets the shared frames until this app shows the table)
                assert server.hub is not None
                member.hand_to(terminal)
                self._app = server.hub.sharing.own_app(info, held)
            return await terminal.run(self._app)
        finally:
            release_startup()
            if held is not None:  # (whatever became of its app: closed once, here too)
                assert server.hub is not None
                await server.hub.sharing.release(held)

    def _handover(self, member: Member, held: object) -> dict[str, Any]:
        """The Terminal's settings for an app taking over from a shared screen: the terminal
        is set up, the app's frames wait until it shows the table, then it takes the input."""
        assert self._server.hub is not None
        sharing = self._server.hub.sharing
        handed_over = member.handed_over()

        def shown() -> None:
            self._terminal = member._own  # (first: what the client sends now goes to it)
            handed_over()

        return {"entered": True, "shown": lambda: self._app is not None and sharing.shows(
            self._app), "on_shown": shown}

    def _say_goodbye(self, status: int, farewell: str | None, way_back: str | None = None
                     ) -> None:
        """The last line the client's terminal keeps, once the app's screen is gone (when the
        server stops, its own and the way back to a seat the app says, if any)."""
        if self._chan is None or self._chan.is_closing():
            return
        english = self.info is not None and ui_lang(self.info.lang) == "en"
        if self._server.closing:
            self._chan.write(((MSG_SHUTDOWN_EN if english else MSG_SHUTDOWN) + "\r\n").encode())
            if way_back:
                self._chan.write((way_back + "\r\n").encode())
        elif status != 0:
            self._chan.write(((MSG_CRASH_EN if english else MSG_CRASH) + "\r\n").encode())
        elif farewell:
            self._chan.write((farewell + "\r\n").encode())
        self._chan.exit(status)

    def post_to_app(self, message: ServerShutdown) -> None:
        if self._app is not None:
            self._app.post_message(message)

    def exit_app(self) -> None:
        if self._app is not None:
            self._app.exit()
        elif isinstance(self._terminal, Member):
            self._terminal.hang_up()

    # While it runs.

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        self._size = self._limits.clamp_size(width, height)
        if self._terminal is not None:
            self._terminal.resize(*self._size)

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        # The terminal takes it at the pace of the connection's budget, and stops the channel's
        # reading meanwhile (pause_reading, below).
        if datatype is not None:
            return
        if self._terminal is not None:
            self._terminal.feed(data)
        elif self._early is not None:  # (what follows waits in the channel: SSH flow control)
            self._early.append(data)
            self.pause_reading()

    def _take_terminal(self, terminal: Terminal | Member) -> None:
        """The session's input goes to ``terminal`` from now on, starting with what it typed
        before it existed."""
        self._terminal = terminal
        early, self._early = self._early, None
        if early:
            terminal.feed_held(early)

    def pause_reading(self) -> None:
        if self._chan is not None:
            self._chan.pause_reading()

    def resume_reading(self) -> None:
        if self._chan is not None:
            self._chan.resume_reading()

    # Output. The Terminal writes through this session (its driver.Channel), which looks after
    # each write at what the client has not taken yet: in the channel (its SSH window is
    # full), and in the connection (its socket is full, or a key exchange holds packets back).
    # asyncssh's own pause_writing counts only the channel, and a client may open a window of
    # 4 GiB. Past write_buffer, the app's frames are dropped (the Terminal repaints the whole
    # screen once the client has taken most of it); held back for stall_timeout, the client is
    # disconnected, whatever else it sends meanwhile.

    def write(self, data: bytes) -> None:
        if self._chan is not None and not self._chan.is_closing():
            self._chan.write(data)
            self.check_output()

    def is_closing(self) -> bool:
        return self._chan is None or self._chan.is_closing()

    def _queued(self) -> int:
        queued = self._connection.queued()
        if self._chan is not None:
            queued += self._chan.get_write_buffer_size()
        self._most_queued = max(self._most_queued, queued)
        return queued

    def check_output(self) -> None:
        if self._queued() <= self._limits.write_buffer:
            return
        if self._terminal is not None:
            self._terminal.pause_output()
        if self._held_since is None:
            self._held_since = self._loop.time()
            self._drain_timer = self._loop.call_later(DRAIN_CHECK, self._check_drained)

    def _check_drained(self) -> None:
        self._drain_timer = None
        assert self._held_since is not None
        if self._queued() <= self._limits.write_buffer // 4:
            self._held_since = None
            if self._terminal is not None:
                self._terminal.resume_output()
        elif self._loop.time() - self._held_since >= self._limits.stall_timeout:
            log.info(
                "session from %s does not read: disconnected (%d KiB queued at most)",
                self._connection.peer, self._most_queued // 1024,
            )
            self._connection.close(MSG_STALLED.format(seconds=self._limits.stall_timeout))
        else:
            self._drain_timer = self._loop.call_later(DRAIN_CHECK, self._check_drained)

    def eof_received(self) -> bool:
        # The client will send nothing more (its input closed): end the app, then the channel.
        self._end()
        return True  # keep our side open for the exit status

    def connection_lost(self, exc: Exception | None) -> None:
        if self._drain_timer is not None:
            self._drain_timer.cancel()
            self._drain_timer = None
        self._end()
        self._connection.session_closed()
        if self._chan is not None:  # its handlers are ours: a cycle holding the connection
            for handler in (*FORWARDING_HANDLERS, "_process_env_request"):
                vars(self._chan).pop(handler, None)

    def _end(self) -> None:
        self._ended = True
        if self._terminal is not None:
            self._terminal.hang_up()
