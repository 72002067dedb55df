"""``pioche serve``: the SSH server, until SIGINT or SIGTERM.

What it serves comes from one place, ``DEFAULT_APP`` (``--app`` overrides it): a function called
with the data directory, on the running event loop, returning a ``session.Service`` (the app
factory, who owns which nickname, and how to close the store).
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from . import logs
from .limits import Limits

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from pioche_tui.store.lock import DataDirLock

    from .session import ServiceOpener, Sharing

DEFAULT_APP = "pioche_tui.app:open_service"
"""What ``pioche serve`` serves unless ``--app`` says otherwise."""

log = logging.getLogger("pioche.server")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "serve",
        help="serve Pioche over SSH (ssh HOST -p PORT)",
        description=(
            "Serve Pioche over SSH until SIGINT or SIGTERM. On first start, writes an ed25519 "
            "host key into the keys directory. See docs/server.md."
        ),
    )
    add_listen_flags(p)
    add_data_dir_flag(p)
    p.add_argument(
        "--app", default=DEFAULT_APP, metavar="MODULE:FUNCTION",
        help=f"what to serve (default {DEFAULT_APP})",
    )
    p.add_argument(
        "--workers", type=workers_count, default=None, metavar="N|auto",
        help="serve from N processes around one coordinator, over a message bus (auto: one "
        "per core); without it, one process. See docs/server.md",
    )
    add_limit_flags(p)
    add_setting_flags(p)
    logs.add_log_flag(p)
    p.set_defaults(run=run)


def add_data_dir_flag(p: argparse.ArgumentParser) -> None:
    """``--data-dir`` (``serve``, the coordinator process, ``pioche admin``)."""
    p.add_argument(
        "--data-dir", type=Path, default=Path("data"),
        help="table logs and the SQLite database (default ./data)",
    )


def add_listen_flags(p: argparse.ArgumentParser) -> None:
    """Where the SSH server listens and its host key (``serve``, a front)."""
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0)")
    p.add_argument("--port", type=int, default=2222, help="port to listen on (default 2222)")
    p.add_argument(
        "--reuse-port", action="store_true",
        help="share the port with other processes listening on it with this flag too "
        "(SO_REUSEPORT, Linux and BSDs: the kernel spreads new connections among them)",
    )
    p.add_argument(
        "--keys-dir", type=Path, default=Path("keys"), help="host keys (default ./keys)"
    )


def add_limit_flags(p: argparse.ArgumentParser) -> None:
    """The SSH server's limits and colours (``serve``; with ``--workers``, every front's)."""
    p.add_argument(
        "--max-sessions", type=positive, default=Limits.max_sessions, metavar="N",
        help="players at once; returning players (a seat at a table) still get in "
        f"(default {Limits.max_sessions})",
    )
    p.add_argument(
        "--max-per-address", type=positive, default=Limits.max_per_address, metavar="N",
        help=f"connections at once from one IP address (default {Limits.max_per_address})",
    )
    p.add_argument(
        "--max-pending", type=positive, default=Limits.max_pending, metavar="N",
        help="connections at once running no app yet (logging in); past it the busiest "
        f"address's oldest one makes room (default {Limits.max_pending})",
    )
    p.add_argument(
        "--cpu-per-connection", type=cpu_share, default=Limits.cpu_rate, metavar="SECONDS",
        help="CPU seconds a second one connection may cost, sustained, before its input waits "
        f"(default {Limits.cpu_rate:g})",
    )
    p.add_argument(
        "--cpu-per-address", type=cpu_share, default=Limits.address_cpu_rate, metavar="SECONDS",
        help="the same for all the connections from one IP address together "
        f"(default {Limits.address_cpu_rate:g}; more for many players behind one address)",
    )
    p.add_argument(
        "--cpu-per-address-busy", type=cpu_share, metavar="SECONDS",
        help="while the server is busy with others, an address gets what the average other "
        "address spends, at least this (default: 1/5 of --cpu-per-address, 0.03)",
    )
    p.add_argument(
        "--stall-timeout", type=seconds, default=Limits.stall_timeout, metavar="SECONDS",
        help="seconds a client may leave its output untaken before it is disconnected "
        f"(default {Limits.stall_timeout:g})",
    )
    p.add_argument(
        "--colors", choices=("truecolor", "256", "16", "none"), default="truecolor",
        help="the most colours a session gets (default truecolor); each gets what its TERM, "
        "COLORTERM and NO_COLOR say, up to this",
    )


def add_public_host_flag(p: argparse.ArgumentParser) -> None:
    """``--public-host`` (``serve``, a front: the reconnect command its guests are shown)."""
    p.add_argument(
        "--public-host", default=argparse.SUPPRESS, metavar="HOST[:PORT]",
        help="the server's name (and port) as players reach it, for the reconnect command "
             "guests are shown (default: the address and port their connection reached)",
    )


def add_setting_flags(p: argparse.ArgumentParser) -> None:
    """The app's settings (``serve``; with ``--workers``, the coordinator process's)."""
    # The app's settings, passed to its opener only when given (load tests, demos): the app's
    # own defaults hold otherwise.
    p.add_argument(
        "--turn-timer", type=seconds_or_none, default=argparse.SUPPRESS, metavar="SECONDS",
        help="default seconds per decision at tables with a player, 0 for none (default 60)",
    )
    p.add_argument(
        "--bot-delay", type=delay_range, default=argparse.SUPPRESS, metavar="MIN,MAX",
        help="seconds a bot thinks before it plays, drawn between MIN and MAX (default 0.8,2)",
    )
    p.add_argument(
        "--grace", type=seconds, default=argparse.SUPPRESS, metavar="SECONDS",
        help="how long a dropped player keeps their seat (default 300)",
    )
    p.add_argument(
        "--table-rate", type=count_pair, default=argparse.SUPPRESS, metavar="PLAYER,ADDRESS",
        help="tables one player, and one IP address, may create per minute (default 6,20)",
    )
    p.add_argument(
        "--keep-finished", dest="keep_finished", type=days, default=argparse.SUPPRESS,
        metavar="DAYS",
        help="days a finished game's log is kept, compacted; its result stays (default 30)",
    )
    p.add_argument(
        "--keep-abandoned", dest="keep_abandoned", type=days, default=argparse.SUPPRESS,
        metavar="DAYS", help="days an abandoned table's log is kept, compacted (default 7)",
    )
    p.add_argument(
        "--logs", choices=("files", "jetstream"), default=argparse.SUPPRESS,
        help="where the tables' logs live: files under DATA_DIR/tables (default), or the bus's "
        "JetStream stream PIOCHE_LOGS (pioche coordinator, pioche serve --workers N only)",
    )
    add_public_host_flag(p)
    p.add_argument(
        "--admins", type=Path, default=argparse.SUPPRESS, metavar="FILE",
        help="the admins' key fingerprints, one a line (default DATA_DIR/admins; read again "
        "when it changes). See docs/server.md",
    )
    p.add_argument(
        "--db", type=database_url, default=argparse.SUPPRESS, metavar="URL",
        help="the database: sqlite:PATH, or postgresql://USER@HOST/NAME for coordinators on "
        f"several machines (default: ${DB_ENV} if set, else sqlite:DATA_DIR/pioche.sqlite3). "
        f"A password goes in ${DB_ENV}, PGPASSWORD or ~/.pgpass, never here: every user sees "
        "a command line",
    )
    p.add_argument(
        "--trace", type=Path, default=None, metavar="FILE",
        help="append a line per accepted move to FILE: monotonic time, table, step (bench/)",
    )


SETTINGS = ("turn_timer", "bot_delay", "grace", "table_rate", "keep_finished", "keep_abandoned",
            "public_host", "admins", "db", "logs")
"""Flags passed to the app's opener as keyword arguments, when given."""
TRACE_LOGGER = "pioche.trace"
"""The logger of accepted moves (pioche_tui.coordinator.table writes it at DEBUG)."""
DB_ENV = "PIOCHE_DB"
"""The environment variable that may hold the database's URL, with its password (``--db``)."""


