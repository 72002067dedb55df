"""Nothing ends by accident (issue 14): quitting Pioche and leaving a game in progress ask
first, and « no » keeps everything; a spectator's letters never send them away; the lobby's
chat line does not look like it has the keys; a session replaced by a newer one says why on
screen before it ends. Pilot against a real coordinator (the toy game), and snapshots of the
questions at 80×24 in both languages."""

from __future__ import annotations

import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from pioche_tui.app.app import PiocheApp
from pioche_tui.app.screens.create import CreateTableScreen
from pioche_tui.app.screens.dialogs import CodePrompt, Confirm, Farewell
from pioche_tui.app.screens.lobby import LobbyScreen
from pioche_tui.app.screens.podium import PodiumScreen
from pioche_tui.app.screens.scores import ScoresScreen
from pioche_tui.app.screens.table import TableScreen
from pioche_tui.coordinator.core import Coordinator, Session
from pioche_tui.coordinator.model import Player
from widgets.chat import ChatInput

from .conftest import run_scene, screen_text, settle
from .test_snapshots import at_my_turn

MakeApp = Callable[..., PiocheApp]


def question(app: PiocheApp) -> str:
    """The question shown, in one line."""
    assert isinstance(app.screen, Confirm), type(app.screen).__name__
    return " ".join(screen_text(app).split())


async def sit_at_a_game(pilot: Pilot[Any], app: PiocheApp) -> tuple[Session, str]:
    """Alice at a toy game in progress, against a bot, after her first move (a table nobody
    has moved at closes when its last player goes)."""
    await settle(pilot)
    session = app.client.session
    assert session is not None
    table = session.create_table("toy", seats=2, bots={1: "random"}, timer=None,
                                 options={"goal": 1000})
    session.act(1, 0)
    await settle(pilot)
    assert isinstance(app.screen, TableScreen) and app.screen.started
    return session, table


def seat_kept(coordinator: Coordinator, table: str, session: Session) -> bool:
    seat = coordinator.tables[table].seats[0]
    return seat.kind == "player" and seat.session is session and session.seat == 0


