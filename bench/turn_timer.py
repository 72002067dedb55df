"""What a running turn timer costs the apps at a table between moves.

    uv run python bench/turn_timer.py [--apps 6] [--seconds 20]

A Défausse game's first updates are recorded as ``bench/app_replay.py`` records them and shown
to ``--apps`` player apps; then the apps sit on the same update for ``--seconds``, twice without
a turn timer and twice with one far from its end (its number changes every five seconds), and
the CPU per app per second is printed for each. The apps run as in ``app_replay.py``: one
process, one loop, frames rendered and written nowhere, the collector as ``pioche serve``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import tempfile
import time
from pathlib import Path
from typing import Any

from app_load import report, start_app
from app_replay import FRAME, record

from pioche_tui.app.app import PiocheApp
from pioche_tui.coordinator.core import Coordinator, Settings
from server.collector import Collector


async def main(args: argparse.Namespace) -> None:
    mine, _ = await record("defausse", 10)
    data = tempfile.TemporaryDirectory(prefix="pioche-bench-")  # removed when dropped
    coordinator = Coordinator(Settings(Path(data.name), turn_timer=None, seed=1))
    await coordinator.start()
    apps = [PiocheApp(coordinator, identity=f"SHA256:a{i}", name=f"Joueur0{i}")
            for i in range(args.apps)]
    tasks: list[asyncio.Task[Any]] = [await start_app(app) for app in apps]
    for update in mine[:5]:  # the table screens open and fill their caches
        for app in apps:
            app.call_later(app.show_table, update)
        await asyncio.sleep(FRAME)
    collector = Collector()
    collector.start()
    loop = asyncio.get_running_loop()
    for timer in (False, True, False, True):
        deadline = loop.time() + 600 if timer else None
        update = dataclasses.replace(mine[5], deadline=deadline)
        for app in apps:
            app.call_later(app.show_table, update)
        await asyncio.sleep(1.0)
        started = time.process_time()
        await asyncio.sleep(args.seconds)
        cpu = (time.process_time() - started) / args.seconds / len(apps)
        report(f"{'a turn timer running' if timer else 'no turn timer'}: "
               f"{cpu * 1000:.2f} ms CPU per app per second")
    collector.stop()
    for app in apps:
        app.exit()
    await asyncio.gather(*tasks, return_exceptions=True)
    coordinator.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apps", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=20.0)
    asyncio.run(main(parser.parse_args()))
