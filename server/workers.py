"""``pioche serve --workers N``: the process tree, and ``pioche coordinator``, one of its children.

The process the operator starts is the **supervisor**: it takes the data directory's lock, makes
the host key if missing, reserves the port, then starts its children in order and watches them:

1. ``nats-server`` (``pioche_tui.bus.natsd.NatsServer``: loopback, a password drawn now);
2. the **coordinator** (``pioche coordinator``): the tables, engines, logs and SQLite, served
   over the bus (``pioche_tui.coordinator.host.CoordinatorHost``);
3. N **fronts** (``pioche front``, server/front.py): asyncssh and the apps of their
   connections, all listening on the same port (``SO_REUSEPORT``).

It runs no coordinator and no SSH itself. SIGINT or SIGTERM stops the tree in order: the fronts
(they tell their players and close), then the coordinator (it flushes and closes the store),
then the bus; exit status 0. A child that exits while the tree runs is restarted, after a pause
that doubles from 0.5 s up to 5 s while it keeps failing (back to 0.5 s once it has run
``STEADY`` seconds).

Children never outlive the supervisor, however it ends: each Python child holds one end of a
socket pair whose other end only the supervisor has (``--parent-fd``, ``ParentLink``); when
the supervisor is gone, even SIGKILLed, the kernel closes its end and the child sees EOF and
stops in order. nats-server gets ``PR_SET_PDEATHSIG`` (natsd). The same link carries the child's
« ready » line (it serves) back to the supervisor. Children run in process groups of their
own: a Ctrl-C in the terminal reaches the supervisor alone, which stops them in order.

The bus's password reaches the children in their environment only (``PIOCHE_BUS``, the URL with
its credentials: ``/proc/PID/environ`` is readable by the owner alone, where a command line is
shown to everyone by ``ps``); logs show the URL without them (``natsd.redact``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from . import logs
from .serve import (
    DEFAULT_APP,
    add_data_dir_flag,
    add_setting_flags,
    app_settings,
    holding,
    positive,
    trace_to,
)

if TYPE_CHECKING:
    from nats.aio.client import Client

    from pioche_tui.app.service import EmbeddedService
    from pioche_tui.bus import BusTLS
    from pioche_tui.bus.natsd import NatsServer
    from pioche_tui.coordinator.core import Coordinator
    from pioche_tui.coordinator.host import CoordinatorHost
    from pioche_tui.store.lock import DataDirLock

log = logging.getLogger("pioche.workers")

BUS_ENV = "PIOCHE_BUS"
"""The environment variable that hands the children the bus's URL, with its credentials."""
READY = b"ready\n"
"""What a child writes on its parent link once it serves (``ParentLink.ready``)."""
HAND_OVER_WAIT = 2.0  # seconds a stopping coordinator of several waits for its last appends
READY_TIMEOUT = 60.0  # seconds a child gets to be ready (imports and the store's restore)
STOP_TIMEOUT = 15.0  # seconds a child gets to stop after SIGTERM, before SIGKILL
TREE_STOPS = signal.SIGUSR1
"""What the supervisor sends its fronts instead of SIGTERM when the whole tree stops: their
players' sessions then end without being taken for drops (the coordinator stops next). A front
sent SIGTERM alone stops alone: its players' seats wait for them, as after a dropped
connection, and the other fronts' tables play on."""
FIRST_BACKOFF = 0.5  # seconds before restarting a child that exited; doubled at each failure
MAX_BACKOFF = 5.0
CANCEL_AGAIN = 0.1  # seconds between two cancellations of a start told to stop
BUS_CLOSE_WAIT = 2.0  # seconds the bus's connection gets to close (it may be gone)
BUS_TIMEOUT = 15.0  # seconds a child waits for its first connection to the bus
ORPHAN_DEADLINE = 15.0
"""Seconds a child may take to stop once its supervisor is gone; past them it exits at once
(``stop_event``): a child never outlives its tree for long, whatever its stop waits for."""
STEADY = 10.0  # seconds a restarted child must run for its next failure to wait FIRST_BACKOFF


def setup_logging(role: str, args: argparse.Namespace) -> None:
    """The log of one process of the tree, as ``--log-format`` says (``server/logs.py``)."""
    logs.setup(getattr(args, "log_format", "text"), role)


