"""The help (« ? »): its pages under a row of tabs, in the player's language, at 80×24.

From the lobby it opens on the keys, with both games' rules a tab away; at a table, on that
game's rules, with the keys a tab away. The arrows and a click turn the pages; the page scrolls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Tab, Tabs

from pioche_tui.app.app import PiocheApp
from pioche_tui.app.screens.help import HelpScreen, typeset
from pioche_tui.app.screens.lobby import LobbyScreen
from pioche_tui.coordinator.core import Coordinator
from pioche_tui.i18n import Catalogue
from widgets.document import MarkdownPage

from .conftest import screen_text, settle

MakeApp = Callable[..., PiocheApp]


async def open_help(pilot: Pilot[Any]) -> HelpScreen:
    """« ? » pressed once what is on screen has settled."""
    await settle(pilot)
    await pilot.press("question_mark")
    await settle(pilot)
    assert isinstance(pilot.app.screen, HelpScreen)
    return pilot.app.screen


def tabs_shown(help: HelpScreen) -> list[str]:
    return [tab.label_text for tab in help.query_one(Tabs).query(Tab) if tab.display]


async def test_from_the_lobby_the_keys_then_each_games_rules(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        help = await open_help(pilot)
        assert tabs_shown(help) == ["Touches", "Règles : Défausse", "Règles : Collection"]
        assert help.page == "keys" and "partie rapide de Défausse" in screen_text(app)
        assert "←/→ page" in screen_text(app)  # the key bar says how
        await pilot.press("right")
        await settle(pilot)
        assert help.page == "defausse"
        text = screen_text(app)
        assert "Défausse est un jeu" in text and "Ce qu'il faut" in text
        await pilot.press("right")
        await settle(pilot)
        assert help.page == "collection" and "Collection est un jeu" in screen_text(app)
        await pilot.press("right")  # round the row
        await settle(pilot)
        assert help.page == "keys"
        await pilot.press("left", "left")
        await settle(pilot)
        assert help.page == "defausse"
        await pilot.click("#collection")  # a tab clicked
        await settle(pilot)
        assert help.page == "collection"
        # The page scrolls, from its top each time it is shown.
        scroll = help.query_one("#help-scroll")
        assert scroll.has_focus
        await pilot.press("pagedown", "pagedown")
        await settle(pilot)
        assert scroll.scroll_y > 0
        assert "Collection est un jeu" not in screen_text(app)
        await pilot.press("left")
        await settle(pilot)
        assert help.page == "defausse" and scroll.scroll_y == 0
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)


async def test_at_a_table_the_games_rules_in_english(coordinator: Coordinator,
                                                     make_app: MakeApp) -> None:
    app = make_app("Alice", lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        help = await open_help(pilot)
        assert tabs_shown(help) == ["Keys", "Rules: Défausse", "Rules: Collection"]
        assert help.page == "keys" and "quick game of Défausse" in screen_text(app)
        await pilot.press("escape")
        assert app.client.session is not None
        app.client.session.create_table("collection", seats=2, bots={1: "basic"}, timer=None)
        await settle(pilot, 10)
        assert await open_help(pilot) is help  # built once, shown again for the table
        assert tabs_shown(help) == ["Keys", "Rules: Collection"]  # not the other game's
        assert help.page == "collection"
        assert "Collection is a game of drawing" in screen_text(app)
        await pilot.press("right")
        await settle(pilot)
        assert help.page == "keys" and "draw the top card of deck A" in screen_text(app)


async def test_a_game_without_rules_shows_its_keys_alone(coordinator: Coordinator,
                                                         make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.client.session is not None
        app.client.session.create_table("toy", seats=2, bots={1: "random"}, timer=None)
        await settle(pilot, 10)
        help = await open_help(pilot)
        assert tabs_shown(help) == ["Touches"] and help.page == "keys"
        assert "←/→" not in screen_text(app)  # nothing to turn to


async def test_no_french_line_starts_with_a_colon(make_app: MakeApp) -> None:
    """« : » and « ; » stay on the line of the word before them (a no-break space), in every
    page of the French help at 80 columns."""
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        help = await open_help(pilot)
        page = help.query_one(MarkdownPage)
        for name in help.pages:
            markdown = typeset(Catalogue("fr"), help.page_text(name))
            assert "\u00a0:" in markdown
            page.markdown = markdown
            starts = [strip.text.strip()[:1] for strip in page.rows(76) if strip.text.strip()]
            assert not set(starts) & {":", ";", "»"}, name
            assert all("\ue000" not in strip.text for strip in page.rows(76))
