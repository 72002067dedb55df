"""``pioche front``: one SSH front of ``pioche serve --workers N``, its coordinator over the bus.

A front runs what ``pioche serve`` runs but the coordinator: asyncssh (``PiocheServer``) and
one PiocheApp per connection, the same service (``app.service.PiocheService``) over a
``RemoteFront``, the front's desk on the bus (``coordinator.remote.Remote``). It holds no game
state: killed, its players reconnect (to any front) and get their seats back.

- Every front of a tree listens on the same port (``--reuse-port``: the kernel spreads new
  connections among them) with the same host key, loaded from ``--keys-dir``: the supervisor
  writes it before it starts any front, and a front never writes one (two fronts writing
  their own would show players two keys for one server).
- ``--max-sessions`` and ``--max-per-address`` count every front's connections: each front
  says its own counts on the bus (``pioche.front.alive``: soon when they change, and every
  second), and adds up the others' (``OtherFronts``; a front silent for ``bus.SILENCE``
  seconds counts for nothing).
- SIGINT or SIGTERM, or the end of the supervisor (``--parent-fd``: the link's EOF), stops it
  in order: no new connection, every app told (the players read that the server stops), its
  last heartbeat (``bye``: the coordinator closes its sessions at once), the bus let go.
  Alone (SIGTERM), its players' seats wait for them as after a dropped connection and every
  other table plays on; with the whole tree (``workers.TREE_STOPS``, sent by the supervisor,
  or the supervisor's end), every table holds still first (``server_stopping``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from .serve import (
    add_limit_flags,
    add_listen_flags,
    add_public_host_flag,
    limits_of,
    workers_count,
)
from .workers import (
    BUS_CLOSE_WAIT,
    BUS_ENV,
    CannotStart,
    ParentLink,
    add_child_flags,
    bus_settings,
    redact_error,
    serve_until_stopped,
    setup_logging,
    stop_event,
)

if TYPE_CHECKING:
    import asyncssh
    from nats.aio.client import Client

    from pioche_tui.app.service import PiocheService
    from pioche_tui.bus import BusTLS
    from pioche_tui.coordinator.client import Connector, CoordinatorClient
    from pioche_tui.coordinator.model import TableSummary
    from pioche_tui.coordinator.remote import Remote

    from .ssh import PiocheServer

log = logging.getLogger("pioche.front")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "front",
        help="an SSH front of pioche serve --workers, its coordinator over the bus",
        description=(
            "Serve Pioche over SSH with the coordinator reached over the bus (--bus, or "
            f"${BUS_ENV}), until SIGINT or SIGTERM; with --workers N, from N processes on "
            "one port (a front machine's cores). pioche serve --workers starts N of them "
            "beside its coordinator. The host key must be in the keys directory already "
            "(a front never writes one). See docs/server.md and docs/deploy.md."
        ),
    )
    add_listen_flags(p)
    add_limit_flags(p)
    add_public_host_flag(p)
    p.add_argument(
        "--workers", type=workers_count, default=1, metavar="N|auto",
        help="N front processes on one port (auto: one per core), each started again when "
        "it exits (default 1: this process serves)",
    )
    add_child_flags(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.workers > 1:
        from .workers import supervise_fronts

        setup_logging("supervisor", args)
        if args.parent_fd is not None:
            log.error("--workers and --parent-fd: a front of a tree has no children")
            return 2
        runs = supervise_fronts(args)
    else:
        setup_logging("front", args)
        runs = front(args)
    try:
        return asyncio.run(runs)
    finally:
        logging.shutdown()


class RemoteFront:
    """The front's desk (``client.FrontDesk``) over the bus: what ``PiocheService`` asks of
    the coordinator besides each app's client, asked of ``remote``."""

    def __init__(self, remote: Remote) -> None:
        self.remote = remote

    def connector(self) -> Connector:
        return self.remote.connector()

    def table(self, table_id: str) -> TableSummary | None:
        lobby = self.remote.lobby
        wanted = table_id.strip().upper()
        if lobby is None:
            return None
        return next((table for table in lobby.tables if table.id == wanted), None)

    async def mirror(self, table_id: str) -> CoordinatorClient:
        return self.remote.opened(await self.remote.mirror(table_id))

    async def name_owner(self, nickname: str) -> str | None:
        return await self.remote.name_owner(nickname)

    def holds_seat(self, identity: str) -> bool:
        return self.remote.holds_seat(identity)

    async def banned(self, identity: str | None, address: str) -> str | None:
        return await self.remote.banned(identity, address)

    async def close(self) -> None:
        await self.remote.stop()


class OtherFronts:
    """The other fronts' counts, for this front's limits (``ssh.Elsewhere``), and this
    front's own told to them: both ride on the fronts' heartbeats (``pioche.front.alive``,
    ``Remote.set_counts`` and ``Remote.peers``: said ``COUNTS_DEBOUNCE`` after a change and
    every second; a front silent ``bus.SILENCE`` seconds counts for nothing, one that said
    ``bye`` at once).

    Two fronts admitting at the same moment do not see each other's newcomer for up to the
    debounce plus the bus's latency: the limits across fronts may be overshot by the
    connections that arrive within that window (a handful at most, against limits of tens)."""

    def __init__(self, remote: Remote) -> None:
        self.remote = remote

    def sessions(self) -> int:
        return sum(alive.sessions for alive in self.remote.peers().values())

    def from_address(self, peer: str) -> int:
        return sum(count for alive in self.remote.peers().values()
                   for address, count in alive.addresses if address == peer)

    def changed(self, sessions: int, by_address: Mapping[str, int]) -> None:
        self.remote.set_counts(sessions, by_address)