# -- the child's side ------------------------------------------------------------------------


class ParentLink:
    """A child's end of its supervisor's link (``--parent-fd N``): say when it serves
    (``ready``), and learn when the supervisor is gone (``watch``: EOF, whatever killed it).
    The supervisor never writes on it."""

    def __init__(self, fd: int) -> None:
        self._sock = socket.socket(fileno=fd)
        self._sock.set_inheritable(False)  # (the child's own children must not keep it open)
        self._sock.setblocking(False)

    def ready(self) -> None:
        """Tell the supervisor this process serves (a few bytes into an empty buffer: never
        blocks)."""
        with contextlib.suppress(OSError):  # (the supervisor gone: ``watch`` says so)
            self._sock.send(READY)

    def watch(self, gone: Callable[[], None]) -> None:
        """Call ``gone`` once, on the running loop, when the supervisor's end closes."""
        loop = asyncio.get_running_loop()

        def readable() -> None:
            try:
                data = self._sock.recv(64)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:
                loop.remove_reader(self._sock.fileno())
                gone()

        loop.add_reader(self._sock.fileno(), readable)

    def close(self) -> None:
        with contextlib.suppress(ValueError, OSError):
            asyncio.get_running_loop().remove_reader(self._sock.fileno())
        self._sock.close()


def add_child_flags(p: argparse.ArgumentParser) -> None:
    """``--parent-fd``, ``--bus`` and ``--log-format``, which every child of the tree
    takes."""
    logs.add_log_flag(p)
    p.add_argument(
        "--parent-fd", type=int, default=None, metavar="FD",
        help="(set by pioche serve --workers) the supervisor's link: ready is written on it; "
        "its end means the supervisor is gone, and this process stops",
    )
    p.add_argument(
        "--bus", default=None, metavar="URL",
        help=f"the bus, nats://HOST:PORT or tls://HOST:PORT, without a password (every user "
        f"sees a command line): the URL with its credentials goes in ${BUS_ENV}, the default",
    )
    p.add_argument(
        "--bus-ca", type=Path, default=None, metavar="FILE",
        help="TLS to the bus: the CA (PEM) its servers' certificates must chain to",
    )
    p.add_argument(
        "--bus-cert", type=Path, default=None, metavar="FILE",
        help="mutual TLS: this machine's certificate (PEM), for a bus that asks for one",
    )
    p.add_argument(
        "--bus-key", type=Path, default=None, metavar="FILE",
        help="mutual TLS: the key of --bus-cert (PEM, unencrypted, readable by this user only)",
    )


def bus_url(args: argparse.Namespace) -> str | None:
    """``--bus`` or ``$PIOCHE_BUS``; ValueError for a ``--bus`` with a password (``ps`` would
    show it to every user: it belongs in the environment)."""
    from urllib.parse import urlsplit

    if args.bus and urlsplit(args.bus).password:
        raise ValueError(f"--bus with a password: every user sees a command line; put the URL "
                         f"in ${BUS_ENV} instead")
    url: str | None = args.bus or os.environ.get(BUS_ENV)
    return url


def bus_settings(args: argparse.Namespace) -> tuple[str, BusTLS | None]:
    """The bus's URL and TLS, as the flags and the environment say; ValueError, to log, for
    what is missing or refused."""
    url = bus_url(args)
    if not url:
        raise ValueError(f"no bus: give --bus URL or set {BUS_ENV}")
    return url, bus_tls(args)


def redact_error(error: BaseException, url: str) -> str:
    """An error met reaching the bus, fit for a log (the URL's password masked)."""
    from pioche_tui.bus.natsd import scrub

    return scrub(str(error) or type(error).__name__, url)


def bus_tls(args: argparse.Namespace) -> BusTLS | None:
    """``--bus-ca`` (and ``--bus-cert``, ``--bus-key``); ValueError for a certificate without
    a CA or a key."""
    from pioche_tui.bus import BusTLS

    ca, cert, key = args.bus_ca, args.bus_cert, args.bus_key
    if (cert is None) != (key is None):
        raise ValueError("--bus-cert and --bus-key go together")
    if ca is None:
        if cert is not None:
            raise ValueError("--bus-cert needs --bus-ca (the bus's CA)")
        return None
    return BusTLS(ca, cert, key)


