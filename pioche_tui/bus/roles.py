"""Who may do what on the bus: the nats-server permissions of the two roles.

Across machines the bus carries hands, so each process reaches it as a user of one role, and
the nats-server refuses (a permissions violation) whatever that role does not need:

- a **front** (one user per front machine: its name is in the subjects that are its own, see
  ``bus/__init__.py``) publishes its requests and its heartbeat only, under its own name, and
  reads only its own sessions' news, its own inbox, the lobby and the heartbeats. It cannot
  read another front's sessions (their hands), read the coordinator's requests, nor answer as
  the coordinator (publish news, a lobby, a heartbeat of the coordinator, or into another
  front's inbox);
- a **coordinator** publishes the news, the lobby, its heartbeat and the answers (into the
  fronts' inboxes), and reads the requests and the fronts' heartbeats; with the other
  coordinators it shares the lobby's chat, the private lines and the admins' actions
  (``coordinator/cross.py``), which no front may send nor read.

One user per front *machine*, not one per process nor one per role: the permissions are what
ties a front to its subjects, so fronts sharing a user could read each other's sessions (one
user for all fronts would make a stolen front machine a reader of every hand); and the fronts
of one machine (several processes) share its trust anyway, as they share its files. Each
process still has its own id (its sessions' ids, its heartbeat), so a restarted one is a new
front to the coordinator.

The coordinator checks, besides, that a request's front owns the session it names (the subject's
name, which the permissions pin) and that the answer goes into that front's inbox: a front cannot
have the coordinator publish on a subject of its choosing.

JetStream (issue 18): the coordinator's role has its API whole (the table logs' stream, the
buckets); a front's, only what a front does with the two buckets of the directory: read and
watch the lobby (``pioche_lobby``, written by the coordinators alone), and read, watch and write
the online names (``pioche_online``: whoever holds a session keeps its key). NATS permissions
go by subject, not by key: a front could write any online name's key (a front machine's user is
trusted that far), never a table's log, the lobby, or a stream's configuration.

``authorization`` writes the ``authorization`` block of a nats-server config for these users
(``NatsServer(users=…)``: the tests), ``server_config`` it and TLS, with the passwords hashed
(``pioche bus-config``, for an operator's machines).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import (
    ADMIN_DONE,
    CHAT_LOBBY,
    COORD_ALIVE,
    COORD_HOME,
    COORD_REQ,
    COORDINATOR,
    FRONT,
    FRONT_ALIVE,
    INBOX,
    LEASES_BUCKET,
    LOBBY,
    LOBBY_BUCKET,
    LOG_PREFIX,
    ONLINE_BUCKET,
    OWNERS_BUCKET,
    SESSION_PREFIX,
    TELL,
    front_alive_subject,
    inbox_prefix,
    request_subject,
)

ROLES = (FRONT, COORDINATOR)
CROSSING = [CHAT_LOBBY, TELL, ADMIN_DONE]  # between coordinators only
LOGS_SUBJECTS = LOG_PREFIX + ">"
_JS = "$JS.API"


def _bucket_reads(bucket: str) -> list[str]:
    """What reading and watching a key-value bucket publishes (nats-py's ``key_value``,
    ``get``, ``watch``): its stream's info, direct gets, an ordered consumer made and
    deleted, and the flow control of its deliveries."""
    stream = f"KV_{bucket}"
    return [f"{_JS}.STREAM.INFO.{stream}", f"{_JS}.DIRECT.GET.{stream}",
            f"{_JS}.DIRECT.GET.{stream}.>", f"{_JS}.STREAM.MSG.GET.{stream}",
            f"{_JS}.CONSUMER.CREATE.{stream}", f"{_JS}.CONSUMER.CREATE.{stream}.>",
            f"{_JS}.CONSUMER.DELETE.{stream}.>", f"{_JS}.CONSUMER.INFO.{stream}.>",
            f"$JS.FC.{stream}.>"]


_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def check_name(name: str) -> str:
    """A user's name: letters, digits, '-' and '_' (it is a subject token and a URL's user)."""
    if not _NAME.fullmatch(name):
        raise ValueError(f"bus user {name!r}: 1 to 64 letters, digits, '-' or '_'")
    return name


@dataclass(frozen=True)
class User:
    """One user of the bus: its name, its role, its password (never logged)."""

    name: str
    role: str
    password: str

    def __post_init__(self) -> None:
        check_name(self.name)
        if self.role not in ROLES:
            raise ValueError(f"role {self.role!r}: one of {', '.join(ROLES)}")
        if not _NAME.fullmatch(self.password) or len(self.password) < 16:
            raise ValueError("bus password: 16 or more letters, digits, '-' or '_'")

    def __repr__(self) -> str:  # (a password never in a log nor a traceback)
        return f"User({self.name!r}, {self.role!r})"


def permissions(role: str, name: str) -> dict[str, dict[str, list[str]]]:
    """What a user ``name`` of ``role`` may publish and subscribe to (allow lists: anything
    else is refused)."""
    if role == FRONT:
        return {
            "publish": {"allow": [
                request_subject(name), front_alive_subject(name), f"{_JS}.INFO",
                *_bucket_reads(LOBBY_BUCKET), *_bucket_reads(ONLINE_BUCKET),
                *_bucket_reads(OWNERS_BUCKET), *_bucket_reads(LEASES_BUCKET),
                f"$KV.{ONLINE_BUCKET}.>", f"{COORD_HOME}.*.{name}"]},
            "subscribe": {"allow": [
                f"{SESSION_PREFIX}{name}.>", LOBBY, COORD_ALIVE, f"{FRONT_ALIVE}.*",
                f"{inbox_prefix(FRONT, name)}.>"]},
        }
    if role == COORDINATOR:
        return {
            "publish": {"allow": [f"{SESSION_PREFIX}>", LOBBY, COORD_ALIVE,
                                  f"{INBOX}.{FRONT}.>", f"{_JS}.>", "$JS.ACK.>", "$JS.FC.>",
                                  "$KV.>", LOGS_SUBJECTS, *CROSSING]},
            "subscribe": {"allow": [f"{COORD_REQ}.*", f"{COORD_HOME}.*.*", f"{FRONT_ALIVE}.*",
                                    COORD_ALIVE,
                                    f"{inbox_prefix(COORDINATOR, name)}.>", *CROSSING]},
        }
    raise ValueError(f"role {role!r}: one of {', '.join(ROLES)}")


@dataclass(frozen=True)
class ServerTLS:
    """A nats-server's TLS: its certificate and key, and the CA of the clients' certificates
    when it asks for one (``verify``: mutual TLS)."""

    cert: Path
    key: Path
    ca: Path | None = None
    verify: bool = False


def _conf(value: Any) -> str:
    """``value`` in nats-server's config syntax (JSON is a part of it)."""
    return json.dumps(value, indent=2)


