"""Move to frame with players on several fronts (issue 18's target « one front's sessions,
others on other fronts: move to frame as with ``--workers`` on one machine, plus ≤ 2 ms »).
Never part of the test run; results go to docs/performance.md (« Several machines (issue 18) »,
« Players on two fronts »).

    uv run --group bench python bench/fronts.py [--tables 6] [--rounds 6] [--seconds 30]

Two servings of the real game run side by side on 127.0.0.1, each with ``--tables`` tables of
four scripted SSH players (``bench/load.py``'s players: asyncssh clients with a pty, who read
their prompt and press a key about a second after the table's last move):

- ``workers``: ``pioche serve --workers 2`` (the baseline: one host, nats-server without TLS,
  one bus user, the coordinator and two fronts on one port);
- ``deploy``: docs/deploy.md's deployment on one host: a nats-server with JetStream, mutual
  TLS (certificates made by the bench, ``tests/bus/certs.py``) and the users and permissions of
  ``pioche bus-config`` (``core``, ``paris``, ``lyon``), ``pioche coordinator`` and two
  ``pioche front`` processes, each over TLS as its own user, on ports of their own. Seats 0 and
  2 of each table connect to ``paris``, seats 1 and 3 to ``lyon``: every move reaches one
  front's sessions and the other front's.

Their play windows are interleaved (workers, deploy, workers, deploy…: only one serving plays
at a time), so that the machine's other work falls on both alike. For each move accepted in a
window (the coordinator's ``--trace``: monotonic time, table, step), the key that made it is
the last key a player of that table sent before it (since the table's previous move); a move
with none (the turn timer's stand-in) has no mover. Measured, on the clients' side (the
bytes each session receives, scanned for « coup N » as ``bench/load.py`` does):

- the mover's key to their own frame showing the move, and to each other player's frame
  (split: the other players on the mover's front, and on the other front);
- from the move's acceptance to each frame (the news' way alone), and the key to the
  acceptance (the request's way: SSH, the app, the bus to the coordinator);
- each serving's CPU and its wait for a CPU in each window (its processes'), and the load
  average.

In ``workers`` the kernel spreads the connections over the two fronts (one port): which front
holds each is read from /proc (``holder_of``). Ports: the deployment's nats-server listens on
``--nats-port`` (2380); the SSH ports are picked by the kernel.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load import Client, read_trace, set_up_table  # noqa: E402
from bench.load import play as play_script  # noqa: E402
from bench.measure import (  # noqa: E402
    Tree,
    cpu_seconds,
    cpu_wait_seconds,
    load_average,
    percentiles,
)
from pioche_tui.bus.natsd import binary  # noqa: E402
from pioche_tui.cli import main as pioche  # noqa: E402
from server.keys import ensure_host_key  # noqa: E402
from server.serve import DEFAULT_APP  # noqa: E402
from tests.bus.certs import CA  # noqa: E402
from tests.bus.several import Process, spawn, start_front  # noqa: E402
from tests.server.process import holder_of, serve_process  # noqa: E402

SETTINGS = ("--turn-timer", "60", "--grace", "120")
"""As ``bench/load.py``: the turn timer's stand-in plays what a script misses."""
AFTER = 1.5  # seconds after a window for its last moves to reach the screens


@dataclass
class Serving:
    """One serving of the game: its SSH ports (one per front, or one), the trace of accepted
    moves, its processes (for CPU), and its tables once set up."""

    name: str
    ports: list[int]
    trace: Path
    processes: list[psutil.Process]
    fronts: list[int] = field(default_factory=list)  # the fronts' pids (workers: one port)
    tables: dict[str, list[Client]] = field(default_factory=dict)
    front_of: dict[int, str] = field(default_factory=dict)  # id(client) -> its front

    def split(self, table_id: str) -> str:
        """How a table's sessions are spread over the fronts: « 2+2 », « 3+1 », « 4 »."""
        fronts = [self.front_of[id(client)] for client in self.tables[table_id]]
        return "+".join(str(n) for n in sorted(
            (fronts.count(f) for f in set(fronts)), reverse=True))

    def cpu(self) -> tuple[float, float]:
        """CPU seconds used and waited for, by all its processes so far."""
        used = waited = 0.0
        for process in self.processes:
            with contextlib.suppress(psutil.NoSuchProcess):
                used += cpu_seconds(process)
                waited += cpu_wait_seconds(process)
        return used, waited