async def cancel_until_done(task: asyncio.Task[Any]) -> None:
    """Cancel ``task`` again and again until it has ended: nats-py's first connection, trying
    again for ever, can lose a cancellation (asyncio.wait_for's, when an attempt fails at that
    moment), and a child told to stop while it starts must not stay, an orphan reconnecting
    for ever."""
    while not task.done():
        task.cancel()
        await asyncio.wait((task,), timeout=CANCEL_AGAIN)


def orphaned() -> None:
    """Still running ``ORPHAN_DEADLINE`` after the supervisor's end: exit now (from the
    timer's thread: the event loop may be what is stuck)."""
    log.error("still stopping %.0f s after the supervisor's end: exiting now", ORPHAN_DEADLINE)
    logging.shutdown()
    os._exit(1)


def stop_event(link: ParentLink | None,
               with_tree: Callable[[], None] | None = None) -> asyncio.Event:
    """Set on SIGINT, SIGTERM, or the supervisor's end (a child's reasons to stop). A child
    that stops differently when the whole tree stops (a front: ``with_tree``) is told so by
    ``TREE_STOPS`` instead of SIGTERM, and by the supervisor's end."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    if with_tree is not None:
        def tree_stops() -> None:
            with_tree()
            stop.set()

        loop.add_signal_handler(TREE_STOPS, tree_stops)
    if link is not None:
        def gone() -> None:
            log.warning("the supervisor is gone: stopping")
            deadline = threading.Timer(ORPHAN_DEADLINE, orphaned)
            deadline.daemon = True  # (a stop in time ends the process, and the timer with it)
            deadline.start()
            if with_tree is not None:
                with_tree()
            stop.set()

        link.watch(gone)
    return stop


# -- pioche coordinator ----------------------------------------------------------------------


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "coordinator",
        help="the coordinator of pioche serve --workers, served over its bus",
        description=(
            "Run the coordinator (tables, engines, logs, the database) over DATA_DIR and serve "
            "it to the fronts over the bus, until SIGINT or SIGTERM. pioche serve --workers "
            "starts it; see docs/server.md."
        ),
    )
    add_data_dir_flag(p)
    p.add_argument(
        "--lock-fd", type=int, default=None, metavar="FD",
        help="(set by pioche serve --workers) the data directory's lock, taken by the "
        "supervisor; without it, this process takes the lock itself",
    )
    p.add_argument(
        "--several", action="store_true",
        help="one of several coordinators on this bus (with --logs jetstream and a shared "
        "--db): each owns the tables it makes, holds a lease, and takes over the tables of one "
        "that dies (docs/server.md, « Several coordinators »)",
    )
    p.add_argument(
        "--bus-replicas", type=positive, default=1, metavar="N",
        help="copies JetStream keeps of what Pioche stores in it when it creates them: the "
        "tables' logs (--logs jetstream), the lobby's and the online names' buckets (default "
        "1: one host; 3 on a three-node cluster)",
    )
    add_child_flags(p)
    add_setting_flags(p)
    p.set_defaults(run=run_coordinator)


def run_coordinator(args: argparse.Namespace) -> int:
    setup_logging("coordinator", args)
    if args.trace is not None:
        trace_to(args.trace)
    try:
        return asyncio.run(coordinate(args))
    finally:
        logging.shutdown()


async def coordinate(args: argparse.Namespace) -> int:
    from pioche_tui.store.lock import DataDirBusy, DataDirLock

    try:
        url, tls = bus_settings(args)
    except ValueError as error:
        log.error("%s", error)
        return 2
    try:
        if args.lock_fd is not None:
            lock = DataDirLock.adopt(args.data_dir, args.lock_fd)
        else:
            lock = DataDirLock.acquire(args.data_dir)
    except (DataDirBusy, ValueError) as error:
        log.error("%s", error)
        return 1
    try:
        return await coordinate_locked(args, url, tls)
    finally:
        lock.release()


async def coordinate_locked(args: argparse.Namespace, url: str, tls: BusTLS | None) -> int:
    """``coordinate`` once the data directory is this process's: the service of the embedded
    mode (``open_service``: the coordinator, its store, the retention task), served on the
    bus until told to stop."""
    link = ParentLink(args.parent_fd) if args.parent_fd is not None else None
    return await serve_until_stopped(Coordinating(args, url, tls), stop_event(link), link)


class CannotStart(Exception):
    """A child cannot serve (logged already); ``status`` is its exit status."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class Served(Protocol):
    """What a child process serves: made in order by ``start`` (CannotStart when it cannot,
    logged), let go of by ``stop`` whatever ``start`` reached (``served``: whether it did
    start)."""

    async def start(self) -> None: ...

    async def stop(self, served: bool) -> None: ...


