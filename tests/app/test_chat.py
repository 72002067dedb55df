"""The chat through the screens: the commands (/help, /msg, /me, /ignore), the lines' look
(the time, private lines, actions, the spectators' chat), the bell of a mention."""

from __future__ import annotations

from collections.abc import Callable

from pioche_tui.app.app import PiocheApp
from pioche_tui.app.chat import Typed, parse
from pioche_tui.coordinator.core import Coordinator
from pioche_tui.coordinator.model import Player
from widgets.log import GameLog

from .conftest import screen_text, settle, wait_for_text
from .test_snapshots import at_nine_thirty

MakeApp = Callable[..., PiocheApp]


def chat_log(app: PiocheApp) -> list[str]:
    """Every line of the chat shown now (the lobby's, or the table's log), as plain text."""
    screen = app.table_screen or app.lobby
    assert screen is not None
    log = screen.query_one("#lobby-chat" if screen is app.lobby else "#log", GameLog)
    return [entry if isinstance(entry, str) else entry.plain for entry in log.entries]


def test_a_typed_line_is_read_as_said_or_as_a_command() -> None:
    assert parse("  bonjour  ") == Typed("", text="bonjour")
    assert parse("/msg Bob  salut toi ") == Typed("msg", "Bob", "salut toi")
    assert parse("/MSG bob") == Typed("msg", "bob", "")
    assert parse("/me réfléchit") == Typed("me", text="réfléchit")
    assert parse("/ignore") == Typed("ignore")
    assert parse("/unignore carl") == Typed("unignore", "carl")
    assert parse("/Help") == Typed("help")
    assert parse("//etc/passwd") == Typed("", text="/etc/passwd")
    assert parse("/kick bob") == Typed("kick", text="bob")


async def test_a_private_line_shows_on_its_two_screens_alone(coordinator: Coordinator,
                                                             make_app: MakeApp) -> None:
    coordinator.wall_clock = at_nine_thirty
    alice, bob, carl = make_app("Alice"), make_app("Bob"), make_app("Carl")
    async with (alice.run_test(size=(80, 24), notifications=True) as pilot,
                bob.run_test(size=(80, 24)) as bob_pilot,
                carl.run_test(size=(80, 24)) as carl_pilot):
        await settle(pilot)
        await pilot.press("c", *"/msg bob salut toi", "enter")
        for p in (pilot, bob_pilot, carl_pilot):
            await settle(p)
        said = "21:30 Alice → Bob (privé) : salut toi"
        assert said in chat_log(alice) and said in screen_text(alice)
        assert said in chat_log(bob) and said in screen_text(bob)
        assert chat_log(carl) == [] and "salut toi" not in screen_text(carl)
        # To nobody online, to oneself, without a message: said why, nothing sent.
        await pilot.press(*"/msg Zoé coucou", "enter")
        assert await wait_for_text(pilot, alice, "Zoé n'est pas en ligne.")
        await pilot.press(*"/msg alice coucou", "enter")
        assert await wait_for_text(pilot, alice, "C'est vous : un message privé va à un "
                                                 "autre joueur.")
        await pilot.press(*"/msg bob", "enter")
        assert await wait_for_text(pilot, alice, "/msg, le pseudo, puis le message")
        await settle(bob_pilot)
        assert len(chat_log(bob)) == 1 and len(chat_log(alice)) == 1


async def test_help_and_an_unknown_command_are_for_the_asker_alone(
        coordinator: Coordinator, make_app: MakeApp) -> None:
    bob = coordinator.connect(Player("SHA256:bob", "Bob"))
    app = make_app("Alice", lang="en")
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await settle(pilot)
        bob.mailbox.take()
        await pilot.press("c", *"/help", "enter")
        await settle(pilot)
        shown = chat_log(app)
        assert shown[0] == "The chat's commands (only you read this):"
        assert [line.split(" ")[0] for line in shown[1:6]] == [
            "/help:", "/msg", "/me", "/ignore", "/unignore"]
        assert shown[6].startswith("@name in a message rings")
        await pilot.press(*"/kick Bob", "enter")
        assert await wait_for_text(pilot, app, "Unknown command: /kick. /help lists them.")
        assert len(chat_log(app)) == 7
        assert bob.mailbox.take() is None  # nothing said, nothing changed
        assert bob.open
        await pilot.press(*"//kick est une commande ?", "enter")  # // says a line with a /
        await settle(pilot)
        assert [line.text for line in bob.mailbox.take().chat] == [  # type: ignore[union-attr]
            "/kick est une commande ?"]


