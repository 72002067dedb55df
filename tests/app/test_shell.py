"""The app's shell, driven with Pilot against a real coordinator (and a toy game, so these tests
do not depend on a real game's rules): nickname, lobby, create and join, watch, chat, help,
scores, the too-small screen, the server's shutdown. Quitting, leaving a game, private tables'
codes and a session replaced by a newer one: test_confirm.py."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from textual import events
from textual.widgets import Input, Select

from pioche_tui.app.app import PiocheApp
from pioche_tui.app.screens.create import CreateTableScreen
from pioche_tui.app.screens.help import HelpScreen
from pioche_tui.app.screens.lobby import LobbyScreen
from pioche_tui.app.screens.nickname import NicknameScreen
from pioche_tui.app.screens.podium import PodiumScreen
from pioche_tui.app.screens.scores import ScoresScreen
from pioche_tui.app.screens.table import TableScreen
from pioche_tui.app.screens.too_small import TooSmallScreen
from pioche_tui.coordinator.client import CoordinatorClient
from pioche_tui.coordinator.core import Coordinator
from pioche_tui.coordinator.model import Place, Player
from pioche_tui.coordinator.text import CHAT_MAX
from widgets.chat import ChatInput
from widgets.keybar import KeyBar
from widgets.log import GameLog

from .conftest import screen_text, settle, wait_for_text

MakeApp = Callable[..., PiocheApp]


def keys_shown(app: PiocheApp) -> set[str]:
    return {key for key, _ in app.screen.query_one(KeyBar).keys}


async def test_nickname_is_asked_checked_and_taken_names_refused(
        coordinator: Coordinator, make_app: MakeApp) -> None:
    coordinator.connect(Player("SHA256:bob", "Bob"))
    app = make_app(name=None, identity="SHA256:new")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, NicknameScreen)
        for bad in ("A", "Jean Paul", "zoë[b]"):  # too short, a space, a bracket
            app.screen.query_one(Input).value = bad
            await pilot.press("enter")
            assert "De 2 à 16 lettres" in screen_text(app)
            assert app.client.session is None
        app.screen.query_one(Input).value = "bob"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, NicknameScreen)
        assert "déjà en ligne" in screen_text(app)
        app.screen.query_one(Input).value = "Chloé"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        assert app.client.session is not None and app.client.session.player.name == "Chloé"
        assert "Bonjour Chloé" in screen_text(app)


async def test_a_key_that_has_a_nickname_is_not_asked(
        coordinator: Coordinator, make_app: MakeApp) -> None:
    assert coordinator.db is not None
    coordinator.db.seen("SHA256:zoe", "Zoé", 0.0)
    app = make_app(name=None, identity="SHA256:zoe")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        assert app.client.session is not None and app.client.session.player.name == "Zoé"


async def test_a_session_slow_to_open_says_it_connects(coordinator: Coordinator) -> None:
    """A session that takes seconds to open (a node's death has the cluster elect a leader:
    the coordinator waits through it) shows « Connexion au serveur… », not a blank terminal,
    until the lobby comes."""

    class SlowToConnect:
        def client(self) -> CoordinatorClient:
            client = coordinator.client()
            connect = client.connect

            async def slowly(*args: Any, **kwargs: Any) -> Place:
                await asyncio.sleep(1.5)
                return await connect(*args, **kwargs)

            client.connect = slowly  # type: ignore[method-assign]
            return client

    app = PiocheApp(SlowToConnect(), identity="SHA256:zoe", name="Zoé")

    async def look() -> list[str]:
        """The screens shown until the session is open (``run_test`` waits for that)."""
        shown = []
        while getattr(app, "client", None) is None or app.client.session is None:
            await asyncio.sleep(0.1)
            with contextlib.suppress(Exception):  # (not running yet)
                shown.append(screen_text(app))
        return shown

    looking = asyncio.create_task(look())
    async with app.run_test(size=(80, 24)) as pilot:
        shown = await looking
        assert any("Connexion au serveur…" in text for text in shown)
        assert await wait_for_text(pilot, app, "Bonjour Zoé")
        assert not app.screen_stack[0].query("#connecting")  # (removed once connected)


async def test_a_guest_identity_is_drawn_not_made_of_name_and_address(
        make_app: MakeApp) -> None:
    app = make_app(name="Invité", identity="127.0.0.1", guest=True)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        assert app.client.session is not None and app.client.session.guest_pass is not None
        identity = app.client.session.player.identity
        assert identity == app.client.session.guest_pass.identity and identity.startswith("guest:")
        assert "Invité" not in identity and "127.0.0.1" not in identity


async def test_a_guest_is_shown_the_way_back_while_playing_only(
        coordinator: Coordinator, make_app: MakeApp) -> None:
    """Not in the waiting room (a player who drops there leaves the seat), not to a key, not to
    anyone else: at the game, on the log's edge, and once in a notice."""
    guest = make_app(name="Gus", identity="127.0.0.1", guest=True,
                     server_address=("192.0.2.7", 2222))
    async with guest.run_test(size=(100, 30), notifications=True) as pilot:
        await settle(pilot)
        session = guest.client.session
        assert session is not None and session.guest_pass is not None
        command = f"ssh -t -p 2222 192.0.2.7 resume {session.guest_pass.token}"
        assert guest.resume_command() == command
        table = session.create_table("toy", seats=2, timer=None)
        await settle(pilot)
        assert isinstance(guest.screen, TableScreen) and "resume" not in screen_text(guest)
        bob = coordinator.connect(Player("SHA256:bob", "Bob"))
        bob.join(table)
        await settle(pilot)
        assert isinstance(guest.screen, TableScreen)
        assert guest.screen.query_one("#log", GameLog).border_title is not None
        assert await wait_for_text(pilot, guest, command + " : pour revenir")
        assert await wait_for_text(pilot, guest, "seule cette commande vous rend votre place")
        assert session.guest_pass.token not in str(bob.mailbox.take())
    keyed = make_app(name="Kim", server_address=("192.0.2.7", 2222))
    async with keyed.run_test(size=(100, 30), notifications=True) as pilot:
        await settle(pilot)
        assert keyed.resume_command() is None