@contextlib.asynccontextmanager
async def workers(tmp: Path) -> AsyncIterator[Serving]:
    """``pioche serve --workers 2``."""
    trace = tmp / "trace.txt"
    with serve_process(tmp, *SETTINGS, "--trace", str(trace), app=DEFAULT_APP,
                       workers=2) as served:
        fronts = served.tree()["front"]
        yield Serving("workers", [served.port], trace, [Tree(served.process.pid)], fronts)


def env_url(out: Path, name: str) -> str:
    """The ``PIOCHE_BUS`` URL ``pioche bus-config`` wrote for ``name``."""
    for line in (out / f"{name}.env").read_text().splitlines():
        if line.startswith("PIOCHE_BUS="):
            return line.removeprefix("PIOCHE_BUS=")
    raise ValueError(f"no PIOCHE_BUS in {name}.env")


async def listening(port: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1.0):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


@contextlib.asynccontextmanager
async def deployment(tmp: Path, nats_port: int) -> AsyncIterator[Serving]:
    """docs/deploy.md on one host: nats-server (JetStream, mutual TLS, ``pioche bus-config``'s
    users), ``pioche coordinator`` as ``core``, ``pioche front`` as ``paris`` and ``lyon``."""
    ca = CA(tmp / "ca")
    leaf = ca.issue("bus", server=True)
    pairs = {name: ca.issue(name, server=False) for name in ("core", "paris", "lyon")}
    out = tmp / "bus"
    if pioche(["bus-config", "--out", str(out), "--bus", f"tls://127.0.0.1:{nats_port}",
               "--coordinator", "core", "--front", "paris", "--front", "lyon",
               "--tls-cert", str(leaf.cert), "--tls-key", str(leaf.key),
               "--tls-ca", str(ca.path), "--verify"]) != 0:
        raise RuntimeError("pioche bus-config failed")
    config = tmp / "nats.conf"
    config.write_text(f'listen: "127.0.0.1:{nats_port}"\ninclude "bus/auth.conf"\n'
                      f'max_payload: 1MB\njetstream {{\n  store_dir: "{tmp / "js"}"\n}}\n')
    with (tmp / "nats.log").open("wb") as log:
        nats = subprocess.Popen([str(binary()), "-c", str(config)], stdin=subprocess.DEVNULL,
                                stdout=log, stderr=log)
    started: list[Process] = []
    try:
        await listening(nats_port)

        def tls(name: str) -> list[str]:
            return ["--bus-ca", str(ca.path), "--bus-cert", str(pairs[name].cert),
                    "--bus-key", str(pairs[name].key)]

        trace = tmp / "trace.txt"
        log_file = tmp / "coordinator.log"
        core = Process(spawn(["coordinator", "--data-dir", str(tmp / "data"), *SETTINGS,
                              "--trace", str(trace), *tls("core")], log_file,
                             {"PIOCHE_BUS": env_url(out, "core")}), log_file)
        started.append(core)
        await core.started("serving on the bus")
        keys = tmp / "keys"
        ensure_host_key(keys)
        ports = []
        for name in ("paris", "lyon"):
            front = await start_front(tmp, name, env_url(out, name), keys, tls(name))
            started.append(front)
            ports.append(front.port)
        processes = [psutil.Process(p.process.pid) for p in started]
        yield Serving("deploy", ports, trace, [psutil.Process(nats.pid), *processes])
    finally:
        for one in reversed(started):
            await one.stop()
        nats.terminate()
        try:
            nats.wait(15)
        except subprocess.TimeoutExpired:
            nats.kill()
            nats.wait()


