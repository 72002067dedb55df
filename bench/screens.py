"""What switching screens costs the server: CPU per key, memory per open and close, the
garbage collector's pauses as sessions end.

    uv run python bench/screens.py [--rounds 20] [--memory-rounds 1000] [--sessions 40]

Apps run as the server runs them (``bench/app_load.py``): one process, one event loop, frames
rendered completely and written nowhere, the garbage collector set up as ``pioche serve`` sets
it (``server/collector.py``). Keys are sent through the app's driver, as the SSH driver sends
them.

- **CPU per key** (``--rounds`` each): the process's CPU from the key until the app has drawn
  its frame and gone idle, less the same wait with no key (the idle cost), median. In the lobby
  and at a Défausse table whose bots wait (so nothing else moves): help (opened, a page
  turned, closed), scores, the create dialog, the chat line, an ordinary key.
- **Memory per open and close** (``--memory-rounds`` each): a full collection while the screen
  is open (so that it is frozen, the worst case), then closed. Per round: growth of the frozen
  generation, of all objects the collector tracks (frozen or not) and of traced memory, and what
  only a sweep could free (counted at the end by one).
- **Sessions ending** (``--sessions``): apps started, taken to a table and ended one after the
  other while ``--live`` others stay in the lobby; the collector's work when each ends (a sweep,
  when it decides one) and what is left frozen afterwards.

Results go in docs/performance.md and docs/reliability.md (machine, command, numbers).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from app_load import report, start_app
from textual import events
from textual.screen import Screen

from pioche_tui.app.app import PiocheApp
from pioche_tui.coordinator.core import Coordinator, Settings
from server.collector import Collector

SETTLE = 0.15  # seconds after a key: the frame is drawn (Textual's update period is 1/60 s)
SIZE = (100, 30)


def key_event(key: str) -> events.Key:
    character = {"question_mark": "?", "escape": "\x1b", "right": None}.get(key, key)
    return events.Key(key, character)


def tap(app: PiocheApp, key: str) -> None:
    assert app._driver is not None
    app._driver.send_message(key_event(key))


async def press(app: PiocheApp, key: str) -> None:
    tap(app, key)
    await asyncio.sleep(SETTLE)


async def idle_cpu(rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        cpu = time.process_time()
        await asyncio.sleep(SETTLE)
        samples.append(time.process_time() - cpu)
    return statistics.median(samples)


async def key_cpu(app: PiocheApp, key: str, back: str | None, rounds: int, idle: float
                  ) -> float:
    """Median CPU seconds of ``key`` (then ``back``, not counted, to return where it was)."""
    samples = []
    for _ in range(rounds):
        cpu = time.process_time()
        await press(app, key)
        samples.append(time.process_time() - cpu - idle)
        if back is not None:
            await press(app, back)
    return statistics.median(samples)


async def open_coordinator() -> Coordinator:
    data = Path(tempfile.mkdtemp(prefix="pioche-bench-"))
    # Bots that wait: nothing moves at the table while keys are measured.
    coordinator = Coordinator(Settings(data, bot_delay=(3600, 3600), turn_timer=None, seed=1))
    await coordinator.start()
    return coordinator


async def at_table(app: PiocheApp) -> None:
    assert app.client.session is not None
    app.client.session.quick_play("defausse")
    while app.table_screen is None or not app.table_screen.ready:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.3)


@contextlib.asynccontextmanager
async def one_app() -> AsyncIterator[PiocheApp]:
    """A player's app in the lobby, the collector set up as ``pioche serve`` sets it."""
    coordinator = await open_coordinator()
    collector = Collector()
    collector.start()
    app = PiocheApp(coordinator, identity="SHA256:bench", name="Banc")
    task = await start_app(app, SIZE)
    await asyncio.sleep(0.5)
    try:
        yield app
    finally:
        app.exit()
        await asyncio.gather(task, return_exceptions=True)
        collector.stop()
        coordinator.stop()


async def cpu_per_key(rounds: int) -> None:
    async with one_app() as app:
        await cpu_per_app(app, rounds)