async def test_create_then_another_player_joins_from_the_lobby_and_plays(
        coordinator: Coordinator, make_app: MakeApp) -> None:
    alice = make_app("Alice")
    bob = make_app("Bob")

    async def bob_joins() -> None:
        # Each app runs in its own task, as the server runs them (Textual keeps the active
        # app in a context variable).
        async with bob.run_test(size=(80, 24), notifications=True) as b:
            await settle(b)
            assert "Alice" in screen_text(bob) and "1/2" in screen_text(bob)
            await b.press("enter")
            await settle(b)
            assert isinstance(bob.screen, TableScreen) and bob.screen.started
            assert bob.screen.seat == 1
            assert "Bob (vous)" in screen_text(bob)

    async with alice.run_test(size=(80, 24), notifications=True) as a:
        await settle(a)
        await a.press("n")
        await settle(a)
        dialog = alice.screen
        assert isinstance(dialog, CreateTableScreen)
        dialog.query_one("#game", Select).value = "toy"
        await settle(a)
        dialog.query_one("#seat-count", Select).value = 2
        await settle(a)
        await a.press("ctrl+s")
        await settle(a)
        assert isinstance(alice.screen, TableScreen)
        assert "En attente de joueurs" in screen_text(alice)
        assert "1 place libre" in screen_text(alice)
        await asyncio.create_task(bob_joins())
        await settle(a)
        assert isinstance(alice.screen, TableScreen)
        assert alice.screen.started  # full: the game started
        assert alice.screen.seat == 0
        assert "Alice (vous)" in screen_text(alice)


async def test_creator_starts_a_waiting_table_and_bots_fill_it(
        coordinator: Coordinator, make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        assert app.client.session is not None
        app.client.session.create_table("toy", seats=3, timer=None)
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TableScreen) and not screen.started
        assert "⏎" in keys_shown(app)  # Enter: start
        await pilot.press("enter")
        await settle(pilot)
        assert screen.started
        assert "(robot)" in screen_text(app)
        assert "⏎" not in keys_shown(app)


async def test_watch_a_table_spectators_see_a_banner_and_no_game_key(
        coordinator: Coordinator, make_app: MakeApp) -> None:
    host = coordinator.connect(Player("SHA256:host", "Hôte"))
    table = host.create_table("toy", seats=2, bots={1: "random"}, timer=None)  # host to play
    app = make_app("Carole")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        assert table in screen_text(app)
        await pilot.press("w")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TableScreen) and screen.seat is None
        assert "Vous regardez cette partie" in screen_text(app)
        assert keys_shown(app) == {"c", "échap", "?"}
        await pilot.press("escape")  # a spectator leaves without a question
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)


async def test_watch_table_at_start_and_watch_only_sessions(
        coordinator: Coordinator, make_app: MakeApp) -> None:
    host = coordinator.connect(Player("SHA256:host", "Hôte"))
    table = host.create_table("toy", seats=2, bots={1: "random"}, timer=None)  # host to play
    app = make_app("Regard", watch_only=True, watch_table=table)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, TableScreen) and app.screen.seat is None
        assert keys_shown(app) == {"échap", "?"}  # a watch-only session cannot chat
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        assert not {"n", "j", "p", "c"} & keys_shown(app)
        assert "Session spectateur" in screen_text(app)


