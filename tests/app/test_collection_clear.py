"""Clearer play at the Collection table, through the real screen (issue 14): a long collection
goes on over the next rows colour by colour, indented, never a colour cut across two rows; the
draw piles' risk is said once when it is the same on both."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from pioche_tui.app.app import PiocheApp
from pioche_tui.coordinator.core import Coordinator
from pioche_tui.engine.collection.cards import CLASSIC, COLOUR, KIND, RAINBOW, SHADOW, VALUE
from pioche_tui.i18n import Catalogue

from .conftest import app_of, run_scene, screen_text, settle
from .test_collection import Recorder, fed, sit_down, view_of

MakeApp = Callable[..., PiocheApp]


def big_collection() -> tuple[int, ...]:
    """A collection of every colour, a Rainbow and a Shadow: 24 cards, more than most rounds
    leave (in bots' games, half end with 8 cards or fewer)."""
    cards = [c for c in range(len(KIND)) if KIND[c] == CLASSIC]
    chosen = [c for c in cards if COLOUR[c] == 3][:10]  # blue: 1 1 2 2 3 3 4 4 5 5
    for colour in (0, 1, 2, 4):
        chosen += [c for c in cards if COLOUR[c] == colour][:6:2]  # three of each other
    chosen += [next(c for c in range(len(KIND)) if KIND[c] == kind) for kind in (RAINBOW, SHADOW)]
    return tuple(chosen)


@pytest.mark.parametrize("lang", ["fr", "en"])
async def test_a_long_collection_keeps_each_colour_on_one_row(make_app: MakeApp, lang: str
                                                              ) -> None:
    app = make_app("Alice", lang=lang)
    t = Catalogue(lang)
    letters = t("col.letters")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await sit_down(pilot, app)
        view = view_of(app)
        collection = big_collection()
        seats = tuple(replace(s, collection=collection if s.seat == 0 else ())
                      for s in view.seats)
        fed(app, Recorder(), seats=seats)
        await settle(pilot)
        lines = screen_text(app).splitlines()
        label = t("col.collection", n=len(collection))
        first = next(i for i, line in enumerate(lines) if line.startswith(" " + label))
        rows = [lines[first][:38], lines[first + 1][:38], lines[first + 2][:38]]
        for colour in range(5):
            values = sorted(VALUE[c] for c in collection if KIND[c] == CLASSIC
                            and COLOUR[c] == colour)
            group = letters[colour] + " ".join(map(str, values))
            assert sum(group in row for row in rows) == 1, (group, rows)  # whole, on one row
        # The next rows are indented under the label, not in the margin.
        assert rows[1].startswith("   ") and rows[1][3] != " "
        assert "…" not in "".join(rows)  # all of it, at 80 columns
        assert "◇" in "".join(rows) and "◆" in "".join(rows)


@pytest.mark.parametrize("lang", ["fr", "en"])
async def test_the_same_risk_on_both_piles_is_said_once(make_app: MakeApp, lang: str) -> None:
    app = make_app("Alice", lang=lang)
    t = Catalogue(lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await sit_down(pilot, app)
        fed(app, Recorder(), risk=(0.25, 0.25))
        await settle(pilot)
        text = screen_text(app)
        assert t("col.risk_same", p=25) in text and t("col.risk", p=25) not in text
        # A Flip showed a card on one pile: the risks differ, each is said.
        fed(app, Recorder(), risk=(0.25, 1.0))
        await settle(pilot)
        text = screen_text(app)
        assert t("col.risk", p=25) in text and t("col.risk", p=100) in text
        assert t("col.risk_same", p=25) not in text


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_long_collection_picture(lang: str, tmp_path: Path,
                                 snap_compare: Callable[..., bool]) -> None:
    """80×24: Alice's 24 cards colour by colour over three rows; the others' in their rows;
    the same risk on both piles."""
    async def long_collection(pilot: Pilot[Any], coordinator: Coordinator) -> None:
        app = app_of(pilot)
        await sit_down(pilot, app)
        collection = big_collection()
        seats = tuple(replace(s, collection=collection[:24 - 6 * s.seat])
                      for s in view_of(app).seats)
        fed(app, Recorder(), seats=seats, risk=(0.3, 0.3))
        await settle(pilot)

    assert run_scene(snap_compare, tmp_path, long_collection, lang=lang)
