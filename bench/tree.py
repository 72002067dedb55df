"""The process tree's faults, timed (docs/performance.md, « Every core (issue 16) »).

``pioche serve --workers 2`` (real processes, the real game, bots that answer at once) and
PLAYERS players over SSH (all from 127.0.0.1: the per-address limits raised), each with a key,
at a quick game of Défausse, playing. Then, in turn, SIGKILL: the front holding the first
player's connection, the coordinator, nats-server. For each: how long the tree took to have
the process back (kill → the supervisor's « ready » line), and, for each player whose session
the fault ended, how long from the start of their reconnection to their own table on their
screen (the issue's target: within 5 s). Wall clock: these are latencies a player waits
through; the machine's load is printed with them.

    uv run python -m bench.tree [--players 8]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import statistics
import tempfile
import time
from pathlib import Path

from server.serve import DEFAULT_APP
from tests.server.process import ServeProcess, holder_of, serve_process
from tests.server.test_workers import SETTINGS, Player, wait_for_tree

READY = re.compile(r"(\d\d:\d\d:\d\d,\d\d\d) INFO supervisor\[\d+\] (\S+(?: \d)?) .*ready")


class Timed(Player):
    """A player who notes how long each return to their seat took."""

    def __init__(self, name: str, port: int) -> None:
        super().__init__(name, port)
        self.waits: list[float] = []

    async def back(self, timeout: float = 40.0) -> None:
        start = time.monotonic()
        await super().back(timeout)
        self.waits.append(time.monotonic() - start)


def ready_lines(served: ServeProcess) -> int:
    return len(READY.findall(served.log_text()))


async def main(players: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        started = time.monotonic()
        with serve_process(Path(tmp), *SETTINGS, "--max-per-address", str(players + 8),
                           "--cpu-per-address", "100",
                           app=DEFAULT_APP, workers=2) as served:
            print(f"tree up in {time.monotonic() - started:.1f} s (2 fronts)")
            tree = served.tree()
            seated = [Timed(f"p{n}", served.port) for n in range(players)]
            for player in seated:
                await player.sit()
            for victim in ("front", "coordinator", "nats-server"):
                await asyncio.gather(*(player.carry_on() for player in seated))
                for player in seated:
                    player.waits.clear()
                if victim == "front":
                    assert seated[0].conn is not None
                    pid = holder_of(seated[0].conn, tree["front"])
                else:
                    pid = tree[victim][0]
                before = ready_lines(served)
                killed = time.monotonic()
                os.kill(pid, signal.SIGKILL)
                tree = await asyncio.to_thread(wait_for_tree, served, pid)
                while ready_lines(served) == before:
                    await asyncio.sleep(0.02)
                back_up = time.monotonic() - killed
                await asyncio.gather(*(player.carry_on() for player in seated))
                waits = [wait for player in seated for wait in player.waits]
                print(f"{victim:12} killed: back up in {back_up:.1f} s; {len(waits)} players "
                      "reconnected (a session that had not ended yet played on), back in their "
                      "seats in "
                      + (f"median {statistics.median(waits):.2f} s, max {max(waits):.2f} s"
                         if waits else "-"))
            served.process.send_signal(signal.SIGTERM)
            served.wait(60)
            if os.environ.get("TREE_LOG"):
                print(served.log_text())
    print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=8)
    asyncio.run(main(parser.parse_args().players))
