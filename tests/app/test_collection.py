"""The Collection table, driven with Pilot against a real coordinator and the real engine: a turn,
a whole game against bots, watching, the Shadow's choice, each special card's target, Flip's and
Quantique's private reveal, the validation list, the round's summary.

To reach a given situation at once, a test moves cards within the real game before the first
move — a card on top of a draw pile, a special card into a reserve — as another shuffle could
have dealt them; the rules then play as usual.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from textual.pilot import Pilot

from pioche_tui.app.app import PiocheApp
from pioche_tui.app.screens.collection import CollectionTableScreen
from pioche_tui.app.screens.dialogs import Confirm
from pioche_tui.app.screens.help import HelpScreen
from pioche_tui.app.screens.lobby import LobbyScreen
from pioche_tui.app.screens.podium import PodiumScreen
from pioche_tui.coordinator.core import Coordinator
from pioche_tui.coordinator.model import Player
from pioche_tui.coordinator.table import Table
from pioche_tui.engine.base import Event
from pioche_tui.engine.collection.actions import Validate
from pioche_tui.engine.collection.cards import (
    CLASSIC,
    COLOUR,
    DOUBLE,
    FLIP,
    JOKER,
    KIND,
    PASSE,
    QUANTIQUE,
    SHADOW,
    SWIPE,
    VALUE,
)
from pioche_tui.engine.collection.objectives import Combination, points_of
from pioche_tui.engine.collection.rules import State
from pioche_tui.engine.collection.views import CollectionView
from widgets.log import GameLog

from ..engine.test_collection_objectives import P
from .conftest import screen_text, settle
from .test_defausse import Recorder, keys_shown

MakeApp = Callable[..., PiocheApp]


def table_screen(app: PiocheApp) -> CollectionTableScreen:
    screen = app.table_screen
    assert isinstance(screen, CollectionTableScreen)
    return screen


def view_of(app: PiocheApp) -> CollectionView:
    view = table_screen(app).view
    assert view is not None
    return view


def log_text(app: PiocheApp) -> str:
    return "\n".join(str(line) for line in table_screen(app).query_one(GameLog).entries)


async def my_turn(pilot: Pilot[Any], app: PiocheApp) -> CollectionView:
    """Wait until the player may act (bots answer at once) and return the view."""
    for _ in range(100):
        await settle(pilot)
        screen = app.table_screen
        if isinstance(screen, CollectionTableScreen) and screen.view is not None:
            view = screen.view
            if view.legal or view.outcome is not None:
                return view
    raise AssertionError("the player's turn never came")


async def sit_down(pilot: Pilot[Any], app: PiocheApp, seats: int = 4,
                   options: dict[str, Any] | None = None, keep: tuple[int, ...] = ()) -> Table:
    """Alice at seat 0 of a table against bots, on her first turn (nothing moves until she
    acts). The cards by which a bot could change Alice's pile or turn (Swipe, Double, Passe
    Ton Tour) are discarded, but those in ``keep``: tests can say what her pile holds."""
    await settle(pilot)
    assert app.client.session is not None
    app.client.session.create_table("collection", seats=seats, timer=None, options=options or {},
                             bots={s: "basic" for s in range(1, seats)})
    await my_turn(pilot, app)
    table = app.client.session.coordinator.tables[table_screen(app).table_id]
    if table.state.mode == "classique":
        for card in {SWIPE, DOUBLE, PASSE} - set(keep):
            take(table.state, card)
            table.state.discard.append(card)
        table.publish()
        await settle(pilot)
    return table


def take(state: State, card: int) -> None:
    """Take ``card`` out of the draw piles (where every card is before the first move)."""
    for pile in state.draw:
        if card in pile:
            pile.remove(card)
            return
    raise AssertionError(f"card {card} is not in the draw piles")


def on_top(table: Table, pile: int, *cards: int) -> None:
    """Put ``cards`` on top of draw pile ``pile``: the first of them is drawn first."""
    for card in reversed(cards):
        take(table.state, card)
        table.state.draw[pile].append(card)
    table.publish()


def in_reserve(table: Table, seat: int, *cards: int) -> None:
    for card in cards:
        take(table.state, card)
        table.state.reserves[seat].append(card)
    table.publish()


def classics(state: State, count: int) -> list[int]:
    """``count`` classic cards from draw pile B that can follow each other in a pile without
    losing it (values and colours all different)."""
    found: list[int] = []
    for card in state.draw[1]:
        if KIND[card] == CLASSIC and all(VALUE[card] != VALUE[c] and COLOUR[card] != COLOUR[c]
                                         for c in found):
            found.append(card)
            if len(found) == count:
                return found
    raise AssertionError("not enough different classic cards")


async def press(pilot: Pilot[Any], *keys: str) -> None:
    await pilot.press(*keys)
    await settle(pilot)


# --- a turn, a whole game, watching -----------------------------------------------------------


async def test_a_turn_draw_stop_then_lock(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        table = await sit_down(pilot, app, options={"mode": "decouverte"})
        first, second = classics(table.state, 2)
        on_top(table, 0, first)
        on_top(table, 1, second)
        await settle(pilot)
        text = screen_text(app)
        assert "Collection · table" in text and "Manche 1/3" in text and "► Alice" in text
        sizes = view_of(app).draw_sizes
        assert f"Pioche A : {sizes[0]}" in text and f"Pioche B : {sizes[1]}" in text
        assert keys_shown(app) >= {"a/b", "c", "l", "?"} and "v" not in keys_shown(app)
        await press(pilot, "a")
        assert view_of(app).seats[0].pile == (first,)
        text = screen_text(app)
        assert f"STOP si : un {VALUE[first]}" in text  # the card that would lose the pile
        assert "risque" in text
        assert "Alice pioche en A" in log_text(app)
        assert {"a/b", "s"} <= keys_shown(app)
        await press(pilot, "b")
        await press(pilot, "s")
        assert "Alice s'arrête" in log_text(app)
        view = await my_turn(pilot, app)  # the bots played, it is Alice's turn again
        assert view.current == 0 and view.seats[0].pile == (first, second)
        assert "v" in keys_shown(app) and "verrouillez votre pile (v)" in screen_text(app)
        await press(pilot, "v")
        view = view_of(app)
        assert view.seats[0].collection == (first, second) or view.round > 1
        assert "Alice verrouille sa pile" in log_text(app)


async def test_whole_game_against_bots_to_the_end(coordinator: Coordinator,
                                                  make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.client.session is not None
        app.client.session.create_table("collection", seats=2, bots={1: "basic"}, timer=None,
                                 options={"mode": "decouverte"})
        moves = 0
        validated = 0
        while not isinstance(app.screen, PodiumScreen):
            moves += 1
            assert moves < 3000, "the game does not end"
            await settle(pilot)
            screen = table_screen(app)
            view = screen.view
            if view is None or view.outcome is not None or not view.legal:
                continue
            if screen.choosing == "validation":
                validated += 1
                await pilot.press("enter")  # the best choice is ticked already
                continue
            keys = keys_shown(app)
            pile = view.seats[0].pile
            if "v" in keys and len(pile) >= 2:
                await pilot.press("v")
            elif "s" in keys and len(pile) >= 3:
                await pilot.press("s")
            elif "a/b" in keys or "a" in keys:
                await pilot.press("a")
            elif "b" in keys:
                await pilot.press("b")
            else:
                await pilot.press("k")  # a Shadow: keep the pile
        assert validated >= 1
        text = screen_text(app)
        assert "Fin de la partie" in text
        outcome = view_of(app).outcome
        assert outcome is not None and outcome.rounds <= 3
        await pilot.press("escape")  # the final table, with the last round's summary
        await settle(pilot)
        panel = table_screen(app).query_one("#panel")
        assert panel.display and "Partie terminée à la manche" in str(panel.border_title)
        assert "Partie terminée." in screen_text(app)
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
    assert coordinator.db is not None and coordinator.db.game_count() == 1


async def test_spectators_see_public_information_and_no_key_acts(
        coordinator: Coordinator, make_app: MakeApp) -> None:
    host = coordinator.connect(Player("SHA256:host", "Hôte"))
    table_id = host.create_table("collection", seats=3, bots={1: "basic", 2: "basic"},
                                 timer=None)
    app = make_app("Carole", watch_table=table_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = table_screen(app)
        assert screen.seat is None
        view = view_of(app)
        assert view.legal == () and view.risk is None and view.peek == (None, None)
        text = screen_text(app)
        assert "Vous regardez cette partie" in text and "Hôte" in text
        assert "Pile de Hôte" in text  # the player whose turn it is, in detail
        assert keys_shown(app) == {"c", "échap", "?"}
        await press(pilot, "question_mark")  # the rules of the game and every key
        assert isinstance(app.screen, HelpScreen)
        assert app.screen.page == "collection" and "Quantique" in app.screen.document()
        keys = app.screen.page_text("keys")
        assert "piocher la carte du dessus de la pioche A" in keys
        assert "verrouiller votre pile" in keys
        assert "validation : cocher le meilleur choix" in keys  # the list's keys too
        assert "Les cartes et les signes" in keys and "`◆` Shadow" in keys
        await press(pilot, "escape")
        await press(pilot, "a", "b", "v", "s", "1")  # no key acts
        assert view_of(app).seats == view.seats


# --- the Shadow, the special cards ------------------------------------------------------------


async def test_shadow_choice_keep_or_new_pile_or_joker(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        table = await sit_down(pilot, app)
        state = table.state
        shadows = [c for c in range(len(KIND)) if KIND[c] == SHADOW][:2]
        first = classics(state, 1)[0]
        on_top(table, 0, first, shadows[0])
        await press(pilot, "a", "a")
        assert view_of(app).phase == "shadow"
        text = screen_text(app)
        assert "Shadow !" in text and "Carte piochée : ◆" in text
        assert {"k", "n"} <= keys_shown(app) and "j" not in keys_shown(app)
        await press(pilot, "n")  # lose the pile: the Shadow starts a new one
        assert view_of(app).seats[0].pile == (shadows[0],)
        assert "Alice perd sa pile (1 carte) : la Shadow en commence une nouvelle" in log_text(
            app)
        view = await my_turn(pilot, app)
        assert view.seats[0].pile == (shadows[0],)
        # With a Joker in reserve, j answers the Shadow and the turn goes on.
        in_reserve(table, 0, JOKER)
        on_top(table, 0, shadows[1])
        await press(pilot, "a")
        assert {"k", "n", "j"} <= keys_shown(app)
        await press(pilot, "j")
        view = view_of(app)
        assert view.current == 0 and view.phase == "turn" and JOKER not in view.seats[0].reserve
        assert view.seats[0].pile == (shadows[0],)
        assert "Alice joue le Joker contre la Shadow et continue" in log_text(app)


async def test_double_drawn_asks_its_target(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        table = await sit_down(pilot, app, keep=(DOUBLE,))
        on_top(table, 0, DOUBLE)
        await press(pilot, "a")
        assert view_of(app).phase == "special"
        assert "Vous piochez Double : e pour l'activer, r pour la réserver." in screen_text(app)
        assert {"e", "r"} <= keys_shown(app)
        await press(pilot, "e")
        screen = table_screen(app)
        assert screen.choosing == "target" and screen.choices.has_focus
        assert not screen.query_one(GameLog).display  # the list takes the log's place
        text = screen_text(app)
        assert "Double : sur quel joueur ?" in text
        names = screen.names
        for seat in (1, 2, 3):
            assert f"{seat}. {names[seat]}" in text
        assert keys_shown(app) >= {"↑/↓", "⏎", "échap"} and "e" not in keys_shown(app)
        await press(pilot, "2")  # the second option: seat 2
        assert not screen.choosing and screen.query_one(GameLog).display
        view = view_of(app)
        assert view.seats[2].doubles == 1
        assert f"Alice joue Double sur {names[2]}" in log_text(app)
        assert "+2" in screen_text(app)  # the Double waiting in seat 2's row


async def test_passe_ton_tour_from_the_reserve_and_escape_cancels(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        table = await sit_down(pilot, app, keep=(PASSE,))
        in_reserve(table, 0, PASSE)
        await settle(pilot)
        assert "Réserve : 1 Passe Ton Tour 2 —" in screen_text(app)
        assert "1" in keys_shown(app)
        await press(pilot, "1")
        screen = table_screen(app)
        assert screen.choosing == "target"
        assert "Passe Ton Tour : sur quel joueur ?" in screen_text(app)
        await press(pilot, "escape")  # changed her mind: nothing is played
        assert not screen.choosing and view_of(app).seats[0].reserve == (PASSE,)
        await press(pilot, "1", "down", "down", "enter")  # the third option: seat 3
        view = view_of(app)
        assert view.seats[3].skips == 1 and view.seats[0].reserve == ()
        assert f"Alice joue Passe Ton Tour sur {screen.names[3]}" in log_text(app)


async def test_swipe_offers_only_the_neighbours(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        table = await sit_down(pilot, app, keep=(SWIPE,))
        first = classics(table.state, 1)[0]
        in_reserve(table, 0, SWIPE)
        on_top(table, 0, first)
        await press(pilot, "a")  # a pile to swap
        await press(pilot, "1")
        screen = table_screen(app)
        assert screen.choosing == "target"
        text = screen_text(app)
        names = screen.names
        assert "Swipe : échanger votre pile avec celle de quel voisin ?" in text
        assert f"1. {names[1]}" in text and f"2. {names[3]}" in text  # seats 1 and 3
        assert [a.target for a in screen.choice_answers] == [1, 3]
        await press(pilot, "2")
        view = view_of(app)
        assert view.seats[3].pile == (first,) and view.seats[0].pile == ()
        assert f"Alice joue Swipe et échange sa pile avec celle de {names[3]}" in log_text(app)


async def joker_asked(pilot: Pilot[Any], app: PiocheApp) -> None:
    """Alice sits down with a Joker in reserve, away from any Shadow, and plays it: she is
    asked whether to waste it."""
    table = await sit_down(pilot, app)
    in_reserve(table, 0, JOKER)
    await press(pilot, "1")
    assert isinstance(app.screen, Confirm)


async def test_joker_away_from_a_shadow_is_asked_first(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await joker_asked(pilot, app)
        await press(pilot, "n")
        assert view_of(app).seats[0].reserve == (JOKER,)
        await press(pilot, "1", "o")
        assert view_of(app).seats[0].reserve == ()
        assert "Alice joue Joker, sans effet" in log_text(app)


async def test_the_joker_question_goes_once_the_turn_has_passed(make_app: MakeApp) -> None:
    """The turn moved on while the Joker's question was open (the turn timer ran out): it is
    asked no more, and the table under it shows the game again; nothing is played."""
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await joker_asked(pilot, app)
        recorder = Recorder()
        fed(app, recorder, current=1)
        await settle(pilot)
        assert app.screen is table_screen(app)
        assert not recorder.sent and view_of(app).seats[0].reserve == (JOKER,)


async def test_full_reserve_a_reserve_card_makes_room(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        table = await sit_down(pilot, app, keep=(DOUBLE,))
        in_reserve(table, 0, FLIP, QUANTIQUE)
        on_top(table, 0, DOUBLE)
        await press(pilot, "a")
        assert "Double, réserve pleine : e pour l'activer, ou 1, 2" in screen_text(app)
        assert {"e", "1/2"} <= keys_shown(app) and "r" not in keys_shown(app)
        await press(pilot, "1")  # Flip goes, the Double takes its slot
        view = view_of(app)
        assert view.seats[0].reserve == (QUANTIQUE, DOUBLE) and view.peek != (None, None)
        assert "Alice met Double en réserve" in log_text(app)


async def test_a_lost_turn_may_still_play_a_reserve_card(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        table = await sit_down(pilot, app, seats=2, keep=(DOUBLE,))
        in_reserve(table, 0, DOUBLE)
        table.state.skips[0] = 1  # as if the bot had played Passe Ton Tour on her
        table.publish()
        await settle(pilot)
        assert "⊘" in screen_text(app)  # her row says a lost turn awaits her
        await press(pilot, "a")
        await press(pilot, "s")
        view = await my_turn(pilot, app)
        assert view.phase == "skip"
        assert "Tour passé : jouez une carte de la réserve (1, 2) ou finissez (s)." in (
            screen_text(app))
        assert {"1", "s"} <= keys_shown(app) and "a/b" not in keys_shown(app)
        await press(pilot, "s")
        assert "Alice passe son tour" in log_text(app)


# --- Flip and Quantique: what only their player sees ----------------------------------------


async def watch_until(app: PiocheApp, ready: asyncio.Event, done: asyncio.Event,
                      seen: dict[str, Any]) -> None:
    """A spectator's app, in its own task as the server runs it: what it shows once ``done``."""
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        ready.set()
        await done.wait()
        await settle(pilot, 5)
        seen["text"] = screen_text(app)
        seen["log"] = log_text(app)
        seen["view"] = view_of(app)