async def set_up(serving: Serving, tables: int, first: int) -> None:
    """``tables`` tables of four players, seat N on the N-th front in turn (one port: the
    kernel's choice, read back)."""
    for index in range(first, first + tables):
        table = await set_up_table(serving.ports, index, "defausse", watched=False)
        serving.tables[table.id] = table.players
        for seat, client in enumerate(table.players):
            if serving.fronts:
                serving.front_of[id(client)] = str(holder_of(client.conn, serving.fronts))
            else:
                serving.front_of[id(client)] = ("paris", "lyon")[seat % 2]


@dataclass
class Samples:
    """Latencies (seconds) of one serving, over its windows."""

    mover_key: list[float] = field(default_factory=list)  # mover's key -> their frame
    others_key: list[float] = field(default_factory=list)  # mover's key -> others' frames
    same_front_key: list[float] = field(default_factory=list)
    other_front_key: list[float] = field(default_factory=list)
    mover_accept: list[float] = field(default_factory=list)  # accepted -> mover's frame
    others_accept: list[float] = field(default_factory=list)
    key_accept: list[float] = field(default_factory=list)  # key -> accepted
    by_split: dict[str, list[float]] = field(default_factory=dict)  # others' key -> frame
    moves: int = 0
    no_mover: int = 0  # the stand-in's
    missed: int = 0  # a screen never showed it
    windows: list[dict[str, Any]] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        return {
            "moves": self.moves, "moves_without_a_key": self.no_mover, "missed": self.missed,
            "mover_key_to_frame_ms": percentiles(self.mover_key),
            "others_key_to_frame_ms": percentiles(self.others_key),
            "others_on_the_movers_front_key_to_frame_ms": percentiles(self.same_front_key),
            "others_on_the_other_front_key_to_frame_ms": percentiles(self.other_front_key),
            "mover_accepted_to_frame_ms": percentiles(self.mover_accept),
            "others_accepted_to_frame_ms": percentiles(self.others_accept),
            "key_to_accepted_ms": percentiles(self.key_accept),
            "others_key_to_frame_ms_by_split": {
                split: percentiles(values) for split, values in sorted(self.by_split.items())},
            "windows": self.windows,
        }


def collect(serving: Serving, samples: Samples, start: float, end: float) -> int:
    """Add the moves accepted in [start, end) to ``samples``; how many."""
    moves = read_trace(serving.trace)
    previous: dict[str, float] = {}
    counted = 0
    for when, table_id, step in moves:
        since = previous.get(table_id, 0.0)
        previous[table_id] = when
        players = serving.tables.get(table_id)
        if players is None or not start <= when < end:
            continue
        counted += 1
        samples.moves += 1
        seen = [client.screen.delivered(step) for client in players]
        if any(at is None for at in seen):
            samples.missed += 1
            continue
        keys = [max((t for t in client.screen.sent if since < t <= when), default=None)
                for client in players]
        pressed = [(t, n) for n, t in enumerate(keys) if t is not None]
        mover = max(pressed)[1] if pressed else None
        for n, at in enumerate(seen):
            assert at is not None
            if n == mover:
                samples.mover_accept.append(at - when)
            else:
                samples.others_accept.append(at - when)
        if mover is None:
            samples.no_mover += 1
            continue
        key = keys[mover]
        assert key is not None
        samples.key_accept.append(when - key)
        movers_front = serving.front_of[id(players[mover])]
        split = serving.split(table_id)
        for n, (client, at) in enumerate(zip(players, seen, strict=True)):
            assert at is not None
            if n == mover:
                samples.mover_key.append(at - key)
                continue
            samples.others_key.append(at - key)
            samples.by_split.setdefault(split, []).append(at - key)
            same = serving.front_of[id(client)] == movers_front
            (samples.same_front_key if same else samples.other_front_key).append(at - key)
    return counted