async def cpu_per_app(app: PiocheApp, rounds: int) -> None:
    idle = await idle_cpu(rounds)
    report(f"idle: {idle * 1000:.1f} ms CPU per {SETTLE:.2f} s wait (subtracted)")
    for where in ("lobby", "table"):
        if where == "table":
            await at_table(app)
        keys: list[tuple[str, str, str | None]] = [
            ("help open", "question_mark", "escape"), ("help close", "escape", None),
            ("chat focus", "c", "escape"), ("chat leave", "escape", None),
        ]
        if where == "lobby":
            keys += [("scores open", "s", "escape"), ("scores close", "escape", None),
                     ("create dialog open", "n", "escape"), ("create dialog close", "escape",
                                                             None)]
        else:
            keys += [("an ordinary key (→ in the hand)", "right", None)]
        for name, key, back in keys:
            if back is None and name.endswith(("close", "leave")):
                # measured from the open screen: open it (uncounted), then time the close
                opener = {"help": "question_mark", "chat": "c", "scores": "s",
                          "create": "n"}[name.split()[0]]
                samples = []
                for _ in range(rounds):
                    await press(app, opener)
                    cpu = time.process_time()
                    await press(app, key)
                    samples.append(time.process_time() - cpu - idle)
                cost = statistics.median(samples)
            else:
                cost = await key_cpu(app, key, back, rounds, idle)
            report(f"{where}: {name}: {cost * 1000:.1f} ms CPU")
        if where == "lobby":  # a page of the help turned (→: from the keys to a game's rules)
            samples = []
            for _ in range(rounds):
                await press(app, "question_mark")
                cpu = time.process_time()
                await press(app, "right")
                samples.append(time.process_time() - cpu - idle)
                await press(app, "escape")
            report(f"lobby: help page turned: {statistics.median(samples) * 1000:.1f} ms CPU")


def tracked_objects() -> int:
    """Every object the collector tracks, frozen or not."""
    return len(gc.get_objects()) + gc.get_freeze_count()


def sweep() -> int:
    """Collect everything, frozen or not (what only a sweep could free); then freeze again."""
    gc.unfreeze()
    freed = gc.collect()
    gc.freeze()
    return freed


Round = Callable[[PiocheApp], Awaitable[None]]


async def until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 10
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        await asyncio.sleep(0.01)


FRAME = 0.03  # seconds for a frame to be drawn, in the memory rounds


def key_round(open_key: str, close_key: str) -> Round:
    async def one(app: PiocheApp) -> None:
        screen, focused = app.screen, app.focused
        tap(app, open_key)
        await until(lambda: app.screen is not screen or app.focused is not focused, open_key)
        await asyncio.sleep(FRAME)
        gc.collect()  # while it is open: frozen (the worst case)
        tap(app, close_key)
        await until(lambda: app.screen is screen and app.focused is focused, close_key)
        await asyncio.sleep(FRAME)
    return one


def screen_round(make: Callable[[PiocheApp], Screen[Any]]) -> Round:
    async def one(app: PiocheApp) -> None:
        screen = app.screen
        with app._context():  # (as the app's own code would: its widgets find their app)
            app.push_screen(make(app))
        await asyncio.sleep(FRAME)
        gc.collect()
        tap(app, "escape")
        await until(lambda: app.screen is screen, "escape")
        await asyncio.sleep(FRAME)
    return one


async def memory_per_round(rounds: int) -> None:
    from pioche_tui.app.screens.colour import ColourPicker
    from pioche_tui.app.screens.dialogs import CodePrompt

    async def toast(app: PiocheApp) -> None:
        with app._context():
            app.notify("Bonjour", timeout=0.1)
        await until(lambda: bool(app.screen.query("Toast")), "toast")
        gc.collect()
        await until(lambda: not app.screen.query("Toast"), "toast gone")

    cases: list[tuple[str, bool, Round]] = [
        ("help", False, key_round("question_mark", "escape")),
        ("scores", False, key_round("s", "escape")),
        ("create dialog", False, key_round("n", "escape")),
        ("chat line", False, key_round("c", "escape")),
        ("code prompt", False, screen_round(lambda app: CodePrompt("T1"))),
        ("toast", False, toast),
        ("help at a table", True, key_round("question_mark", "escape")),
        ("colour picker", True, screen_round(lambda app: ColourPicker("RJVB"))),
        ("leave? (no)", True, key_round("l", "n")),
    ]
    # Traced from the start: objects made before tracing began and replaced during the rounds
    # (caches) would look like growth.
    tracemalloc.start()
    async with one_app() as app:
        await memory_of_cases(app, cases, rounds)
    tracemalloc.stop()


