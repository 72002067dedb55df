"""``pioche bus-config``: the users of a bus across machines, for the operator.

It writes into ``--out DIR`` (0700), each file 0600:

- ``auth.conf``: the nats-server ``authorization`` block, a user per role and front machine with
  its role's permissions (``bus/roles.py``: the subjects come from the code, so a hand-written
  block cannot drift from them) and its password's bcrypt hash (nats-server never holds the
  passwords), and the ``tls`` block when ``--tls-cert`` is given. Each node's
  nats-server config takes it with ``include auth.conf`` (a path relative to that config).
- ``NAME.env``: ``PIOCHE_BUS=…`` with that user's URL and password, for the machine that runs
  it (systemd's ``EnvironmentFile=``): a password never on a command line. With a cluster's
  nodes (``--bus`` comma-separated), one URL per node, each with the credentials (nats-py
  fails over along the list; the nodes advertise none: see ``NatsServer``'s ``no_advertise``).

Run again with one more ``--front`` to add a machine: the passwords already in ``DIR/*.env`` are
kept (only the new user gets one), so the other machines' files stay good; nats-server takes
the new ``auth.conf`` on a reload (``nats-server --signal reload``, or SIGHUP). It prints what
it wrote, never a password.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from pathlib import Path
from urllib.parse import urlsplit

AUTH_FILE = "auth.conf"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "bus-config",
        help="the bus's users and permissions for fronts and coordinators on several machines",
        description=(
            "Write a nats-server auth.conf (a user per front machine and per coordinator, "
            "with their roles' permissions, and TLS) and one NAME.env per user (PIOCHE_BUS "
            "with its password) into --out. Passwords already there are kept. See "
            "docs/deploy.md."
        ),
    )
    p.add_argument("--out", type=Path, required=True, metavar="DIR",
                   help="where to write auth.conf and the NAME.env files (created 0700)")
    p.add_argument("--front", action="append", default=[], metavar="NAME",
                   help="a front machine's user (again for each; letters, digits, - and _)")
    p.add_argument("--coordinator", action="append", default=[], metavar="NAME",
                   help="a coordinator's user (again for each; default: one, coordinator)")
    p.add_argument("--bus", required=True, metavar="URL",
                   help="the bus as the machines reach it, without credentials: "
                   "tls://bus.example.org:4222; a cluster's nodes comma-separated "
                   "(tls://bus1.example.org:4222,tls://bus2.example.org:4222,…): each "
                   "process fails over from one to the next")
    p.add_argument("--tls-cert", type=Path, default=None, metavar="FILE",
                   help="the nats-server's certificate (PEM), as a path on the bus's nodes")
    p.add_argument("--tls-key", type=Path, default=None, metavar="FILE",
                   help="its key (PEM), as a path on the bus's nodes")
    p.add_argument("--tls-ca", type=Path, default=None, metavar="FILE",
                   help="the CA of the clients' certificates (with --verify)")
    p.add_argument("--verify", action="store_true",
                   help="mutual TLS: every client must show a certificate --tls-ca signed")
    p.set_defaults(run=run)


def _kept_password(env: Path) -> str | None:
    """The password of an existing ``NAME.env``, to keep."""
    try:
        text = env.read_text()
    except FileNotFoundError:
        return None
    for line in text.splitlines():
        if line.startswith("PIOCHE_BUS="):
            return urlsplit(line.removeprefix("PIOCHE_BUS=").split(",")[0]).password
    return None


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    os.chmod(path, 0o600)


def run(args: argparse.Namespace) -> int:
    from pioche_tui.bus import COORDINATOR, FRONT
    from pioche_tui.bus.roles import ServerTLS, User, check_name, server_config

    nodes = [urlsplit(one) for one in args.bus.split(",")]
    if any(parts.scheme not in ("nats", "tls") or not parts.hostname or parts.password
           or parts.username for parts in nodes):
        print("pioche bus-config: --bus: nats://HOST:PORT or tls://HOST:PORT (a cluster's "
              "nodes comma-separated), without credentials", file=sys.stderr)
        return 2
    if (args.tls_cert is None) != (args.tls_key is None) or \
            (args.verify and args.tls_ca is None) or \
            (args.tls_ca is not None and args.tls_cert is None):
        print("pioche bus-config: --tls-cert and --tls-key go together; --verify needs "
              "--tls-ca, --tls-ca needs --tls-cert", file=sys.stderr)
        return 2
    roles = [(name, COORDINATOR) for name in args.coordinator or ["coordinator"]]
    roles += [(name, FRONT) for name in args.front]
    if not args.front:
        print("pioche bus-config: give at least one --front NAME", file=sys.stderr)
        return 2
    out: Path = args.out
    try:
        for name, _role in roles:
            check_name(name)
        out.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(out, 0o700)
        users = [User(name, role, _kept_password(out / f"{name}.env")
                      or secrets.token_urlsafe(24)) for name, role in roles]
        tls = ServerTLS(args.tls_cert, args.tls_key, args.tls_ca, args.verify) \
            if args.tls_cert is not None else None
        _write_private(out / AUTH_FILE, server_config(users, tls))
        for user in users:
            url = ",".join(f"{parts.scheme}://{user.name}:{user.password}@{parts.netloc}"
                           for parts in nodes)
            _write_private(out / f"{user.name}.env",
                           f"# pioche {user.role} ({user.name}): keep this file 0600\n"
                           f"PIOCHE_BUS={url}\n")
    except (ValueError, OSError) as error:
        print(f"pioche bus-config: {error}", file=sys.stderr)
        return 1
    print(f"wrote {out / AUTH_FILE} (include it in each nats-server config)")
    for user in users:
        print(f"wrote {out / (user.name + '.env')} ({user.role}: its machine's "
              "EnvironmentFile)")
    return 0
