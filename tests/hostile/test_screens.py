"""A screen closed before it was shown — pushed and popped in one go (the table closes while a
Joker's colour is being asked, a game ends under the help), or the session ending while a screen
is being built (the client left): Textual still delivers the screen's Mount, with its widgets
gone. Found by bench/soak.py, where it ended live players' sessions with the apology; the
screens now let such a Mount pass."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen

from pioche_tui.app.app import PiocheApp
from pioche_tui.app.screens.colour import ColourPicker
from pioche_tui.app.screens.help import HelpScreen
from pioche_tui.app.screens.lobby import LobbyScreen
from pioche_tui.app.screens.scores import ScoresScreen
from pioche_tui.app.screens.too_small import TooSmallScreen
from tests.app.conftest import make_coordinator, settle

SCREENS: dict[str, Callable[[PiocheApp], Screen[Any]]] = {
    "colour": lambda app: ColourPicker("RJVB"),
    "help": lambda app: HelpScreen(app.screen, ("defausse",)),
    "scores": lambda app: ScoresScreen(app.client, app.games),
    "too_small": lambda app: TooSmallScreen(),
    "lobby": lambda app: LobbyScreen(app.client),
}


@contextlib.asynccontextmanager
async def alice_in_the_lobby(tmp_path: Path) -> AsyncIterator[tuple[PiocheApp, Pilot[None]]]:
    coordinator = make_coordinator(tmp_path)
    await coordinator.start()
    app = PiocheApp(coordinator, identity="SHA256:alice", name="Alice")
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            yield app, pilot
    finally:
        coordinator.stop()


@pytest.mark.parametrize("make", SCREENS.values(), ids=SCREENS.keys())
async def test_a_screen_popped_before_it_is_shown_ends_nothing(
    tmp_path: Path, make: Callable[[PiocheApp], Screen[Any]]
) -> None:
    async with alice_in_the_lobby(tmp_path) as (app, pilot):
        app.push_screen(make(app))
        app.pop_screen()
        await settle(pilot)
        assert app.is_running and app.return_code is None  # (1 after a crash)


@pytest.mark.parametrize("game", ["defausse", "collection"])
async def test_a_table_closed_before_it_is_shown_ends_nothing(tmp_path: Path, game: str) -> None:
    async with alice_in_the_lobby(tmp_path) as (app, pilot):
        assert app.client.session is not None
        table_id = app.client.session.quick_play(game)
        update = app.client.coordinator.tables[table_id]._update(0, ())
        app.close_table()
        app.show_table(update)  # opened and closed in one go
        app.close_table()
        await settle(pilot)
        assert app.is_running and app.return_code is None  # (1 after a crash)


@pytest.mark.parametrize("make", SCREENS.values(), ids=SCREENS.keys())
async def test_a_screen_built_as_the_session_ends_ends_it_cleanly(
    tmp_path: Path, make: Callable[[PiocheApp], Screen[Any]]
) -> None:
    async with alice_in_the_lobby(tmp_path) as (app, pilot):
        app.push_screen(make(app))
        app.exit()  # the client left (server.driver.Terminal.hang_up)
        await settle(pilot)
    assert app.return_code == 0


async def test_keys_before_the_colour_picker_is_built(tmp_path: Path) -> None:
    """Enter pressed as the Joker is played reaches the picker before its widgets exist (the
    soak's last crash): it still answers, and a choice made then is what it shows."""
    async with alice_in_the_lobby(tmp_path) as (app, pilot):
        chosen: list[int | None] = []
        app.push_screen(ColourPicker("RJVB"), chosen.append)
        app.screen.action_move(1)  # type: ignore[attr-defined]
        app.screen.action_pick()  # type: ignore[attr-defined]
        await settle(pilot)
        assert chosen == [1] and app.is_running and app.return_code is None
        picker = ColourPicker("RJVB")
        app.push_screen(picker)
        picker.action_move(2)
        await settle(pilot)
        assert "▸v" in str(picker.query_one("#swatches").render())
