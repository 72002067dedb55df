"""What TLS and the roles cost on the bus (issue 18): a front's request to the coordinator and
its answer, over a plain bus (one user, as ``pioche serve --workers``) and over mutual TLS with
the roles' users and permissions, as across machines. Never part of the test run; results go
to docs/performance.md (« Several machines (issue 18) », « The bus over TLS »).

    uv run --group bench python bench/bus_tls.py [--requests 3000] [--rounds 3]

In this process: a ``CoordinatorHost`` and a front's ``Remote`` on their own connections to a
real nats-server child, on loopback (the network's own latency is not in it). Each request is
``server_info`` (a small answer: what is measured is the bus, not the coordinator), one at a
time. Measured: the round trip (p50, p99, wall time: the other core may be busy, see the load
average printed), and the CPU per request of this process (both sides' Python) and of
nats-server (psutil), which do not depend on what else runs.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.measure import cpu_seconds, load_average  # noqa: E402
from pioche_tui import bus  # noqa: E402
from pioche_tui.bus.natsd import NatsServer  # noqa: E402
from pioche_tui.coordinator.core import Coordinator, Settings  # noqa: E402
from pioche_tui.coordinator.host import CoordinatorHost  # noqa: E402
from pioche_tui.coordinator.remote import Remote  # noqa: E402
from tests.bus.certs import CA, mutual_tls_bus  # noqa: E402


async def trial(mode: str, requests: int, where: Path) -> dict[str, float]:
    if mode == "plain":
        server = NatsServer()
        core_tls = front_tls = None
        name = bus.USER
    else:
        ca = CA(where / "ca")
        server = mutual_tls_bus(ca)
        core_pair, front_pair = ca.issue("core", server=False), ca.issue("paris", server=False)
        core_tls = bus.BusTLS(ca.path, core_pair.cert, core_pair.key)
        front_tls = bus.BusTLS(ca.path, front_pair.cert, front_pair.key)
        name = "paris"
    await server.start()
    if mode == "plain":
        core_url = front_url = server.url
    else:
        core_url = server.url_of("core").replace("nats://", "tls://")
        front_url = server.url_of("paris").replace("nats://", "tls://")
    coordinator = Coordinator(Settings(where / f"data-{mode}", bot_delay=(0, 0),
                                       turn_timer=None, lobby_interval=0))
    await coordinator.start()
    core = await bus.connect(core_url, "bench-core", bus.COORDINATOR, core_tls)
    front = await bus.connect(front_url, "bench-front", bus.FRONT, front_tls)
    host = CoordinatorHost(coordinator, core)
    remote = Remote(front, "benchfront", name=name)
    await host.start()
    await remote.start()
    try:
        client = remote.client()
        for _ in range(200):  # (warm-up)
            await client.server_info()
        assert server.pid is not None
        nats = psutil.Process(server.pid)
        me = psutil.Process()
        cpu0, nats0 = cpu_seconds(me), cpu_seconds(nats)
        times = []
        for _ in range(requests):
            start = time.perf_counter()
            await client.server_info()
            times.append(time.perf_counter() - start)
        cpu, nats_cpu = cpu_seconds(me) - cpu0, cpu_seconds(nats) - nats0
        times.sort()
        return {"p50_ms": statistics.median(times) * 1e3,
                "p99_ms": times[int(len(times) * 0.99)] * 1e3,
                "python_us": cpu / requests * 1e6, "nats_us": nats_cpu / requests * 1e6}
    finally:
        await remote.stop()
        coordinator.stop()
        await host.stop()
        await front.close()
        await core.close()
        await server.stop()


async def run(requests: int, rounds: int) -> None:
    print(f"load average before: {load_average()}")
    with tempfile.TemporaryDirectory() as where:
        for n in range(rounds):
            for mode in ("plain", "tls"):
                result = await trial(mode, requests, Path(where) / f"{mode}{n}")
                print(f"{mode:5} round {n + 1}: " + ", ".join(
                    f"{key} {value:.3f}" if key.endswith("ms") else f"{key} {value:.0f}"
                    for key, value in result.items()))
    print(f"load average after: {load_average()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(run(args.requests, args.rounds))


if __name__ == "__main__":
    main()
