"""The chaos of issue 18, long: a coordinator, a front and a NATS node SIGKILLed in turn, many
times, while players play at twenty tables (tests/cluster/chaos.py: the deployment, the players,
what must hold). Prints, per kind of kill, how long the tables stood still, and at the end the
acknowledged moves lost, the results recorded twice and the seats not given back.

    uv run python bench/chaos.py --kills 50 --seed 7

The seed draws the order of the kinds (each round of three shuffled), the victims, the pauses
between kills and the players' thinking times; the same seed draws the same chaos (the
machine's timing does not repeat).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pioche_tui.bus.natsd import NatsCluster  # noqa: E402
from tests.cluster.chaos import Chaos  # noqa: E402
from tests.store.postgres import postgres_server  # noqa: E402


async def run(kills: int, seed: int, tables: int, ssh: int, keep: Path | None) -> int:
    with tempfile.TemporaryDirectory() as tmp, postgres_server({}) as pg:
        root = Path(tmp) if keep is None else keep
        root.mkdir(parents=True, exist_ok=True)
        cluster = NatsCluster(workdir=root / "cluster")
        await cluster.start()
        chaos = Chaos(root, cluster, pg.new_database(), seed=seed, tables=tables, ssh=ssh)
        started = time.monotonic()
        load = os.getloadavg()
        try:
            report = await chaos.played(kills)
        finally:
            await cluster.stop()
        print(f"{time.monotonic() - started:.0f} s; load average before "
              f"{load[0]:.1f}, after {os.getloadavg()[0]:.1f}")
        print("\n".join(report.lines()))
        print(f"moves refused: {chaos.refusals}")
        for problem in chaos.problems:
            print(f"PROBLEM: {problem}")
        return 1 if chaos.problems else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--seed", type=int, default=None, help="(default: drawn, printed)")
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--ssh", type=int, default=4, help="tables with an SSH player")
    parser.add_argument("--keep", type=Path, default=None, metavar="DIR",
                        help="the processes' logs (and the cluster's store) there, kept")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 20)
    print(f"seed {seed}", flush=True)
    sys.exit(asyncio.run(run(args.kills, seed, args.tables, args.ssh, args.keep)))


if __name__ == "__main__":
    main()
