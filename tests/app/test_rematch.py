"""The rematch (« Revanche ») on the podium, through the screens: r asks for it (or accepts
it), the line under the ranking says who asked and the time left, the new game's screen
replaces the podium when everyone asked; a decline says the rematch is off."""

from __future__ import annotations

from collections.abc import Callable

from textual import events

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


async def test_join_by_name_seats_the_player_or_says_why(
        coordinator: Coordinator, make_app: MakeApp) -> None:
    bob = coordinator.connect(Player("SHA256:Bob", "Bob"))
    tid = bob.create_table("toy", seats=3, timer=None, private=True)
    code = coordinator.tables[tid].code
    assert code is not None
    app = make_app("Alice", join_table=tid.lower(), join_code=code.lower())
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, TableScreen) and app.screen.table_id == tid
        assert app.client.session is not None and app.client.session.seat == 1
    for join_code, said in ((None, "Cette table est privée : il faut son code."),
                            ("NOPE", "Cette table est privée : il faut son code.")):
        app = make_app("Carol", join_table=tid, join_code=join_code)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, LobbyScreen)  # told why, in the lobby
            assert await wait_for_text(pilot, app, said)
    app = make_app("Dan", join_table="ZZZZ")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        assert await wait_for_text(pilot, app, "Pas de table ZZZZ.")


async def test_i_shows_and_copies_the_join_command(coordinator: Coordinator,
                                                   make_app: MakeApp) -> None:
    bob = coordinator.connect(Player("SHA256:Bob", "Bob"))
    tid = bob.create_table("toy", seats=3, timer=None)
    app = make_app("Alice", server_address=("play.example", 2222))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        assert "I inviter" in screen_text(app)
        await pilot.press("I")
        await settle(pilot)
        command = f"ssh -t -p 2222 play.example join {tid}"
        assert app.clipboard == command
        assert await wait_for_text(pilot, app, "Copié (si votre terminal le permet)")
        await pilot.press("j")  # seated: the waiting room's I gives the same command
        await settle(pilot)
        assert isinstance(app.screen, TableScreen)
        app.copy_to_clipboard("")
        await pilot.press("I")
        await settle(pilot)
        assert app.clipboard == command
    local = make_app("Carol")  # a local game names no server: no I
    async with local.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "inviter" not in screen_text(local)


async def test_a_key_typed_before_the_podium_does_not_close_it(
        coordinator: Coordinator, make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        typed_ahead = events.Key("enter", "\r")  # (typed with the last move, read after it)
        await podium_with_bob(app, coordinator, pilot)
        await settle(pilot)
        assert isinstance(app.screen, PodiumScreen)
        app.post_message(typed_ahead)
        await settle(pilot)
        assert isinstance(app.screen, PodiumScreen)
        await pilot.press("enter")  # (read on the podium: back to the lobby)
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
