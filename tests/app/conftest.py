"""Fixtures for the app's tests: a real coordinator on a temporary data directory, with bots
that answer at once and fixed randomness, and helpers to drive and read an app."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.filter import LineFilter
from textual.pilot import Pilot

from pioche_tui.app.app import PiocheApp
from pioche_tui.coordinator.core import Coordinator, Settings
from pioche_tui.engine import GAMES
from tests.server.conftest import (  # noqa: F401 - the SSH fixtures, for test_service.py
    client_key,
    connect,
    host_key,
    limits,
    server,
)

from .toy import TOY

Scene = Callable[[Pilot[Any], Coordinator], Awaitable[None]]
"""What is on the screen before a picture is taken: steps run on a settled app."""


def make_coordinator(data: Path, seed: int = 7) -> Coordinator:
    return Coordinator(Settings(data, bot_delay=(0, 0), turn_timer=None, seed=seed,
                                lobby_interval=0,  # screens see each change at once
                                table_rate=(1000, 1000)),  # screens' tests open many tables
                       games={**GAMES, "toy": TOY})


@pytest.fixture
async def coordinator(tmp_path: Path) -> AsyncIterator[Coordinator]:
    c = make_coordinator(tmp_path)
    await c.start()
    yield c
    c.stop()


@pytest.fixture
def make_app(coordinator: Coordinator) -> Callable[..., PiocheApp]:
    def make(name: str | None = "Alice", identity: str | None = None, **kwargs: Any
             ) -> PiocheApp:
        return PiocheApp(coordinator, identity=identity or f"SHA256:{name or 'anon'}",
                         name=name, **kwargs)
    return make


def screen_text(app: PiocheApp) -> str:
    """What the terminal shows, as plain text."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system=None, record=True, legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(
        full=True, screen_stack=app._background_screens))
    return console.export_text()


def app_of(pilot: Pilot[Any]) -> PiocheApp:
    app = pilot.app
    assert isinstance(app, PiocheApp)
    return app


def run_scene(snap_compare: Callable[..., bool], tmp_path: Path, scene: Scene,
              size: tuple[int, int] = (80, 24), name: str | None = "Alice",
              filters: Sequence[LineFilter] = (), **options: Any) -> bool:
    """Alice's picture of ``scene`` (``name`` None: the nickname screen) on a fresh coordinator
    with the snapshots' seed; ``options`` go to PiocheApp (lang, term), ``filters`` to the
    app's line filters."""
    coordinator = make_coordinator(tmp_path, seed=2024)
    asyncio.run(coordinator.start())
    app = PiocheApp(coordinator, identity="SHA256:Alice", name=name, **options)
    app._filters.extend(filters)

    async def setup(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await scene(pilot, coordinator)

    try:
        return snap_compare(app, terminal_size=size, run_before=setup)
    finally:
        coordinator.stop()


async def settle(pilot: Pilot[Any], rounds: int = 3) -> None:
    """Let the mailbox reader and the screens catch up (bots answer at once): a few turns, and
    more while news waits in the session's mailbox (a busy machine may need them)."""
    for _ in range(rounds):
        await pilot.pause()
    for _ in range(100):
        client = getattr(pilot.app, "client", None)
        if client is None or not client.pending:
            return
        await pilot.pause()


async def wait_for_text(pilot: Pilot[Any], app: PiocheApp, text: str,
                        timeout: float = 3.0) -> bool:
    """Wait until ``text`` is on the screen (a toast shows a moment later, maybe wrapped over
    several lines: spaces and line breaks are compared loosely)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    wanted = " ".join(text.split())
    while True:
        shown = " ".join(screen_text(app).replace("▌", " ").replace("▐", " ").split())
        if wanted in shown:
            return True
        if loop.time() >= end:
            return False
        await pilot.pause(0.05)
