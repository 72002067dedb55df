"""The message bus between the coordinator and the SSH fronts (``pioche serve --workers N``).

NATS carries it: a ``nats-server`` child of the supervisor (``natsd``), on loopback, with a
password. The names below are the whole protocol's addresses; every payload is a
``pioche_tui.wire.encode`` value, and anything else read on a subject is dropped with a
warning (``coordinator/host.py``, ``coordinator/remote.py``).

Subjects that belong to one front carry its **bus name** (``<name>``: the user of its bus URL,
``bus_name``), so that the nats-server's permissions of that user (``bus/roles.py``) can say
"this front's own" and the coordinator can trust the name a subject carries:

- ``pioche.coord.req.<name>``: every request of a front, a ``wire.Call``; headers
  ``Pioche-Front`` (the front process's id) and, for a session's, ``Pioche-Session`` (its sid);
  the reply subject under the front's inbox prefix (``inbox_prefix``). Reply: a ``wire.Answer``
  or the ``Refused`` the request raised.
- ``pioche.s.<name>.<sid>``: one remote session's news, a ``Mail`` each time its mailbox on the
  coordinator has some.
- ``pioche.lobby``: the ``LobbySnapshot``, each time the coordinator sends one (a bus without
  JetStream only; with it, the lobby's key-value buckets replace it: ``directory``).
- ``pioche.coord.home.<cid>.<name>``: with several coordinators (``owners``), a session's
  requests once it is connected, to its home coordinator (``cid``: its boot id); the requests
  on ``pioche.coord.req.<name>`` then go to one coordinator of the queue group ``coord``.
- ``pioche.coord.alive``: the coordinator's heartbeat (its boot id), every ``HEARTBEAT``.
- ``pioche.log.<TABLE_ID>`` (stream ``PIOCHE_LOGS``, with ``--logs jetstream``): that table's
  log, one msgpack record per message (``store/jslog.py``).
- ``pioche.front.alive.<name>``: each front's heartbeat (``wire.FrontAlive``), every
  ``HEARTBEAT`` and when its counts change; ``bye`` set when it stops cleanly.
- Between coordinators (several on one bus: ``coordinator/cross.py``), published and read by
  the coordinator role alone: ``pioche.chat.lobby``, each lobby line said (a ``ChatLine``,
  header ``Pioche-Boot``: the speaker's coordinator); ``pioche.coord.<cid>.tell``, a private
  line for a player whose session the coordinator ``cid`` serves (a ``wire.Told``);
  ``pioche.admin.done``, an admin's action done on one coordinator (a ``wire.AdminDone``).
- ``_INBOX.<role>.<name>.…``: each connection's inbox (nats-py's ``inbox_prefix``): the answers
  to its requests.

Key-value buckets (JetStream, when the bus has it: ``directory``):

- ``pioche_lobby`` (``LOBBY_BUCKET``): table id → its ``TableSummary``, written by the table's
  owner when it changes, deleted when the table closes; key ``motd``: the message of the day.
- ``pioche_online`` (``ONLINE_BUCKET``): a name's key (``directory.online_key``) → the
  ``wire.Online`` session under it, created atomically (a name online once across the
  cluster), refreshed while the session lives, gone within the bucket's max age after its
  owner dies.
- ``pioche_guests`` (``GUESTS_BUCKET``, coordinators only): a guest's reconnect token's digest
  → the ``wire.Resumable`` seat it holds, so that the guest resumes on any coordinator; kept
  while the guest's session lives, gone a grace period after it ends.

- ``pioche_owners`` (``OWNERS_BUCKET``): table id → the ``wire.Owner`` serving it (``owners``:
  created with the table, changed by compare-and-set only).
- ``pioche_leases`` (``LEASES_BUCKET``): a coordinator's boot id → its ``wire.Lease``, put every
  second, gone ``owners.LEASE_MAX_AGE`` after its coordinator died.
- ``pioche_keys`` (``KEYS_BUCKET``, coordinators only): key ``guests`` → the ``wire.GuestSecret``
  all the coordinators of the bus sign guests' identities with (made once, by ``create``).

A side silent for ``SILENCE`` seconds is taken for dead (the coordinator closes a dead front's
sessions; a front ends its sessions when the coordinator is lost or restarted).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import ssl
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

from nats import errors
from nats.aio.client import Client
from nats.aio.msg import Msg

from .. import wire
from .natsd import USER, redact, scrub

T = TypeVar("T")

log = logging.getLogger(__name__)

COORD_REQ = "pioche.coord.req"  # .<name>
LOBBY = "pioche.lobby"
COORD_ALIVE = "pioche.coord.alive"
COORD_HOME = "pioche.coord.home"  # .<cid>.<name>
COORD_QUEUE = "coord"  # the queue group of the coordinators on COORD_REQ (several: owners)
FRONT_ALIVE = "pioche.front.alive"  # .<name>
SESSION_PREFIX = "pioche.s."  # <name>.<sid>
INBOX = "_INBOX"  # .<role>.<name>
CHAT_LOBBY = "pioche.chat.lobby"  # the lobby's lines, from coordinator to coordinator
ADMIN_DONE = "pioche.admin.done"  # an admin's action done on one coordinator
TELL = "pioche.coord.*.tell"  # (every coordinator's private lines: tell_subject)
FRONT_SILENT = "front_silent"
"""The code of the notice in a session's last mail when the coordinator closed it because its
front fell silent (``coordinator/host.py``): never shown, the front connects it again."""
FRONT = "front"  # the roles (bus/roles.py)
COORDINATOR = "coordinator"

# JetStream (issue 18): names of streams and buckets, in one place.
LOG_STREAM = "PIOCHE_LOGS"  # the tables' logs (store/jslog.py), one subject per table
LOG_PREFIX = "pioche.log."  # + table id: that table's log
LOBBY_BUCKET = "pioche_lobby"
ONLINE_BUCKET = "pioche_online"
GUESTS_BUCKET = "pioche_guests"
OWNERS_BUCKET = "pioche_owners"
LEASES_BUCKET = "pioche_leases"
KEYS_BUCKET = "pioche_keys"

FRONT_HEADER = "Pioche-Front"
SESSION_HEADER = "Pioche-Session"
BOOT_HEADER = "Pioche-Boot"  # on an answer: the coordinator's boot id (as its heartbeat's)
SEQ_HEADER = "Pioche-Seq"  # a session's news: 1, 2, … (a gap: some was lost)
WIRE_HEADER = "Pioche-Wire"  # on every request and answer: the sender's ``wire.VERSION``
LOBBY_HEADER = "Pioche-Lobby"  # the number of a lobby on LOBBY; on a Mail: that one is its lobby

REQUEST_TIMEOUT = 5.0  # seconds a request waits for its answer (connect included)
HEARTBEAT = 1.0  # seconds between two heartbeats of each side
SILENCE = 3.0  # seconds without a heartbeat: that side is gone
RECONNECT_WAIT = 0.25  # seconds between two attempts to reach a lost nats-server
CONNECT_TIMEOUT = 2  # seconds for one attempt (nats-py's connect_timeout, an int)
ERROR_LOG_INTERVAL = 60.0  # seconds before the same error of the bus is logged again

_SUBJECT_TOKEN_FORBIDDEN = frozenset(" \t\r\n.*>")


def token(value: str, what: str) -> str:
    """``value``, checked to be one NATS subject token (ValueError otherwise)."""
    if not value or set(value) & _SUBJECT_TOKEN_FORBIDDEN:
        raise ValueError(f"{what} {value!r}: not a subject token")
    return value


def session_subject(name: str, sid: str) -> str:
    """``pioche.s.<name>.<sid>``: the news of the session ``sid`` of a front named ``name``;
    ValueError for a name or sid that is not one NATS subject token."""
    return f"{SESSION_PREFIX}{token(name, 'bus name')}.{token(sid, 'session id')}"


def request_subject(name: str) -> str:
    """``pioche.coord.req.<name>``: where the front named ``name`` sends its requests."""
    return f"{COORD_REQ}.{token(name, 'bus name')}"


def tell_subject(cid: str) -> str:
    """``pioche.coord.<cid>.tell``: the private lines for the players the coordinator ``cid``
    serves."""
    return TELL.replace("*", token(cid, "coordinator id"))


def home_subject(cid: str, name: str) -> str:
    """``pioche.coord.home.<cid>.<name>``: the requests of the front ``name``'s sessions homed
    on the coordinator ``cid``."""
    return f"{COORD_HOME}.{token(cid, 'coordinator id')}.{token(name, 'bus name')}"


def front_alive_subject(name: str) -> str:
    """``pioche.front.alive.<name>``: the heartbeats of the fronts named ``name``."""
    return f"{FRONT_ALIVE}.{token(name, 'bus name')}"


def inbox_prefix(role: str, name: str) -> str:
    """``_INBOX.<role>.<name>``: the inbox prefix of a connection of that role and name (the
    answers to its requests come under it, and its permissions let it read nothing else's)."""
    return f"{INBOX}.{token(role, 'role')}.{token(name, 'bus name')}"


def last_token(subject: str) -> str:
    """The name a subject ends with (``pioche.coord.req.<name>``)."""
    return subject.rpartition(".")[2]


def bus_name(url: str) -> str:
    """The name on the bus of whoever connects with ``url``: its user (``USER``, the one-host
    tree's, if it has none; a cluster's URLs, comma-separated, carry the same user: the
    first's)."""
    user = urlsplit(url.split(",")[0]).username
    return token(unquote(user) if user else USER, "bus name")


@dataclass(frozen=True)
class BusTLS:
    """TLS to the bus: the CA that signed the servers' certificates (``--bus-ca``), and this
    side's certificate and key when the servers ask for one (mutual TLS: ``--bus-cert``,
    ``--bus-key``)."""

    ca: Path
    cert: Path | None = None
    key: Path | None = None

    def context(self) -> ssl.SSLContext:
        """The client's TLS context: the server's certificate must chain to ``ca`` and name
        the host of the URL. OSError or ssl.SSLError for a file that cannot be read."""
        context = ssl.create_default_context(cafile=str(self.ca))
        if self.cert is not None:
            context.load_cert_chain(str(self.cert), str(self.key) if self.key else None)
        return context


class BusRefused(Exception):
    """The bus cannot be used as configured (its certificate not trusted, the credentials
    refused): trying again would not help; the message says what to check."""


def log_subject(table_id: str) -> str:
    """``pioche.log.<TABLE_ID>``; ValueError for an id that is not one NATS subject token."""
    if not table_id or set(table_id) & _SUBJECT_TOKEN_FORBIDDEN:
        raise ValueError(f"table id {table_id!r}: not a subject token")
    return LOG_PREFIX + table_id


def read(msg: Msg, expect: type[T], what: str) -> T | None:
    """The ``expect`` value ``msg`` carries; None, with a warning, for anything else (a bad
    payload is dropped, never acted on)."""
    try:
        value: T = wire.decode(msg.data, expect=expect)
    except wire.WireError as error:
        log.warning("bad %s dropped: %s", what, error)
        return None
    return value


def _fatal(error: Exception, tls: BusTLS | None) -> str | None:
    """What an operator must fix, when ``error`` on a first connection is one that trying again
    cannot cure; None for the others (the bus not up yet, the network)."""
    if isinstance(error, ssl.SSLCertVerificationError):
        why = error.verify_message or error.reason
        if tls is None:
            return (f"the bus uses TLS, its certificate not trusted by the system's CAs "
                    f"({why}): give --bus-ca")
        return f"the bus's TLS certificate is not trusted by --bus-ca {tls.ca} ({why})"
    if isinstance(error, ssl.SSLError):
        return f"TLS refused ({error.reason or error}): check --bus-ca, --bus-cert, --bus-key"
    if isinstance(error, errors.SecureConnRequiredError):
        return "the bus requires TLS: give --bus-ca (and --bus-cert, --bus-key for mutual TLS)"
    if isinstance(error, errors.SecureConnWantedError):
        return "TLS asked for (--bus-ca) but the bus does not offer it"
    if isinstance(error, errors.AuthorizationError):
        return "the bus refused the credentials (user and password of the URL)"
    return None


async def connect(url: str, name: str, role: str = FRONT,
                  tls: BusTLS | None = None) -> Client:
    """A NATS client of the bus at ``url`` (credentials in it; several URLs comma-separated,
    a cluster's nodes: it fails over from one to the next), labelled ``name`` (the server's
    monitoring shows it). ``role`` (``FRONT``, ``COORDINATOR``): its inbox prefix is
    ``inbox_prefix(role, bus_name(url))``, the one its permissions allow, and the one the
    coordinator answers a front's requests into. ``tls``: over TLS, the server's certificate
    checked against its CA.

    It reconnects for ever (``RECONNECT_WAIT`` apart): a restarted nats-server is found again,
    and meanwhile requests time out (the callers refuse them as ``unavailable``). The first
    connection tries again while the bus is not up, but raises ``BusRefused`` at once for what
    trying again cannot cure (a certificate not trusted, credentials refused). Errors and
    reconnections are logged with the URL redacted; the same error again only once a minute."""
    public = redact(url)
    client = Client()
    refused: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    said: dict[str, float] = {}  # each error's text: when it was last logged
    first = True  # the first connection is not made yet
    context = tls.context() if tls is not None else None

    async def error(exc: Exception) -> None:
        if first and not refused.done():
            why = _fatal(exc, tls)
            if why is not None:
                refused.set_result(why)
                return
        text = scrub(str(exc) or type(exc).__name__, url)
        now = time.monotonic()
        if now - said.get(text, -math.inf) >= ERROR_LOG_INTERVAL:
            said[text] = now
            log.warning("bus %s (%s): %s", public, name, text)

    async def disconnected() -> None:
        if client.is_closed:  # (closed on purpose: stopping)
            log.info("bus %s (%s): closed", public, name)
        else:
            log.warning("bus %s (%s): disconnected", public, name)

    async def reconnected() -> None:
        log.info("bus %s (%s): reconnected", public, name)

    options: dict[str, Any] = {"inbox_prefix": inbox_prefix(role, bus_name(url))}
    if context is not None:
        options["tls"] = context
    connecting = asyncio.ensure_future(client.connect(
        servers=url.split(","), name=name, allow_reconnect=True, max_reconnect_attempts=-1,
        reconnect_time_wait=RECONNECT_WAIT,  # type: ignore[arg-type,unused-ignore]
        connect_timeout=CONNECT_TIMEOUT, error_cb=error, disconnected_cb=disconnected,
        reconnected_cb=reconnected, ping_interval=5, max_outstanding_pings=2, **options))
    try:
        await asyncio.wait((connecting, refused), return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        await _cancel_until_done(connecting)
        raise
    if not connecting.done():
        await _cancel_until_done(connecting)
        with contextlib.suppress(Exception):
            await client.close()
        raise BusRefused(refused.result())
    connecting.result()
    first = False
    return client


async def _cancel_until_done(task: asyncio.Future[Any]) -> None:
    """Cancel ``task`` until it has ended: nats-py's first connection, trying again for ever,
    can lose a cancellation (asyncio.wait_for's, when an attempt fails at that moment)."""
    while not task.done():
        task.cancel()
        await asyncio.wait((task,), timeout=0.1)
    with contextlib.suppress(BaseException):
        task.result()