def read_host_key(args: argparse.Namespace) -> asyncssh.SSHKey | None:
    """The tree's host key, or None (logged) if the keys directory has none."""
    import asyncssh

    from .keys import HOST_KEY_NAME

    path = args.keys_dir / HOST_KEY_NAME
    try:
        return asyncssh.read_private_key(path)
    except (OSError, asyncssh.KeyImportError) as error:
        log.error("no host key %s (%s): a front never writes one; pioche serve --workers "
                  "or pioche keygen does", path, error)
        return None


class Front:
    """What one front process holds, made in order by ``start`` and let go of in the other
    order by ``stop``, whatever ``start`` reached: the front stops when told to even while it
    starts (a bus that never answers: ``bus.connect`` tries again for ever)."""

    def __init__(self, args: argparse.Namespace, url: str, tls: BusTLS | None,
                 key: asyncssh.SSHKey) -> None:
        from .collector import Collector
        from .session import process_tag

        self.args = args
        self.url = url
        self.tls = tls
        self.key = key
        self.front_id = process_tag()
        self.nc: Client | None = None
        self.desk: RemoteFront | None = None
        self.with_tree = False  # the whole tree stops, the coordinator with it
        self.service: PiocheService | None = None
        self.server: PiocheServer | None = None
        self.collector = Collector()

    async def start(self) -> None:
        from pioche_tui.app.service import PiocheService
        from pioche_tui.bus import FRONT, bus_name, connect
        from pioche_tui.bus.directory import buckets_of, through_elections
        from pioche_tui.bus.natsd import redact
        from pioche_tui.coordinator.remote import Remote

        from .driver import configure_textual
        from .keys import fingerprint
        from .ssh import PiocheServer

        args = self.args
        try:
            name = bus_name(self.url)
            nc = self.nc = await connect(self.url, f"front-{self.front_id}", FRONT, self.tls)
        except Exception as error:  # (nats-py raises its own errors, OSError, TimeoutError)
            log.error("cannot reach the bus %s: %s", redact(self.url),
                      redact_error(error, self.url))
            raise CannotStart(1) from None
        try:
            buckets = await through_elections(
                "the lobby's buckets", lambda: buckets_of(nc, create=False))
        except Exception as error:  # (JetStream there, its buckets refused)
            log.error("cannot open the lobby's buckets: %s", error)
            raise CannotStart(1) from None
        owners = None
        if buckets is not None:  # (several coordinators made them: sessions have homes)
            from pioche_tui.bus.owners import bind_owner_buckets
            try:
                owners = await through_elections(
                    "the owners' buckets", lambda: bind_owner_buckets(nc))
            except Exception as error:
                log.error("cannot open the owners' buckets: %s", error)
                raise CannotStart(1) from None
        desk = self.desk = RemoteFront(Remote(nc, self.front_id, buckets=buckets,
                                              name=name, owners=owners))
        try:
            self.service = PiocheService(desk, getattr(args, "public_host", None))
        except ValueError as error:  # --public-host
            log.error("cannot start: %s", error)
            raise CannotStart(2) from None
        configure_textual(args.colors)
        await desk.remote.start()
        self.server = PiocheServer(
            self.service.make_app, self.key, name_owner=self.service.name_owner,
            holds_seat=self.service.holds_seat, banned=self.service.banned,
            limits=limits_of(args), collector=self.collector, sharing=self.service,
            elsewhere=OtherFronts(desk.remote),
        )
        try:
            await self.server.start(args.host, args.port, reuse_port=args.reuse_port)
        except (OSError, ValueError) as error:  # ValueError: no SO_REUSEPORT on this system
            log.error("cannot listen on %s port %d: %s", args.host, args.port, error)
            self.server = None
            raise CannotStart(1) from None
        log.info("front %s (pid %d) listening on %s port %d; host key %s; bus %s as %s%s",
                 self.front_id, os.getpid(), args.host, self.server.port,
                 fingerprint(self.key), redact(self.url), name,
                 " (TLS)" if self.tls is not None else "")
        self.collector.start()

    def tree_stops(self) -> None:
        """The front stops with the whole tree (``workers.TREE_STOPS``, or the supervisor's
        end), not alone. Said to the sessions' client at once: a coordinator or bus found
        lost while the players are being told must not tell them it restarts."""
        self.with_tree = True
        if self.desk is not None:
            self.desk.remote.stops_with_tree = True

    async def stop(self, served: bool = True) -> None:
        """The players told and their apps ended (``PiocheServer.close``), the front's last
        heartbeat (bye: the coordinator closes its sessions at once), the bus let go. Each
        step bounded: the bus may be gone (the supervisor's end takes nats-server with it).

        Stopping with the tree, the apps' ``server_stopping`` holds every table still (the
        coordinator stops next); stopping alone, it changes nothing at the coordinator: the
        front's sessions end as dropped connections do, their seats wait for their players
        (who reconnect to another front), and every other table plays on."""
        if self.desk is not None:
            self.desk.remote.stops_with_tree = self.with_tree
        if self.server is not None:
            await self.server.close()
        if self.service is not None:
            await self.service.close()
        if self.nc is not None:
            with contextlib.suppress(Exception):  # (a bus gone: nothing to let go of)
                await asyncio.wait_for(self.nc.close(), BUS_CLOSE_WAIT)
        self.collector.stop()


async def front(args: argparse.Namespace) -> int:
    """``pioche front``, until SIGINT, SIGTERM or the supervisor's end (exit 0)."""
    try:
        url, tls = bus_settings(args)
    except ValueError as error:
        log.error("%s", error)
        return 2
    key = read_host_key(args)
    if key is None:
        return 1
    link = ParentLink(args.parent_fd) if args.parent_fd is not None else None
    front = Front(args, url, tls, key)
    return await serve_until_stopped(front, stop_event(link, with_tree=front.tree_stops), link)