async def test_flip_shows_the_tops_to_its_player_only(coordinator: Coordinator,
                                                       make_app: MakeApp) -> None:
    alice = make_app("Alice")
    async with alice.run_test(size=(80, 24)) as pilot:
        table = await sit_down(pilot, alice, seats=2)
        bob = coordinator.connect(Player("SHA256:bob", "Bob"))  # not seated: just watching
        bob.watch(table.id)
        top_a, top_b = classics(table.state, 2)
        on_top(table, 0, top_a)
        on_top(table, 1, top_b)
        in_reserve(table, 0, FLIP)
        ready, done, seen = asyncio.Event(), asyncio.Event(), {}
        watcher = asyncio.create_task(watch_until(
            make_app("Carole", watch_table=table.id), ready, done, seen))
        await ready.wait()
        await press(pilot, "1")  # Flip needs no target: played at once
        view = view_of(alice)
        assert view.peek == (top_a, top_b)
        text = screen_text(alice)
        assert f"dessus {letter(alice, top_a)}" in text  # on the draw piles' line
        assert "Flip : voyez le dessus des pioches" in text
        assert {"a/b", "s"} <= keys_shown(alice) and "1" not in keys_shown(alice)
        log = log_text(alice)
        assert "Alice regarde le dessus des deux pioches" not in log
        assert "dessus de A :" in log
        done.set()
        await watcher
        assert seen["view"].peek == (None, None)
        assert "· dessus" not in seen["text"]  # nothing on Carole's draw piles' line
        assert "Alice regarde le dessus des deux pioches" in seen["log"]
        assert "dessus de A" not in seen["log"]
        # What reached another subscriber holds no trace of the cards seen.
        mail = bob.mailbox.take()
        assert mail is not None and mail.table is not None
        assert mail.table.view.peek == (None, None)
        assert all(not e.secret for e in mail.table.events)