async def memory_of_cases(app: PiocheApp, cases: list[tuple[str, bool, Round]], rounds: int
                          ) -> None:
    for name, table, one in cases:
        if table and app.table_screen is None:
            await at_table(app)
        for _ in range(20):  # caches filled, first-time work done
            await one(app)
        gc.collect()
        frozen, tracked = gc.get_freeze_count(), tracked_objects()
        traced = tracemalloc.get_traced_memory()[0]
        cpu = time.process_time()
        for _ in range(rounds):
            await one(app)
        cpu = time.process_time() - cpu
        gc.collect()
        frozen = gc.get_freeze_count() - frozen
        tracked = tracked_objects() - tracked
        traced = tracemalloc.get_traced_memory()[0] - traced
        freed = sweep()
        report(f"{name}: per open and close, frozen +{frozen / rounds:.0f} objects, "
               f"all tracked +{tracked / rounds:.0f}, traced memory "
               f"{traced / rounds / 1024:+.1f} KiB; a sweep then freed "
               f"{freed / rounds:.0f} objects per round "
               f"({cpu / rounds * 1000:.0f} ms CPU per round, waits included)")


async def sessions_ending(count: int, live: int) -> None:
    coordinator = await open_coordinator()
    collector = Collector()
    collector.start()
    pauses: list[float] = []
    sweep = collector.sweep

    def timed_sweep() -> None:
        started = time.perf_counter()
        sweep()
        pauses.append(time.perf_counter() - started)

    collector.sweep = timed_sweep  # type: ignore[method-assign]
    stay = []
    for i in range(live):
        app = PiocheApp(coordinator, identity=f"SHA256:l{i}", name=f"Reste{i}")
        stay.append((app, await start_app(app, SIZE)))
    await asyncio.sleep(0.5)
    gc.collect()
    frozen0 = gc.get_freeze_count()
    work: list[float] = []
    for i in range(count):
        app = PiocheApp(coordinator, identity=f"SHA256:s{i}", name=f"Passe{i}")
        task = await start_app(app, SIZE)
        await press(app, "question_mark")
        gc.collect()  # a full collection while it runs: it is frozen
        await press(app, "escape")
        await at_table(app)
        assert app.client.session is not None
        app.client.session.leave()
        await asyncio.sleep(0.2)
        app.exit()
        await asyncio.gather(task, return_exceptions=True)
        del app, task
        started = time.perf_counter()
        collector.session_ended(live)  # as server/ssh.py does when a session ends
        work.append(time.perf_counter() - started)
    gc.collect()
    left = gc.get_freeze_count() - frozen0
    report(f"{count} sessions ended, {live} live: {len(pauses)} sweeps, longest "
           f"{max(pauses, default=0) * 1000:.0f} ms; the collector's work per session end: "
           f"longest {max(work) * 1000:.0f} ms; frozen generation +{left} objects "
           f"({left / count:.0f} per ended session)")
    for app, _task in stay:
        app.exit()
    await asyncio.gather(*(task for _app, task in stay), return_exceptions=True)
    collector.stop()
    coordinator.stop()


async def main(args: argparse.Namespace) -> None:
    if args.rounds:
        await cpu_per_key(args.rounds)
    if args.memory_rounds:
        await memory_per_round(args.memory_rounds)
    if args.sessions:
        await sessions_ending(args.sessions, args.live)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--memory-rounds", type=int, default=100)
    parser.add_argument("--sessions", type=int, default=40)
    parser.add_argument("--live", type=int, default=10)
    asyncio.run(main(parser.parse_args()))