def app_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The settings given (``SETTINGS``), for the app's opener; the database from ``DB_ENV``
    when ``--db`` is not given."""
    settings = {name: getattr(args, name) for name in SETTINGS if hasattr(args, name)}
    if "db" not in settings and os.environ.get(DB_ENV):
        settings["db"] = os.environ[DB_ENV]
    return settings


def database_url(text: str) -> str:
    """``--db``: a URL the store opens (store/db.py), without a password."""
    from pioche_tui.store.db import has_password, sqlite_path

    try:
        sqlite_path(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if has_password(text):
        raise argparse.ArgumentTypeError(
            f"no password on the command line (every user sees it): put the URL in ${DB_ENV}, "
            "or the password in PGPASSWORD or ~/.pgpass")
    return text


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


MAX_WORKERS = 64


def workers_count(text: str) -> int:
    """``--workers``: a number of front processes, or ``auto`` for one per core."""
    if text == "auto":
        return min(os.cpu_count() or 1, MAX_WORKERS)
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("must be a number of processes or auto") from None
    if not 1 <= value <= MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"must be from 1 to {MAX_WORKERS}, or auto")
    return value


def cpu_share(text: str) -> float:
    value = float(text)
    if not 0 < value <= 1000:
        raise argparse.ArgumentTypeError("must be CPU seconds a second, more than 0")
    return value


def seconds(text: str) -> float:
    value = float(text)
    if not 0 <= value < 1e6:
        raise argparse.ArgumentTypeError("must be a number of seconds, 0 or more")
    return value


def seconds_or_none(text: str) -> float | None:
    return seconds(text) or None


def days(text: str) -> float:
    """A number of days, as seconds (the coordinator's unit)."""
    value = float(text)
    if not 0 <= value < 1e5:
        raise argparse.ArgumentTypeError("must be a number of days, 0 or more")
    return value * 86400.0


def count_pair(text: str) -> tuple[int, int]:
    first, comma, second = text.partition(",")
    try:
        return positive(first), positive(second if comma else first)
    except ValueError as error:
        raise argparse.ArgumentTypeError("must be PLAYER,ADDRESS, each at least 1") from error


def delay_range(text: str) -> tuple[float, float]:
    low, comma, high = text.partition(",")
    try:
        pair = (seconds(low), seconds(high if comma else low))
    except ValueError as error:
        raise argparse.ArgumentTypeError("must be MIN,MAX in seconds") from error
    if pair[0] > pair[1]:
        raise argparse.ArgumentTypeError("MIN must not exceed MAX")
    return pair


def run(args: argparse.Namespace) -> int:
    import asyncio

    logs.setup(args.log_format, "serve", tagged=False)
    if args.workers is not None:  # the process tree: this process only supervises it
        from .workers import supervise

        try:
            return asyncio.run(supervise(args))
        finally:
            logging.shutdown()
    if args.trace is not None:
        trace_to(args.trace)
    try:
        return asyncio.run(serve(args))
    finally:
        logging.shutdown()


def trace_to(path: Path) -> None:
    """Send the trace of accepted moves to ``path`` (one line each), and only there."""
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(message)s"))
    trace = logging.getLogger(TRACE_LOGGER)
    trace.addHandler(handler)
    trace.setLevel(logging.DEBUG)
    trace.propagate = False


def limits_of(args: argparse.Namespace) -> Limits:
    """The limits ``add_limit_flags``'s flags give."""
    return Limits(
        max_sessions=args.max_sessions, max_pending=args.max_pending,
        max_per_address=args.max_per_address, stall_timeout=args.stall_timeout,
        cpu_rate=args.cpu_per_connection, address_cpu_rate=args.cpu_per_address,
        address_cpu_busy_rate=args.cpu_per_address_busy,
    )


def load_opener(spec: str) -> ServiceOpener:
    module_name, _, name = spec.partition(":")
    try:
        opener = getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError, ValueError) as error:
        raise LookupError(f"cannot load --app {spec!r}: {error}") from error
    if not callable(opener):
        raise LookupError(f"--app {spec!r} is not a function")
    return cast("ServiceOpener", opener)


