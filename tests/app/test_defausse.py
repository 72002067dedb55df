"""The Défausse table, driven with Pilot against a real coordinator and the real engine: a turn,
drawing, a Joker's colour, announcing and catching, the round summary, a whole game against
bots to the podium, spectators."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pioche_tui.app.app import PiocheApp
from pioche_tui.app.screens.colour import ColourPicker
from pioche_tui.app.screens.defausse import DefausseTableScreen
from pioche_tui.app.screens.help import HelpScreen
from pioche_tui.app.screens.lobby import LobbyScreen
from pioche_tui.app.screens.podium import PodiumScreen
from pioche_tui.coordinator.core import Coordinator
from pioche_tui.coordinator.model import Player
from pioche_tui.engine.base import Event
from pioche_tui.engine.defausse import Catch, ChooseColour, DefausseView, Draw, Keep, Play
from pioche_tui.engine.defausse.cards import COLOUR, WILD
from pioche_tui.engine.defausse.rules import RoundResult
from widgets.hand import Hand
from widgets.keybar import KeyBar
from widgets.log import GameLog

from .conftest import make_coordinator, screen_text, settle

MakeApp = Callable[..., PiocheApp]


def keys_shown(app: PiocheApp) -> set[str]:
    return {key for key, _ in app.screen.query_one(KeyBar).keys}


def table_screen(app: PiocheApp) -> DefausseTableScreen:
    screen = app.table_screen
    assert isinstance(screen, DefausseTableScreen)
    return screen


def view_of(app: PiocheApp) -> DefausseView:
    view = table_screen(app).view
    assert view is not None
    return view


class Recorder:
    """Stands in for ``Session.act`` where a test feeds the screen views of its own making:
    what the screen would send, and at which step."""

    def __init__(self) -> None:
        self.sent: list[tuple[Any, int | None]] = []

    def __call__(self, action: Any, step: int | None = None) -> None:
        self.sent.append((action, step))


async def my_turn(pilot: Any, app: PiocheApp) -> DefausseView:
    """Wait until it is the player's turn (bots answer at once) and return the view."""
    for _ in range(50):
        await settle(pilot)
        view = view_of(app)
        if view.current == table_screen(app).seat or view.outcome is not None:
            return view
    raise AssertionError("the player's turn never came")


async def test_a_turn_playing_a_card_with_enter(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("p")  # quick play: Défausse against three bots
        view = await my_turn(pilot, app)
        assert len(view.counts) == 4
        hand = app.screen.query_one(Hand)
        assert hand.has_focus
        playable = [a.card for a in view.legal if isinstance(a, Play)]
        text = screen_text(app)
        assert "Défausse · table" in text and "Manche 1" in text and "► Alice" in text
        step = table_screen(app).update.step
        assert f"coup {step}  ·" in text  # the move number, as pioche replay counts moves
        if not playable:
            pytest.skip("this deal gives no playable card")  # the seed below avoids it
        assert hand.selected in playable  # the cursor starts on a playable card
        card = hand.selected
        assert card is not None
        before = len(view.hand)
        if COLOUR[card] == WILD:
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, ColourPicker)
            await pilot.press("r")
        else:
            assert "⏎" in keys_shown(app)
            await pilot.press("enter")
        await settle(pilot)
        view = view_of(app)
        assert len(view.hand) == before - 1 or view.round > 1
        text = screen_text(app)
        assert "Alice joue" in text
        assert f"coup {table_screen(app).update.step}  ·" in text
        assert table_screen(app).update.step > step


