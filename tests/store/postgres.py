"""A real PostgreSQL server for the tests, from the machine's binaries.

``initdb`` makes a cluster in a private temporary directory and ``postgres`` serves it on a Unix
socket in that directory only (``listen_addresses=''``: no TCP port to collide on or to expose).
PostgreSQL refuses to run as root, so under root (containers, CI) both run as ``nobody`` through
``setpriv``, which also gives the server ``SIGKILL`` when the test process dies (PDEATHSIG): a
killed test run leaves no server behind. The server is the test process's child, not a daemon
``pg_ctl start`` would leave running.

The tests' cluster does not fsync (a power cut is not what the tests are about, and each test's
``CREATE DATABASE`` is then cheap); benchmarks give PostgreSQL's own defaults. Authentication is
``trust`` on the private socket.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

BIN_DIRS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
"""Debian's versioned directories (not on PATH), newest first; PATH is tried before them."""
USER = "pioche"  # the cluster's superuser: every test database belongs to it
READY_TIMEOUT = 30.0  # seconds for a fresh cluster to accept connections


class NoPostgres(Exception):
    """PostgreSQL's server binaries are not on this machine (the message says what to install)."""


def binary(name: str) -> Path:
    found = shutil.which(name)
    if found is not None:
        return Path(found)
    for directory in BIN_DIRS:
        if (directory / name).is_file():
            return directory / name
    raise NoPostgres(f"{name} not found on PATH nor in /usr/lib/postgresql/*/bin: install "
                     "PostgreSQL's server (Debian: apt-get install postgresql) to run these tests")


TEST_SETTINGS = {"fsync": "off", "full_page_writes": "off", "synchronous_commit": "off"}
"""The tests' server settings (a benchmark gives ``{}``: PostgreSQL's defaults, durable)."""


class PostgresServer:
    """One PostgreSQL cluster in a temporary directory, served on a Unix socket there, with
    ``settings`` (``postgres -c NAME=VALUE``)."""

    def __init__(self, settings: Mapping[str, str] = TEST_SETTINGS) -> None:
        self.settings = dict(settings)
        self.initdb, self.postgres = binary("initdb"), binary("postgres")
        self.dir = Path(tempfile.mkdtemp(prefix="pioche-pg-"))
        self.data = self.dir / "data"
        self._as: list[str] = []
        if os.geteuid() == 0:  # postgres will not run as root: nobody, in a directory it owns
            self._as = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                        "--pdeathsig=KILL"]
            os.chown(self.dir, 65534, 65534)
        self._process: subprocess.Popen[bytes] | None = None
        self._databases = 0

    def _run(self, argv: Sequence[str]) -> None:
        done = subprocess.run([*self._as, *argv], capture_output=True, timeout=60, check=False)
        if done.returncode:
            raise RuntimeError(f"{argv[0]} failed: {done.stderr.decode(errors='replace')}")

    def start(self) -> None:
        self._run([str(self.initdb), "-D", str(self.data), "-U", USER, "--auth=trust",
                   "--no-sync", "-E", "UTF8", "--locale=C"])
        with open(self.dir / "server.log", "wb") as log:  # (the child keeps its own descriptor)
            self._process = subprocess.Popen(
                [*self._as, str(self.postgres), "-D", str(self.data), "-k", str(self.dir),
                 "-c", "listen_addresses=",
                 *(arg for item in self.settings.items() for arg in ("-c", "=".join(item)))],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self._wait_ready()

    def _wait_ready(self) -> None:
        import psycopg

        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            assert self._process is not None
            if self._process.poll() is not None:
                raise RuntimeError(f"postgres exited: {self.server_log()}")
            try:
                psycopg.connect(self.url("postgres"), connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"postgres not ready in {READY_TIMEOUT:g} s: "
                                       f"{self.server_log()}") from None
                time.sleep(0.05)

    def server_log(self) -> str:
        return (self.dir / "server.log").read_text(errors="replace")[-2000:]

    def url(self, database: str) -> str:
        """A libpq URL to ``database`` over this cluster's socket (the host is the socket's
        directory, percent-encoded as libpq reads it)."""
        return f"postgresql://{USER}@/{database}?host={self.dir}"

    def new_database(self) -> str:
        """A fresh, empty database's URL (one per test: nothing leaks from one to the next)."""
        import psycopg

        self._databases += 1
        name = f"t{self._databases}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        if self._process is not None:
            self._process.send_signal(signal.SIGINT)  # fast shutdown: clients disconnected
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(timeout=10)
            self._process = None
        shutil.rmtree(self.dir, ignore_errors=True)


@contextmanager
def postgres_server(settings: Mapping[str, str] = TEST_SETTINGS) -> Iterator[PostgresServer]:
    server = PostgresServer(settings)
    try:
        server.start()
        yield server
    finally:
        server.stop()
