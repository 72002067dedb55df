"""« Apprendre »: learn tables, driven with Pilot through the lobby and the real coordinator.

The first time each situation comes up, its line of explanation is shown, once; turned off, no
line shows; the table never acts for the player; the result counts for no score; what was seen
is remembered per key. To reach a situation at once, a test moves cards within the real game
(a card on top of a draw pile, in a hand), as test_collection.py does; the rules then play as
usual.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.text import Text
from textual.geometry import Size
from textual.pilot import Pilot

from pioche_tui.app.app import PiocheApp
from pioche_tui.app.learn import LEARN_GAMES, Situation, situations
from pioche_tui.app.screens.collection import CollectionTableScreen
from pioche_tui.app.screens.defausse import DefausseTableScreen
from pioche_tui.app.screens.learn import LearnDialog
from pioche_tui.app.screens.table import TableScreen
from pioche_tui.coordinator.core import Coordinator
from pioche_tui.coordinator.table import Table
from pioche_tui.engine.collection.cards import (
    CLASSIC,
    DOUBLE,
    FLIP,
    JOKER,
    KIND,
    PASSE,
    QUANTIQUE,
    RAINBOW,
    SHADOW,
    SWIPE,
    VALUE,
)
from pioche_tui.engine.defausse.cards import COLOUR as DF_COLOUR
from pioche_tui.engine.defausse.cards import INVERSE, JOKER4, PLUS2, RANK, WILD, mask_of
from pioche_tui.engine.defausse.cards import JOKER as DF_JOKER
from pioche_tui.engine.defausse.cards import PASSE as DF_PASSE
from pioche_tui.engine.defausse.rules import Play
from pioche_tui.i18n import MESSAGES, Catalogue

from .conftest import app_of, make_coordinator, run_scene, screen_text, settle
from .test_collection import classics, on_top, take
from .test_collection import my_turn as collection_turn
from .test_defausse import my_turn as defausse_turn

MakeApp = Callable[..., PiocheApp]
LINE = 78  # the explanation's width at 80 columns (the line's padding takes 2)


def learn_screen(app: PiocheApp) -> TableScreen:
    screen = app.table_screen
    assert screen is not None and screen.update.table.learn
    return screen


def table_of(app: PiocheApp) -> Table:
    return app.client.coordinator.tables[learn_screen(app).table_id]


def hint_shown(app: PiocheApp) -> str:
    """The explanation on the screen, as its plain text ("" when none is shown)."""
    screen = learn_screen(app)
    line = screen.learn_line
    return str(line.render()) if line.display else ""


def text_of(app: PiocheApp, situation: str) -> str:
    """The line ``situation`` (a Situation's id) was shown with."""
    return app.t(f"learn.{situation}")


class Shown:
    """Every situation whose line the app shows, in order (read where it is noted)."""

    def __init__(self, app: PiocheApp) -> None:
        self.ids: list[str] = []
        memory = app.learning
        note = memory.note

        def noted(situation: str) -> None:
            self.ids.append(situation)
            note(situation)

        memory.note = noted  # type: ignore[method-assign]


async def press(pilot: Pilot[Any], *keys: str) -> None:
    await pilot.press(*keys)
    await settle(pilot)


async def open_learn(pilot: Pilot[Any], app: PiocheApp, game_key: str) -> Shown:
    """The lobby's « Apprendre »: a, then the game's key; what it shows from then on."""
    await settle(pilot)
    await press(pilot, "a")
    assert isinstance(pilot.app.screen, LearnDialog)
    shown = Shown(app)
    await press(pilot, game_key)
    return shown


def shown_now(app: PiocheApp, shown: Shown, situation: str) -> bool:
    """``situation``'s line is on the screen now, or was shown before (each shows once)."""
    if hint_shown(app) == text_of(app, situation):
        return True
    return situation in shown.ids[:-1] or (situation in shown.ids and learn_screen(
        app).hint != situation)


# --- the lines themselves ---------------------------------------------------------------------


def test_every_line_fits_two_rows_at_80_columns() -> None:
    console = Console(width=LINE)
    keys = [k for k in MESSAGES if k.startswith("learn.") and k.count(".") == 2]
    assert len(keys) > 30
    for key in keys:
        for lang in ("fr", "en"):
            text = Catalogue(lang)(key, target=1000) if "{target}" in MESSAGES[key][0] else (
                Catalogue(lang)(key))
            rows = Text(text).wrap(console, LINE)
            assert len(rows) <= 2, (key, lang, [str(r) for r in rows])


async def test_every_line_fits_two_rows_on_the_table(make_app: MakeApp) -> None:
    """The same, as the table's own line wraps them at 80 columns."""
    for lang in ("fr", "en"):
        app = make_app("Alice", lang=lang)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_learn(pilot, app, "c")
            await collection_turn(pilot, app)
            line = learn_screen(app).learn_line
            for key in (k for k in MESSAGES if k.startswith("learn.") and k.count(".") == 2):
                text = app.t(key, target=1000) if "{target}" in MESSAGES[key][0] else app.t(key)
                line.update(text)
                await pilot.pause()
                assert line.size.width == LINE  # (the padding is not in it)
                rows = line.get_content_height(Size(78, 24), Size(80, 24), 78)
                assert rows <= 2, (key, lang)
            assert line.get_content_height(Size(78, 24), Size(80, 24), 78) >= 1
            line.update("mot " * 60)  # the check itself: a longer line is seen as one
            assert line.get_content_height(Size(78, 24), Size(80, 24), 78) > 2
        await app.client.forget_learned()


def test_situations_name_lines_that_exist() -> None:
    """Each situation the module can name has its line in both languages."""
    from pioche_tui.app import learn

    ids = [f"col.{name}" for name in learn.COLLECTION_SPECIALS.values()]
    ids += [f"df.{name}" for name in learn.DEFAUSSE_SPECIALS.values()]
    for ident in ids:
        assert f"learn.{ident}" in MESSAGES
    assert Situation("col.shadow", "col.shadow_joker").key in MESSAGES
    assert situations("toy", object(), 0, ()) == []


# --- Collection -------------------------------------------------------------------------------


async def test_collection_explains_each_situation_once(make_app: MakeApp,
                                                       coordinator: Coordinator) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        shown = await open_learn(pilot, app, "c")
        view = await collection_turn(pilot, app)
        assert isinstance(app.table_screen, CollectionTableScreen)
        table = table_of(app)
        assert len(view.seats) == 3 and table.timer is None and table.learn
        assert all(s.kind == "bot" for s in table.seats[1:])
        state = table.state
        for card in (SWIPE, DOUBLE, PASSE):  # nothing a bot does changes Alice's pile or turn
            take(state, card)
            state.discard.append(card)
        # The first time: what a draw does.
        assert shown.ids == ["col.first_draw"]
        assert hint_shown(app) == text_of(app, "col.first_draw")
        assert " ".join(text_of(app, "col.first_draw").split()[:6]) in " ".join(
            screen_text(app).split())

        first = classics(state, 1)[0]
        on_top(table, 0, first)
        await press(pilot, "a")
        assert hint_shown(app) == text_of(app, "col.risk")  # a STOP risk
        await press(pilot, "s")
        assert hint_shown(app) != text_of(app, "col.risk")  # acting closes the line
        await collection_turn(pilot, app)
        assert hint_shown(app) == text_of(app, "col.lock")  # the lock
        await press(pilot, "v")
        await collection_turn(pilot, app)

        # Each special card, drawn: what it does.
        for card, key, then in (
            (JOKER, "joker", ("r",)),
            (DOUBLE, "double", ("e", "1")),
            (FLIP, "flip", ("e",)),
            (SWIPE, "swipe", ("e", "1")),
            (QUANTIQUE, "quantique", ("e", "1")),
            (PASSE, "passe", ("e", "1")),
        ):
            if card != JOKER:
                state.draw[1].append(card)  # (taken out above) back, then on top of A
            on_top(table, 0, card)
            await press(pilot, "a")
            assert hint_shown(app) == text_of(app, f"col.{key}"), key
            for k in then:
                await press(pilot, k)
            if card == QUANTIQUE:  # the cards to keep, seen by Alice alone
                assert hint_shown(app) == text_of(app, "col.quantique_keep")
                await press(pilot, "4")  # none
            screen = learn_screen(app)
            if stop_legal(screen):
                await press(pilot, "s")
            await collection_turn(pilot, app)
        assert "col.reserve" in shown.ids  # the Joker went to the reserve

        # A Shadow with the Joker in reserve: its three choices.
        shadows = [c for c in (*state.draw[0], *state.draw[1]) if KIND[c] == SHADOW]
        on_top(table, 0, shadows[0])
        await press(pilot, "a")
        assert hint_shown(app) == app.t("learn.col.shadow_joker")
        await press(pilot, "k")
        await collection_turn(pilot, app)
        # A second Shadow: already explained, not again.
        on_top(table, 0, shadows[1])
        await press(pilot, "a")
        assert learn_screen(app).hint != "col.shadow"
        assert hint_shown(app) != app.t("learn.col.shadow")
        await press(pilot, "n")
        await collection_turn(pilot, app)

        # A Rainbow: draw again.
        rainbow = next(c for c in (*state.draw[0], *state.draw[1]) if KIND[c] == RAINBOW)
        on_top(table, 0, rainbow)
        await press(pilot, "a")
        assert hint_shown(app) == text_of(app, "col.rainbow")
        await press(pilot, "a")
        if stop_legal(learn_screen(app)):
            await press(pilot, "s")
        await collection_turn(pilot, app)

        # The round's end: one card left, a pair in Alice's collection to validate.
        last_card(table)
        await settle(pilot)
        await press(pilot, "a")  # the last card: the round ends, validation
        await settle(pilot, 5)
        assert learn_screen(app).update.view.phase == "validation"
        assert hint_shown(app) == text_of(app, "col.validation")

        required = {"col.first_draw", "col.risk", "col.shadow", "col.joker", "col.double",
                    "col.passe", "col.flip", "col.swipe", "col.quantique", "col.reserve",
                    "col.lock", "col.validation"}
        assert required <= set(shown.ids)
        assert len(shown.ids) == len(set(shown.ids)), shown.ids  # each one once


async def test_a_second_learn_table_shows_only_what_is_new(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        shown = await open_learn(pilot, app, "c")
        await collection_turn(pilot, app)
        assert hint_shown(app) == text_of(app, "col.first_draw")
        await press(pilot, "l")
        await press(pilot, "o")  # leave the game in progress: yes
        assert app.table_screen is None
        await press(pilot, "a", "c")
        await collection_turn(pilot, app)
        assert learn_screen(app).update.table.learn
        assert hint_shown(app) == "" and shown.ids == ["col.first_draw"]


def last_card(table: Table) -> None:
    """One classic card left in draw pile A, and a pair in Alice's collection: her draw ends
    the round, and she has a combination to validate."""
    state = table.state
    loose = [c for c in (*state.discard, *state.draw[0], *state.draw[1]) if KIND[c] == CLASSIC]
    a_card = next(c for c in loose if sum(VALUE[d] == VALUE[c] for d in loose) >= 3)
    b_card = next(c for c in loose if c != a_card and VALUE[c] == VALUE[a_card])
    for card in (a_card, b_card):
        for cards in (state.discard, *state.draw):
            if card in cards:
                cards.remove(card)
        state.collections[0].append(card)
    last = next(c for c in (*state.draw[0], *state.draw[1]) if KIND[c] == CLASSIC)
    for pile in state.draw:
        state.discard += [c for c in pile if c != last]
    state.draw = [[last], []]
    table.publish()


def stop_legal(screen: TableScreen) -> bool:
    from pioche_tui.engine.collection.actions import STOP

    view = screen.update.view
    return view is not None and STOP in view.legal


async def test_turned_off_no_line_shows(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "a")
        assert "Explications : oui" in screen_text(app)
        await press(pilot, "e")  # the option, in the lobby's window
        assert "Explications : non" in screen_text(app)
        await press(pilot, "c")
        shown = Shown(app)
        await collection_turn(pilot, app)
        table = table_of(app)
        first = classics(table.state, 1)[0]
        on_top(table, 0, first, DOUBLE)
        await press(pilot, "a", "a")  # a risk, then a special card: nothing said
        assert learn_screen(app).update.view.phase == "special"
        assert hint_shown(app) == "" and shown.ids == [] and not app.learning.seen
        # The key at the table turns them on, and the situation at hand is explained.
        await press(pilot, "h")
        assert app.learning.on
        assert hint_shown(app) == text_of(app, "col.double")
        await press(pilot, "h")  # and off again: the line goes
        assert hint_shown(app) == "" and not app.learning.on


async def test_it_never_plays_for_the_player(make_app: MakeApp) -> None:
    """The player's turn waits as long as they do: no timer, no stand-in, no move made by
    the explanations; the bots played before it and nothing after."""
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_learn(pilot, app, "d")
        screen = learn_screen(app)
        assert isinstance(screen, DefausseTableScreen)
        await defausse_turn(pilot, app)
        table = table_of(app)
        step = table.step
        for _ in range(20):
            await pilot.pause(0.05)
            table.publish()  # updates keep coming: the explanations only read them
        await settle(pilot)
        assert table.step == step and table.game.to_act(table.state) == (0,)
        assert table.deadlines == {} and table.timer is None and not table.autoplay
        assert hint_shown(app) != ""


# --- Défausse ---------------------------------------------------------------------------------


def give(table: Table, seat: int, cards: list[int]) -> None:
    """``seat``'s hand becomes ``cards`` (from wherever they were; the others go to the draw
    pile), as another deal could have given them."""
    state = table.state
    old = state.hand(seat)
    for card in cards:
        for s in range(state.seats):
            state.hands[s] &= ~mask_of([card])
        if card in state.draw:
            state.draw.remove(card)
    state.draw += [c for c in old if c not in cards]
    state.hands[seat] = mask_of(cards)
    table.publish()


def number_of(colour: int, not_rank: int, state: Any) -> int:
    return next(c for c in state.draw if DF_COLOUR[c] == colour and RANK[c] <= 9
                and RANK[c] != not_rank)


async def test_defausse_explains_each_situation_once(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        shown = await open_learn(pilot, app, "d")
        await defausse_turn(pilot, app)
        table = table_of(app)
        state = table.state
        assert len(state.hands) == 3 and table.timer is None
        colour = state.colour
        other = (colour + 1) % 4
        fits = number_of(colour, state.rank, state)
        misfit = next(c for c in state.draw if DF_COLOUR[c] == other and RANK[c] <= 9
                      and RANK[c] != state.rank)
        give(table, 0, [fits, misfit])
        await settle(pilot)
        assert shown_now(app, shown, "df.first_turn")  # your first turn
        learn_screen(app).act(Play(fits))
        await settle(pilot)
        await defausse_turn(pilot, app)
        # A card you cannot play, then none: draw.
        give(table, 0, [number_of(state.colour, state.rank, state), misfit_of(state)])
        await settle(pilot)
        assert shown_now(app, shown, "df.unplayable")
        give(table, 0, [misfit_of(state), misfit_of(state, 1)])
        await settle(pilot)
        assert shown_now(app, shown, "df.no_play")
        await press(pilot, "d")
        assert shown_now(app, shown, "df.drawn")
        await press(pilot, "k")
        await defausse_turn(pilot, app)
        # The special cards, each on top of the discard (as a bot would lay it): what it does.
        for rank, key in ((DF_PASSE, "passe"), (INVERSE, "inverse"), (PLUS2, "plus2"),
                          (DF_JOKER, "joker"), (JOKER4, "joker4")):
            card = next(c for c in state.draw if RANK[c] == rank)
            state.draw.remove(card)
            state.discard.append(card)
            state.rank = rank
            if DF_COLOUR[card] != WILD:
                state.colour = DF_COLOUR[card]
            table.publish()
            await settle(pilot)
            assert shown_now(app, shown, f"df.{key}"), key
        # The end of a round: Alice lays her last card.
        last = number_of(state.colour, -1, state)
        give(table, 0, [last])
        await settle(pilot)
        learn_screen(app).act(Play(last))
        await settle(pilot, 5)
        assert "df.round_end" in shown.ids
        required = {"df.unplayable", "df.no_play", "df.drawn", "df.passe", "df.inverse",
                    "df.plus2", "df.joker", "df.joker4", "df.round_end"}
        assert required <= set(shown.ids)
        assert len(shown.ids) == len(set(shown.ids)), shown.ids


def misfit_of(state: Any, nth: int = 0) -> int:
    """A number card in the draw pile that fits neither the colour nor the top card."""
    found = [c for c in state.draw if DF_COLOUR[c] not in (state.colour, WILD)
             and RANK[c] <= 9 and RANK[c] != state.rank]
    return found[nth]


# --- the table: nobody else sits, no score -----------------------------------------------------


async def test_a_learn_table_counts_for_no_score(coordinator: Coordinator) -> None:
    from pioche_tui.coordinator.model import UNRATED_LEARN, Player, Refused
    from pioche_tui.engine.base import Outcome

    alice = coordinator.connect(Player("SHA256:alice", "Alice"))
    table_id = alice.learn("defausse")
    table = coordinator.tables[table_id]
    assert table.learn and table.summary().learn and table.timer is None
    bob = coordinator.connect(Player("SHA256:bob", "Bob"))
    with pytest.raises(Refused):
        bob.join(table_id)  # every seat is taken: private to its player
    bob.watch(table_id)  # watching is allowed
    assert table.header()["learn"] is True
    table.finish(Outcome((10, 0, 0), (0,), 1))
    db = coordinator.db
    assert db is not None and not db.has_game(table_id) and db.game_count() == 0
    stats = db.player_stats("SHA256:alice")
    assert stats is not None and stats.games == 0 and db.leaderboard() == []
    assert table.status == "finished"  # its log ends as a game's does
    assert table.summary().unrated == UNRATED_LEARN


async def test_a_learn_table_stays_one_after_a_restart(tmp_path: Path) -> None:
    from pioche_tui.coordinator.model import Player

    coordinator = make_coordinator(tmp_path)
    await coordinator.start()
    try:
        alice = coordinator.connect(Player("SHA256:alice", "Alice"))
        table_id = alice.learn("collection")
    finally:
        coordinator.stop()
    again = make_coordinator(tmp_path)
    await again.start()
    try:
        table = again.tables[table_id]
        assert table.learn and table.summary().learn and table.timer is None
    finally:
        again.stop()


async def test_what_was_seen_is_remembered_per_key(tmp_path: Path) -> None:
    coordinator = make_coordinator(tmp_path)
    await coordinator.start()
    try:
        coordinator.note_learned("SHA256:alice", "col.shadow")
        coordinator.note_learned("guest:abc", "col.shadow")  # a guest: their session only
        assert coordinator.learned("SHA256:alice") == {"col.shadow"}
        assert coordinator.learned("guest:abc") == set()
    finally:
        coordinator.stop()
    again = make_coordinator(tmp_path)
    await again.start()
    try:
        assert again.learned("SHA256:alice") == {"col.shadow"}
        again.forget_learned("SHA256:alice")
        assert again.learned("SHA256:alice") == set()
    finally:
        again.stop()


def test_learn_games_are_games() -> None:
    from pioche_tui.engine import GAMES

    assert set(LEARN_GAMES) <= set(GAMES)


# --- snapshots: a learn table at 80×24, in French and English ---------------------------------


async def learn_collection(pilot: Pilot[Any], app: PiocheApp) -> None:
    """Alice's first turn: the first draw explained."""
    await open_learn(pilot, app, "c")
    await collection_turn(pilot, app)
    await settle(pilot, 5)


async def learn_defausse(pilot: Pilot[Any], app: PiocheApp) -> None:
    """The bots have played; Alice's first turn, explained."""
    await open_learn(pilot, app, "d")
    await defausse_turn(pilot, app)
    await settle(pilot, 5)


async def learn_dialog(pilot: Pilot[Any], app: PiocheApp) -> None:
    """The lobby's window: the games, explanations on, and those already seen."""
    (await app.load_learning()).note("col.shadow")
    await settle(pilot)
    await press(pilot, "a")
    await settle(pilot, 5)


async def learn_validation(pilot: Pilot[Any], app: PiocheApp) -> None:
    """The end of Alice's first round: the validation list under its explanation."""
    await open_learn(pilot, app, "c")
    await collection_turn(pilot, app)
    table = table_of(app)
    # (her one card drawn: that line is not the one pictured)
    (await app.load_learning()).note("col.risk")
    last_card(table)
    await settle(pilot)
    await press(pilot, "a")
    await settle(pilot, 5)


SCENES = {"collection": learn_collection, "defausse": learn_defausse, "dialog": learn_dialog,
          "validation": learn_validation}


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("scene", sorted(SCENES))
def test_learn_screen(scene: str, lang: str, tmp_path: Path,
                      snap_compare: Callable[..., bool]) -> None:
    async def learn(pilot: Pilot[Any], coordinator: Coordinator) -> None:
        await SCENES[scene](pilot, app_of(pilot))

    assert run_scene(snap_compare, tmp_path, learn, lang=lang)