async def test_draw_then_keep_or_play_the_drawn_card(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("p")
        view = await my_turn(pilot, app)
        assert "d" in keys_shown(app)
        await pilot.press("d")
        await settle(pilot)
        view = view_of(app)
        assert "Alice pioche 1 carte :" in screen_text(app)  # she sees which card she drew
        # Whether it fits or not, the turn is still hers: it is chosen, k keeps it (and Enter
        # lays it if it fits).
        assert view.drawn is not None and view.current == 0
        assert app.screen.query_one(Hand).selected == view.drawn
        assert "k" in keys_shown(app) and "d" not in keys_shown(app)
        assert "Vous avez pioché" in screen_text(app)
        await pilot.press("k")
        await settle(pilot)
        assert "Alice garde la carte piochée" in screen_text(app)


async def with_a_drawn_card(app: PiocheApp, pilot: Any, fits: bool) -> tuple[int, Recorder]:
    """Alice, at a quiet table, has just drawn her first card (which she may play if it
    ``fits``, or keep); what the screen sends is recorded."""
    await settle(pilot)
    await start_quiet(app, pilot)
    view = view_of(app)
    recorder = Recorder()
    drawn = view.hand[0]
    play = (Play(drawn, None if COLOUR[drawn] != WILD else 0),) if fits else ()
    fed(app, recorder, phase="after_draw", drawn=drawn, current=0, legal=(*play, Keep()))
    await settle(pilot)
    return drawn, recorder


async def test_a_drawn_card_that_does_not_fit_is_kept_with_k(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        _, recorder = await with_a_drawn_card(app, pilot, fits=False)
        assert "qui ne va pas : k pour la garder" in screen_text(app)
        assert "k" in keys_shown(app) and "⏎" not in keys_shown(app)
        await pilot.press("enter")
        await pilot.press("k")
        assert [sent[0] for sent in recorder.sent] == [Keep()]


async def first_turn(tmp_path: Path, seed: int, options: dict[str, Any]) -> DefausseView:
    """Alice's view on her first turn at a 2-seat table against a bot, for this seed."""
    coordinator = make_coordinator(tmp_path / f"s{seed}", seed)
    await coordinator.start()
    try:
        session = coordinator.connect(Player("SHA256:Alice", "Alice"))
        session.create_table("defausse", seats=2, bots={1: "basic"}, timer=None,
                             options=options)
        for _ in range(100):
            mail = session.mailbox.take()
            if mail is not None and mail.table is not None and mail.table.view is not None:
                view: DefausseView = mail.table.view
                if view.current == 0 or view.outcome is not None:
                    return view
            await asyncio.sleep(0)
        raise AssertionError("Alice's turn never came")
    finally:
        coordinator.stop()


async def find_deal(tmp_path: Path, wanted: Callable[[DefausseView], bool],
                    options: dict[str, Any] | None = None, tries: int = 300) -> int:
    """A coordinator seed whose game gives Alice (seat 0), on her first turn, a view that
    ``wanted`` accepts. Searched, not hard-coded: a change in the engine's deal cannot make
    the test pass without testing anything."""
    for seed in range(tries):
        if wanted(await first_turn(tmp_path, seed, options or {})):
            return seed
    raise AssertionError("no deal found")


async def test_playing_a_joker_asks_its_colour(tmp_path: Path) -> None:
    seed = await find_deal(tmp_path, lambda v: any(
        isinstance(a, Play) and COLOUR[a.card] == WILD for a in v.legal))
    coordinator = make_coordinator(tmp_path / "game", seed)
    await coordinator.start()
    app = PiocheApp(coordinator, identity="SHA256:Alice", name="Alice")
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert app.client.session is not None
            app.client.session.create_table("defausse", seats=2, bots={1: "basic"}, timer=None)
            view = await my_turn(pilot, app)
            joker = next(a.card for a in view.legal
                         if isinstance(a, Play) and COLOUR[a.card] == WILD)
            position = view.hand.index(joker)
            assert position < 9
            await pilot.press(str(position + 1))  # its number chooses it
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, ColourPicker)
            assert "Quelle couleur ?" in screen_text(app)
            await pilot.press("escape")  # changed their mind: nothing was played
            await settle(pilot)
            assert view_of(app).hand == view.hand
            await pilot.press("enter")
            await settle(pilot)
            await pilot.press("v")  # vert, by its letter
            await settle(pilot)
            assert "couleur : vert" in screen_text(app)
            assert joker not in view_of(app).hand
    finally:
        coordinator.stop()


async def test_whole_game_against_bots_to_the_podium(coordinator: Coordinator,
                                                     make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.client.session is not None
        app.client.session.create_table("defausse", seats=3, bots={1: "basic", 2: "random"},
                                 timer=None, options={"target": 100})
        moves = 0
        while not isinstance(app.screen, PodiumScreen):
            moves += 1
            assert moves < 2000, "the game does not end"
            await settle(pilot)
            screen = app.screen
            if isinstance(screen, ColourPicker):
                await pilot.press("1")
                continue
            view = view_of(app)
            if view.outcome is not None or view.current != 0:
                continue
            keys = keys_shown(app)
            await pilot.press("enter" if "⏎" in keys else "d" if "d" in keys else "k")
        text = screen_text(app)
        assert "Fin de la partie" in text and "gagne" in text
        outcome = view_of(app).outcome
        assert outcome is not None and max(outcome.scores) >= 100
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
    assert coordinator.db is not None and coordinator.db.game_count() == 1


async def test_spectators_see_public_information_only(coordinator: Coordinator,
                                                      make_app: MakeApp) -> None:
    host = coordinator.connect(Player("SHA256:host", "Hôte"))
    table = host.create_table("defausse", seats=3, bots={1: "basic", 2: "basic"}, timer=None)
    app = make_app("Carole", watch_table=table)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = table_screen(app)
        assert screen.seat is None
        view = view_of(app)
        assert view.hand == () and view.legal == ()
        assert not screen.query_one(Hand).display
        text = screen_text(app)
        assert "Vous regardez cette partie" in text and "Hôte" in text
        assert keys_shown(app) == {"c", "échap", "?"}
        await pilot.press("question_mark")  # the rules of the game and every key
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert app.screen.page == "defausse" and "Joker +4" in app.screen.document()
        keys = app.screen.page_text("keys")
        assert "jouer la carte choisie" in keys and "contrer un joueur" in keys
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("d", "enter", "k")  # no key acts
        await settle(pilot)
        assert view_of(app).counts == view.counts


async def test_the_turn_timer(coordinator: Coordinator, make_app: MakeApp) -> None:
    """It counts by steps of five seconds, then by the second; it repaints only when what it
    shows changes, and not at all under a window (the screen beneath shows, and a tick there
    would repaint both screens); it wakes only when what it shows next is due."""
    host = coordinator.connect(Player("SHA256:host", "Hôte"))
    table = host.create_table("defausse", seats=3, bots={1: "basic", 2: "basic"}, timer=60)
    app = make_app("Carole", watch_table=table)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        bar = table_screen(app).title_bar
        # The time left crossed as a duration; the bar's deadline is the table's, on this clock.
        deadlines = coordinator.tables[table].deadlines
        assert bar.deadline is not None and deadlines
        assert abs(bar.deadline - min(deadlines.values())) < 0.1
        drawn: list[int] = []
        bar._draw = lambda: drawn.append(1)  # type: ignore[method-assign]
        bar._shown = bar.seconds_shown()
        bar._tick()
        assert drawn == []  # the seconds shown have not changed
        bar._shown = -1
        bar._tick()
        assert drawn == [1]
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen) and table_screen(app).is_current
        bar._tick()
        assert drawn == [1]
        waits: list[float] = []  # when it asks to wake next
        set_timer = bar.set_timer

        def noted(delay: float, callback: Any) -> Any:
            waits.append(delay)
            return set_timer(delay, callback)

        bar.set_timer = noted  # type: ignore[method-assign]
        now = asyncio.get_running_loop().time()
        shown = []
        for left in (59.5, 55.2, 54.9, 11.0, 10.0, 9.1, 0.5, -3.0):
            bar.deadline = now + left
            shown.append(bar.seconds_shown())
        assert shown == [60, 60, 55, 15, 10, 10, 1, 0]
        # It wakes when the next number is due (55 in 4.5 s, in 0.2 s, 50 in 4.9 s, 10 in
        # 1 s, 9 in 1 s, in 0.1 s, 0 in 0.5 s; at 0 never), not every second to look.
        assert len(waits) == 7
        for wait, due in zip(waits, (4.5, 0.2, 4.9, 1.0, 1.0, 0.1, 0.5), strict=True):
            assert due - 0.3 < wait < due + 0.3  # (the clock moved while the test ran)



async def test_the_turn_timer_is_set_once_per_turn(coordinator: Coordinator,
                                                   make_app: MakeApp) -> None:
    """Each update of a turn gives a deadline a float's noise away from the last (now plus
    the time left, both read anew): the title bar is not set again for it, so it neither
    repaints nor plans its wake-up once per update. A new turn's deadline is set."""
    host = coordinator.connect(Player("SHA256:host", "Hôte"))
    table = host.create_table("defausse", seats=3, bots={1: "basic", 2: "basic"}, timer=60)
    app = make_app("Carole", watch_table=table)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = table_screen(app)
        bar = screen.title_bar
        assert screen.deadline is not None and bar.deadline == screen.deadline
        woken: list[float | None] = []
        bar._wake_next = lambda covered=False: woken.append(bar.deadline)  # type: ignore[method-assign]
        loop = asyncio.get_running_loop()
        for _ in range(3):  # the same turn's next updates, as the mailbox gives them
            left = screen.deadline - loop.time()
            screen.show_update(replace(screen.update, time_left=left + 0.001))
        assert woken == []
        screen.show_update(replace(screen.update, time_left=30.0))  # a new turn
        assert woken == [screen.deadline] and abs(screen.deadline - loop.time() - 30) < 1


# --- the screen's answers to views chosen by the test --------------------------------------


def fed(app: PiocheApp, recorder: Recorder, **changes: Any) -> None:
    """Show the screen its current update with the view changed; record what it then sends
    instead of sending it (the coordinator would refuse a view it did not make)."""
    screen = table_screen(app)
    assert app.client.session is not None
    app.client.session.act = recorder  # type: ignore[method-assign]
    view = replace(view_of(app), **changes)
    screen.show_update(replace(screen.update, view=view, step=screen.update.step + 100))


async def start_quiet(app: PiocheApp, pilot: Any, options: dict[str, Any] | None = None) -> None:
    """A 2-seat table Alice starts herself (the stand-in takes the free seat), up to her turn:
    from there nothing changes until she acts."""
    assert app.client.session is not None
    app.client.session.create_table("defausse", seats=2, timer=None, options=options or {})
    await settle(pilot)
    await pilot.press("enter")  # the creator starts: a stand-in takes the free seat
    await my_turn(pilot, app)


async def test_announce_and_catch_keys(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await start_quiet(app, pilot, {"annonce": True})
        view = view_of(app)
        recorder = Recorder()
        two = tuple(c for c in view.hand if COLOUR[c] != WILD)[:2]
        plays = (Play(two[0]), Play(two[0], None, True), Draw())
        fed(app, recorder, hand=two, legal=plays, current=0, phase="play")
        await settle(pilot)
        assert "a" in keys_shown(app)
        app.screen.query_one(Hand).select(two[0])
        await pilot.press("a")
        await settle(pilot)
        assert recorder.sent[-1][0] == Play(two[0], None, True)
        # Another player forgot to announce: x catches them.
        fed(app, recorder, current=1, legal=(Catch(1),), catchable=1, phase="play")
        await settle(pilot)
        assert "x" in keys_shown(app)
        assert "n'a pas annoncé : x pour le contrer" in screen_text(app)
        await pilot.press("x")
        assert recorder.sent[-1][0] == Catch(1)


async def starting_colour_asked(app: PiocheApp, pilot: Any) -> Recorder:
    """Alice's table opens a round on a Joker: she is asked its colour."""
    await settle(pilot)
    await start_quiet(app, pilot)
    recorder = Recorder()
    fed(app, recorder, phase="choose_colour", current=0, colour=None,
        legal=tuple(ChooseColour(c) for c in range(4)))
    await settle(pilot)
    assert isinstance(app.screen, ColourPicker)
    return recorder


async def test_starting_colour_is_asked_when_a_round_opens_on_a_joker(make_app: MakeApp
                                                                       ) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        recorder = await starting_colour_asked(app, pilot)
        assert "couleur de départ" in str(table_screen(app).query_one("#prompt").text)
        await pilot.press("right", "right", "enter")  # the arrows work too: vert
        await settle(pilot)
        assert recorder.sent[-1][0] == ChooseColour(2)


async def test_a_colour_asked_at_a_turn_that_passed_is_asked_no_more(make_app: MakeApp
                                                                      ) -> None:
    """The turn timer ran out while the colour was asked (its stand-in chose): the question
    goes, and the table under it shows the game again. It stayed: the table, covered, kept
    every update back, and the game went on to its end unseen (no podium)."""
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        recorder = await starting_colour_asked(app, pilot)
        fed(app, recorder, phase="play", current=1, colour=2, legal=())
        await settle(pilot)
        assert app.screen is table_screen(app)
        assert "Couleur : vert" in screen_text(app)
        assert not recorder.sent


async def test_round_summary_after_a_round(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await start_quiet(app, pilot)
        screen = table_screen(app)
        view = view_of(app)
        result = RoundResult(1, 0, (0, 37), 37)
        update = replace(screen.update, step=screen.update.step + 100,
                         view=replace(view, last_round=result, scores=(37, 0), round=2),
                         events=(Event("round_end", 0, ((0, 37), 37)),))
        screen.show_update(update)
        await settle(pilot)
        # The summary sits in the log, under the round's end: it hides nothing (the next
        # round's clock runs), and the next round's lines follow it.
        log = screen.query_one(GameLog)
        assert log.display and not screen.query_one("#panel").display
        bot = screen.names[1]
        told = [str(entry) for entry in log.entries][-3:]
        assert told == ["Alice gagne la manche : +37 points", f"  En main : Alice 0, {bot} 37",
                        f"  Totaux : Alice 37, {bot} 0"]
        assert f"Totaux : Alice 37, {bot} 0" in screen_text(app)
        assert "échap" not in keys_shown(app) and "d" in keys_shown(app)


async def test_keep_is_sent_for_a_drawn_card(make_app: MakeApp) -> None:
    app = make_app("Alice")
    async with app.run_test(size=(80, 24)) as pilot:
        drawn, recorder = await with_a_drawn_card(app, pilot, fits=True)
        assert app.screen.query_one(Hand).selected == drawn
        await pilot.press("k")
        assert recorder.sent[-1][0] == Keep()
