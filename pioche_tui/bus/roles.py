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
  fronts' inboxes), and reads the requests and the fronts' heartbeats.

One user per front *machine*, not one per process nor one per role: the permissions are what
ties a front to its subjects, so fronts sharing a user could read each other's sessions (one
user for all fronts would make a stolen front machine a reader of every hand); and the fronts
of one machine (several processes) share its trust anyway, as they share its files. Each
process still has its own id (its sessions' ids, its heartbeat), so a restarted one is a new
front to the coordinator.

The coordinator checks, besides, that a request's front owns the session it names (the subject's
name, which the permissions pin) and that the answer goes into that front's inbox: a front cannot
have the coordinator publish on a subject of its choosing.

JetStream (the table logs, the lobby's and the online names' buckets of issue 18) is not in
these permissions yet: the coordinator's role gets it whole when its parts land, the fronts'
only the reads they need (marked in docs/deploy.md as the next wave).

``server_config`` writes the ``authorization`` block (and TLS) of a nats-server config for
these users: the one-host tree's ``NatsServer(users=…)``, the tests, and ``pioche bus-config``
for an operator's machines.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import (
    COORD_ALIVE,
    COORD_REQ,
    COORDINATOR,
    FRONT,
    FRONT_ALIVE,
    INBOX,
    LOBBY,
    SESSION_PREFIX,
    front_alive_subject,
    inbox_prefix,
    request_subject,
)

ROLES = (FRONT, COORDINATOR)
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
            "publish": {"allow": [request_subject(name), front_alive_subject(name)]},
            "subscribe": {"allow": [
                f"{SESSION_PREFIX}{name}.>", LOBBY, COORD_ALIVE, f"{FRONT_ALIVE}.*",
                f"{inbox_prefix(FRONT, name)}.>"]},
        }
    if role == COORDINATOR:
        return {
            "publish": {"allow": [f"{SESSION_PREFIX}>", LOBBY, COORD_ALIVE,
                                  f"{INBOX}.{FRONT}.>"]},
            "subscribe": {"allow": [f"{COORD_REQ}.*", f"{FRONT_ALIVE}.*",
                                    f"{inbox_prefix(COORDINATOR, name)}.>"]},
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


def authorization(users: Sequence[User]) -> str:
    """The ``authorization`` block admitting ``users``, each with its role's permissions."""
    names = [user.name for user in users]
    if len(set(names)) != len(names):
        raise ValueError("bus users: each name once")
    entries = [{"user": user.name, "password": user.password,
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
    """The parts of a nats-server config that say who may connect and how."""
    return authorization(users) + (tls_block(tls) if tls is not None else "")