async def test_lobby_and_table_chat(coordinator: Coordinator, make_app: MakeApp) -> None:
    bob = coordinator.connect(Player("SHA256:bob", "Bob"))
    app = make_app("Alice")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("c")
        assert keys_shown(app) == {"⏎", "échap"}  # typing: only the input's keys act
        await pilot.press(*"[b]salut[/b]", "enter")
        await settle(pilot)
        bob.chat("bonjour !")
        await settle(pilot)
        text = screen_text(app)
        assert "Alice : [b]salut[/b]" in text  # user text is never markup
        assert "Bob : bonjour !" in text
        lines = [m.text for m in bob.mailbox.take().chat]  # type: ignore[union-attr]
        assert "[b]salut[/b]" in lines
        await pilot.press("escape")
        assert "n" in keys_shown(app)
        # At a table, the table's chat goes to the table's log.
        assert app.client.session is not None
        app.client.session.create_table("toy", seats=2, timer=None)
        await settle(pilot)
        await pilot.press("c", *"on joue ?", "enter", "escape")
        await settle(pilot)
        assert "Alice : on joue ?" in screen_text(app)
        # Back in the lobby, the lobby's history is not shown twice.
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        log = app.screen.query_one("#lobby-chat", GameLog)
        assert len(log.entries) == 2


async def test_a_long_paste_in_the_chat_is_cut_to_a_message(coordinator: Coordinator,
                                                            make_app: MakeApp) -> None:
    bob = coordinator.connect(Player("SHA256:bob", "Bob"))
    app = make_app("Alice")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("c", *"Lu : ")
        chat = app.screen.query_one(ChatInput)
        chat.post_message(events.Paste("abcdefghij" * 100 + "\nsecond line"))
        await settle(pilot)
        expected = "Lu : " + ("abcdefghij" * 30)[: CHAT_MAX - 5]  # the room left, line one
        assert chat.value == expected
        await pilot.press("enter")
        await settle(pilot)
        sent = [m.text for m in bob.mailbox.take().chat]  # type: ignore[union-attr]
        assert sent[-1] == expected


async def test_help_lists_every_key_and_closes(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        document = app.screen.document()
        for words in ("créer une table", "s'asseoir", "regarder", "partie rapide de Défausse",
                      "partie rapide de Collection", "classement", "discussion",
                      "quitter Pioche"):
            assert words in document
        await pilot.press("escape")
        assert isinstance(app.screen, LobbyScreen)


async def test_scores_show_the_leaderboard_and_own_statistics(
        coordinator: Coordinator, make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, ScoresScreen)
        assert "Personne n'est encore classé à ce jeu." in screen_text(app)
        await pilot.press("escape")
        # Play a whole toy game (Alice adds 1 at each of her turns).
        assert app.client.session is not None
        app.client.session.create_table("toy", seats=2, bots={1: "random"}, timer=None)
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TableScreen)
        while screen.update.table.status == "playing":
            screen.act(1)
            await settle(pilot)
        assert isinstance(app.screen, PodiumScreen)
        text = screen_text(app)
        assert "Fin de la partie" in text
        assert "Partie non classée : contre des robots seulement." in text
        await pilot.press("enter")  # back to the lobby
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        await pilot.press("s")
        await settle(pilot)
        scores = app.screen
        assert isinstance(scores, ScoresScreen)
        text = screen_text(app)
        # each game's board first, by rating: nobody is rated (a game against a bot)
        assert "Classement — Défausse" in text and "Personne n'est encore classé" in text
        assert "dès 3 parties classées" in text
        assert "1 partie, 1 victoire, 1 pt au total" in text
        assert "· cote" not in text  # her statistics have no rating either
        for _ in range(len(scores.filters) - 1):  # the last board: every game's, by wins
            await pilot.press("g")
            await settle(pilot)
        text = screen_text(app)
        assert "tous les jeux" in text
        assert "│ 1  Alice" in text.replace("  ", " ").replace("│ 1 Alice", "│ 1  Alice")






async def test_the_chat_does_not_take_the_keys_when_the_tables_go(
        coordinator: Coordinator, make_app: MakeApp) -> None:
    # Back from a quick game the lobby focuses its list of tables, where that game still shows;
    # the next snapshot (the game has only bots now: not listed) hides the list. The focus must
    # not end up in the chat, or the player's next key (q to quit) is typed there.
    host = coordinator.connect(Player("SHA256:host", "Hôte"))
    host.create_table("toy", seats=2, bots={1: "random"}, timer=None, options={"goal": 1000})
    app = make_app("Alice")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen) and lobby.snapshot is not None
        listed = lobby.snapshot
        lobby.set_focus(None)
        lobby.show_snapshot(listed)  # the list asks for the focus...
        lobby.show_snapshot(replace(listed, tables=()))  # ...and goes before it gets it
        await settle(pilot)
        assert not isinstance(lobby.focused, ChatInput)
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, ScoresScreen)


