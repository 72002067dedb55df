"""Snapshots of every screen at 80×24 and 120×40, in French and English.

Everything in the frame is fixed: the coordinator's seed gives the table ids, the deals and the
bots' names and moves; tables have no turn timer; the chat's lines are said at a fixed time
(``at_nine_thirty``). Update the pictures after a deliberate change with ``pytest
tests/app/test_snapshots.py --snapshot-update`` and look at them (``snapshot_report.html`` shows
the differences when a test fails).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from pioche_tui.app.screens.defausse import DefausseTableScreen
from pioche_tui.app.screens.podium import PodiumScreen
from pioche_tui.coordinator.core import Coordinator
from pioche_tui.coordinator.model import Player
from pioche_tui.engine.base import Event, Outcome
from pioche_tui.engine.defausse.rules import RoundResult
from pioche_tui.store.db import SeatResult

from .conftest import Scene, app_of, run_scene, settle


async def still(pilot: Pilot[Any]) -> None:
    """Settle, and stop the text cursor blinking (a blink would change the picture)."""
    await settle(pilot, 5)
    for screen in pilot.app.screen_stack:
        for field in screen.query(Input):
            field.cursor_blink = False
    await settle(pilot)


async def at_my_turn(pilot: Pilot[Any]) -> DefausseTableScreen:
    app = app_of(pilot)
    for _ in range(100):
        await settle(pilot)
        screen = app.table_screen
        if isinstance(screen, DefausseTableScreen) and screen.view is not None and (
                screen.view.current == screen.seat):
            return screen
    raise AssertionError("the player's turn never came")


# --- scenes: what is on the screen before the picture is taken -----------------------------


async def nickname(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    await pilot.press(*"Zo")
    await still(pilot)


async def lobby(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    bob = coordinator.connect(Player("SHA256:bob", "Bob"))
    bob.create_table("defausse", seats=4, bots={2: "basic"}, timer=90,
                     options={"target": 300, "annonce": True})
    chloe = coordinator.connect(Player("SHA256:chloe", "Chloé"))
    chloe.create_table("defausse", seats=3, bots={1: "basic", 2: "random"}, timer=None)
    coordinator.connect(Player("guest:Dan@10.0.0.1", "Dan", guest=True))
    await settle(pilot)
    coordinator.wall_clock = at_nine_thirty
    app_of(pilot).client.session.chat("Qui vient jouer ? [b]pas de markup[/b]")  # type: ignore[union-attr]
    await still(pilot)


def at_nine_thirty() -> float:
    """21:30 on the test machine's clock, whatever its time zone: the chat's times."""
    return time.mktime((2026, 12, 1, 21, 30, 0, 0, 0, -1))


async def chat(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    """The lobby's chat: a line that mentions Alice, an action, a private line to her, and
    her own command's answer for her eyes alone."""
    coordinator.wall_clock = at_nine_thirty
    bob = coordinator.connect(Player("SHA256:bob", "Bob"))
    dan = coordinator.connect(Player("guest:Dan@10.0.0.1", "Dan", guest=True))
    await settle(pilot)
    bob.chat("Salut @Alice, une partie ?")
    dan.chat("arrive en courant", me=True)
    bob.chat("je crée la table", to="Alice")
    await settle(pilot)
    await pilot.press("c", *"/ignore", "enter")
    await still(pilot)


