"""The Admin screen (app/screens/admin.py): its key only for admins, what it shows, and its
actions driven by keys, on a real coordinator."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from pioche_tui.app.app import PiocheApp
from pioche_tui.app.screens.admin import AdminScreen
from pioche_tui.coordinator.core import Coordinator
from pioche_tui.coordinator.inprocess import InProcessClient
from pioche_tui.coordinator.model import Player

from .conftest import app_of, run_scene, screen_text, settle, wait_for_text
from .test_snapshots import still

ALICE = "SHA256:Alice"  # the key of the apps' player (conftest's make_app, run_scene)


def make_admin(coordinator: Coordinator, key: str = ALICE) -> None:
    (coordinator.settings.data_dir / "admins").write_text(f"# operators\n{key}\n")


async def bob_at_a_table(coordinator: Coordinator) -> InProcessClient:
    bob = coordinator.client()
    await bob.connect(Player("SHA256:Bob", "Bob", address="192.0.2.7"))
    await bob.create_table("defausse", seats=3, bots={1: "basic"})
    return bob


async def test_only_an_admin_gets_the_key(coordinator: Coordinator,
                                         make_app: Callable[..., PiocheApp]) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert not app.admin
        await pilot.press("A")
        await settle(pilot)
        assert not isinstance(app.screen, AdminScreen)
        assert " admin " not in screen_text(app)
    make_admin(coordinator)
    app = make_app("Alice")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.admin and "A admin" in screen_text(app)
        await pilot.press("A")
        await settle(pilot)
        assert isinstance(app.screen, AdminScreen)


async def test_the_admins_actions_from_the_screen(coordinator: Coordinator,
                                                  make_app: Callable[..., PiocheApp]) -> None:
    make_admin(coordinator)
    bob = await bob_at_a_table(coordinator)
    table_id = bob.table_id
    app = make_app("Alice")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("A")
        await settle(pilot)
        assert await wait_for_text(pilot, app, "Admin · 2 en ligne · 1 tables")
        await pilot.press("m", *"Tournoi", "enter")  # the message of the day
        await settle(pilot)
        assert coordinator.console.motd == "Tournoi"
        await pilot.press("tab", "x")  # close the table under the cursor
        await settle(pilot)
        assert table_id not in coordinator.tables
        await pilot.press("tab")  # back to the sessions: Alice, then Bob
        await pilot.press("down", "b", *"2h", "enter")
        await settle(pilot)
        (ban,) = coordinator.console.bans()
        assert (ban.kind, ban.value, ban.by) == ("key", "SHA256:Bob", "Alice (SHA256:Alice)")
        assert not bob.open  # (banned: kicked)
        await pilot.press("escape")
        await settle(pilot)
        assert await wait_for_text(pilot, app, "Tournoi")  # the lobby shows it


async def test_a_player_no_longer_admin_is_sent_back(coordinator: Coordinator,
                                                     make_app: Callable[..., PiocheApp]) -> None:
    make_admin(coordinator)
    app = make_app("Alice")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("A")
        await settle(pilot)
        assert isinstance(app.screen, AdminScreen)
        make_admin(coordinator, "SHA256:someone-else")
        await app.screen.refresh_view()
        await settle(pilot)
        assert not isinstance(app.screen, AdminScreen)
        assert coordinator.console.motd == ""


async def admin_screen(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    await bob_at_a_table(coordinator)
    await app_of(pilot).client.admin_act("motd", "Tournoi ce soir à 21 h")
    await app_of(pilot).client.admin_act("ban", "192.0.2.66")
    await pilot.press("A")
    await still(pilot)


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_admin_screen_snapshot(lang: str, tmp_path: Path,
                               snap_compare: Callable[..., bool]) -> None:
    (tmp_path / "admins").write_text(f"{ALICE}\n")
    assert run_scene(snap_compare, tmp_path, admin_screen, (80, 24), lang=lang)