async def test_refusals_are_shown_not_raised(coordinator: Coordinator,
                                             make_app: MakeApp) -> None:
    host = coordinator.connect(Player("SHA256:host", "Hôte"))
    host.create_table("toy", seats=2, bots={1: "random"}, timer=None, options={"goal": 1000})
    app = make_app("Alice", lang="en_GB.UTF-8")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("j")  # the table is playing: joining is refused
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        assert await wait_for_text(pilot, app, "The game has started")


async def test_too_small_terminal_then_recovers(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(60, 20), notifications=True) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, TooSmallScreen)
        assert "60×20" in screen_text(app)
        await pilot.press("n")  # no key acts under it
        await pilot.resize_terminal(79, 30)
        await settle(pilot)
        assert isinstance(app.screen, TooSmallScreen)
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        # A table arriving while too small stays under the too-small screen.
        await pilot.resize_terminal(70, 24)
        await settle(pilot)
        assert app.client.session is not None
        app.client.session.create_table("toy", seats=2, timer=None)
        await settle(pilot)
        assert isinstance(app.screen, TooSmallScreen)
        await pilot.resize_terminal(100, 30)
        await settle(pilot)
        assert isinstance(app.screen, TableScreen)


async def test_english_when_the_locale_says_so(make_app: MakeApp) -> None:
    app = make_app("Alice", lang="en_US.UTF-8")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "Hello Alice!" in text and "n create" in text






async def test_chat_that_looks_like_markup_is_shown_as_typed(coordinator: Coordinator,
                                                             make_app: MakeApp) -> None:
    """Nicknames cannot hold brackets (coordinator.text.nickname); chat can, and it stays text."""
    odd = coordinator.connect(Player("SHA256:odd", "Zed"))
    odd.create_table("toy", seats=3, timer=None)
    app = make_app("Alice")
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("j")
        await settle(pilot)
        assert "Alice (vous)" in screen_text(app)  # the waiting room
        odd.chat("[bold]gras ?[/bold] [@click=app.quit]x[/]")
        await settle(pilot)
        assert "Zed : [bold]gras ?[/bold] [@click=app.quit]x[/]" in screen_text(app)
        assert app.is_running


def test_play_command_line() -> None:
    from pioche_tui.cli import build_parser

    args = build_parser().parse_args(["play", "--game", "defausse", "--name", "Zoé",
                                      "--lang", "en", "--bot-delay", "0.2"])
    assert (args.game, args.name, args.lang, args.bot_delay) == ("defausse", "Zoé", "en", 0.2)
    assert args.run.__module__ == "pioche_tui.play"


async def test_back_at_the_table_after_a_dropped_connection(coordinator: Coordinator,
                                                             make_app: MakeApp) -> None:
    first = make_app("Alice")
    async with first.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        assert first.client.session is not None
        table = first.client.session.create_table("toy", seats=2, bots={1: "random"}, timer=None,
                                           options={"goal": 1000})
        first.client.session.act(1, 0)  # she plays first (a table left before that would close)
        await settle(pilot)
    # The app is gone (the connection dropped): the seat waits for its player.
    again = make_app("Alice")
    async with again.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        assert isinstance(again.screen, TableScreen) and again.screen.table_id == table
        assert again.screen.seat == 0 and again.screen.started
        assert await wait_for_text(pilot, again, "Vous retrouvez votre place")


async def test_server_shutdown_message_ends_the_app(make_app: MakeApp) -> None:
    from server.session import ServerShutdown

    app = make_app("Alice")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        app.post_message(ServerShutdown(3.0))
        await settle(pilot)
    assert app.farewell == "Le serveur s'arrête. À bientôt !"


async def test_a_seated_guest_is_told_the_way_back_as_the_server_goes(
        coordinator: Coordinator, make_app: MakeApp) -> None:
    """The server stops or restarts under a guest at a game: the line their terminal keeps
    says how to take the seat back (the table screen that showed it is gone with the app)."""
    from server.session import ServerShutdown

    guest = make_app(name="Gus", identity="127.0.0.1", guest=True,
                     server_address=("192.0.2.7", 2222))
    async with guest.run_test(size=(100, 30), notifications=True) as pilot:
        await settle(pilot)
        session = guest.client.session
        assert session is not None and session.guest_pass is not None
        table = session.create_table("toy", seats=2, timer=None)
        coordinator.connect(Player("SHA256:bob", "Bob")).join(table)
        await settle(pilot)
        assert isinstance(guest.screen, TableScreen) and guest.screen.started
        guest.post_message(ServerShutdown(3.0))
        await settle(pilot)
    way_back = ("Pour reprendre votre place : "
                f"ssh -t -p 2222 192.0.2.7 resume {session.guest_pass.token}")
    assert guest.way_back == way_back
    assert guest.farewell == f"Le serveur s'arrête. À bientôt ! {way_back}"