async def serve_until_stopped(part: Served, stop: asyncio.Event, link: ParentLink | None
                              ) -> int:
    """Start ``part``, serve until ``stop`` is set, stop it: the child's exit status. A start
    is raced against ``stop``, whatever it waits for (a bus that never answers, a JetStream
    request to a bus gone the moment after it answered): a child told to stop while it
    starts is cancelled until it has ended, then stopped."""
    starting = asyncio.create_task(part.start(), name="start")
    told = asyncio.create_task(stop.wait(), name="told to stop")
    await asyncio.wait((starting, told), return_when=asyncio.FIRST_COMPLETED)
    told.cancel()
    status = 0
    served = False
    if not starting.done():
        log.info("told to stop while starting")
        await cancel_until_done(starting)
    elif (failure := starting.exception()) is not None:
        if not isinstance(failure, CannotStart):
            await part.stop(served)
            raise failure
        status = failure.status
    else:
        served = True
        if link is not None:
            link.ready()
        await stop.wait()
        log.info("stopping")
    await part.stop(served)
    if link is not None:
        link.close()
    log.info("stopped; bye")
    return status


class Coordinating:
    """What one coordinator process holds (``Served``): its connection to the bus, the
    service (``open_service``: the coordinator, its store), its host on the bus."""

    def __init__(self, args: argparse.Namespace, url: str, tls: BusTLS | None) -> None:
        self.args = args
        self.url = url
        self.tls = tls
        self.several: bool = getattr(args, "several", False)
        self.connecting: asyncio.Task[Client] | None = None
        self.nc: Client | None = None
        self.service: EmbeddedService | None = None
        self.host: CoordinatorHost | None = None

    async def start(self) -> None:
        from pioche_tui.app.service import open_service
        from pioche_tui.bus import COORDINATOR, connect
        from pioche_tui.bus.directory import buckets_of, through_elections
        from pioche_tui.bus.natsd import redact
        from pioche_tui.coordinator.host import CoordinatorHost
        from pioche_tui.store.db import StoreError

        args = self.args
        if self.several and getattr(args, "logs", "files") != "jetstream":
            log.error("--several needs --logs jetstream: another coordinator must read the logs")
            raise CannotStart(2)
        # (a task of its own: nats-py tries again and again, and can lose a cancellation)
        self.connecting = asyncio.create_task(
            connect(self.url, f"coordinator-{os.getpid()}", COORDINATOR, self.tls))
        await asyncio.wait((self.connecting,), timeout=BUS_TIMEOUT)
        if not self.connecting.done():
            log.error("cannot reach the bus %s in %.0f s", redact(self.url), BUS_TIMEOUT)
            raise CannotStart(1)
        try:
            nc = self.nc = self.connecting.result()
        except Exception as error:  # (nats-py raises its own errors, OSError, TimeoutError)
            log.error("cannot reach the bus %s: %s", redact(self.url),
                      redact_error(error, self.url))
            raise CannotStart(1) from None
        log.info("connected to the bus %s; starting", redact(self.url))
        try:
            self.service = await open_service(
                args.data_dir, bus=nc, log_replicas=args.bus_replicas,
                restore=not self.several, **app_settings(args))
        except ValueError as error:  # a setting's value the service refuses (--public-host)
            log.error("cannot start: %s", error)
            raise CannotStart(2) from None
        except StoreError as error:  # its database cannot be opened
            log.error("cannot start: %s", error)
            raise CannotStart(1) from None
        try:
            buckets = await through_elections(
                "the lobby's buckets", lambda: buckets_of(nc, args.bus_replicas))
        except Exception as error:  # (JetStream there, its buckets refused)
            log.error("cannot open the lobby's buckets: %s", error)
            raise CannotStart(1) from None
        owners = None
        if self.several:
            from pioche_tui.bus.owners import open_owner_buckets
            try:
                owners = await through_elections(
                    "the owners' buckets", lambda: open_owner_buckets(nc, args.bus_replicas))
            except Exception as error:
                log.error("cannot open the owners' buckets: %s", error)
                raise CannotStart(1) from None
        self.host = CoordinatorHost(self.service.coordinator, nc, buckets, owners)
        await self.host.start()
        log.info("coordinator of %s serving on the bus %s", args.data_dir, redact(self.url))

    async def stop(self, served: bool) -> None:
        if self.service is not None:
            if served and self.several and self.host is not None:
                # (its tables handed over: its sessions move, told nothing)
                await hand_over(self.service.coordinator, self.host)
            # (its sessions told, the store closed: then their last mails sent)
            await self.service.close()
        if self.host is not None:
            await self.host.stop()
        if self.connecting is not None and not self.connecting.done():
            await cancel_until_done(self.connecting)
        if self.nc is not None:
            with contextlib.suppress(Exception):  # (a bus gone: nothing to let go of)
                await asyncio.wait_for(self.nc.close(), BUS_CLOSE_WAIT)
        log.info("store closed")


