"""The player's terminal: the key bar at 80 columns, one language per screen, the settings
window, the bell and the title when the turn comes, colour depths, the mouse.

Every screen (the scenes of test_snapshots.py and test_collection_snapshots.py, and a
watch-only session's) is rendered at 80×24 in both languages, once, and read for two things:
its key bar fits, and no word of the other language's catalogue shows.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual import constants, events
from textual.filter import Monochrome, NoColor
from textual.pilot import Pilot

from pioche_tui.app.app import PiocheApp
from pioche_tui.app.colours import capped, depth_of, terminal_depth
from pioche_tui.app.prefs import Preferences
from pioche_tui.app.screens.colour import ColourPicker
from pioche_tui.app.screens.defausse import DefausseTableScreen
from pioche_tui.app.screens.help import HelpScreen
from pioche_tui.app.screens.lobby import LobbyScreen
from pioche_tui.app.screens.settings import SettingsScreen
from pioche_tui.coordinator.core import Coordinator
from pioche_tui.coordinator.model import Player
from pioche_tui.engine.defausse.cards import COLOUR, WILD
from pioche_tui.i18n import LANGS, MESSAGES
from widgets.choices import ChoiceList
from widgets.collection_board import CollectionBoard
from widgets.hand import Hand
from widgets.keybar import KeyBar
from widgets.tables import TablesList

from . import test_collection as collection
from . import test_collection_snapshots as collection_scenes
from . import test_snapshots as scenes
from .conftest import Scene, make_coordinator, screen_text, settle


async def watch_only(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    """A watch-only session (``watch@``), at a table."""
    await scenes.spectator(pilot, coordinator)


SCREENS: dict[str, Scene] = {
    **scenes.SCENES, **{f"collection_{name}": scene
                        for name, scene in collection_scenes.SCENES.items()},
    "watch_only": watch_only,
}
USER_TEXT = (  # the players' own words (the lobby's chat), in French whatever the screen's
    "Qui vient jouer ? [b]pas de markup[/b]", "Salut @Alice, une partie ?", "arrive en courant",
    "je crée la table",
)

# --- one language per screen ---------------------------------------------------------------

_WORD = re.compile(r"[^\W\d_]{3,}")
TEXTUAL_ENGLISH = {"select"}  # what Textual's own widgets say unless told otherwise
USER_WORDS = {word.lower() for text in USER_TEXT for word in _WORD.findall(text)}


def catalogue_words(index: int) -> set[str]:
    words: set[str] = set()
    for texts in MESSAGES.values():
        template = re.sub(r"\{[^}]*\}", " ", texts[index])
        words |= {word.lower() for word in _WORD.findall(template)}
    return words


FR_WORDS, EN_WORDS = catalogue_words(0), catalogue_words(1)
ONLY = {"fr": FR_WORDS - EN_WORDS, "en": (EN_WORDS - FR_WORDS) | TEXTUAL_ENGLISH}
"""The words only one language's catalogue uses (and Textual's English): what the other
language's screens must never show."""


def foreign_words(text: str, lang: str) -> set[str]:
    other = next(other for other in LANGS if other != lang)
    return {word.lower() for word in _WORD.findall(text)} & ONLY[other]


# --- the key bar ---------------------------------------------------------------------------


def key_bar_problems(app: PiocheApp) -> list[str]:
    """What is wrong with the key bars on screen: a line wider than the bar, a key cut."""
    problems = []
    for bar in app.screen.query(KeyBar):
        width = bar.content_size.width
        shown = " ".join(line.plain for line in bar.lines)
        for line in bar.lines:
            if line.cell_len > width or "…" in line.plain:
                problems.append(f"cut: {line.plain!r}")
        for key, description in bar.keys:
            if f"{key} {description}" not in shown:
                problems.append(f"missing: {key} {description}")
        if len(bar.lines) > 2:
            problems.append(f"{len(bar.lines)} lines")
    return problems


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("screen", sorted(SCREENS))
async def test_each_screen_fits_80_columns_in_one_language(
        screen: str, lang: str, tmp_path: Path) -> None:
    coordinator = make_coordinator(tmp_path, seed=2024)
    await coordinator.start()
    name = None if screen in ("nickname", "watch_only") else "Alice"
    app = PiocheApp(coordinator, identity="SHA256:Alice", name=name, lang=lang,
                    watch_only=screen == "watch_only")
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await SCREENS[screen](pilot, coordinator)
            await settle(pilot)
            text = screen_text(app)
            assert not key_bar_problems(app), (key_bar_problems(app), text)
            foreign = foreign_words(text, lang) - USER_WORDS  # (a chat line may wrap anywhere)
            assert not foreign, (foreign, text)
    finally:
        coordinator.stop()


