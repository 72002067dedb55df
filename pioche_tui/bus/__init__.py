"""The message bus between the coordinator and the SSH fronts (``pioche serve --workers N``).

NATS carries it: a ``nats-server`` child of the supervisor (``natsd``), on loopback, with a
password. The names below are the whole protocol's addresses; every payload is a
``pioche_tui.wire.encode`` value, and anything else read on a subject is dropped with a
warning (``coordinator/host.py``, ``coordinator/remote.py``).

- ``pioche.coord.req``: every request of a front, a ``wire.Call``; headers ``Pioche-Front``
  (the front's id) and, for a session's, ``Pioche-Session`` (its sid). Reply: a
  ``wire.Answer`` or the ``Refused`` the request raised.
- ``pioche.s.<sid>``: one remote session's news, a ``Mail`` each time its mailbox on the
  coordinator has some.
- ``pioche.lobby``: the ``LobbySnapshot``, each time the coordinator sends one (a bus without
  JetStream only; with it, the lobby's key-value buckets replace it: ``directory``).
- ``pioche.coord.alive``: the coordinator's heartbeat (its boot id), every ``HEARTBEAT``.
- ``pioche.log.<TABLE_ID>`` (stream ``PIOCHE_LOGS``, with ``--logs jetstream``): that table's
  log, one msgpack record per message (``store/jslog.py``).
- ``pioche.front.alive``: each front's heartbeat (``wire.FrontAlive``), every ``HEARTBEAT``
  and when its counts change; ``bye`` set when it stops cleanly.

Key-value buckets (JetStream, when the bus has it: ``directory``):

- ``pioche_lobby`` (``LOBBY_BUCKET``): table id → its ``TableSummary``, written by the table's
  owner when it changes, deleted when the table closes; key ``motd``: the message of the day.
- ``pioche_online`` (``ONLINE_BUCKET``): a name's key (``directory.online_key``) → the
  ``wire.Online`` session under it, created atomically (a name online once across the
  cluster), refreshed while the session lives, gone within the bucket's max age after its
  owner dies.

A side silent for ``SILENCE`` seconds is taken for dead (the coordinator closes a dead front's
sessions; a front ends its sessions when the coordinator is lost or restarted).
"""

from __future__ import annotations

import logging
from typing import TypeVar

from nats.aio.client import Client
from nats.aio.msg import Msg

from .. import wire
from .natsd import redact

T = TypeVar("T")

log = logging.getLogger(__name__)

COORD_REQ = "pioche.coord.req"
LOBBY = "pioche.lobby"
COORD_ALIVE = "pioche.coord.alive"
FRONT_ALIVE = "pioche.front.alive"
SESSION_PREFIX = "pioche.s."

# JetStream (issue 18): names of streams and buckets, in one place.
LOG_STREAM = "PIOCHE_LOGS"  # the tables' logs (store/jslog.py), one subject per table
LOG_PREFIX = "pioche.log."  # + table id: that table's log
LOBBY_BUCKET = "pioche_lobby"
ONLINE_BUCKET = "pioche_online"

FRONT_HEADER = "Pioche-Front"
SESSION_HEADER = "Pioche-Session"
BOOT_HEADER = "Pioche-Boot"  # on an answer: the coordinator's boot id (as its heartbeat's)
SEQ_HEADER = "Pioche-Seq"  # a session's news: 1, 2, … (a gap: some was lost)
LOBBY_HEADER = "Pioche-Lobby"  # the number of a lobby on LOBBY; on a Mail: that one is its lobby

REQUEST_TIMEOUT = 5.0  # seconds a request waits for its answer (connect included)
HEARTBEAT = 1.0  # seconds between two heartbeats of each side
SILENCE = 3.0  # seconds without a heartbeat: that side is gone
RECONNECT_WAIT = 0.25  # seconds between two attempts to reach a lost nats-server
CONNECT_TIMEOUT = 2  # seconds for one attempt (nats-py's connect_timeout, an int)

_SUBJECT_TOKEN_FORBIDDEN = frozenset(" \t\r\n.*>")


def session_subject(sid: str) -> str:
    """``pioche.s.<sid>``; ValueError for a sid that is not one NATS subject token."""
    if not sid or set(sid) & _SUBJECT_TOKEN_FORBIDDEN:
        raise ValueError(f"session id {sid!r}: not a subject token")
    return SESSION_PREFIX + sid


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


async def connect(url: str, name: str) -> Client:
    """A NATS client of the bus at ``url`` (credentials in it; several URLs comma-separated,
    a cluster's nodes: it fails over from one to the next), labelled ``name`` (the
    server's monitoring shows it). It reconnects for ever (``RECONNECT_WAIT`` apart): a
    restarted nats-server is found again, and meanwhile requests time out (the callers refuse
    them as ``unavailable``). The first connection must succeed (the bus starts first).
    Errors and reconnections are logged with the URL redacted."""
    public = redact(url)
    client = Client()

    async def error(exc: Exception) -> None:
        log.warning("bus %s (%s): %s", public, name, exc)

    async def disconnected() -> None:
        if client.is_closed:  # (closed on purpose: stopping)
            log.info("bus %s (%s): closed", public, name)
        else:
            log.warning("bus %s (%s): disconnected", public, name)

    async def reconnected() -> None:
        log.info("bus %s (%s): reconnected", public, name)

    await client.connect(
        servers=url.split(","), name=name, allow_reconnect=True, max_reconnect_attempts=-1,
        reconnect_time_wait=RECONNECT_WAIT,  # type: ignore[arg-type,unused-ignore]
        connect_timeout=CONNECT_TIMEOUT, error_cb=error, disconnected_cb=disconnected,
        reconnected_cb=reconnected, ping_interval=5, max_outstanding_pings=2)
    return client
