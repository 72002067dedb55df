"""The app over a client whose answers take a moment, as they will over a network (issue 16):
nothing in the screens relies on a request being answered at once, and a key pressed again
while its request is on its way does not make a second table or a second move."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterable
from typing import Any

import pytest
from textual.worker import WorkerFailed

from pioche_tui.app.app import PiocheApp
from pioche_tui.app.screens.dialogs import Farewell
from pioche_tui.app.screens.lobby import LobbyScreen
from pioche_tui.app.screens.table import TableScreen
from pioche_tui.coordinator.client import CoordinatorClient
from pioche_tui.coordinator.core import Coordinator
from pioche_tui.coordinator.model import Refused
from pioche_tui.engine.base import Event
from server.session import ServerShutdown

from .conftest import settle

LATENCY = 0.02  # seconds each request takes


class SlowClient:
    """The in-process client, each request answered ``LATENCY`` later (news as it comes)."""

    def __init__(self, inner: CoordinatorClient) -> None:
        self._inner = inner
        self.requests: list[str] = []

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name == "mail" or not inspect.iscoroutinefunction(attr):
            return attr

        async def later(*args: Any, **kwargs: Any) -> Any:
            self.requests.append(name)
            await asyncio.sleep(LATENCY)
            return await attr(*args, **kwargs)

        return later


class Slow:
    def __init__(self, coordinator: Coordinator) -> None:
        self.coordinator = coordinator

    def client(self) -> SlowClient:
        return SlowClient(self.coordinator.client())


async def until_screen(pilot: Any, app: PiocheApp, kind: type) -> None:
    for _ in range(200):
        if isinstance(app.screen, kind):
            return
        await pilot.pause(LATENCY)
    raise AssertionError(f"no {kind.__name__}: {app.screen!r}")


def alice_draws(history: Iterable[tuple[Event, ...]]) -> int:
    return sum(1 for events in history for e in events if e.kind == "draw" and e.seat == 0)


async def test_a_slow_client_plays_a_game_and_keys_pressed_twice_act_once(
        coordinator: Coordinator) -> None:
    app = PiocheApp(Slow(coordinator), identity="SHA256:Alice", name="Alice")
    client = app.client
    assert isinstance(client, SlowClient)
    async with app.run_test(size=(100, 30)) as pilot:
        await until_screen(pilot, app, LobbyScreen)
        await pilot.press("p", "p")  # the second while the first's table is being made
        await until_screen(pilot, app, TableScreen)
        await settle(pilot)
        # The second key waited for the first's answer: by then the table screen had come
        # (the key meant nothing there) or the lobby said « Quittez d'abord votre table ».
        assert len(coordinator.tables) == 1 and client.requests.count("quick_play") in (1, 2)
        screen = app.screen
        assert isinstance(screen, TableScreen) and screen.seat == 0
        for _ in range(200):  # (the bots play at once: Alice's turn comes)
            if 0 in screen.update.to_act:
                break
            await pilot.pause(LATENCY)
        table = next(iter(coordinator.tables.values()))
        before = alice_draws(table.history)
        step = screen.update.step
        # Draw, twice before the new view comes (both keys handled before the first answer;
        # the pilot would wait for the first): the second is not sent, the first being on
        # its way for the same step (a key held down makes one move, not one per repeat).
        warned: list[str] = []
        app.warn = warned.append  # type: ignore[method-assign]
        await screen.run_action("draw")
        await screen.run_action("draw")
        for _ in range(200):
            if screen.update.step > step:
                break
            await pilot.pause(LATENCY)
        await settle(pilot)
        assert client.requests.count("act") == 1
        assert alice_draws(table.history) == before + 1
        assert warned == []
        await pilot.press("l")
        await pilot.pause(LATENCY)
        await pilot.press("o")  # yes, leave (the stand-in plays the seat)
        await until_screen(pilot, app, LobbyScreen)
        assert app.table_screen is None


class BrokenActs(SlowClient):
    """A client whose moves fail with an error that is no refusal (a bug, a lost bus)."""

    def __getattr__(self, name: str) -> Any:
        if name != "act":
            return super().__getattr__(name)

        async def act(*args: Any, **kwargs: Any) -> None:
            self.requests.append(name)
            raise RuntimeError("the move was lost")

        return act


class Broken(Slow):
    def client(self) -> BrokenActs:
        return BrokenActs(self.coordinator.client())


async def test_an_error_in_a_move_sent_in_the_background_is_the_apps_not_silence(
        coordinator: Coordinator) -> None:
    """Before: the move's task died with « Task exception was never retrieved » and the app
    went on as if nothing happened. Now the error ends the app as an error in a key's handler
    does, so the server reports it."""
    app = PiocheApp(Broken(coordinator), identity="SHA256:Alice", name="Alice")
    with pytest.raises(WorkerFailed, match="the move was lost"):
        async with app.run_test(size=(100, 30)) as pilot:
            await until_screen(pilot, app, LobbyScreen)
            await pilot.press("p")
            await until_screen(pilot, app, TableScreen)
            screen = app.screen
            assert isinstance(screen, TableScreen)
            for _ in range(200):
                if 0 in screen.update.to_act:
                    break
                await pilot.pause(LATENCY)
            await screen.run_action("draw")
            await pilot.pause(LATENCY)
            assert app.return_code == 1


class AwayAtTheEnd(SlowClient):
    """A front's client whose coordinator is gone when the server stops (the bus went with
    the supervisor): ``server_stopping`` is refused as unavailable."""

    async def server_stopping(self) -> None:
        raise Refused("unavailable", "Le serveur ne répond pas ; réessayez dans un instant.")


async def test_a_server_stopping_without_its_coordinator_still_says_goodbye(
        coordinator: Coordinator) -> None:
    class Away(Slow):
        def client(self) -> SlowClient:
            return AwayAtTheEnd(self.coordinator.client())

    app = PiocheApp(Away(coordinator), identity="SHA256:Alice", name="Alice")
    async with app.run_test(size=(100, 30)) as pilot:
        await until_screen(pilot, app, LobbyScreen)
        app.post_message(ServerShutdown(3.0))
        await pilot.pause(LATENCY)
    assert app.return_code == 0 and app.farewell == app.t("notice.shutdown")


class Unreachable(SlowClient):
    """A front's client while its coordinator restarts: every request is refused as
    unavailable (but ``close``, which never raises: ``RemoteClient.close``)."""

    def __getattr__(self, name: str) -> Any:
        attr = super().__getattr__(name)
        if name in ("mail", "close") or not inspect.iscoroutinefunction(attr):
            return attr

        async def refused(*args: Any, **kwargs: Any) -> Any:
            raise Refused("unavailable", "Le serveur ne répond pas ; réessayez dans un instant.")

        return refused


async def test_a_connection_while_the_coordinator_is_away_is_told_so(
        coordinator: Coordinator) -> None:
    """The app's first requests (settings, the server's facts) find no coordinator: the player
    reads why and the app ends, instead of a crash."""
    class Away(Slow):
        def client(self) -> SlowClient:
            return Unreachable(self.coordinator.client())

    app = PiocheApp(Away(coordinator), identity="SHA256:Alice", name="Alice")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.1)
        assert app.farewell == "Le serveur ne répond pas ; réessayez dans un instant."
        assert isinstance(app.screen, Farewell) and app.screen.text == app.farewell
