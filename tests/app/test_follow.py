"""A table you can follow (issue 14), through the real coordinator and screens: the log scrolls
back through the game (PageUp/PageDown, the wheel) and follows new lines one by one at the
bottom; a player back after a drop reads what happened meanwhile, the stand-in's moves for them
marked; round 1's opening is told; the end of a game says why. (The coordinator's side:
tests/coordinator/test_history.py; over a real server process: tests/server/test_history.py.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot

from pioche_tui.app.app import PiocheApp
from pioche_tui.app.screens.podium import PodiumScreen
from pioche_tui.app.screens.table import TableScreen
from pioche_tui.coordinator.core import Coordinator
from pioche_tui.coordinator.model import Player
from widgets import log as log_module
from widgets.log import GameLog

from .conftest import screen_text, settle, wait_for_text
from .test_defausse import start_quiet

MakeApp = Callable[..., PiocheApp]
BOTH = ["defausse", "collection"]


def table_screen(app: PiocheApp) -> TableScreen:
    screen = app.table_screen
    assert screen is not None
    return screen


def the_log(app: PiocheApp) -> GameLog:
    return table_screen(app).query_one(GameLog)


def shown(log: GameLog) -> list[str]:
    return [line.plain for line in log.lines]


async def until_shown(pilot: Pilot[Any], check: Callable[[], bool], rounds: int = 200) -> None:
    for _ in range(rounds):
        if check():
            return
        await settle(pilot)
        await pilot.pause(0.01)
    raise AssertionError("never shown")


@pytest.mark.parametrize("lang", ["fr", "en"])
async def test_the_log_scrolls_back_and_follows_at_the_bottom(make_app: MakeApp,
                                                              lang: str) -> None:
    app = make_app("Alice", lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await start_quiet(app, pilot)  # nothing moves until Alice does
        log = the_log(app)
        height = log.content_size.height
        first = shown(log)[0]
        log.add_lines(f"ligne {i}" for i in range(40))
        await settle(pilot)
        assert shown(log)[-1] == "ligne 39"  # at the bottom, the newest line
        # A new line moves the view by one row, not by half a page.
        before = shown(log)
        log.add_lines(["ligne 40"])
        await settle(pilot)
        assert shown(log) == [*before[1:], "ligne 40"]
        # PageUp (the hand has the focus): a page back, keeping a row; the bottom row says
        # what waits below.
        assert table_screen(app).query_one("#hand").has_focus
        await pilot.press("pageup")
        await settle(pilot)
        page = shown(log)
        assert page[0] == f"ligne {41 - 2 * height + 1}"
        below = height  # rows below the view: one page's, less the kept row, plus the marker
        marker = (f"↓ {below} lignes plus bas (Page↓)" if lang == "fr" else
                  f"↓ {below} more lines below (PgDn)")
        assert page[-1] == marker
        # New lines do not move a player who reads back.
        log.add_lines(["ligne 41", "ligne 42"])
        await settle(pilot)
        assert shown(log)[:-1] == page[:-1] and shown(log)[-1] != page[-1]
        # The whole game is there: back to its first line (round 1's opening)...
        for _ in range(10):
            await pilot.press("pageup")
        await settle(pilot)
        assert shown(log)[0] == first
        assert first.startswith("Manche 1 : " if lang == "fr" else "Round 1: ")
        # ...then down to the bottom, where it follows again.
        for _ in range(10):
            await pilot.press("pagedown")
        await settle(pilot)
        assert log.following and shown(log)[-1] == "ligne 42"
        log.add_lines(["ligne 43"])
        await settle(pilot)
        assert shown(log)[-1] == "ligne 43"
        # The wheel: three rows a notch.
        at_bottom = shown(log)
        await pilot._post_mouse_events([events.MouseScrollUp], "#log")
        await settle(pilot)
        assert not log.following and shown(log)[3] == at_bottom[0]
        await pilot._post_mouse_events([events.MouseScrollDown], "#log")
        await settle(pilot)
        assert log.following and shown(log) == at_bottom


async def test_the_log_keeps_a_bounded_history(make_app: MakeApp,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(log_module, "HISTORY", 30)
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await start_quiet(app, pilot)
        log = the_log(app)
        log.entries = type(log.entries)(log.entries, maxlen=30)  # (built before the patch)
        log._heights = type(log._heights)(log._heights, maxlen=30)
        log.add_lines(f"ligne {i}" for i in range(100))
        await pilot.press("pageup")
        await settle(pilot)
        scrolled = shown(log)
        log.add_lines(["ligne 100", "ligne 101"])  # the oldest go: the view stays put
        await settle(pilot)
        assert shown(log)[:-1] == scrolled[:-1]
        for _ in range(10):
            await pilot.press("pageup")
        await settle(pilot)
        assert len(log.entries) == 30 and shown(log)[0] == "ligne 72"


@pytest.mark.parametrize("game", BOTH)
async def test_round_one_opening_is_in_the_log(make_app: MakeApp, game: str) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.client.session is not None
        app.client.session.quick_play(game, seats=3)
        await until_shown(pilot, lambda: app.table_screen is not None
                          and bool(the_log(app).entries))
        told = [str(entry) for entry in the_log(app).entries]
        assert told[0].startswith("Manche 1 : ")
        if game == "defausse":  # the first card, and its effect on the same line
            assert told[1].startswith("Première carte : ")
        assert "Manche 1 : " in screen_text(app)


@pytest.mark.parametrize("game", BOTH)
async def test_back_after_a_drop_the_log_tells_what_happened(
    make_app: MakeApp, coordinator: Coordinator, game: str
) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.client.session is not None
        tid = app.client.session.quick_play(game, seats=3)
        table = coordinator.tables[tid]
        bob = coordinator.connect(Player("SHA256:bob", "Bob"))
        bob.watch(tid)  # someone stays: the stand-in plays for Alice while she is away
        await until_shown(pilot, lambda: 0 in table.game.to_act(table.state))
        app.client.session.act(table.game.legal_actions(table.state, 0)[0], table.step)
        await settle(pilot)
    # Her connection is gone (the app closed): the stand-in plays her turns.
    for _ in range(2000):
        if sum(e.kind == "stand_in" for h in table.history for e in h) >= 2:
            break
        await asyncio.sleep(0.005)
    bob.leave()  # (the table holds still until she is back)
    again = make_app("Alice")
    async with again.run_test(size=(80, 24)) as pilot:
        await until_shown(pilot, lambda: again.table_screen is not None
                          and bool(the_log(again).entries))
        told = [str(entry) for entry in the_log(again).entries]
        assert told[0].startswith("Manche 1 : ")
        assert "Vous avez perdu la connexion : le robot a joué à votre place." in told
        marked = [line for line in told if line.startswith("le robot a joué pour vous : Alice ")]
        assert len(marked) >= 2
        assert told.index("Vous avez perdu la connexion : le robot a joué à votre place.") < (
            told.index(marked[0]))
        assert "Vous êtes de retour à votre place." in told
        assert await wait_for_text(pilot, again, "Vous êtes de retour à votre place.")


async def test_a_defausse_game_says_why_it_ended(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.client.session is not None
        app.client.session.create_table("defausse", seats=3, bots={i: "random" for i in range(3)},
                                 options={"single_round": True}, sit=False)
        await until_shown(pilot, lambda: isinstance(app.screen, PodiumScreen))
        why = "La partie s'arrête : la manche unique est jouée."
        assert why in screen_text(app)  # on the podium
        assert why in [str(entry) for entry in the_log(app).entries]
        # A game to a target: who reached it.
        screen = table_screen(app)
        view = screen.update.view
        table = replace(screen.update.table, options=(("single_round", False),))
        ended = replace(view, target=300, outcome=replace(view.outcome, scores=(310, 20, 305)))
        names = screen.names
        assert screen.end_reason(replace(screen.update, table=table, view=ended)) == (
            f"{names[0]} et {names[2]} ont atteint 300 points")


@pytest.mark.parametrize("lang", ["fr", "en"])
async def test_a_collection_game_says_why_it_ended(make_app: MakeApp, lang: str) -> None:
    app = make_app("Alice", lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.client.session is not None
        app.client.session.create_table("collection", seats=2, bots={0: "basic", 1: "basic"},
                                 options={"single_round": True}, sit=False)
        await until_shown(pilot, lambda: isinstance(app.screen, PodiumScreen), rounds=2000)
        screen = table_screen(app)
        view = screen.update.view
        full = [screen.names[s.seat] for s in view.seats if all(s.scorecard)]
        if full:  # (a whole scorecard in one round: possible, rare)
            why = (f"La partie s'arrête : {full[0]} a rempli sa feuille." if lang == "fr" else
                   f"The game ends: {full[0]} filled their scorecard.")
        else:
            why = ("La partie s'arrête : 1 manche jouée." if lang == "fr" else
                   "The game ends: 1 round played.")
        assert why in screen_text(app)
        assert why in [str(entry) for entry in the_log(app).entries]
        # Whoever fills their scorecard ends the game, and is named.
        seats = tuple(replace(s, scorecard=(10,) * 10) for s in view.seats)
        update = replace(screen.update, view=replace(view, seats=seats))
        names = " et ".join(screen.names) if lang == "fr" else " and ".join(screen.names)
        assert screen.end_reason(update) == (f"{names} ont rempli leur feuille" if lang == "fr"
                                             else f"{names} filled their scorecards")