def letter(app: PiocheApp, card: int) -> str:
    return f"{app.t('col.letters')[COLOUR[card]]}{VALUE[card]}"


async def test_quantique_pile_then_the_card_to_keep_seen_by_its_player_only(
        coordinator: Coordinator, make_app: MakeApp) -> None:
    alice = make_app("Alice")
    async with alice.run_test(size=(80, 24)) as pilot:
        table = await sit_down(pilot, alice, seats=2)
        bob = coordinator.connect(Player("SHA256:bob", "Bob"))
        bob.watch(table.id)
        three = classics(table.state, 3)
        on_top(table, 1, *three)
        in_reserve(table, 0, QUANTIQUE)
        ready, done, seen = asyncio.Event(), asyncio.Event(), {}
        watcher = asyncio.create_task(watch_until(
            make_app("Carole", watch_table=table.id), ready, done, seen))
        await ready.wait()
        await press(pilot, "1")
        screen = table_screen(alice)
        assert screen.choosing == "target"
        assert "Quantique : prendre 3 cartes de quelle pioche ?" in screen_text(alice)
        await press(pilot, "2")  # draw pile B
        assert screen.choosing == "quantique"
        view = view_of(alice)
        assert set(view.quantique) == set(three)
        text = screen_text(alice)
        assert "la carte à garder (vous seul la voyez)" in text
        assert "Aucune : tout défausser" in text
        assert "échap" not in keys_shown(alice)  # the turn ends with this choice: no way back
        done.set()  # Carole looks while Alice chooses
        await watcher
        assert seen["view"].quantique == () and seen["view"].held == ()
        assert "Alice choisit parmi les 3 cartes du Quantique" in seen["text"]
        assert "3 cartes prises" in seen["log"] and "prises :" not in seen["log"]
        chosen = view.quantique[1]
        await press(pilot, "2")
        assert view_of(alice).seats[0].pile == (chosen,) and not screen.choosing
        assert "Alice garde" in log_text(alice)
        updates = []
        while (mail := bob.mailbox.take()) is not None:
            updates.append(mail)
        for mail in updates:
            if mail.table is not None:
                assert mail.table.view.quantique == ()
                assert all(not e.secret for e in mail.table.events)


