"""Snapshots of every state of the Collection table at 80×24 and 120×40, in French and English.

Everything in the frame is fixed: the coordinator's seed gives the table ids, the deals and the
bots' names; the scenes move cards within the game as test_collection.py does; tables have no
turn timer. Update the pictures after a deliberate change with ``pytest
tests/app/test_collection_snapshots.py --snapshot-update`` and look at them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from pioche_tui.app.app import PiocheApp
from pioche_tui.coordinator.core import Coordinator
from pioche_tui.coordinator.model import Player
from pioche_tui.engine.base import Event, Outcome
from pioche_tui.engine.collection.actions import DRAWS
from pioche_tui.engine.collection.cards import (
    CLASSIC,
    COLOUR,
    DOUBLE,
    FLIP,
    JOKER,
    KIND,
    QUANTIQUE,
    SHADOW,
    VALUE,
)
from pioche_tui.engine.collection.objectives import Combination

from .conftest import Scene, app_of, run_scene, settle
from .test_collection import (
    Recorder,
    classics,
    fed,
    in_reserve,
    on_top,
    sit_down,
    validation_view,
    view_of,
)


async def turn(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    """Two cards of one colour drawn: a 3rd of that colour, or the last value, would stop the
    pile."""
    app = app_of(pilot)
    table = await sit_down(pilot, app)
    first = classics(table.state, 1)[0]
    second = next(c for c in (*table.state.draw[1], *table.state.draw[0]) if KIND[c] == CLASSIC
                  and COLOUR[c] == COLOUR[first] and VALUE[c] != VALUE[first])
    on_top(table, 0, first, second)
    in_reserve(table, 0, FLIP)
    await pilot.press("a", "a")
    await settle(pilot, 5)


async def shadow(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    app = app_of(pilot)
    table = await sit_down(pilot, app)
    first = classics(table.state, 1)[0]
    in_reserve(table, 0, JOKER)
    on_top(table, 0, first, next(c for c in range(len(KIND)) if KIND[c] == SHADOW))
    await pilot.press("a", "a")
    await settle(pilot, 5)


async def target(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    app = app_of(pilot)
    table = await sit_down(pilot, app, keep=(DOUBLE,))
    on_top(table, 0, DOUBLE)
    await pilot.press("a")
    await settle(pilot)
    await pilot.press("e")
    await settle(pilot, 5)


async def quantique(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    app = app_of(pilot)
    table = await sit_down(pilot, app)
    on_top(table, 1, *classics(table.state, 3))
    in_reserve(table, 0, QUANTIQUE)
    await pilot.press("1")
    await settle(pilot)
    await pilot.press("2")
    await settle(pilot, 5)


async def flip(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    app = app_of(pilot)
    table = await sit_down(pilot, app)
    in_reserve(table, 0, FLIP)
    await pilot.press("1")
    await settle(pilot, 5)


async def validation(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    app = app_of(pilot)
    await sit_down(pilot, app)
    fed(app, Recorder(), **validation_view(view_of(app)))
    await settle(pilot, 5)


def round_over(app: PiocheApp, results: tuple[tuple[Combination, ...], ...]
               ) -> dict[str, Any]:
    """The changes to the view once everybody has validated ``results`` (by seat) after the
    first round, the first objectives of the game."""
    view = view_of(app)
    seats = tuple(replace(s, pile=(), collection=(), scorecard=scorecard(results[s.seat]),
                          objectives=len(results[s.seat]),
                          total=sum(c.points for c in results[s.seat])) for s in view.seats)
    return {"last_results": results, "seats": seats, "draw_sizes": (0, 0), "risk": None}


async def summary(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    app = app_of(pilot)
    await sit_down(pilot, app)
    results = ((Combination(1, (0, 2), 10), Combination(9, (1, 15, 27, 39, 51), 45)), (),
               (Combination(3, (4, 5, 66), 30),), (Combination(1, (8, 9), 10),))
    changes = {**round_over(app, results), "draw_sizes": (39, 39)}
    fed(app, Recorder(), (Event("validate", 0, ()), Event("round", 1, (2,))), round=2,
        **changes)
    await settle(pilot, 5)


async def over(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    app = app_of(pilot)
    await sit_down(pilot, app)
    results = ((Combination(1, (0, 2), 10),), (Combination(3, (4, 5, 66), 30),), (), ())
    fed(app, Recorder(), (Event("validate", 0, ()), Event("game_end", None, (1,))),
        phase="over", current=None, legal=(), round=1,
        outcome=Outcome((10, 30, 0, 0), (1,), 1), **round_over(app, results))
    await settle(pilot)
    await pilot.press("escape")  # the podium closes: the final table
    await settle(pilot, 5)


async def spectator(pilot: Pilot[Any], coordinator: Coordinator) -> None:
    """Six seats, the most a table has: watching."""
    host = coordinator.connect(Player("SHA256:host", "Hôte"))
    table_id = host.create_table("collection", seats=6, timer=None,
                                 bots={s: "basic" for s in range(1, 6)})
    table = coordinator.tables[table_id]
    first, second = classics(table.state, 2)
    on_top(table, 0, first, second)
    host.act(DRAWS[0])
    await settle(pilot)
    app = app_of(pilot)
    await app.call(app.client.watch, table_id)
    await settle(pilot, 5)


def scorecard(combos: tuple[Combination, ...]) -> tuple[int, ...]:
    points = dict((c.objective, c.points) for c in combos)
    return tuple(points.get(n, 0) for n in range(1, 11))


SCENES: dict[str, Scene] = {
    "turn": turn, "shadow": shadow, "target": target, "quantique": quantique, "flip": flip,
    "validation": validation, "summary": summary, "over": over, "spectator": spectator,
}
SIZES = {"80x24": (80, 24), "120x40": (120, 40)}


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("scene", sorted(SCENES))
def test_collection_screen(scene: str, size: str, lang: str, tmp_path: Path,
                           snap_compare: Callable[..., bool]) -> None:
    assert run_scene(snap_compare, tmp_path, SCENES[scene], SIZES[size], lang=lang)


def test_collection_without_colour(tmp_path: Path, snap_compare: Callable[..., bool],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """NO_COLOR: the letters and glyphs say every card; the words say what would stop the
    pile."""
    monkeypatch.setenv("NO_COLOR", "1")
    assert run_scene(snap_compare, tmp_path, turn, lang="fr")