async def play_window(serving: Serving, samples: Samples, seconds: float, warmup: float,
                      seed: int) -> None:
    """Its players play ``warmup`` then ``seconds``; the window's moves into ``samples``."""
    stop = asyncio.Event()
    rng = random.Random(seed)
    tasks = [asyncio.create_task(play_script(client, stop, rng))
             for players in serving.tables.values() for client in players]
    await asyncio.sleep(warmup)
    cpu0, waited0 = serving.cpu()
    start = time.monotonic()
    await asyncio.sleep(seconds)
    end = time.monotonic()
    cpu1, waited1 = serving.cpu()
    stop.set()
    await asyncio.gather(*tasks)
    await asyncio.sleep(AFTER)
    before = len(samples.mover_key), len(samples.others_key)
    moves = collect(serving, samples, start, end)
    window = {"moves": moves,
              "mover_key_to_frame_p50_ms": percentiles(samples.mover_key[before[0]:]).get("p50"),
              "others_key_to_frame_p50_ms": percentiles(samples.others_key[before[1]:]).get(
                  "p50"),
              "cpu_percent_of_a_core": round(100 * (cpu1 - cpu0) / (end - start), 1),
              "waited_for_a_cpu_percent": round(100 * (waited1 - waited0) / (end - start), 1),
              "load_average": load_average()}
    samples.windows.append(window)
    print(serving.name, json.dumps(window), flush=True)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    print(f"load average before: {load_average()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="pioche-fronts-") as tmp:
        (Path(tmp) / "a").mkdir()
        (Path(tmp) / "b").mkdir()
        async with workers(Path(tmp) / "a") as a, deployment(Path(tmp) / "b",
                                                             args.nats_port) as b:
            await set_up(a, args.tables, 0)
            await set_up(b, args.tables, args.tables)
            print("fronts of the players, workers:",
                  sorted({f for f in a.front_of.values()}), flush=True)
            results = {a.name: Samples(), b.name: Samples()}
            for n in range(args.rounds):
                order = (a, b) if n % 2 == 0 else (b, a)  # (which goes first, in turn too)
                for serving in order:
                    await play_window(serving, results[serving.name], args.seconds,
                                      args.warmup, seed=n)
            for players in [*a.tables.values(), *b.tables.values()]:
                for client in players:
                    client.conn.close()
    report: dict[str, Any] = {name: samples.report() for name, samples in results.items()}
    report["difference_ms"] = {
        measure: {q: round(report["deploy"][measure][q] - report["workers"][measure][q], 1)
                  for q in ("p50", "p95", "p99")}
        for measure in ("mover_key_to_frame_ms", "others_key_to_frame_ms",
                        "mover_accepted_to_frame_ms", "others_accepted_to_frame_ms",
                        "key_to_accepted_ms")
        if report["deploy"][measure] and report["workers"][measure]}
    # Each round's two windows are neighbours in time: their difference is less the other
    # jobs' than the difference of the pooled percentiles.
    report["paired_window_p50_difference_ms"] = {
        who: percentiles([(d[key] - w[key]) / 1000 for w, d in zip(
            report["workers"]["windows"], report["deploy"]["windows"], strict=True)
            if d[key] is not None and w[key] is not None])
        for who, key in (("mover", "mover_key_to_frame_p50_ms"),
                         ("others", "others_key_to_frame_p50_ms"))}
    report["load_average_after"] = load_average()
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=6, help="tables of four per serving")
    parser.add_argument("--rounds", type=int, default=6,
                        help="play windows per serving, interleaved")
    parser.add_argument("--seconds", type=float, default=30.0, help="a play window")
    parser.add_argument("--warmup", type=float, default=3.0,
                        help="seconds of play before each window opens")
    parser.add_argument("--nats-port", type=int, default=2380,
                        help="the deployment's nats-server port on 127.0.0.1")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    args = parser.parse_args()
    report = asyncio.run(run(args))
    for name in ("workers", "deploy"):
        print(name, json.dumps({k: v for k, v in report[name].items() if k != "windows"}))
    print("difference (deploy - workers)", json.dumps(report["difference_ms"]))
    print("paired windows' p50, deploy - workers",
          json.dumps(report["paired_window_p50_difference_ms"]))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