# --- validation and the round's summary -------------------------------------------------------


def fed(app: PiocheApp, recorder: Recorder, events: tuple[Event, ...] = (),
        **changes: Any) -> None:
    """Show the screen its current update with the view changed; record what it sends."""
    screen = table_screen(app)
    assert app.client.session is not None
    app.client.session.act = recorder  # type: ignore[method-assign]
    view = replace(view_of(app), **changes)
    screen.show_update(replace(screen.update, view=view, step=screen.update.step + 100,
                               events=events))


def validation_view(view: CollectionView) -> dict[str, Any]:
    """Alice's collection at the end of a round: a pair of 3s, a pair of 5s and a Shadow."""
    threes = [c for c in range(60) if VALUE[c] == 3][:2]
    fives = [c for c in range(60) if VALUE[c] == 5][:2]
    shadow = next(c for c in range(len(KIND)) if KIND[c] == SHADOW)
    pair3, pair3s, double, brelan, pair5 = (
        Combination(o, cards, points_of(o, cards) or 0) for o, cards in (
            (1, tuple(threes)), (1, (threes[0], shadow)), (2, tuple(sorted(threes + fives))),
            (3, (*threes, shadow)), (1, tuple(fives))))
    combos = (pair3s, pair3, double, brelan)
    seats = tuple(replace(s, collection=(*threes, *fives, shadow) if s.seat == 0 else (),
                          validated=s.seat != 0, pile=()) for s in view.seats)
    return {"phase": "validation", "current": None, "seats": seats, "combinations": combos,
            "draw_sizes": (0, 0), "risk": None, "held": (), "must_draw": 0,
            "best": (brelan, pair5), "best_points": brelan.points + pair5.points,
            "legal": (Validate(()), *(Validate((c,)) for c in combos))}