async def hand_over(coordinator: Coordinator, host: CoordinatorHost) -> None:
    """One of several coordinators stops: its tables hold still and their last appends land,
    then the host stops (no more requests; its lease deleted at once: the others claim its
    tables at their next turn) before the coordinator tells its sessions anything, so that the
    fronts move them (their home silent) instead of saying goodbye."""
    coordinator.freeze()
    deadline = time.monotonic() + HAND_OVER_WAIT
    while any(table.appending is not None for table in coordinator.tables.values()) \
            and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    await host.stop()


# -- the supervisor --------------------------------------------------------------------------


class ChildFailed(Exception):
    """A child exited, or said nothing, before it was ready."""


class Child:
    """One Python child of the supervisor (``pioche coordinator`` or ``pioche front``), started
    again by ``start`` each time it must be."""

    def __init__(self, name: str, argv: Sequence[str], env: dict[str, str],
                 pass_fds: Sequence[int] = ()) -> None:
        self.name = name
        self.argv = list(argv)
        self.env = env
        self.pass_fds = tuple(pass_fds)
        self.process: asyncio.subprocess.Process | None = None
        self.ready_at: float | None = None  # monotonic time it said ready, None before
        self._link: asyncio.StreamReader | None = None
        self._link_writer: asyncio.StreamWriter | None = None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    async def start(self) -> None:
        """Start the process; return once it says it serves (``ChildFailed`` if it exits, or
        says nothing in ``READY_TIMEOUT``: it is then killed)."""
        self._close_link()
        self.ready_at = None
        ours, theirs = socket.socketpair()
        command = [sys.executable, "-m", "pioche_tui.cli", *self.argv,
                   "--parent-fd", str(theirs.fileno())]
        spawn = asyncio.ensure_future(asyncio.create_subprocess_exec(
            *command, stdin=asyncio.subprocess.DEVNULL, env=self.env,
            pass_fds=(*self.pass_fds, theirs.fileno()), process_group=0,
        ))
        try:  # (a stop while it forks must not lose the process: it is reaped below)
            self.process = await asyncio.shield(spawn)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                process = await spawn
                process.kill()
                await process.wait()
            ours.close()
            raise
        finally:
            theirs.close()  # (the child's copy alone keeps that end open)
        self._link, self._link_writer = await asyncio.open_unix_connection(sock=ours)
        try:
            line = await asyncio.wait_for(self._link.readline(), READY_TIMEOUT)
        except TimeoutError:
            line = b""
        if line != READY:
            try:  # (its link closed: it is exiting; a signal now would reap it under asyncio)
                status = await asyncio.wait_for(asyncio.shield(self.process.wait()), 5.0)
            except TimeoutError:
                self.kill()
                status = await self.process.wait()
            raise ChildFailed(f"{self.name} exited with status {status} before it was ready")
        self.ready_at = time.monotonic()
        log.info("%s ready (pid %d)", self.name, self.process.pid)

    async def wait(self) -> int:
        assert self.process is not None
        return await self.process.wait()

    def kill(self) -> None:
        if self.process is not None and self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()

    async def stop(self, signum: int = signal.SIGTERM) -> None:
        """``signum``, and SIGKILL if it has not exited ``STOP_TIMEOUT`` later; reaped."""
        process = self.process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signum)
            try:
                await asyncio.wait_for(process.wait(), STOP_TIMEOUT)
            except TimeoutError:
                log.warning("%s (pid %d) did not stop in %.0f s: killed", self.name,
                            process.pid, STOP_TIMEOUT)
                self.kill()
            log.info("%s stopped (status %d)", self.name, await process.wait())
        self._close_link()

    def _close_link(self) -> None:
        if self._link_writer is not None:
            self._link_writer.close()
            self._link_writer = self._link = None