def test_the_word_lists_are_not_empty() -> None:
    """(The check above would pass on anything if a list were empty.)"""
    assert {"carte", "bonjour"} <= ONLY["fr"] and {"card", "hello", "select"} <= ONLY["en"]
    assert foreign_words("Hello Alice! Vos cartes", "fr") == {"hello"}
    assert foreign_words("Hello Alice! Vos cartes", "en") == {"vos", "cartes"}



# --- the settings window -------------------------------------------------------------------


async def test_settings_change_the_language_and_are_kept_for_the_key(
        coordinator: Coordinator) -> None:
    app = PiocheApp(coordinator, identity="SHA256:Alice", name="Alice", lang="fr_FR.UTF-8")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, SettingsScreen)
        assert "Langue" in screen_text(app) and "‹ Français ›" in screen_text(app)
        await pilot.press("right")  # the language: English
        await pilot.press("down", "down", "enter")  # the bell: off
        await settle(pilot)
        assert "‹ English ›" in screen_text(app)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        text = screen_text(app)
        assert "Hello Alice!" in text and "o settings" in text and "Bonjour" not in text
    assert coordinator.db is not None
    assert coordinator.db.preferences("SHA256:Alice") == {
        "lang": "en", "colours": "auto", "bell": False, "title": True}
    # The next connection with this key starts with them, whatever its locale.
    again = PiocheApp(coordinator, identity="SHA256:Alice", name="Alice", lang="fr_FR.UTF-8")
    async with again.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert again.t.lang == "en" and again.prefs.bell is False
        assert "Hello Alice!" in screen_text(again)


def coloured(app: PiocheApp) -> bool:
    """Some cell on screen has a colour of its own (not the terminal's default)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", record=True)
    console.print(app.screen._compositor.render_update(
        full=True, screen_stack=app._background_screens))
    return any(style is not None and any(
        colour is not None and not colour.is_default for colour in (style.color, style.bgcolor))
        for _text, style, _control in console._record_buffer)


async def test_colours_chosen_in_the_settings_repaint_every_screen(
        coordinator: Coordinator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(constants, "COLOR_SYSTEM", "truecolor")
    app = PiocheApp(coordinator, identity="SHA256:Alice", name="Alice", term="vt100")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        assert not coloured(app)
        await pilot.press("down", "left", "left")  # colours: auto (none), then 16
        await settle(pilot)
        assert app.prefs.colours == "16" and coloured(app)
        await pilot.press("escape")
        await settle(pilot)
        assert coloured(app)  # the lobby too, drawn under the window before


async def test_a_guests_settings_last_the_session(coordinator: Coordinator) -> None:
    app = PiocheApp(coordinator, identity="10.0.0.7", name="Zoé", guest=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("o", "down", "down", "enter", "escape")
        await settle(pilot)
        assert app.prefs.bell is False
    assert coordinator.db is not None
    identity = app.guest_pass.identity if app.guest_pass else "10.0.0.7"
    assert coordinator.db.preferences(identity) == {}


def test_stored_settings_are_read_leniently() -> None:
    assert Preferences.from_dict({"lang": "de", "colours": "12", "bell": "no", "x": 1}) == (
        Preferences())
    assert Preferences.from_dict({"lang": "en", "colours": "16", "bell": False}) == (
        Preferences(lang="en", colours="16", bell=False))


# --- colours -------------------------------------------------------------------------------


@pytest.mark.parametrize(("term", "colorterm", "depth"), [
    ("xterm-256color", "truecolor", "truecolor"), ("xterm-256color", "24bit", "truecolor"),
    ("xterm-256color", None, "256"), ("screen-256color", "", "256"), ("xterm-kitty", None, "256"),
    ("xterm-16color", None, "16"), ("xterm", None, "16"), ("linux", None, "16"),
    ("vt100", None, "none"), ("vt220", None, "none"), ("VT102", None, "none"),
    ("dumb", None, "none"), ("unknown", None, "none"), ("dumb", "truecolor", "none"),
])
def test_the_terminal_says_its_colours(term: str, colorterm: str | None, depth: str) -> None:
    assert terminal_depth(term, colorterm) == depth


@pytest.mark.parametrize(("depth", "ceiling", "shown"), [
    ("truecolor", "256", "256"), ("16", "truecolor", "16"), ("none", "16", "none"),
    ("256", "none", "none"),
])
def test_the_operator_sets_the_ceiling(depth: str, ceiling: str, shown: str) -> None:
    assert capped(depth, ceiling) == shown


async def test_each_session_gets_its_own_depth(coordinator: Coordinator,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual's console and line filters, per app: 16 colours, none (Textual's NoColor), and
    NO_COLOR (Textual's Monochrome, as NO_COLOR does for a local app); a player's choice wins
    over what the terminal says, never over the operator's ceiling."""
    monkeypatch.setattr(constants, "COLOR_SYSTEM", "truecolor")  # pioche serve's default
    sixteen = PiocheApp(coordinator, identity="SHA256:a", name="A", term="xterm")
    assert sixteen.console.color_system == "standard" and not sixteen.no_color
    bare = PiocheApp(coordinator, identity="SHA256:b", name="B", term="vt100")
    assert bare.console.color_system is None and bare.no_color
    assert any(isinstance(f, NoColor) for f in bare.get_line_filters())
    grey = PiocheApp(coordinator, identity="SHA256:c", name="C", term="xterm-256color",
                     no_color=True)
    assert grey.console.color_system == "256" and grey.no_color
    assert any(isinstance(f, Monochrome) for f in grey.get_line_filters())
    grey.set_prefs(replace(grey.prefs, colours="truecolor"))
    assert not grey.no_color and not any(
        isinstance(f, Monochrome) for f in grey.get_line_filters())
    assert depth_of(grey) == "truecolor"
    monkeypatch.setattr(constants, "COLOR_SYSTEM", "256")  # pioche serve --colors 256
    capped_app = PiocheApp(coordinator, identity="SHA256:d", name="D", term="xterm",
                           colorterm="truecolor")
    assert depth_of(capped_app) == "256"
    capped_app.set_prefs(replace(capped_app.prefs, colours="truecolor"))
    assert depth_of(capped_app) == "256"