async def test_q_in_the_lobby_asks_and_only_yes_quits(coordinator: Coordinator,
                                                      make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for no in ("n", "escape", "enter"):  # Enter presses « Non », highlighted at first
            await pilot.press("q")
            await settle(pilot)
            assert "Quitter Pioche ?" in question(app)
            await pilot.press(no)
            await settle(pilot)
            assert isinstance(app.screen, LobbyScreen) and app.return_code is None
        await pilot.press("q", "o")
        await settle(pilot)
    assert app.return_code == 0
    assert "SHA256:Alice" not in coordinator.sessions


async def test_ctrl_q_and_ctrl_c_at_a_game_say_what_becomes_of_the_seat(
        coordinator: Coordinator, make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        session, table = await sit_at_a_game(pilot, app)
        for key in ("ctrl+q", "ctrl+c"):
            await pilot.press(key)
            await settle(pilot)
            shown = question(app)
            assert "Quitter Pioche ?" in shown
            assert "jouée par le robot" in shown and "dans les 5 min" in shown
            await pilot.press(key)  # asked already: no second question on top
            await settle(pilot)
            assert sum(isinstance(s, Confirm) for s in app.screen_stack) == 1
            await pilot.press("n")
            await settle(pilot)
            assert isinstance(app.screen, TableScreen) and app.return_code is None
            assert seat_kept(coordinator, table, session)
        await pilot.press("ctrl+q", "y")
        await settle(pilot)
    assert app.return_code == 0
    seat = coordinator.tables[table].seats[0]  # kept for the grace period, the bot playing
    assert seat.kind == "player" and seat.session is None and seat.away


async def test_quitting_a_waiting_room_says_the_seat_is_freed(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.client.session is not None
        table = app.client.session.create_table("toy", seats=3, timer=None)
        await settle(pilot)
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert f"Votre place à la table {table} sera libérée" in question(app)


async def test_before_a_session_ctrl_q_quits_at_once(make_app: MakeApp) -> None:
    app = make_app(None)  # the nickname screen: nothing to lose
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+q")
        await settle(pilot)
    assert app.return_code == 0


async def test_leaving_a_game_in_progress_asks_and_no_keeps_the_seat(
        coordinator: Coordinator, make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        session, table = await sit_at_a_game(pilot, app)
        for no in ("n", "escape", "enter"):
            await pilot.press("l")
            await settle(pilot)
            shown = question(app)
            assert "Quitter la partie ?" in shown
            assert "Votre place sera jouée par le robot jusqu'à la fin" in shown
            await pilot.press(no)
            await settle(pilot)
            assert isinstance(app.screen, TableScreen)
            assert seat_kept(coordinator, table, session)
        await pilot.press("l", "o")
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen) and session.table is None
        await pilot.press("s")  # the lobby's keys act again (nothing typed in the chat)
        await settle(pilot)
        assert isinstance(app.screen, ScoresScreen)


async def test_a_finished_game_and_a_waiting_room_are_left_without_a_question(
        coordinator: Coordinator, make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        session = app.client.session
        assert session is not None
        session.create_table("toy", seats=3, timer=None)
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen) and session.table is None
        session.create_table("toy", seats=2, bots={1: "random"}, timer=None,
                             options={"goal": 1})
        session.act(1, 0)  # the game is won at once
        await settle(pilot)
        assert isinstance(app.screen, PodiumScreen)
        await pilot.press("escape", "l")  # look at the table, then leave it
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen) and session.table is None


async def test_a_spectator_who_types_stays_at_the_table(coordinator: Coordinator,
                                                        make_app: MakeApp) -> None:
    host = coordinator.connect(Player("SHA256:host", "Hôte"))
    table = host.create_table("toy", seats=2, bots={1: "random"}, timer=None)
    app = make_app("Carole")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.client.session is not None
        app.client.session.watch(table)
        await settle(pilot)
        # Every letter and digit but c (which opens the chat, where the rest would go).
        for key in string.ascii_letters.replace("c", "").replace("C", "") + string.digits:
            await pilot.press(key)
            await settle(pilot, 1)
            assert isinstance(app.screen, TableScreen) and app.client.session.table is not None, key
        await pilot.press("c", *"lol", "enter", "escape")  # the chat: sent, keys given back
        await settle(pilot)
        assert isinstance(app.screen, TableScreen) and app.client.session.table is not None
        assert "Carole (spect.) : lol" in screen_text(app)  # the spectators' chat
        await pilot.press("escape")  # the spectator's way out, no question
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen) and app.client.session.table is None


async def test_the_code_dialog_keeps_what_was_typed_and_the_keys(coordinator: Coordinator,
                                                                 make_app: MakeApp) -> None:
    host = coordinator.connect(Player("SHA256:host", "Hôte"))
    table = host.create_table("toy", seats=2, private=True, timer=None)
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for key in ("j", "w"):  # to sit, or to watch
            await pilot.press(key, *"nope", "enter")
            await settle(pilot)
            field = app.screen.query_one(Input)
            assert field.value == "nope" and app.screen.focused is field
            assert "il faut son code" in screen_text(app)
            await pilot.press(*"nqsp")  # lobby keys: typed in the dialog, nothing else
            await settle(pilot)
            assert field.value == "nopenqsp"
            assert isinstance(app.screen, CodePrompt) and app.client.session is not None
            assert app.client.session.table is None
            await pilot.press("enter", "escape")
            await settle(pilot)
            assert isinstance(app.screen, LobbyScreen)
        await pilot.press("j", "enter")  # nothing typed: said so
        await settle(pilot)
        assert "Tapez le code de la table" in screen_text(app)
        assert host.table is not None
        code = host.table.code
        assert code is not None
        await pilot.press(*code.lower(), "enter")
        await settle(pilot)
        assert isinstance(app.screen, TableScreen) and app.screen.table_id == table


async def test_the_create_dialog_shows_a_refusal_and_stays_open(coordinator: Coordinator,
                                                                make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        session = app.client.session
        assert session is not None
        for _ in range(coordinator.settings.table_rate[0]):  # as many as a minute allows
            session.create_table("toy", seats=2, timer=None)
            session.leave()
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, CreateTableScreen)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is dialog and session.table is None
        assert "Trop de tables créées en une minute" in screen_text(app)


async def test_the_lobby_chat_line_is_an_invitation_until_c(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        chat = app.screen.query_one(ChatInput)
        assert not chat.has_focus
        assert "c : discuter" in screen_text(app) and "Entrée : envoyer" not in screen_text(app)
        assert chat.styles.background.a == 0  # the screen's own: not a field waiting for text
        await pilot.press("c")
        await settle(pilot)
        assert chat.has_focus and "Entrée : envoyer" in screen_text(app)
        assert chat.styles.background.a > 0
        await pilot.press("escape")
        await settle(pilot)
        assert "c : discuter" in screen_text(app)


async def test_a_replaced_session_says_why_before_it_ends(coordinator: Coordinator,
                                                          make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        coordinator.connect(Player("SHA256:Alice", "Alice"))  # the same key, elsewhere
        await settle(pilot)
        assert isinstance(app.screen, Farewell) and app.return_code is None
        assert "Vous vous êtes connecté ailleurs." in screen_text(app)
        await pilot.press("q", "l", "n")  # nothing acts: the session is over
        for _ in range(100):  # then the app ends by itself
            if app.return_code is not None:
                break
            await pilot.pause(0.05)
        assert app.return_code == 0
    assert app.farewell == "Vous vous êtes connecté ailleurs."


# --- the questions, as pictures ----------------------------------------------------------------


async def leave_question(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, PiocheApp) and app.client.session is not None
    app.client.session.create_table("defausse", seats=3, bots={1: "basic", 2: "random"}, timer=None)
    await at_my_turn(pilot)
    await pilot.press("l")


async def quit_question(pilot: Pilot[Any]) -> None:
    await leave_question(pilot)
    await pilot.press("n", "ctrl+q")


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("scene", ["leave", "quit"])
def test_question_picture(scene: str, lang: str, tmp_path: Path,
                          snap_compare: Callable[..., bool]) -> None:
    async def question(pilot: Pilot[Any], coordinator: Coordinator) -> None:
        await (leave_question if scene == "leave" else quit_question)(pilot)
        await settle(pilot, 5)
        assert isinstance(pilot.app.screen, Confirm)

    assert run_scene(snap_compare, tmp_path, question, lang=lang)
