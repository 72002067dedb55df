"""Clearer play at the Défausse table, through the real screen (issue 14): cards that may not be
played are low, faded and dashed; Enter on one says which rule refuses it; the card just drawn
is marked; the Joker's colour starts on the colour held most; with « annonce », the prompt says
how to announce, and the catch hint comes first and fits 80 columns.

The views are chosen by the test (``fed``: the screen shows them, what it would send is
recorded), on a real table started as in test_defausse.py.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from rich.text import Text
from textual.pilot import Pilot

from pioche_tui.app.app import PiocheApp
from pioche_tui.app.screens.colour import ColourPicker
from pioche_tui.coordinator.core import Coordinator
from pioche_tui.coordinator.model import SeatInfo
from pioche_tui.engine.defausse import Catch, ChooseColour, Draw, Keep, Play
from pioche_tui.engine.defausse.cards import CARDS, COLOUR, JOKER, JOKER4, PLUS2, RANK, WILD
from pioche_tui.i18n import Catalogue
from pioche_tui.narrate.defausse import card_name
from widgets.hand import Hand

from .conftest import app_of, run_scene, screen_text, settle
from .test_defausse import Recorder, fed, keys_shown, start_quiet, table_screen, view_of

MakeApp = Callable[..., PiocheApp]
PROMPT_WIDTH = 78  # 80 columns less the prompt line's padding
LONG_NAME = "Maximilienne_XVI"  # 16 characters, the longest nickname


def card(colour: int, rank: int, copy: int = 0) -> int:
    return [c for c in CARDS if COLOUR[c] == colour and RANK[c] == rank][copy]


RED5, RED7, BLUE5, GREEN3, YELLOW9 = card(0, 5), card(0, 7), card(3, 5), card(2, 3), card(1, 9)
JOKER_CARD, JOKER4_CARD = card(WILD, JOKER), card(WILD, JOKER4)


def prompt_of(app: PiocheApp) -> str:
    text = table_screen(app).prompt_line.text
    assert isinstance(text, Text)
    return text.plain


def hand_rows(app: PiocheApp) -> list[str]:
    return [line.plain for line in app.screen.query_one(Hand).lines]


async def test_a_card_that_may_not_be_played_is_low_dashed_faded_and_enter_says_why(
        make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await start_quiet(app, pilot)
        recorder = Recorder()
        hand = (RED7, YELLOW9, GREEN3, BLUE5)
        fed(app, recorder, hand=hand, top=RED5, colour=0, current=0, phase="play",
            pending=0, drawn=None, legal=(Play(RED7), Play(BLUE5), Draw()))
        await settle(pilot)
        rows = hand_rows(app)
        # Raised (top border on the first row) and solid: the red 7 and the blue 5; low,
        # in a dashed border, the others.
        assert "╭───╮" in rows[0] or "┏━━━┓" in rows[0]
        assert rows[2].count("┆") == 4 and "┆J 9┆" in rows[2] and "┆V 3┆" in rows[2]
        widget = app.screen.query_one(Hand)
        line = widget.lines[2]
        style = line.get_style_at_offset(app.console, line.plain.index("┆V 3┆") + 1)
        assert style.dim  # and faded: not the card's own colours
        widget.select(GREEN3)
        await settle(pilot)
        assert "⏎" not in keys_shown(app)  # Enter does not play it...
        await pilot.press("enter")  # ...it says why
        await settle(pilot)
        assert prompt_of(app) == "3 vert ne va pas : il faut du rouge, un 5 ou un Joker."
        assert recorder.sent == []  # nothing was sent
        await pilot.press("left")  # another card: the prompt comes back
        await settle(pilot)
        assert prompt_of(app).startswith("À vous")


@pytest.mark.parametrize("lang", ["fr", "en"])
async def test_each_rule_that_refuses_a_card_is_named(make_app: MakeApp, lang: str) -> None:
    app = make_app("Alice", lang=lang)
    t = Catalogue(lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await start_quiet(app, pilot)
        recorder = Recorder()
        names = table_screen(app).names

        async def enter_on(chosen: int, **view: Any) -> str:
            fed(app, recorder, **{"current": 0, "phase": "play", "pending": 0, "drawn": None,
                                  "top": RED5, "colour": 0, **view})
            await settle(pilot)
            app.screen.query_one(Hand).select(chosen)
            await pilot.press("enter")
            await settle(pilot)
            return prompt_of(app)

        # After a draw, only the drawn card (which is marked).
        said = await enter_on(RED7, hand=(RED7, BLUE5), phase="after_draw", drawn=BLUE5,
                              legal=(Play(BLUE5), Keep()))
        assert said == t("df.why.drawn", card=card_name(t, BLUE5))
        assert "↓" in hand_rows(app)[0]  # the drawn card stands up, with its mark
        # Cards pending (cumul): only a +2 answers.
        said = await enter_on(RED7, hand=(RED7,), top=card(0, PLUS2), pending=2,
                              legal=(Draw(),))
        assert said == t("df.why.pending", n=2, answer="+2")
        # A Joker +4 while holding the colour asked.
        said = await enter_on(JOKER4_CARD, hand=(RED7, JOKER4_CARD), legal=(Play(RED7), Draw()))
        assert said == t("df.why.joker4", colour=t("colour.0"))
        # On a Joker, only its colour.
        said = await enter_on(GREEN3, hand=(GREEN3,), top=JOKER_CARD, colour=0,
                              legal=(Draw(),))
        assert said == t("df.why.colour", card=card_name(t, GREEN3), colour=t("colour.0"))
        # Not the player's turn.
        said = await enter_on(GREEN3, hand=(GREEN3,), current=1, legal=())
        assert said == t("df.why.turn", name=names[1])
        assert recorder.sent == []


@pytest.mark.parametrize("lang", ["fr", "en"])
async def test_every_reason_and_prompt_fits_80_columns(make_app: MakeApp, lang: str) -> None:
    app = make_app("Alice", lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await start_quiet(app, pilot)
        screen = table_screen(app)
        base = replace(view_of(app), current=0, phase="play", pending=0, drawn=None)
        widest = 0
        for top in CARDS:
            colour = COLOUR[top] if COLOUR[top] != WILD else 1
            for chosen in CARDS:
                view = replace(base, top=top, colour=colour)
                widest = max(widest, cell_len(screen.why_not(view, chosen)))
                drawn = replace(view, phase="after_draw", drawn=chosen, legal=(
                    Play(chosen, None, True), Keep()))
                widest = max(widest, cell_len(screen.why_not(drawn, top)),
                             cell_len(screen.prompt(drawn, 0).plain))
        assert widest <= PROMPT_WIDTH


@pytest.mark.parametrize("lang", ["fr", "en"])
async def test_the_prompt_says_how_to_announce(make_app: MakeApp, lang: str) -> None:
    app = make_app("Alice", lang=lang)
    t = Catalogue(lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await start_quiet(app, pilot, {"annonce": True})
        recorder = Recorder()
        two = (RED7, BLUE5)
        fed(app, recorder, hand=two, top=RED5, colour=0, current=0, phase="play", pending=0,
            drawn=None, legal=(Play(RED7), Play(RED7, None, True), Play(BLUE5),
                               Play(BLUE5, None, True), Draw()))
        await settle(pilot)
        assert prompt_of(app) == t("df.your_turn_announce")
        assert t("df.your_turn_announce") in screen_text(app)  # whole, at 80 columns
        await pilot.press("a")
        assert recorder.sent[-1][0].announce
        # Drawn with one card in hand: the drawn one is the second-to-last.
        fed(app, recorder, hand=two, phase="after_draw", drawn=BLUE5,
            legal=(Play(BLUE5), Play(BLUE5, None, True), Keep()))
        await settle(pilot)
        assert "a " in prompt_of(app) and "k " in prompt_of(app)
        assert prompt_of(app) in screen_text(app)


@pytest.mark.parametrize("lang", ["fr", "en"])
async def test_the_catch_hint_comes_first_and_fits_80_columns(make_app: MakeApp, lang: str
                                                               ) -> None:
    app = make_app("Alice", lang=lang)
    t = Catalogue(lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await start_quiet(app, pilot, {"annonce": True})
        screen = table_screen(app)
        recorder = Recorder()
        fed(app, recorder, current=0, phase="play", pending=0, drawn=None, catchable=1,
            legal=(*view_of(app).legal, Catch(1)))
        update = screen.update
        seats = (update.table.seats[0], SeatInfo("bot", LONG_NAME, "basic"))
        screen.show_update(replace(update, table=replace(update.table, seats=seats),
                                   step=update.step + 1))
        await settle(pilot)
        hint = t("df.can_catch", name=LONG_NAME)
        assert prompt_of(app).startswith(hint)
        assert hint in screen_text(app)  # nothing of it cut at 80 columns
        await pilot.press("x")
        assert recorder.sent[-1][0] == Catch(1)


async def test_the_joker_colour_starts_on_the_colour_held_most(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await start_quiet(app, pilot)
        recorder = Recorder()
        hand = (RED7, GREEN3, card(2, 4), card(2, 8), BLUE5, JOKER_CARD, JOKER4_CARD)
        fed(app, recorder, hand=hand, top=RED5, colour=0, current=0, phase="play", pending=0,
            drawn=None, legal=(Play(RED7), *(Play(JOKER_CARD, c) for c in range(4)), Draw()))
        await settle(pilot)
        app.screen.query_one(Hand).select(JOKER_CARD)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ColourPicker) and app.screen.chosen == 2  # vert: 3 cards
        await pilot.press("enter")
        await settle(pilot)
        assert recorder.sent[-1][0] == Play(JOKER_CARD, 2)
        # A round opening on a Joker: the same.
        fed(app, recorder, hand=hand, phase="choose_colour", colour=None,
            legal=tuple(ChooseColour(c) for c in range(4)))
        await settle(pilot)
        assert isinstance(app.screen, ColourPicker) and app.screen.chosen == 2


# --- pictures (80×24, both languages) --------------------------------------------------------


async def refused(pilot: Pilot[Any]) -> None:
    """Two cards raised, three low and dashed; Enter on the green 3 said why."""
    app = app_of(pilot)
    fed(app, Recorder(), hand=(RED7, YELLOW9, GREEN3, BLUE5, JOKER4_CARD), top=RED5, colour=0,
        current=0, phase="play", pending=0, drawn=None, legal=(Play(RED7), Play(BLUE5), Draw()))
    await settle(pilot)
    app.screen.query_one(Hand).select(GREEN3)
    await pilot.press("enter")
    await settle(pilot)


async def drawn(pilot: Pilot[Any]) -> None:
    """The blue 5 just drawn: marked, the only card up."""
    fed(app_of(pilot), Recorder(), hand=(RED7, YELLOW9, GREEN3, BLUE5), top=RED5, colour=0,
        current=0, phase="after_draw", pending=0, drawn=BLUE5, legal=(Play(BLUE5), Keep()))
    await settle(pilot)


async def announce(pilot: Pilot[Any]) -> None:
    fed(app_of(pilot), Recorder(), hand=(RED7, BLUE5), top=RED5, colour=0, current=0,
        phase="play", pending=0, drawn=None,
        legal=(Play(RED7), Play(RED7, None, True), Play(BLUE5), Play(BLUE5, None, True), Draw()))
    await settle(pilot)


async def catch(pilot: Pilot[Any]) -> None:
    """The stand-in forgot to announce, and it is Alice's turn: the catch first."""
    app = app_of(pilot)
    view = view_of(app)
    fed(app, Recorder(), counts=(view.counts[0], 1), current=0, phase="play", pending=0,
        drawn=None, catchable=1, legal=(*view.legal, Catch(1)))
    await settle(pilot)


PICTURES: dict[str, Callable[[Pilot[Any]], Awaitable[None]]] = {
    "refused": refused, "drawn": drawn, "announce": announce, "catch": catch,
}


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("scene", sorted(PICTURES))
def test_clearer_play_pictures(scene: str, lang: str, tmp_path: Path,
                               snap_compare: Callable[..., bool]) -> None:
    async def picture(pilot: Pilot[Any], coordinator: Coordinator) -> None:
        await start_quiet(app_of(pilot), pilot, {"annonce": True})
        await PICTURES[scene](pilot)

    assert run_scene(snap_compare, tmp_path, picture, lang=lang)