async def test_me_an_action_with_its_time(coordinator: Coordinator, make_app: MakeApp
                                          ) -> None:
    coordinator.wall_clock = at_nine_thirty
    bob = coordinator.connect(Player("SHA256:bob", "Bob"))
    app = make_app("Alice")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("c", *"/me réfléchit", "enter")
        await settle(pilot)
        assert "21:30 * Alice réfléchit" in screen_text(app)
        [line] = bob.mailbox.take().chat  # type: ignore[union-attr]
        assert (line.name, line.text, line.me) == ("Alice", "réfléchit", True)
        await pilot.press(*"/me", "enter")
        assert await wait_for_text(pilot, app, "/me suivi de l'action")


async def test_a_mention_rings_the_bell_once(coordinator: Coordinator, make_app: MakeApp
                                             ) -> None:
    alice = coordinator.connect(Player("SHA256:alice", "Alice"))
    app = make_app("Bob")
    rung: list[str] = []
    app.bell = lambda: rung.append("bell")  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        alice.chat("@bob tu viens ?")
        alice.chat("@bob ? @Bob ?")
        await settle(pilot)
        assert rung == ["bell"]  # once: the second is within the limit
        assert chat_log(app)[-2].endswith("Alice : @bob tu viens ?")
        app.client.session.chat("j'arrive @Alice")  # type: ignore[union-attr]
        await settle(pilot)
        assert rung == ["bell"]  # the sender's own mention rings nothing for him
        # Bob's bell set off: a mention shows, rings nothing.
        coordinator._bells.forget(app.client.session.player.identity)  # type: ignore[union-attr]
        app.prefs = app.prefs.__class__(bell=False)
        coordinator._chat_limit.forget(alice.player.identity)
        alice.chat("@bob !")
        await settle(pilot)
        assert rung == ["bell"] and chat_log(app)[-1].endswith("Alice : @bob !")


async def test_ignore_on_the_screen(coordinator: Coordinator, make_app: MakeApp) -> None:
    carl = coordinator.connect(Player("SHA256:carl", "Carl"))
    app = make_app("Bob")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("c", *"/ignore", "enter")
        await settle(pilot)
        assert chat_log(app) == ["Vous n'ignorez personne."]
        await pilot.press(*"/ignore CARL", "enter")
        await settle(pilot)
        carl.chat("tu m'entends ?")
        await settle(pilot)
        await pilot.press(*"/ignore", "enter")
        await settle(pilot)
        assert chat_log(app)[1:] == [
            "Vous ignorez Carl : ses messages ne vous parviennent plus.",
            "Vous ignorez : Carl."]
        await pilot.press(*"/ignore Bob", "enter")
        assert await wait_for_text(pilot, app, "C'est vous : on n'ignore que les autres.")
        await pilot.press(*"/unignore carl", "enter")
        await settle(pilot)
        carl.chat("et là ?")
        await settle(pilot)
        assert chat_log(app)[-2] == "Vous lisez de nouveau carl."  # (as typed)
        assert chat_log(app)[-1].endswith("Carl : et là ?")


async def test_players_do_not_see_the_spectators_chat(coordinator: Coordinator,
                                                      make_app: MakeApp) -> None:
    coordinator.wall_clock = at_nine_thirty
    carl = coordinator.connect(Player("SHA256:carl", "Carl"))
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.client.session is not None
        table = app.client.session.create_table("toy", seats=2, timer=None)
        carl.watch(table)
        carl.chat("elle va perdre")
        await settle(pilot)
        await pilot.press("c", *"même pas vrai", "enter")
        await settle(pilot)
        assert "elle va perdre" not in " ".join(chat_log(app))
        assert chat_log(app)[-1] == "21:30 Alice : même pas vrai"
        said = [(line.text, line.spectators)
                for line in carl.mailbox.take().chat]  # type: ignore[union-attr]
        assert said == [("elle va perdre", True), ("même pas vrai", False)]
