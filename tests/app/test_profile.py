"""Profiles and replays through the screens: a real coordinator, real logs and SQLite file,
games played to their end by key players (``profiles.finish_games``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import DataTable, OptionList, Sparkline

from pioche_tui.app.app import PiocheApp
from pioche_tui.app.screens.profile import PlayerPicker, ProfileScreen
from pioche_tui.app.screens.replay import ReplayScreen
from pioche_tui.app.screens.scores import ScoresScreen
from pioche_tui.coordinator.core import Coordinator
from pioche_tui.coordinator.model import REPLAY_PAGE, Player

from .conftest import screen_text, settle, wait_for_text
from .profiles import finish_games

SIZE = (100, 32)


async def shown(pilot: Pilot[Any], kind: type) -> Any:
    """The screen on top once it is a ``kind``."""
    for _ in range(100):
        await settle(pilot)
        if isinstance(pilot.app.screen, kind):
            return pilot.app.screen
    raise AssertionError(f"no {kind.__name__} came: {pilot.app.screen!r}")


async def warned(pilot: Pilot[Any], app: PiocheApp, text: str) -> bool:
    """A notice saying ``text`` came (over a window, it is not in the screen's picture)."""
    for _ in range(50):
        if any(text in n.message for n in app._notifications):
            return True
        await settle(pilot)
    return False


async def profile_of(pilot: Pilot[Any], app: PiocheApp, name: str) -> ProfileScreen:
    app.show_profile(name)
    screen: ProfileScreen = await shown(pilot, ProfileScreen)
    for _ in range(50):
        if screen.profile is not None or "profil" in screen_text(app):
            break
        await settle(pilot)
    await settle(pilot)
    return screen


async def test_the_lobby_opens_the_profile_of_a_player_online(
        coordinator: Coordinator, make_app: Callable[..., PiocheApp]) -> None:
    await finish_games(coordinator, count=3)
    coordinator.connect(Player("SHA256:Bob", "Bob"))  # online again
    app = make_app("Chloe")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("i")
        picker = await shown(pilot, PlayerPicker)
        assert sorted(picker.names) == ["Bob", "Chloe"]
        assert "⏎ voir le profil" in screen_text(app)
        picker.query_one(OptionList).highlighted = picker.names.index("Bob")
        await pilot.press("enter")
        screen = await shown(pilot, ProfileScreen)
        await settle(pilot, 5)
        text = screen_text(app)
        assert screen.profile is not None and screen.profile.name == "Bob"
        assert "Défausse : 3 parties" in text and "cote" in text
        [chart] = screen.query(Sparkline)
        assert len(chart.data or ()) == 3  # the rating after each of the three games
        assert screen.query_one("#profile-last", DataTable).row_count == 3
        assert "sur 2" in text and "classée" in text
        assert not screen.check_action("replay_mine", ())  # not Chloe's games


async def test_a_guest_has_no_profile_and_is_told_so(
        coordinator: Coordinator, make_app: Callable[..., PiocheApp]) -> None:
    guest = coordinator.guest_pass()
    coordinator.connect(Player(guest.identity, "Gus", guest=True), guest)
    app = make_app("Alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await profile_of(pilot, app, "Gus")
        assert screen.profile is None
        assert await wait_for_text(pilot, app, "« Gus » n'a pas de profil : un invité n'en a pas")


async def test_the_scores_and_a_table_open_profiles(
        coordinator: Coordinator, make_app: Callable[..., PiocheApp]) -> None:
    await finish_games(coordinator, count=3)
    app = make_app("Chloe")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        scores = await shown(pilot, ScoresScreen)
        await settle(pilot, 5)
        assert sorted(row.name for row in scores.rows) == ["Alice", "Bob"]
        first = scores.rows[0].name
        await pilot.press("enter")  # the highlighted row: the first
        screen = await shown(pilot, ProfileScreen)
        await settle(pilot, 5)
        assert screen.profile is not None and screen.profile.name == first
        await pilot.press("escape")
        await shown(pilot, ScoresScreen)
        await pilot.press("escape")
        await settle(pilot)
        session = app.client.session  # type: ignore[attr-defined]
        session.create_table("defausse", seats=2, bots={1: "basic"}, timer=None)
        await settle(pilot, 10)
        await pilot.press("ctrl+p")
        picker = await shown(pilot, PlayerPicker)
        assert picker.names == ("Chloe",)  # the table's players; its bot has no profile


async def test_a_replay_as_a_spectator_saw_it_step_by_step(
        coordinator: Coordinator, make_app: Callable[..., PiocheApp]) -> None:
    [table_id] = await finish_games(coordinator)
    app = make_app("Chloe")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await profile_of(pilot, app, "Alice")
        await pilot.press("enter")
        replay: ReplayScreen = await shown(pilot, ReplayScreen)
        await settle(pilot, 5)
        total = replay.total
        assert replay.table_id == table_id and total > REPLAY_PAGE  # more than a page
        assert replay.at == 0 and replay.seat is None
        assert "Revue, vue de spectateur · coup 0/" in screen_text(app)
        await pilot.press("right", "right", "right")
        await settle(pilot, 3)
        assert replay.at == 3 and replay.update.step == 3
        assert replay.update.view.hand == () and replay.update.view.legal == ()
        await pilot.press("left")
        await settle(pilot, 3)
        assert replay.at == 2 and replay.update.step == 2
        await pilot.press("end")  # the last page, asked for now
        await settle(pilot, 5)
        assert replay.at == total - 1
        assert replay.update.view.outcome is not None
        assert "Partie terminée" in screen_text(app)
        await pilot.press("pageup")  # the start of the (single) round
        await settle(pilot, 3)
        assert replay.at == 0
        await pilot.press("pagedown")  # no round after it: the end
        await settle(pilot, 3)
        assert replay.at == total - 1
        await pilot.press("home")
        await settle(pilot, 3)
        assert replay.at == 0
        await pilot.press("d", "x", "l")  # the game's keys play nothing
        await settle(pilot)
        assert isinstance(app.screen, ReplayScreen) and replay.at == 0
        await pilot.press("escape")
        await shown(pilot, ProfileScreen)


async def test_a_player_replays_their_own_seat_with_their_cards(
        coordinator: Coordinator, make_app: Callable[..., PiocheApp]) -> None:
    await finish_games(coordinator)
    app = make_app("Bob", identity="SHA256:Bob")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await profile_of(pilot, app, "Bob")
        assert screen.check_action("replay_mine", ())
        await pilot.press("v")
        replay: ReplayScreen = await shown(pilot, ReplayScreen)
        await settle(pilot, 5)
        assert replay.seat == 1 and replay.update.view.hand  # his own hand
        assert "Revue depuis votre place · coup 0/" in screen_text(app)
        await pilot.press("escape")
        await shown(pilot, ProfileScreen)
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        screen = await profile_of(pilot, app, "Alice")
        assert not screen.check_action("replay_mine", ())  # Alice's seat is hers alone


async def test_a_game_whose_log_is_gone_says_so(
        coordinator: Coordinator, make_app: Callable[..., PiocheApp]) -> None:
    """Past the retention, an ended table's log is removed and the database says so: the
    profile still lists the game, with « journal effacé », and its replay is refused with a
    reason. A log that went without the database knowing (removed by hand) is refused too."""
    first, second = await finish_games(coordinator, count=2)
    assert coordinator.db is not None
    coordinator.db.set_log_files({first: ""})  # as the retention's pass does
    coordinator.log_path(first).unlink()
    coordinator.log_path(second).unlink()  # (by hand)
    app = make_app("Chloe")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await profile_of(pilot, app, "Alice")
        assert "journal effacé" in screen_text(app)
        table = screen.query_one("#profile-last", DataTable)
        gone = [g.table_id for g in screen.profile.last].index(first)  # type: ignore[union-attr]
        table.move_cursor(row=gone)
        await pilot.press("enter")
        assert await warned(pilot, app, "Le journal de cette partie n'est plus gardé")
        assert isinstance(app.screen, ProfileScreen)
        app.clear_notifications()
        table.move_cursor(row=1 - gone)
        await pilot.press("enter")
        assert await warned(pilot, app, "Le journal de cette partie n'est plus gardé")
        assert isinstance(app.screen, ProfileScreen)