# --- the turn: bell and title --------------------------------------------------------------


async def test_the_bell_and_the_title_when_the_turn_comes(
        make_app: Callable[..., PiocheApp]) -> None:
    app = make_app("Alice")
    rings: list[str] = []
    app.bell = lambda: rings.append(app.window_title)  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("p")  # Défausse against bots, who answer at once
        view = (await scenes.at_my_turn(pilot)).view
        first = view.current == 0 and app.table_screen is not None and (
            app.table_screen.update.step == 0)
        assert len(rings) == (0 if first else 1)
        assert app.window_title == "À vous — Pioche"
        await play_something(pilot, app)
        await scenes.at_my_turn(pilot)
        assert len(rings) == (1 if first else 2)  # once a turn, after the bots played
        assert app.window_title == "À vous — Pioche"
        app.set_prefs(replace(app.prefs, bell=False, title=False))
        assert app.window_title == "Pioche"
        await play_something(pilot, app)
        await scenes.at_my_turn(pilot)
        assert len(rings) == (1 if first else 2) and app.window_title == "Pioche"


async def play_something(pilot: Pilot[Any], app: PiocheApp) -> None:
    """Play the card under the cursor, or draw (and keep) when none may be played."""
    screen = app.table_screen
    assert isinstance(screen, DefausseTableScreen) and screen.view is not None
    step = screen.update.step
    hand = screen.query_one(Hand)
    if hand.selected in hand.playable:
        await pilot.press("enter")
        await settle(pilot)
        if isinstance(app.screen, ColourPicker):
            await pilot.press("r")
    else:
        await pilot.press("d")
        await settle(pilot)
        if screen.update.step == step + 1 and screen.view.current == screen.seat:
            await pilot.press("k")
    await settle(pilot)


# --- the mouse -----------------------------------------------------------------------------


