"""The rematch (« Revanche ») on the podium, through the screens: r asks for it (or accepts
it), the line under the ranking says who asked and the time left, the new game's screen
replaces the podium when everyone asked; a decline says the rematch is off."""

from __future__ import annotations

from collections.abc import Callable

from pioche_tui.app.app import PiocheApp
from pioche_tui.app.screens.lobby import LobbyScreen
from pioche_tui.app.screens.podium import PodiumScreen
from pioche_tui.app.screens.table import TableScreen
from pioche_tui.coordinator.core import Coordinator, Session
from pioche_tui.coordinator.model import Player

from .conftest import screen_text, settle, wait_for_text

MakeApp = Callable[..., PiocheApp]


async def podium_with_bob(app: PiocheApp, coordinator: Coordinator, pilot: object
                          ) -> tuple[str, Session]:
    """Alice (the app) and Bob (a session) played a toy game of two; Alice won."""
    bob = coordinator.connect(Player("SHA256:Bob", "Bob"))
    assert app.client.session is not None
    tid = app.client.session.create_table("toy", seats=2, options={"goal": 2}, timer=None)
    bob.join(tid)
    app.client.session.act(2)
    return tid, bob


async def test_both_ask_and_the_new_game_replaces_the_podium(
        coordinator: Coordinator, make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        tid, bob = await podium_with_bob(app, coordinator, pilot)
        await settle(pilot)
        assert isinstance(app.screen, PodiumScreen)
        assert "revanche" in screen_text(app)  # the key
        await pilot.press("r")
        await settle(pilot)
        assert await wait_for_text(pilot, app, "Revanche demandée par Alice : 60 s pour")
        bob.rematch()
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TableScreen) and screen.table_id != tid
        assert screen.seat == 1 and screen.update.table.status == "playing"


async def test_a_decline_is_said_and_the_key_goes(coordinator: Coordinator,
                                                  make_app: MakeApp) -> None:
    app = make_app("Alice", lang="en")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        tid, bob = await podium_with_bob(app, coordinator, pilot)
        bob.rematch()  # Bob asks first: Alice is asked to accept
        await settle(pilot)
        assert await wait_for_text(pilot, app, "Rematch asked for by Bob: r to accept,")
        bob.rematch(accept=False)  # …and changes his mind: he leaves
        await settle(pilot)
        assert await wait_for_text(pilot, app, "No rematch: a player left.")
        text = screen_text(app)
        assert "No rematch at this table." in text
        assert "rematch " not in text.split("No rematch at this table.")[1]  # no key
        await pilot.press("r")  # (nothing: the key is off)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen) and tid not in coordinator.tables


async def test_alone_against_bots_the_rematch_starts_at_once(
        coordinator: Coordinator, make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        assert app.client.session is not None
        tid = app.client.session.create_table("toy", seats=2, options={"goal": 1},
                                              bots={1: "random"}, timer=None)
        app.client.session.act(1)
        await settle(pilot)
        assert isinstance(app.screen, PodiumScreen)
        await pilot.press("r")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, (TableScreen, PodiumScreen))
        assert app.client.table_id not in (None, tid) and app.client.session.seat == 1
