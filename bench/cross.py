"""A lobby line across coordinators (issue 18, second wave; coordinator/cross.py): said on
coordinator A, to the mail of a lobby session on coordinator B. Never part of the test run;
results go to docs/performance.md (« Several machines (issue 18) », « What crosses
coordinators »).

    uv run --group bench python bench/cross.py [--lines 300] [--lobby 1,200]

Two coordinators and their hosts in this process, on a nats-server child with JetStream (the
buckets), as tests/bus/test_cross.py sets them up. ``--lobby N``: N sessions in B's lobby (each
line is delivered to all of them, and published on each one's subject). One speaker on A says
every line, A's chat rate limits lifted for it (3 lines per 3 s otherwise). Measured:

- the latency from the call of ``chat`` on A to the line in the mail of B's first lobby session,
  read on the bus as its front would, against the same lobby on A (the line not relayed);
  wall clock: waiting, not work (the other core's load is printed beside it);
- this process's CPU per line (``time.process_time``: both coordinators, the relay, B's
  deliveries and the reader) and nats-server's (psutil).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pioche_tui import bus, wire  # noqa: E402
from pioche_tui.bus.directory import buckets_of  # noqa: E402
from pioche_tui.bus.natsd import NatsServer  # noqa: E402
from pioche_tui.coordinator.core import Coordinator, Settings  # noqa: E402
from pioche_tui.coordinator.host import CoordinatorHost  # noqa: E402
from pioche_tui.coordinator.mailbox import Mail  # noqa: E402
from pioche_tui.coordinator.model import Player  # noqa: E402
from pioche_tui.coordinator.text import RateLimiter  # noqa: E402

FRONT = ("pioche", "bench-front")


async def call(host: CoordinatorHost, sid: str, request: str, **args: Any) -> Any:
    """A front's request for the session ``sid``, as the host's request callback makes it."""
    return await host._dispatch(wire.Call(request, args), FRONT, sid, host._remotes.get(sid))


async def run(lines: int, lobby: int, data: Path, across: bool = True) -> dict[str, float]:
    server = NatsServer(jetstream=data / "bus")
    await server.start()
    hosts: list[CoordinatorHost] = []
    try:
        for name in ("a", "b"):
            coordinator = Coordinator(Settings(data / name, lobby_interval=0.5,
                                               table_rate=(10**6, 10**6)))
            await coordinator.start()
            nc = await bus.connect(server.url, f"bench-{name}", bus.COORDINATOR)
            host = CoordinatorHost(coordinator, nc, await buckets_of(nc))
            await host.start()
            hosts.append(host)
        a, b = hosts
        readers = b if across else a  # (not across: the same lobby on A, for comparison)
        for i in range(lobby):
            await call(readers, f"b{i}", "connect",
                       player=Player(f"SHA256:b{i}", f"lecteur{i}"))
        arrived: dict[str, float] = {}
        reader = await bus.connect(server.url, "bench-reader")

        async def beat() -> None:  # (the front's heartbeat: its sessions live)
            while True:
                await reader.publish(bus.front_alive_subject(FRONT[0]),
                                     wire.encode(wire.FrontAlive(FRONT[1], 0, ())))
                await asyncio.sleep(bus.HEARTBEAT)

        beating = asyncio.create_task(beat())

        async def on_mail(msg: Any) -> None:
            value = wire.decode(msg.data)
            if isinstance(value, Mail):
                for line in value.chat:
                    arrived.setdefault(line.text, time.perf_counter())

        await reader.subscribe(bus.session_subject(FRONT[0], "b0"), cb=on_mail)
        await reader.flush()
        await call(a, "a0", "connect", player=Player("SHA256:a0", "orateur"))
        a.coordinator._chat_limit = RateLimiter(10**9, 1.0)  # (the bench's speaker only)
        nats = psutil.Process(server.pid) if server.pid is not None else None
        await asyncio.sleep(1.0)  # (the lobby's snapshots of the connections, sent)
        cpu0, nats0 = time.process_time(), nats.cpu_times() if nats else None
        latencies = []
        for i in range(lines):
            text = f"ligne {i}"
            start = time.perf_counter()
            await call(a, "a0", "chat", text=text)
            while text not in arrived:
                await asyncio.sleep(0.0005)
            latencies.append((arrived[text] - start) * 1000)
        cpu = time.process_time() - cpu0
        nats_cpu = (sum(nats.cpu_times()[:2]) - sum(nats0[:2])) if nats and nats0 else 0.0
        beating.cancel()
        await reader.close()
        latencies.sort()
        return {"p50": statistics.median(latencies),
                "p99": latencies[int(len(latencies) * 0.99) - 1],
                "cpu_ms": cpu / lines * 1000, "nats_ms": nats_cpu / lines * 1000}
    finally:
        for host in hosts:
            host.coordinator.stop()
            await host.stop()
            await host.nc.close()
        await server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=300)
    parser.add_argument("--lobby", default="1,200", help="B's lobby sessions, comma-separated")
    args = parser.parse_args()
    print(f"load average {psutil.getloadavg()}, other core busy "
          f"{psutil.cpu_percent(interval=0.5, percpu=True)}")
    for lobby in (int(n) for n in args.lobby.split(",")):
        for across in (False, True):
            with tempfile.TemporaryDirectory() as tmp:
                result = asyncio.run(run(args.lines, lobby, Path(tmp), across))
            where = "on B (relayed)" if across else "on A (local) "
            print(f"{lobby:4d} readers {where}: to a reader's session p50 {result['p50']:.2f} "
                  f"ms, p99 {result['p99']:.2f} ms; CPU per line: this process "
                  f"{result['cpu_ms']:.2f} ms, nats-server {result['nats_ms']:.2f} ms")


if __name__ == "__main__":
    main()