def reserve_port(host: str, port: int, shared: bool = False) -> socket.socket:
    """A socket bound to ``host``:``port`` with ``SO_REUSEPORT`` and never listening: it takes
    no connection, but holds the port (port 0: a free one, drawn here) for the fronts, which
    bind it with ``SO_REUSEPORT`` too, for as long as the tree runs (no other program can
    take it while every front restarts). OSError if the port is taken; and, unless ``shared``
    (``--reuse-port``), if anything listens on it already, even with ``SO_REUSEPORT``: another
    tree of the same user would otherwise share the port silently, taking half the players
    to another game."""
    family, kind, proto, _name, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    if port and not shared:
        with socket.socket(family, kind, proto) as probe:  # (fails on any socket bound there)
            probe.bind(address)
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
    except BaseException:
        sock.close()
        raise
    return sock


def hold_port(args: argparse.Namespace) -> socket.socket | None:
    """``reserve_port`` for ``--host``, ``--port`` and ``--reuse-port``; None (logged) when
    it cannot be had."""
    try:
        return reserve_port(args.host, args.port, shared=args.reuse_port)
    except OSError as error:
        log.error("cannot listen on %s port %d: %s", args.host, args.port, error)
        return None


class Tree:
    """The children of one supervisor: the bus, the coordinator, the fronts (``pioche serve
    --workers``); or the fronts alone (``pioche front --workers``: the bus and the
    coordinators elsewhere)."""

    def __init__(self, bus: NatsServer | None, coordinator: Child | None,
                 fronts: Sequence[Child]) -> None:
        self.bus = bus
        self.coordinator = coordinator
        self.fronts = list(fronts)
        self._keepers: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        """The bus, then the coordinator, then the fronts, each ready before the next step
        (NatsError or ChildFailed otherwise: ``stop`` stops what started)."""
        children = [*([self.coordinator] if self.coordinator is not None else []),
                    *self.fronts]
        if self.bus is not None:
            await self.bus.start()
            for child in children:  # (its port is known now)
                child.env[BUS_ENV] = self.bus.url
            self._keepers.append(asyncio.create_task(self._keep_bus(), name="keep bus"))
        if self.coordinator is not None:
            await self.coordinator.start()
        await asyncio.gather(*(front.start() for front in self.fronts))
        self._keepers += [asyncio.create_task(self._keep(child), name=f"keep {child.name}")
                          for child in children]

    async def _keep(self, child: Child) -> None:
        """Start ``child`` again each time it exits, after a backoff."""
        backoff = FIRST_BACKOFF
        while True:
            status = await child.wait()
            if child.ready_at is not None and time.monotonic() - child.ready_at >= STEADY:
                backoff = FIRST_BACKOFF
            log.warning("%s (pid %s) exited with status %d: restarting in %.1f s", child.name,
                        child.pid, status, backoff)
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, MAX_BACKOFF)
            try:
                await child.start()
            except ChildFailed as error:
                log.warning("%s", error)

    async def _keep_bus(self) -> None:
        """The same for nats-server, on the same port with the same password (the children
        reconnect by themselves)."""
        from pioche_tui.bus.natsd import NatsError

        assert self.bus is not None
        backoff = FIRST_BACKOFF
        while True:
            started = time.monotonic()
            status = await self.bus.wait()
            if time.monotonic() - started >= STEADY:
                backoff = FIRST_BACKOFF
            log.warning("nats-server exited with status %d: restarting in %.1f s", status,
                        backoff)
            while True:
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF)
                try:
                    await self.bus.start()
                    break
                except NatsError as error:
                    log.warning("%s", error)

    async def stop(self) -> None:
        """No more restarts; the fronts, then the coordinator, then the bus. With a
        coordinator, the fronts stop with the tree (``TREE_STOPS``: their tables hold still);
        alone, each stops as a front stopped by hand (SIGTERM: their players' seats wait for
        them, every table plays on)."""
        for keeper in self._keepers:
            keeper.cancel()
        for keeper in self._keepers:
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
        how = TREE_STOPS if self.coordinator is not None else signal.SIGTERM
        await asyncio.gather(*(front.stop(how) for front in self.fronts))
        if self.coordinator is not None:
            await self.coordinator.stop()
        if self.bus is not None:
            await self.bus.stop()
            log.info("nats-server stopped")