async def test_validation_list_ticks_disjoint_combinations(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await sit_down(pilot, app)
        recorder = Recorder()
        changes = validation_view(view_of(app))
        fed(app, recorder, **changes)
        await settle(pilot)
        screen = table_screen(app)
        assert screen.choosing == "validation" and screen.choices.has_focus
        text = screen_text(app)
        best = changes["best_points"]
        assert f"Validation — le meilleur choix vaut {best} pts" in text
        assert f"Coché : {best} pts" in text  # the best choice is ticked at first
        assert "Fin de la manche : choisissez les combinaisons à valider." in text
        assert {"espace", "⏎", "m", "x"} <= keys_shown(app) and "échap" not in keys_shown(app)
        # The list: the matcher's four, plus the solver's pair of 5s (other cards).
        combos = screen.choice_answers
        assert len(combos) == 5 and changes["best"][1] in combos
        brelan, pair5 = changes["best"]
        assert screen.choices.ticked == {combos.index(brelan), combos.index(pair5)}
        # Untick the Brelan, tick the Double paire: it shares no card with the pair of 5s?
        # It does (the 5s): refused, it stays unticked and dimmed.
        await press(pilot, str(combos.index(brelan) + 1))
        assert f"Coché : {pair5.points} pts" in screen_text(app)
        double = changes["combinations"][2]
        await press(pilot, str(combos.index(double) + 1))
        assert combos.index(double) not in screen.choices.ticked
        await press(pilot, str(combos.index(pair5) + 1), str(combos.index(double) + 1))
        assert screen.choices.ticked == {combos.index(double)}
        assert f"Coché : {double.points} pts" in screen_text(app)
        await press(pilot, "enter")
        assert recorder.sent[-1] == (Validate((double,)), None)  # sent without a step
        assert not screen.choosing
        # m ticks the best choice again; x refuses everything.
        fed(app, recorder, **changes)
        await settle(pilot)
        await press(pilot, "space", "m", "enter")
        assert recorder.sent[-1][0] == Validate(tuple(sorted(
            (brelan, pair5), key=combos.index)))
        fed(app, recorder, **changes)
        await settle(pilot)
        await press(pilot, "x")
        assert recorder.sent[-1][0] == Validate(())


async def test_any_legal_selection_can_be_made_up(make_app: MakeApp) -> None:
    """A Brelan of 5s with the Shadow beside the pair of 3s is legal but not listed (the list
    has one combination per objective and score): a makes it up, objective then cards."""
    app = make_app("Alice")
    async with app.run_test(size=(80, 30), notifications=True) as pilot:
        await sit_down(pilot, app)
        recorder = Recorder()
        changes = validation_view(view_of(app))
        fed(app, recorder, **changes)
        await settle(pilot)
        screen = table_screen(app)
        assert "a" in keys_shown(app)
        threes, fives = changes["combinations"][1].cards, changes["best"][1].cards
        shadow = changes["combinations"][0].cards[1]
        # Cards that fill nothing: refused with a word, back to the list as it was.
        await press(pilot, "a")
        assert screen.choosing == "compose_objective"
        await press(pilot, "3")  # Brelan
        assert screen.choosing == "compose_cards"
        cards = list(screen.choice_answers)
        await press(pilot, str(cards.index(threes[0]) + 1), str(cards.index(fives[0]) + 1),
                    str(cards.index(shadow) + 1), "enter")
        assert "ne remplissent pas Brelan" in screen_text(app)
        best = changes["best_points"]
        assert screen.choosing == "validation" and f"Coché : {best} pts" in screen_text(app)
        # 5, 5 and the Shadow: a Brelan, ticked in place of what it clashes with.
        await press(pilot, "a", "3")
        await press(pilot, str(cards.index(fives[0]) + 1), str(cards.index(fives[1]) + 1),
                    str(cards.index(shadow) + 1), "enter")
        brelan5 = Combination(3, tuple(sorted((*fives, shadow))), P[3] + 10)
        combos = screen.choice_answers
        assert brelan5 in combos and screen.choices.ticked == {combos.index(brelan5)}
        pair3 = changes["combinations"][1]
        await press(pilot, str(combos.index(pair3) + 1), "enter")
        assert recorder.sent[-1][0] == Validate(tuple(sorted((pair3, brelan5),
                                                             key=combos.index)))


async def test_waiting_for_the_others_then_the_round_summary(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await sit_down(pilot, app)
        recorder = Recorder()
        view = view_of(app)
        names = table_screen(app).names
        seats = tuple(replace(s, validated=s.seat in (0, 2)) for s in view.seats)
        fed(app, recorder, phase="validation", current=None, seats=seats, legal=())
        await settle(pilot)
        assert f"Validation : en attente de {names[1]} et {names[3]}." in screen_text(app)
        assert not table_screen(app).choosing
        pair = Combination(1, (0, 2), 10)
        results = ((pair,), (), (Combination(3, (1, 3, 5), P[3]),), ())
        seats = tuple(replace(s, scorecard=(10, *(0,) * 9), total=10, objectives=1)
                      if s.seat == 0 else s for s in view.seats)
        fed(app, recorder, (Event("validate", 0, ((1, (0, 2), 10),)), Event("round", 1, (2,))),
            round=2, last_results=results, seats=seats, phase="turn", current=0,
            legal=view.legal)
        await settle(pilot)
        screen = table_screen(app)
        # The summary sits in the log in place of the lines of what each validated: it hides
        # nothing (the next round's clock runs), and the next round's lines follow it.
        assert screen.query_one(GameLog).display and not screen.query_one("#panel").display
        told = log_text(app)
        assert "Fin de la manche 1 : points gagnés, total, validé" in told
        assert "+ 10 =  10 pts,  1/10  Paire 10" in told and f"Brelan {P[3]}" in told
        assert "Alice valide" not in told and "Manche 2" in told.splitlines()[-1]
        text = screen_text(app)
        assert "Alice" in text and "+ 10 =  10 pts,  1/10  Paire 10" in text
        assert "échap" not in keys_shown(app) and "a/b" in keys_shown(app)
