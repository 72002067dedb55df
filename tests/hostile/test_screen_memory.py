"""Issue 12, item 4: screens leaked into the frozen generation. Each help opened and closed left
some 5,000 objects (1 MiB) frozen for good, the scores 1,600; pressing « ? » five times a second
took a server from 71 to 229 MiB in a minute, and an ended session's app stayed too. The server
freezes what survives a full collection (``server/collector.py``); what is frozen is freed only
by reference counting, and Textual's reference cycles prevented it (``server/cycles.py``).

Each window, dialog, toast, the chat line and the table screens are opened and closed here with
the collector as ``pioche serve`` runs it, a full collection forced while each is open (so that
it is frozen: the worst case). Afterwards nothing is left that only a sweep could free, and the
frozen generation has not grown. Then whole sessions end over SSH and their apps are freed
without a sweep; and the attack itself, « ? » pressed again and again against ``pioche serve``,
leaves the server's memory flat."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import asyncssh
import pytest
from textual.cache import LRUCache
from textual.pilot import Pilot
from textual.screen import Screen

from pioche_tui.app.app import PiocheApp
from pioche_tui.app.screens.colour import ColourPicker
from pioche_tui.app.screens.dialogs import CodePrompt, Confirm
from pioche_tui.app.screens.help import HelpScreen
from pioche_tui.app.screens.learn import LearnDialog
from pioche_tui.app.screens.podium import PodiumScreen
from pioche_tui.app.screens.table import TableScreen
from pioche_tui.app.screens.too_small import TooSmallScreen
from pioche_tui.app.service import EmbeddedService, SessionFacts
from pioche_tui.coordinator.core import Coordinator
from pioche_tui.engine.base import Outcome
from server.collector import Collector
from server.driver import configure_textual
from server.ssh import PiocheServer
from tests.app.conftest import make_coordinator, settle
from tests.hostile.conftest import coordinator_settings
from tests.server.conftest import Client, LikeOpenSSH
from tests.server.process import serve_process
from widgets import lines
from widgets.chat import ChatInput

ROUNDS = 8  # opened and closed, measured (after WARM_UP rounds that fill caches)
WARM_UP = 3
LEAK_PER_ROUND = 10
"""Objects only a sweep could free, per round: before the fix hundreds (a toast) to 10,000 (the
create dialog); now none (a few may be what was in flight when a collection ran)."""
GROWTH_PER_ROUND = 100
"""Growth of the frozen generation per round, what is still alive included: caches that are
still filling (shared rows, Textual's own) may add some; before the fix, thousands."""


def sweep() -> int:
    """Unfreeze, collect, freeze again: how many objects only a sweep could free."""
    gc.unfreeze()
    freed = gc.collect()
    gc.freeze()
    return freed


@pytest.fixture
def small_row_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """The process's cache of rendered rows (widgets/lines.py) keeps up to 2,048 rows by
    design, and a new table's rows are new: a small one here, full after the warm-up, so that
    what it keeps does not count as growth."""
    monkeypatch.setattr(lines, "_strips", LRUCache(32))


@pytest.fixture
def collector() -> Iterator[Collector]:
    """The collector as ``pioche serve`` runs it (min_ended: no sweep of its own here)."""
    made = Collector(min_ended=10**6)
    made.start()
    yield made
    made.stop()


Step = Callable[[PiocheApp, Pilot[None]], Awaitable[None]]


def press(*keys: str) -> Step:
    async def step(app: PiocheApp, pilot: Pilot[None]) -> None:
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
    return step


def push(make: Callable[[PiocheApp], Screen[Any]]) -> Step:
    async def step(app: PiocheApp, pilot: Pilot[None]) -> None:
        app.push_screen(make(app))
        await settle(pilot)
    return step


async def toast(app: PiocheApp, pilot: Pilot[None]) -> None:
    app.notify("Bonjour", timeout=0.3)  # then it goes by itself
    for _ in range(100):
        await pilot.pause(0.01)
        if app.screen.query("Toast"):
            return


async def toast_gone(app: PiocheApp, pilot: Pilot[None]) -> None:
    for _ in range(200):
        await pilot.pause(0.02)
        if not app.screen.query("Toast"):
            return


async def too_small(app: PiocheApp, pilot: Pilot[None]) -> None:
    await pilot.resize_terminal(60, 20)
    await settle(pilot)


async def large_enough(app: PiocheApp, pilot: Pilot[None]) -> None:
    await pilot.resize_terminal(100, 30)
    await settle(pilot)


def quick_game(game: str, learn: bool = False) -> Step:
    async def step(app: PiocheApp, pilot: Pilot[None]) -> None:
        assert app.client.session is not None
        if learn:  # a learn table: its line of explanation too
            app.client.session.learn(game)
        else:
            app.client.session.quick_play(game)
        for _ in range(50):
            await settle(pilot)
            if isinstance(app.screen, TableScreen) and app.screen.ready:
                return
    return step


async def leave_table(app: PiocheApp, pilot: Pilot[None]) -> None:
    assert app.client.session is not None
    app.client.session.leave()
    await settle(pilot)


def podium(app: PiocheApp) -> PodiumScreen:
    return PodiumScreen(("Alice", "Ambre"), Outcome(scores=(120, 40), winners=(0,)))


@dataclass(frozen=True)
class Case:
    table: str | None  # the game of the table it is opened at, or None: the lobby
    open: Step
    close: Step
    shown: Callable[[PiocheApp], bool]  # (so that no round passes by opening nothing)


def on_top(cls: type) -> Callable[[PiocheApp], bool]:
    return lambda app: isinstance(app.screen, cls)


def chatting(app: PiocheApp) -> bool:
    return isinstance(app.focused, ChatInput)


CASES = {
    "help": Case(None, press("question_mark"), press("escape"), on_top(HelpScreen)),
    "scores": Case(None, press("s"), press("escape"),
                   lambda app: type(app.screen).__name__ == "ScoresScreen"),
    "settings": Case(None, press("o"), press("escape"),
                     lambda app: type(app.screen).__name__ == "SettingsScreen"),
    "create_dialog": Case(None, press("n"), press("escape"),
                          lambda app: type(app.screen).__name__ == "CreateTableScreen"),
    "code_prompt": Case(None, push(lambda app: CodePrompt("T1", lambda code: None)),
                        press("escape"), on_top(CodePrompt)),
    "lobby_chat": Case(None, press("c"), press("escape"), chatting),
    "toast": Case(None, toast, toast_gone, lambda app: bool(app.screen.query("Toast"))),
    "too_small": Case(None, too_small, large_enough, on_top(TooSmallScreen)),
    "table_defausse": Case(None, quick_game("defausse"), leave_table, on_top(TableScreen)),
    "table_collection": Case(None, quick_game("collection"), leave_table, on_top(TableScreen)),
    "learn_dialog": Case(None, press("a"), press("escape"), on_top(LearnDialog)),
    "learn_table": Case(None, quick_game("collection", learn=True), leave_table,
                        on_top(TableScreen)),
    "help_at_a_table": Case("defausse", press("question_mark"), press("escape"),
                            on_top(HelpScreen)),
    "table_chat": Case("defausse", press("c"), press("escape"), chatting),
    "leave_question": Case("defausse", press("l"), press("n"), on_top(Confirm)),
    "colour_picker": Case("defausse", push(lambda app: ColourPicker("RJVB")), press("escape"),
                          on_top(ColourPicker)),
    "podium": Case("collection", push(podium), press("escape"), on_top(PodiumScreen)),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
async def test_opening_and_closing_leaves_nothing_frozen(
    tmp_path: Path, small_row_cache: None, collector: Collector, case: Case
) -> None:
    coordinator = make_coordinator(tmp_path)
    await coordinator.start()
    app = PiocheApp(coordinator, identity="SHA256:alice", name="Alice")
    try:
        async with app.run_test(size=(100, 30), notifications=True) as pilot:
            await settle(pilot)
            if case.table is not None:
                await quick_game(case.table)(app, pilot)

            async def one_round(collect: bool) -> None:
                await case.open(app, pilot)
                assert case.shown(app)
                if collect:
                    gc.collect()  # while it is open: it is frozen
                await case.close(app, pilot)
                assert not case.shown(app)

            for _ in range(WARM_UP):
                await one_round(collect=False)
            sweep()  # from a clean slate
            frozen = gc.get_freeze_count()
            for _ in range(ROUNDS):
                await one_round(collect=True)
            gc.collect()
            grown = gc.get_freeze_count() - frozen
            leaked = sweep()
    finally:
        coordinator.stop()
    assert leaked <= LEAK_PER_ROUND * ROUNDS, f"{leaked / ROUNDS:.0f} objects per round"
    assert grown <= GROWTH_PER_ROUND * ROUNDS, f"frozen +{grown / ROUNDS:.0f} per round"


# --- whole sessions, over SSH -----------------------------------------------------------------


def gone(text: str) -> Callable[[str], bool]:
    """A test of the screen: ``text`` is no longer on it."""
    return lambda screen: text not in screen


class WatchedService(EmbeddedService):
    """The real service; remembers its apps weakly, to tell whether they were freed."""

    def __init__(self, coordinator: Coordinator) -> None:
        super().__init__(coordinator)
        self.made: list[weakref.ref[PiocheApp]] = []

    def make_app(self, session: SessionFacts, *args: Any, **kwargs: Any) -> PiocheApp:
        app = super().make_app(session, *args, **kwargs)
        self.made.append(weakref.ref(app))
        return app


@pytest.fixture
async def watched(tmp_path: Path) -> AsyncIterator[WatchedService]:
    coordinator = Coordinator(coordinator_settings(tmp_path / "data"))
    await coordinator.start()
    service = WatchedService(coordinator)
    yield service
    await service.close()


async def test_ended_sessions_are_freed_without_a_sweep(
    watched: WatchedService, collector: Collector, host_key: asyncssh.SSHKey
) -> None:
    configure_textual()
    server = PiocheServer(watched.make_app, host_key, name_owner=watched.name_owner,
                          collector=collector)
    await server.start("127.0.0.1", 0)
    try:
        for i in range(5):
            conn, client = await player(server.port, f"joueur{i}")
            async with conn:
                for key, text in (("?", "Touches"), ("s", "Vos statistiques")):
                    client.send(key)
                    await client.wait_for(text)
                    client.send("\x1b")
                    await client.wait_for(gone(text))
                client.send("p")
                await client.wait_for("Défausse · table")
                gc.collect()  # while the app runs: all of it is frozen
            await client.closed.wait()
            for _ in range(200):  # the server notices and ends the session
                if not server.sessions:
                    break
                await asyncio.sleep(0.02)
        gc.collect()
        assert collector.sweeps == 0
        assert [ref() for ref in watched.made] == [None] * 5  # every app freed, no sweep
        # Nothing is left for a sweep but what was in flight (before: 13,000 objects a
        # session; the test's own client connections are in this process too).
        left = sweep()
        assert left <= 10 * 5
    finally:
        await server.close()


# --- the attack: « ? » against ``pioche serve`` ----------------------------------------------


async def player(port: int, name: str) -> tuple[asyncssh.SSHClientConnection, Client]:
    """A player with a key of her own, in a 100×30 terminal, as tests/server/conftest.py
    connects."""
    conn = await asyncssh.connect(
        "127.0.0.1", port, username=name, known_hosts=None, client_factory=LikeOpenSSH,
        client_keys=[asyncssh.generate_private_key("ssh-ed25519")], agent_path=None,
        config=None, preferred_auth="publickey",
    )
    options: dict[str, Any] = {"encoding": None, "term_type": "xterm-256color",
                               "term_size": (100, 30)}
    _chan, session = await conn.create_session(Client, **options)
    client = cast(Client, session)
    client.conn = conn
    client.screen.resize(100, 30)
    await client.wait_for(f"Bonjour {name}")
    return conn, client


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc for the RSS")
async def test_pressing_help_again_and_again_keeps_the_server_flat(tmp_path: Path) -> None:
    with serve_process(tmp_path, "--app", "pioche_tui.app:open_service",
                       "--turn-timer", "0") as served:
        conn, client = await player(served.port, "curieuse")
        async with conn:

            async def presses(count: int) -> None:
                for _ in range(count):
                    client.send("?")
                    await client.wait_for("Touches")
                    client.send("\x1b")
                    await client.wait_for(gone("Touches"))

            await presses(10)
            before = rss_mib(served.process.pid)
            await presses(60)
            after = rss_mib(served.process.pid)
        # Before the fix each opening left some 1 MiB frozen: 60 openings, some 50 MiB.
        assert after - before < 10, f"{before:.0f} → {after:.0f} MiB"