async def create(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    await pilot.press("n")
    await still(pilot)


async def help_lobby(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    await pilot.press("question_mark")
    await still(pilot)


async def scores(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    assert coordinator.db is not None
    for i, (winner, score) in enumerate(((0, 512), (1, 140), (0, 505))):
        coordinator.db.record_game(f"T{i}", "defausse", {"target": 500}, 0.0, 1.0, 3, "x", [
            SeatResult(0, "SHA256:Alice", "Alice", None, score if winner == 0 else 80,
                       winner == 0),
            SeatResult(1, "SHA256:bob", "Bob", None, score if winner == 1 else 60, winner == 1),
            SeatResult(2, None, "Ambre", "basic", 30, False),
        ])
    await pilot.press("s")
    await still(pilot)


async def waiting(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    session = app_of(pilot).client.session
    assert session is not None
    session.create_table("defausse", seats=4, bots={3: "random"}, timer=None, private=True)
    await still(pilot)


async def table(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    session = app_of(pilot).client.session
    assert session is not None
    session.create_table("defausse", seats=4, bots={1: "basic", 2: "basic", 3: "random"},
                         timer=None, options={"annonce": True})
    await at_my_turn(pilot)
    await still(pilot)


async def spectator(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    host = coordinator.connect(Player("SHA256:host", "Hôte"))
    table_id = host.create_table("defausse", seats=3, bots={1: "basic", 2: "random"},
                                 timer=None)
    await settle(pilot)
    await app_of(pilot).call(app_of(pilot).client.watch, table_id)
    await still(pilot)


async def colour(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    await table(pilot, coordinator)
    screen = await at_my_turn(pilot)
    screen.ask_colour(lambda colour: None)
    await still(pilot)


async def round_summary(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    """A round ended: its summary sits in the log, the next round's lines under it."""
    await table(pilot, coordinator)
    screen = await at_my_turn(pilot)
    result = RoundResult(1, 2, (23, 7, 0, 41), 71)
    view = screen.view
    assert view is not None
    screen.show_update(replace(
        screen.update, view=replace(view, last_round=result, scores=(0, 0, 71, 0)),
        events=(Event("round_end", 2, (result.hand_points, 71)), Event("round", None, (2, 3)))))
    await still(pilot)


async def log_back(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    """Back in the log (PageUp) while lines come: the bottom row says how many wait."""
    await table(pilot, coordinator)
    screen = await at_my_turn(pilot)
    screen.log_widget.add_lines(f"{i}." for i in range(1, 31))
    await pilot.press("pageup")
    screen.log_widget.add_lines(["31.", "32."])
    await still(pilot)


async def podium(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    await table(pilot, coordinator)
    screen = await at_my_turn(pilot)
    t = screen.t
    why = t("tev.end", why=t.count("tev.end.target", 2, names=t.names(["Alice", "Capucine"]),
                                   target=500))
    app_of(pilot).open(PodiumScreen(screen.names, Outcome((512, 140, 505, 88), (0,), 6), why))
    await still(pilot)


async def settings(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    app = app_of(pilot)
    app.ceiling = app.terminal_colours = "truecolor"  # not the test machine's own terminal
    await pilot.press("o")
    await still(pilot)


async def too_small(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    await pilot.resize_terminal(60, 18)
    await still(pilot)


SCENES: dict[str, Scene] = {
    "nickname": nickname, "lobby": lobby, "create": create, "help": help_lobby,
    "scores": scores, "waiting": waiting, "table": table, "spectator": spectator,
    "colour": colour, "round_summary": round_summary, "log_back": log_back, "podium": podium,
    "too_small": too_small, "settings": settings, "chat": chat,
}
SIZES = {"80x24": (80, 24), "120x40": (120, 40)}


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("scene", sorted(SCENES))
def test_screen(scene: str, size: str, lang: str, tmp_path: Path,
                snap_compare: Callable[..., bool]) -> None:
    name = None if scene == "nickname" else "Alice"
    assert run_scene(snap_compare, tmp_path, SCENES[scene], SIZES[size], name, lang=lang)


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("game", ["defausse", "collection"])
def test_rules_page(game: str, lang: str, tmp_path: Path,
                    snap_compare: Callable[..., bool]) -> None:
    """The help at a table: the game's rules, its first screenful, at 80×24."""

    async def rules_page(pilot: Pilot[Any], coordinator: Coordinator) -> None:
        app_of(pilot).client.session.create_table(  # type: ignore[union-attr]
            game, seats=2, bots={1: "basic"}, timer=None)
        await settle(pilot, 10)
        await pilot.press("question_mark")
        await still(pilot)

    assert run_scene(snap_compare, tmp_path, rules_page, lang=lang)


def test_table_without_colour(tmp_path: Path, snap_compare: Callable[..., bool],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    """NO_COLOR: the letters and symbols, the raised cards and the heavy border say it all."""
    monkeypatch.setenv("NO_COLOR", "1")
    assert run_scene(snap_compare, tmp_path, table)
