"""What an app's start costs: CPU from its creation to its first lobby frame written, and to
the app settled after it.

    uv run python bench/app_start.py [--starts 30] [--lobby 2] [--profile FILE]

Textual is set up as ``pioche serve`` sets it (``server.driver.configure_textual``: CSS parsed
once per process; the collector as ``server/collector.py``). ``--lobby`` apps sit in the lobby
(they pay for the imports and the process's caches first, and then see each newcomer in their
list of who is online, as a server's lobby does). Each measured app starts alone on top of
them, with a driver that renders every frame and writes it nowhere, and is ended before the
next: « to the first frame » is the CPU from ``PiocheApp(...)`` to the driver's first write of
a frame with the lobby on screen; « settled » adds what follows in the next ``SETTLE`` seconds
(the frames and callbacks the start scheduled, and the lobby apps' update), less what the
loop costs idle over as long. ``--profile`` writes a cProfile of the starts (to « settled »)
and says how many Python calls a start made: a count that the machine's load does not move,
to compare two versions beside their CPU times.

Results go in docs/performance.md (machine, command, numbers).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import statistics
import tempfile
import time
from pathlib import Path

from app_load import NullDriver, report

from pioche_tui.app.app import PiocheApp
from pioche_tui.app.screens.lobby import LobbyScreen
from pioche_tui.coordinator.core import Coordinator, Settings
from server.collector import Collector
from server.driver import configure_textual

SETTLE = 0.2  # seconds after the first frame: what the start left to do is done by then


class FirstFrameDriver(NullDriver):
    """Notes the CPU time of the first frame written while the lobby is on screen."""

    first_frame: float | None = None

    def write(self, data: str) -> None:
        stack = self._app.screen_stack  # (empty while the app ends)
        screen = stack[-1] if stack else None
        if self.first_frame is None and isinstance(screen, LobbyScreen) and screen.is_mounted:
            self.first_frame = time.process_time()  # (before: the terminal's set-up codes)


async def one_start(coordinator: Coordinator, index: int,
                    profile: cProfile.Profile | None = None) -> tuple[float, float]:
    """CPU seconds to the first lobby frame, and to the app settled SETTLE seconds later (the
    part ``profile`` profiles); then the app is ended."""
    if profile is not None:
        profile.enable()
    started = time.process_time()
    app = PiocheApp(coordinator, identity=f"SHA256:s{index}", name=f"Joueur{index}")
    app.driver_class = FirstFrameDriver
    task = asyncio.create_task(app.run_async(size=(80, 24), mouse=False))
    deadline = time.monotonic() + 10
    while True:
        driver = app._driver
        if isinstance(driver, FirstFrameDriver) and driver.first_frame is not None:
            first = driver.first_frame - started
            break
        if time.monotonic() > deadline:
            raise SystemExit("an app took over 10 s to show its lobby")
        await asyncio.sleep(0.001)
    await asyncio.sleep(SETTLE)
    settled = time.process_time() - started
    if profile is not None:
        profile.disable()
    app.exit()
    await asyncio.gather(task, return_exceptions=True)
    return first, settled


async def idle_cost(seconds: float) -> float:
    started = time.process_time()
    await asyncio.sleep(seconds)
    return time.process_time() - started


async def main(args: argparse.Namespace) -> None:
    configure_textual()
    data = tempfile.TemporaryDirectory(prefix="pioche-bench-")  # removed when dropped
    coordinator = Coordinator(Settings(Path(data.name), turn_timer=None, seed=1))
    await coordinator.start()
    lobby = [PiocheApp(coordinator, identity=f"SHA256:l{i}", name=f"Salon{i}")
             for i in range(args.lobby)]
    tasks = []
    for app in lobby:
        app.driver_class = NullDriver
        tasks.append(asyncio.create_task(app.run_async(size=(80, 24), mouse=False)))
    for _ in range(3):  # a first start pays for what is built once per process
        await one_start(coordinator, -1)
    collector = Collector()  # as `pioche serve` does
    collector.start()
    profile = cProfile.Profile() if args.profile else None
    firsts, settles = [], []
    for i in range(args.starts):
        await asyncio.sleep(0.05)
        idle = await idle_cost(SETTLE)
        first, settled = await one_start(coordinator, i, profile)
        firsts.append(first)
        settles.append(settled - idle)
    collector.stop()
    for app in lobby:
        app.exit()
    await asyncio.gather(*tasks, return_exceptions=True)
    coordinator.stop()
    report(f"app start, {args.starts} starts beside {args.lobby} apps in the lobby: to the first "
           f"frame median {statistics.median(firsts) * 1000:.1f} ms CPU (min "
           f"{min(firsts) * 1000:.1f}), settled median {statistics.median(settles) * 1000:.1f} "
           f"ms (min {min(settles) * 1000:.1f})")
    if profile is not None:
        profile.dump_stats(args.profile)
        calls = pstats.Stats(profile).total_calls  # type: ignore[attr-defined]
        report(f"Python calls per start (cProfile, to « settled »): {calls / args.starts:,.0f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=30)
    parser.add_argument("--lobby", type=int, default=2)
    parser.add_argument("--profile", help="write a cProfile of the starts to this file")
    asyncio.run(main(parser.parse_args()))
