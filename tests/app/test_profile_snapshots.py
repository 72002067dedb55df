"""Pictures of a profile and of a replay (80×24, French and English), as test_snapshots.py
takes them: the coordinator's seed fixes the tables and the deals, the games are played by
``profiles.finish_games`` with its own seed, and their end is set to a fixed moment (the
profile shows it) in the database's file, in UTC."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from pioche_tui.app.screens.profile import ProfileScreen
from pioche_tui.app.screens.replay import ReplayScreen
from pioche_tui.coordinator.core import Coordinator

from .conftest import Scene, app_of, run_scene
from .profiles import finish_games
from .test_snapshots import still

NINE_THIRTY = 1_780_000_200.0  # (28 May 2026, 20:30 UTC)


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


async def games_played(coordinator: Coordinator) -> None:
    """Three games of Bob and Chloé, ended at fixed moments, a minute apart."""
    tables = await finish_games(coordinator, ("Bob", "Chloe"), count=3)
    assert coordinator.db is not None
    with sqlite3.connect(coordinator.db.path) as conn:
        for i, table_id in enumerate(tables):
            conn.execute("UPDATE games SET finished = ? WHERE table_id = ?",
                         (NINE_THIRTY + 60 * i, table_id))
    conn.close()


async def profile(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    await games_played(coordinator)
    app_of(pilot).show_profile("Bob")
    await still(pilot)
    assert isinstance(pilot.app.screen, ProfileScreen)


async def replay(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    await profile(pilot, coordinator)
    await pilot.press("enter")
    await still(pilot)
    await pilot.press(*["right"] * 6)
    await still(pilot)
    assert isinstance(pilot.app.screen, ReplayScreen)


SCENES: dict[str, Scene] = {"profile": profile, "replay": replay}


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("scene", sorted(SCENES))
def test_profile_screens(scene: str, lang: str, tmp_path: Path,
                         snap_compare: Callable[..., bool]) -> None:
    assert run_scene(snap_compare, tmp_path, SCENES[scene], lang=lang)
