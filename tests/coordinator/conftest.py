"""Helpers for coordinator tests: a coordinator on a temporary data directory, test players,
and a way to let the event loop run the bots until something is true."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from pioche_tui.coordinator.core import Coordinator, Settings
from pioche_tui.coordinator.model import Player


def player(name: str, guest: bool = False) -> Player:
    identity = f"guest:{name}@127.0.0.1" if guest else f"SHA256:{name}-key"
    return Player(identity, name, guest=guest)


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Let the loop run (bots, timers) until ``condition()`` holds; fail after ``timeout``."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not condition():
        if loop.time() > end:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.001)


@pytest.fixture
async def make_coordinator(
    tmp_path: Path,
) -> AsyncIterator[Callable[..., Awaitable[Coordinator]]]:
    """Build (and start) coordinators on one data directory (``games``: the coordinator's,
    when not Pioche's own); all are stopped at the end."""
    made: list[Coordinator] = []

    async def make(games: Mapping[str, Any] | None = None, **settings: object) -> Coordinator:
        options: dict[str, object] = {"bot_delay": (0.0, 0.0), "turn_timer": None,
                                      "grace": 60.0}
        options.update(settings)
        c = Coordinator(Settings(tmp_path / "data", **options), games)
        await c.start()
        made.append(c)
        return c

    yield make
    for c in made:
        c.stop()