async def serve(args: argparse.Namespace) -> int:
    try:
        opener = load_opener(args.app)
    except LookupError as error:
        log.error("%s", error)
        return 2
    return await holding(args.data_dir, lambda _lock: serve_locked(args, opener))


async def holding(data_dir: Path, run: Callable[[DataDirLock], Awaitable[int]]) -> int:
    """``run``'s exit status, run holding the data directory's lock (``store/lock.py``),
    taken before anything is read or written: another server may be running on it (then
    logged, exit status 1, nothing run)."""
    from pioche_tui.store.lock import DataDirBusy, DataDirLock

    try:
        lock = DataDirLock.acquire(data_dir)
    except DataDirBusy as error:
        log.error("%s: stop it, or give this server another --data-dir", error)
        return 1
    try:
        return await run(lock)
    finally:
        lock.release()


async def serve_locked(args: argparse.Namespace, opener: ServiceOpener) -> int:
    """``serve`` once the data directory is this process's."""
    import asyncio
    import signal

    from pioche_tui.store.db import StoreError

    from .collector import Collector
    from .driver import configure_textual
    from .keys import HOST_KEY_NAME, ensure_host_key, fingerprint
    from .session import process_tag
    from .ssh import PiocheServer

    key, created = ensure_host_key(args.keys_dir)
    if created:
        log.info("wrote a new host key: %s", args.keys_dir / HOST_KEY_NAME)
    configure_textual(args.colors)
    settings = app_settings(args)
    try:  # an app may take no such setting (the test suite's demo): say so, start nothing
        inspect.signature(opener).bind(args.data_dir, **settings)
    except TypeError as error:
        log.error("--app %s does not take %s: %s", args.app, ", ".join(settings), error)
        return 2
    try:
        service = opener(args.data_dir, **settings)
        if inspect.isawaitable(service):  # opening the store may need the loop (the real app)
            service = await service
    except ValueError as error:  # a setting's value the app refuses (--public-host, --db)
        log.error("--app %s cannot start: %s", args.app, error)
        return 2
    except StoreError as error:  # its database cannot be opened
        log.error("cannot start: %s", error)
        return 1
    collector = Collector()
    server = PiocheServer(
        service.make_app, key, name_owner=service.name_owner, holds_seat=service.holds_seat,
        banned=getattr(service, "banned", None), limits=limits_of(args),
        collector=collector,
        # Spectators share screens when the service says which may (PiocheService does).
        sharing=cast("Sharing", service) if hasattr(service, "shared_app") else None,
    )
    try:
        await server.start(args.host, args.port, reuse_port=args.reuse_port)
    except (OSError, ValueError) as error:  # ValueError: no SO_REUSEPORT on this system
        log.error("cannot listen on %s port %d: %s", args.host, args.port, error)
        await service.close()
        return 1
    log.info(
        "Pioche listening on %s port %d; host key %s", args.host, server.port, fingerprint(key)
    )
    log.info("session ids of this process: %s-N (pid %d)", process_tag(), os.getpid())
    collector.start()  # everything loaded: frozen for the garbage collector
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    log.info("signal received: stopping")
    await server.close()
    await service.close()
    collector.stop()
    log.info("store closed; bye")
    return 0