async def test_a_click_chooses_a_card_a_second_plays_it(
        make_app: Callable[..., PiocheApp]) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("p")
        view = (await scenes.at_my_turn(pilot)).view
        hand = app.screen.query_one(Hand)
        cards = [c for c in view.hand if c in hand.playable and COLOUR[c] != WILD
                 and c != hand.selected]
        assert cards, "the fixed seed's deal has a second playable card"
        index = view.hand.index(cards[0])
        where = (1 + index * 5 + 2, 2)  # the card's middle row (raised or not)
        await pilot.click(Hand, offset=where)
        await settle(pilot)
        assert hand.selected == cards[0] and len(view_of_hand(app)) == len(view.hand)
        await pilot.click(Hand, offset=where)
        await settle(pilot)
        assert cards[0] not in view_of_hand(app)  # played
        before = hand.cursor
        await pilot.mouse_down(Hand)  # (the wheel, below, on the hand)
        hand.post_message(events.MouseScrollDown(hand, 0, 0, 0, 0, 0, False, False, False))
        await settle(pilot)
        assert hand.cursor == (before + 1) % len(hand.cards)


def view_of_hand(app: PiocheApp) -> tuple[int, ...]:
    screen = app.table_screen
    assert isinstance(screen, DefausseTableScreen) and screen.view is not None
    return tuple(screen.view.hand)


async def test_a_click_on_a_key_presses_it(make_app: Callable[..., PiocheApp]) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        bar = app.screen.query_one(KeyBar)
        line, start, _end, _index = next(
            span for span in bar._spans if bar.presses[span[3]] == "question_mark")
        await pilot.click(KeyBar, offset=(start, line))
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)


async def test_a_click_on_a_draw_pile_draws_from_it(make_app: Callable[..., PiocheApp]) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await collection.sit_down(pilot, app)
        screen = collection.table_screen(app)
        assert screen.view is not None and screen.view.seats[0].pile == ()
        text = screen.board.lines[0].plain
        await pilot.click(CollectionBoard, offset=(1 + text.index("Pioche B") + 3, 0))
        await settle(pilot)
        assert "Alice pioche en B" in collection.log_text(app)


async def test_list_rows_take_clicks_and_the_wheel(make_app: Callable[..., PiocheApp]) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await collection.sit_down(pilot, app)
        collection.fed(app, collection.Recorder(),
                       **collection.validation_view(collection.view_of(app)))
        await settle(pilot)
        choices = collection.table_screen(app).choices
        ticked = set(choices.ticked)
        await pilot.click(ChoiceList, offset=(3, 3))  # the second option's row
        await settle(pilot)
        assert choices.cursor == 1 and choices.ticked == ticked
        await pilot.click(ChoiceList, offset=(3, 3))
        await settle(pilot)
        assert choices.ticked == ticked ^ {1} or choices.blocked(1)
        choices.post_message(events.MouseScrollDown(choices, 0, 0, 0, 0, 0, False, False, False))
        await settle(pilot)
        assert choices.cursor == 2
        # Keys away from a clicked row and back: the next click there is a first one again,
        # it only chooses (it ticked before).
        free = next(i for i in range(len(choices.options))
                    if not choices.blocked(i) and i != choices.cursor)
        ticked = set(choices.ticked)
        await pilot.click(ChoiceList, offset=(3, free + 2))
        await pilot.press("down", "up")
        await settle(pilot)
        await pilot.click(ChoiceList, offset=(3, free + 2))
        await settle(pilot)
        assert choices.cursor == free and choices.ticked == ticked


async def test_a_click_on_a_table_in_the_lobby_then_another_sits(
        coordinator: Coordinator, make_app: Callable[..., PiocheApp]) -> None:
    """Textual's own list: a click moves its cursor, a click on the cursor's row chooses it
    (as Enter: a free seat, so Alice sits)."""
    bob = coordinator.connect(Player("SHA256:bob", "Bob"))
    bob.create_table("defausse", seats=3, bots={2: "basic"}, timer=None)
    chloe = coordinator.connect(Player("SHA256:chloe", "Chloé"))
    second = chloe.create_table("defausse", seats=3, bots={2: "basic"}, timer=None)
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        tables = app.screen.query_one(TablesList)
        assert tables.cursor_row == 0
        await pilot.click(TablesList, offset=(10, 2))  # the second table's row
        await settle(pilot)
        assert tables.cursor_row == 1 and app.table_screen is None
        await pilot.click(TablesList, offset=(10, 2))
        await settle(pilot)
        assert app.table_screen is not None and app.table_screen.table_id == second
