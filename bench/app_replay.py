"""What one table update costs a player's app and a spectator's, replayed the same each run.

    uv run python bench/app_replay.py [--game defausse|collection] [--moves 300] [--apps 3]

A game is played once through plain sessions (one seated player making random legal moves,
three ``basic`` bots, one spectator) and every update each of the two received is kept. The
updates are then shown, one at a time, to ``--apps`` player apps and ``--apps`` spectator apps
(the player's updates to the first, the spectator's to the others), each update given time for
its own frame — as on a server where a table moves about once a second, not several moves per
frame. The CPU per update and per app is what the apps did, less the event loop's idle cost.

Unlike ``bench/app_load.py`` every run shows the same updates, so two versions of the code can
be compared run against run (alternate them: the machine's load moves the figures). The player
apps all show the same seat, so they share more rendered rows than a real table's players do.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from app_load import GAME_OPTIONS, report, start_app

from pioche_tui.app.app import PiocheApp
from pioche_tui.coordinator.core import Coordinator, Session, Settings
from pioche_tui.coordinator.model import Player, Refused, TableUpdate
from server.collector import Collector

FRAME = 0.03  # seconds given to each update: more than a frame (1/60 s)


async def record(game: str, moves: int) -> tuple[list[TableUpdate], list[TableUpdate]]:
    """The updates a seated player and a spectator receive over ``moves`` moves."""
    data = tempfile.TemporaryDirectory(prefix="pioche-bench-")  # removed when dropped
    coordinator = Coordinator(Settings(Path(data.name), bot_delay=(0.0, 0.0), turn_timer=None,
                                       seed=7))
    await coordinator.start()
    player = coordinator.connect(Player("SHA256:p0", "Joueur0"))
    watcher = coordinator.connect(Player("w0", "Regard0", watch_only=True))
    table_id = player.create_table(game, seats=4, timer=None, options=GAME_OPTIONS[game],
                                   bots={seat: "basic" for seat in range(1, 4)})
    watcher.watch(table_id)
    received: dict[Session, list[TableUpdate]] = {player: [], watcher: []}

    async def read(session: Session) -> None:
        while True:
            mail = await session.mailbox.get()
            if mail.table is not None:
                received[session].append(mail.table)

    readers = [asyncio.create_task(read(session)) for session in received]
    rng = random.Random(3)
    deadline = time.monotonic() + 120
    while min(len(updates) for updates in received.values()) < moves:
        if time.monotonic() > deadline:
            raise SystemExit("recording the game took over two minutes: it stalled")
        await asyncio.sleep(0.002)
        mine = received[player]
        update = mine[-1] if mine else None
        view = update.view if update is not None else None
        if view is not None and view.outcome is not None:
            raise SystemExit(f"the game ended after {len(mine)} updates: ask for fewer")
        if update is None or view is None:
            continue
        if 0 in update.to_act and view.legal:
            with contextlib.suppress(Refused):  # a bot's move got there first
                player.act(rng.choice(view.legal), update.step)
    for task in readers:
        task.cancel()
    coordinator.stop()
    return received[player][:moves], received[watcher][:moves]


async def replay(game: str, moves: int, count: int) -> tuple[float, float]:
    """CPU seconds per update and per app: a player's, a spectator's."""
    mine, watched = await record(game, moves)
    data = tempfile.TemporaryDirectory(prefix="pioche-bench-")  # removed when dropped
    coordinator = Coordinator(Settings(Path(data.name), turn_timer=None, seed=1))
    await coordinator.start()
    players = [PiocheApp(coordinator, identity=f"SHA256:a{i}", name=f"Joueur0{i}")
               for i in range(count)]
    watchers = [PiocheApp(coordinator, identity=f"w{i}", name=f"Regard{i}", watch_only=True)
                for i in range(count)]
    tasks: list[asyncio.Task[Any]] = [await start_app(app) for app in [*players, *watchers]]

    async def show(apps: list[PiocheApp], update: TableUpdate) -> float:
        started = time.process_time()
        for app in apps:
            app.call_later(app.show_table, update)
        await asyncio.sleep(FRAME)
        return time.process_time() - started

    warm_up = 5  # the table screens open and fill their caches
    for step in range(warm_up):
        await show(players, mine[step])
        await show(watchers, watched[step])
    await asyncio.sleep(1.0)
    collector = Collector()  # as `pioche serve` does
    collector.start()
    started = time.process_time()
    for _ in range(50):
        await asyncio.sleep(FRAME)
    idle = (time.process_time() - started) / 50
    player_cpu = watcher_cpu = 0.0
    for step in range(warm_up, moves):
        player_cpu += await show(players, mine[step]) - idle
        watcher_cpu += await show(watchers, watched[step]) - idle
    collector.stop()
    for app in [*players, *watchers]:
        app.exit()
    await asyncio.gather(*tasks, return_exceptions=True)
    coordinator.stop()
    shown = (moves - warm_up) * count
    return player_cpu / shown, watcher_cpu / shown


async def main(args: argparse.Namespace) -> None:
    player, watcher = await replay(args.game, args.moves, args.apps)
    report(f"{args.game}, {args.moves} updates replayed to {args.apps} player apps and "
           f"{args.apps} spectator apps: per update and per app, a player's "
           f"{player * 1000:.2f} ms CPU, a spectator's {watcher * 1000:.2f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(GAME_OPTIONS), default="defausse")
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--apps", type=int, default=3)
    asyncio.run(main(parser.parse_args()))