BCRYPT_COST = 11  # nats-server's own tool's (``nats server passwd``); paid once per connection


def hashed(password: str) -> str:
    """``password`` as nats-server checks it without holding it (bcrypt)."""
    import bcrypt

    return bcrypt.hashpw(password.encode(), bcrypt.gensalt(BCRYPT_COST)).decode()


def authorization(users: Sequence[User], hash_passwords: bool = False) -> str:
    """The ``authorization`` block admitting ``users``, each with its role's permissions;
    ``hash_passwords``: their bcrypt hashes, not the passwords (a config that may be copied
    between machines, as ``pioche bus-config``'s; the one-host tree's private file, made at
    each start, holds them as they are)."""
    names = [user.name for user in users]
    if len(set(names)) != len(names):
        raise ValueError("bus users: each name once")
    entries = [{"user": user.name,
                "password": hashed(user.password) if hash_passwords else user.password,
                "permissions": permissions(user.role, user.name)} for user in users]
    return f"authorization {{\n  users: {_conf(entries)}\n}}\n"


def tls_block(tls: ServerTLS) -> str:
    block: dict[str, Any] = {"cert_file": str(tls.cert), "key_file": str(tls.key)}
    if tls.ca is not None:
        block["ca_file"] = str(tls.ca)
    if tls.verify:
        block["verify"] = True
    return f"tls: {_conf(block)}\n"


def server_config(users: Sequence[User], tls: ServerTLS | None = None) -> str:
    """The parts of a nats-server config that say who may connect (the passwords hashed) and
    how."""
    return authorization(users, hash_passwords=True) + (tls_block(tls) if tls is not None
                                                        else "")
