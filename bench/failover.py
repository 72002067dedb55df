"""A coordinator killed mid-play, again and again: how long until its table is served again
(issue 18's target: within 5 s), and whether any acknowledged move is lost.

Two ``pioche coordinator --several`` processes over one JetStream nats-server and one
PostgreSQL database (tests/bus/several.py); a front in this process plays for a
player at a table with a bot. Each round: the player plays two moves, the table's owner is
SIGKILLed, and the time from the kill to the player's next acknowledged move is measured (the
other coordinator claims the table once the dead one's lease is gone, brings it back from its
log, and the front moves the session there); the killed coordinator is started again (a new
process, a new data directory, the same database). A table whose game ends is replaced by a new
one. At the end, each table's log is read: every move the player saw acknowledged must be in it.

    uv run python bench/failover.py --kills 20
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pioche_tui import bus  # noqa: E402
from pioche_tui.bus.natsd import NatsServer  # noqa: E402
from pioche_tui.bus.owners import owner_of  # noqa: E402
from pioche_tui.coordinator.model import Player, Refused  # noqa: E402
from tests.bus.several import Seat, a_remote, coordinator, logged  # noqa: E402
from tests.store.postgres import postgres_server  # noqa: E402


async def run(kills: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, postgres_server({}) as pg:
        root = Path(tmp)
        server = NatsServer(jetstream=root / "bus")
        await server.start()
        db = pg.new_database()
        stack = contextlib.AsyncExitStack()
        nc = await bus.connect(server.url, "bench-front", bus.FRONT)
        remotes: list = []  # type: ignore[type-arg]
        try:
            running = {}
            for n in range(2):
                one = await stack.enter_async_context(coordinator(root, f"c{n}", server.url,
                                                                  db))
                running[one.boot] = one
            remote = await a_remote(nc, remotes, "bench")
            assert remote.owners is not None
            seat = Seat(remote.client())
            await seat.client.connect(Player("SHA256:bench", "bench"))
            acked: dict[str, int] = {}
            table = ""
            served: list[float] = []
            for k in range(kills):
                while not table or not await seat.play(2):
                    if table:
                        with contextlib.suppress(Refused):
                            await seat.client.leave()
                    table = await seat.client.create_table("defausse", seats=2,
                                                           bots={1: "random"})
                    seat.acked, seat.update = 0, None
                acked[table] = seat.acked
                owner = await owner_of(remote.owners, table)
                assert owner is not None
                victim = running.pop(owner[0])
                killed = time.monotonic()
                victim.kill()
                if not await seat.play(1):
                    print(f"kill {k + 1}: the game ended meanwhile", flush=True)
                    table = ""
                else:
                    served.append(time.monotonic() - killed)
                    acked[table] = seat.acked
                    print(f"kill {k + 1}: served again after {served[-1]:.2f} s", flush=True)
                again = await stack.enter_async_context(coordinator(root, f"c{k + 2}",
                                                                    server.url, db))
                running[again.boot] = again
            lost = 0
            js = nc.jetstream()
            for tid, count in acked.items():
                lost += max(0, count - (await logged(js, tid)).by_seat.get(0, 0))
            served.sort()
            print(f"{len(served)} kills measured; served again: median "
                  f"{statistics.median(served):.2f} s, p90 "
                  f"{served[int(0.9 * (len(served) - 1))]:.2f} s, max {served[-1]:.2f} s; "
                  f"acknowledged moves lost: {lost} of {sum(acked.values())}")
        except BaseException:
            for log in sorted(root.glob("*.log")):
                print(f"--- {log.name}", log.read_text(errors="replace")[-3000:], sep="\n")
            raise
        finally:
            for remote in remotes:
                await remote.stop()
            await nc.close()
            await stack.aclose()
            await server.stop()


def main() -> None:
    import logging
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=20)
    asyncio.run(run(parser.parse_args().kills))


if __name__ == "__main__":
    main()
