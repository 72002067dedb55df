"""What one player's app costs the server: CPU to start, CPU per table update, memory.

    uv run python bench/app_load.py [--game defausse|collection] [--players 3] [--watchers 4]
                                    [--seconds 20] [--starts 20]

Apps run as the server runs them: many in one process and one event loop, each in its own
task, Textual and the garbage collector set up as ``pioche serve`` sets them
(``server.driver.configure_textual``: CSS parsed once per process; ``server/collector.py``). Their
driver renders every frame completely and writes it nowhere (the cost of the bytes on the wire
is the SSH server's). A table of four seats (``--game``, Défausse by default) —
``--players`` seated apps playing fast through their screens' own action path, bots in the
other seats — is watched by ``--watchers`` spectator apps. The same table is then run with
plain sessions in place of the apps; the difference, per table update and per app, is the
apps' cost.

Results go in docs/performance.md (machine, command, numbers).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import pstats
import random
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from textual.drivers.headless_driver import HeadlessDriver

from pioche_tui.app.app import PiocheApp
from pioche_tui.app.screens.lobby import LobbyScreen
from pioche_tui.app.screens.table import TableScreen
from pioche_tui.coordinator.core import Coordinator, Session, Settings
from pioche_tui.coordinator.model import Player, Refused
from server.collector import Collector
from server.driver import configure_textual

MOVE_DELAY = 0.02  # seconds a fast "human" and a bot take per move


class NullDriver(HeadlessDriver):
    """Renders like a terminal driver (headless apps skip turning frames into bytes)."""

    @property
    def is_headless(self) -> bool:
        return False


async def start_app(app: PiocheApp, size: tuple[int, int] = (80, 24)) -> asyncio.Task[Any]:
    app.driver_class = NullDriver
    task = asyncio.create_task(app.run_async(size=size, mouse=False))
    while not app.is_running or not isinstance(app.screen, (LobbyScreen, TableScreen)):
        await asyncio.sleep(0.005)
    return task


GAME_OPTIONS: dict[str, dict[str, Any]] = {"defausse": {"target": 1000}, "collection": {}}
"""Options that make a game last: the run measures a game in progress."""


async def play_fast(seat_of: Any, act: Any, rng: random.Random) -> None:
    """A quick human: whenever they are to act, some legal action after a short pause."""
    while True:
        await asyncio.sleep(MOVE_DELAY)
        view, step, seat, to_act = seat_of()
        if view is None or view.outcome is not None or seat not in to_act or not view.legal:
            continue
        with contextlib.suppress(Refused):  # a bot or the timer got there first
            act(rng.choice(view.legal), step)


async def table_run(game: str, players: int, watchers: int, seconds: float, with_apps: bool,
                    profile: cProfile.Profile | None = None) -> tuple[float, int]:
    """CPU seconds and table updates while the table plays for ``seconds`` (profiled if
    ``profile`` is given)."""
    data = Path(tempfile.mkdtemp(prefix="pioche-bench-"))
    coordinator = Coordinator(Settings(data, bot_delay=(MOVE_DELAY, MOVE_DELAY),
                                       turn_timer=None, seed=1))
    await coordinator.start()
    tasks: list[asyncio.Task[Any]] = []
    apps: list[PiocheApp] = []
    rng = random.Random(1)
    if with_apps:
        for i in range(players):
            app = PiocheApp(coordinator, identity=f"SHA256:p{i}", name=f"Joueur{i}")
            tasks.append(await start_app(app))
            apps.append(app)
        for i in range(watchers):
            app = PiocheApp(coordinator, identity=f"w{i}", name=f"Regard{i}", watch_only=True)
            tasks.append(await start_app(app))
            apps.append(app)
        sessions = [app.client.session for app in apps if app.client.session is not None]
    else:
        sessions = [coordinator.connect(Player(f"SHA256:p{i}", f"Joueur{i}"))
                    for i in range(players)]
        sessions += [coordinator.connect(Player(f"w{i}", f"Regard{i}", watch_only=True))
                     for i in range(watchers)]
    table_id = sessions[0].create_table(game, seats=4, timer=None, options=GAME_OPTIONS[game],
                                        bots={s: "basic" for s in range(players, 4)})
    for session in sessions[1:players]:
        session.join(table_id)
    for session in sessions[players:]:
        session.watch(table_id)
    table = coordinator.tables[table_id]
    if with_apps:
        for app in apps[:players]:
            def seat_of(app: PiocheApp = app) -> tuple[Any, int, int | None, tuple[int, ...]]:
                screen = app.table_screen
                if screen is None:
                    return None, 0, None, ()
                update = screen.update
                return update.view, update.step, screen.seat, update.to_act

            def act(action: Any, step: int, app: PiocheApp = app) -> None:
                if app.table_screen is not None:
                    app.table_screen.act(action)  # the screen's own path, its own step

            tasks.append(asyncio.create_task(play_fast(seat_of, act, rng)))
    else:
        latest: dict[Session, Any] = {}

        async def read(session: Session) -> None:
            while True:
                mail = await session.mailbox.get()
                if mail.table is not None:
                    latest[session] = mail.table

        tasks += [asyncio.create_task(read(s)) for s in sessions]
        for i, session in enumerate(sessions[:players]):
            def seat_of(session: Session = session, i: int = i
                        ) -> tuple[Any, int, int | None, tuple[int, ...]]:
                update = latest.get(session)
                return (update.view, update.step, i, update.to_act) if update else (
                    None, 0, None, ())
            tasks.append(asyncio.create_task(play_fast(seat_of, session.act, rng)))
    await asyncio.sleep(1.0)  # let everything settle
    collector = Collector()  # as `pioche serve` does: what lives on is frozen for the gc
    collector.start()
    if profile is not None:
        profile.enable()
    step0, cpu0 = table.step, time.process_time()
    await asyncio.sleep(seconds)
    steps, cpu = table.step - step0, time.process_time() - cpu0
    if profile is not None:
        profile.disable()
    collector.stop()
    for app in apps:
        app.exit()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    coordinator.stop()
    return cpu, steps


async def starts(count: int) -> tuple[float, float, float]:
    """CPU seconds per app start (to the lobby); traced memory per app (MiB), idle in the
    lobby and then watching a game."""
    data = Path(tempfile.mkdtemp(prefix="pioche-bench-"))
    coordinator = Coordinator(Settings(data, bot_delay=(0.05, 0.1), turn_timer=None, seed=1))
    await coordinator.start()
    warm = PiocheApp(coordinator, identity="SHA256:warm", name="Chaud")
    tasks = [await start_app(warm)]  # the first app pays for imports and the CSS cache
    apps = [warm]
    cpu0 = time.process_time()
    for i in range(count):
        app = PiocheApp(coordinator, identity=f"SHA256:s{i}", name=f"Joueur{i}")
        tasks.append(await start_app(app))
        apps.append(app)
    cpu = (time.process_time() - cpu0) / count
    await asyncio.sleep(0.5)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    extra: list[PiocheApp] = []
    for i in range(count):
        app = PiocheApp(coordinator, identity=f"SHA256:m{i}", name=f"Mem{i}")
        tasks.append(await start_app(app))
        extra.append(app)
    await asyncio.sleep(0.5)
    memory = (tracemalloc.get_traced_memory()[0] - before) / count / 2**20
    # The same apps watching a game (a table screen, its log filling up).
    host = coordinator.connect(Player("SHA256:host", "Hôte"))
    table_id = host.create_table("defausse", seats=4, bots={s: "basic" for s in range(4)},
                                 sit=False, timer=None)
    for app in extra:
        assert app.client.session is not None
        app.client.session.watch(table_id)
    await asyncio.sleep(3.0)
    watching = (tracemalloc.get_traced_memory()[0] - before) / count / 2**20
    tracemalloc.stop()
    for app in [*apps, *extra]:
        app.exit()
    await asyncio.gather(*tasks, return_exceptions=True)
    coordinator.stop()
    return cpu, memory, watching


def report(line: str) -> None:
    # Every running Textual app redirects sys.stdout to itself, and apps whose lives overlap
    # restore it out of order: write to the process's real output.
    print(line, file=sys.__stdout__, flush=True)


async def main(args: argparse.Namespace) -> None:
    configure_textual()  # (without it, each app parsed all the CSS again at its start)
    cpu, memory, watching = await starts(args.starts)
    report(f"app start: {cpu * 1000:.0f} ms CPU each (mean of {args.starts}, after a first)")
    report(f"memory per app (tracemalloc): {memory:.2f} MiB in the lobby, "
           f"{watching:.2f} MiB watching a game")
    subscribers = args.players + args.watchers
    profile = cProfile.Profile() if args.profile else None
    with_cpu, with_steps = await table_run(args.game, args.players, args.watchers, args.seconds,
                                           True, profile)
    base_cpu, base_steps = await table_run(args.game, args.players, args.watchers, args.seconds,
                                           False)
    per_move_apps = with_cpu / max(with_steps, 1)
    per_move_base = base_cpu / max(base_steps, 1)
    cost = (per_move_apps - per_move_base) / subscribers
    report(f"{args.game} table with {args.players} seated apps and {args.watchers} watching apps: "
          f"{with_steps} moves in {args.seconds:.0f} s, {per_move_apps * 1000:.2f} ms CPU/move")
    report(f"same table with plain sessions: {base_steps} moves, "
          f"{per_move_base * 1000:.2f} ms CPU/move")
    report(f"cost of one app per table update: {cost * 1000:.2f} ms CPU")
    if profile is not None:
        pstats.Stats(profile, stream=sys.__stdout__).sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(GAME_OPTIONS), default="defausse")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--watchers", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--profile", action="store_true",
                        help="profile the apps' table run and print where the time goes")
    asyncio.run(main(parser.parse_args()))