async def supervise_fronts(args: argparse.Namespace) -> int:
    """``pioche front --workers N``: N fronts on one port (``SO_REUSEPORT``, the kernel
    spreads the players over them), each started again when it exits, until SIGINT, SIGTERM
    or SIGHUP (exit 0); the bus and the coordinators are elsewhere. Each front stops alone
    (its players' seats wait for them), as one front stopped by hand."""
    from pioche_tui.bus.natsd import redact

    from .front import read_host_key
    from .keys import fingerprint

    try:
        url, _tls = bus_settings(args)
    except ValueError as error:
        log.error("%s", error)
        return 2
    key = read_host_key(args)  # (here too: a missing key said once, not by N fronts)
    if key is None:
        return 1
    reserved = hold_port(args)
    if reserved is None:
        return 1
    with reserved:
        port = reserved.getsockname()[1]
        env = {**os.environ, BUS_ENV: url}  # (the password in the environment only)
        argv = [*front_argv(args, port), *bus_tls_argv(args)]
        fronts = [Child(f"front {n}", argv, env) for n in range(1, args.workers + 1)]
        return await supervise_tree(Tree(None, None, fronts), lambda: log.info(
            "Pioche fronts listening on %s port %d; host key %s; %d fronts, bus %s",
            args.host, port, fingerprint(key), len(fronts), redact(url)))


def bus_tls_argv(args: argparse.Namespace) -> list[str]:
    """The TLS flags given to this process, for its children."""
    return [argument for flag, value in (("--bus-ca", args.bus_ca),
                                         ("--bus-cert", args.bus_cert),
                                         ("--bus-key", args.bus_key)) if value is not None
            for argument in (flag, str(value))]


def front_argv(args: argparse.Namespace, port: int) -> list[str]:
    """``pioche front``'s command line: where to listen, the host key, the limits."""
    return [
        "front", "--host", args.host, "--port", str(port), "--reuse-port",
        "--keys-dir", str(args.keys_dir),
        "--max-sessions", str(args.max_sessions), "--max-per-address", str(args.max_per_address),
        "--max-pending", str(args.max_pending),
        "--cpu-per-connection", repr(args.cpu_per_connection),
        "--cpu-per-address", repr(args.cpu_per_address),
        *(["--cpu-per-address-busy", repr(args.cpu_per_address_busy)]
          if args.cpu_per_address_busy is not None else []),
        "--stall-timeout", repr(args.stall_timeout), "--colors", args.colors,
        "--log-format", args.log_format,
        *(["--public-host", args.public_host] if hasattr(args, "public_host") else []),
    ]


def coordinator_argv(args: argparse.Namespace, lock_fd: int) -> list[str]:
    """``pioche coordinator``'s command line: the data directory, its lock, the settings
    given to ``pioche serve`` (as they were parsed: the coordinator parses them the same)."""
    argv = ["coordinator", "--data-dir", str(args.data_dir), "--lock-fd", str(lock_fd),
            "--log-format", args.log_format]
    if hasattr(args, "admins"):
        argv += ["--admins", str(args.admins)]
    if hasattr(args, "turn_timer"):
        argv += ["--turn-timer", repr(args.turn_timer or 0.0)]
    if hasattr(args, "bot_delay"):
        argv += ["--bot-delay", ",".join(map(repr, args.bot_delay))]
    if hasattr(args, "grace"):
        argv += ["--grace", repr(args.grace)]
    if hasattr(args, "table_rate"):
        argv += ["--table-rate", ",".join(map(str, args.table_rate))]
    for name in ("keep_finished", "keep_abandoned"):  # (parsed as seconds, given in days)
        if hasattr(args, name):
            argv += ["--" + name.replace("_", "-"), repr(getattr(args, name) / 86400.0)]
    if hasattr(args, "public_host"):
        argv += ["--public-host", args.public_host]
    if hasattr(args, "db"):  # (without a password: --db refuses one; $PIOCHE_DB is inherited)
        argv += ["--db", args.db]
    if hasattr(args, "logs"):
        argv += ["--logs", args.logs]
    if args.trace is not None:
        argv += ["--trace", str(args.trace)]
    return argv


async def supervise(args: argparse.Namespace) -> int:
    """``pioche serve --workers N``, until SIGINT or SIGTERM (exit 0), or a child that cannot
    start (exit 1)."""
    setup_logging("supervisor", args)
    if args.app != DEFAULT_APP:
        log.error("--workers serves the game (%s) only, not --app %s", DEFAULT_APP, args.app)
        return 2
    return await holding(args.data_dir, lambda lock: supervise_locked(args, lock))


async def supervise_locked(args: argparse.Namespace, lock: DataDirLock) -> int:
    from pioche_tui.bus.natsd import NatsServer

    from .keys import HOST_KEY_NAME, ensure_host_key, fingerprint

    key, created = ensure_host_key(args.keys_dir)  # (before the fronts, which all load it)
    if created:
        log.info("wrote a new host key: %s", args.keys_dir / HOST_KEY_NAME)
    reserved = hold_port(args)
    if reserved is None:
        return 1
    with reserved:
        port = reserved.getsockname()[1]
        # (JetStream for the lobby's and the online names' buckets: bus/directory.py)
        bus = NatsServer(jetstream=args.data_dir / "bus")
        env = dict(os.environ)  # (and the bus's URL, once it runs: Tree.start)
        coordinator = Child("coordinator", coordinator_argv(args, lock.fd), env, (lock.fd,))
        fronts = [Child(f"front {n}", front_argv(args, port), env)
                  for n in range(1, args.workers + 1)]
        tree = Tree(bus, coordinator, fronts)
        return await supervise_tree(tree, lambda: log.info(
            "Pioche listening on %s port %d; host key %s; %d fronts, bus %s", args.host, port,
            fingerprint(key), len(fronts), bus.public_url))


async def supervise_tree(tree: Tree, serving: Callable[[], None]) -> int:
    """Start ``tree``, then (``serving`` said) keep it until SIGINT, SIGTERM or SIGHUP, and
    stop it in order: exit 0; 1 if it cannot start."""
    from pioche_tui.bus.natsd import NatsError

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    # (SIGHUP too: the terminal closed; by default it would end the supervisor without
    # stopping the tree in order nor removing the bus's private directory)
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(signum, stop.set)
    starting = asyncio.create_task(tree.start())
    stopping = asyncio.create_task(stop.wait())
    await asyncio.wait((starting, stopping), return_when=asyncio.FIRST_COMPLETED)
    status = 0
    failure = starting.exception() if starting.done() else None
    if failure is not None:
        if not isinstance(failure, NatsError | ChildFailed):
            raise failure
        log.error("cannot start: %s", failure)
        status = 1
    elif starting.done():
        serving()
        await stop.wait()
    else:
        starting.cancel()
        with contextlib.suppress(asyncio.CancelledError, NatsError, ChildFailed):
            await starting
    stopping.cancel()
    log.info("stopping: %s", "the fronts, the coordinator, then the bus"
             if tree.coordinator is not None else "the fronts")
    await tree.stop()
    log.info("stopped; bye")
    return status
