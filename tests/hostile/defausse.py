"""Reading a Défausse table from what an SSH client received (helpers for the hostile tests)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from pioche_tui.app.app import PiocheApp
from pioche_tui.coordinator.table import Table
from tests.coordinator.conftest import until
from tests.hostile.conftest import RecordingService
from tests.server.conftest import Client, Screen
from widgets.defausse_cards import face
from widgets.hand import Hand

# A card in the hand is a box five cells wide: "│R 7│", or "┃R 7┃" for the chosen one.
HAND_FACE = re.compile(r"[│┃┆](...)[│┃┆]")  # ┆: a card that may not be played


def app_of(service: RecordingService, name: str) -> PiocheApp:
    """The running app of the player called ``name``."""
    return next(app for app in service.apps
                if app.client.session is not None and app.client.session.player.name == name)


def faces(cards: tuple[int, ...], letters: str) -> list[str]:
    return [face(card, letters) for card in cards]


def hand_on_screen(screen: Screen, app: PiocheApp) -> list[str]:
    """The faces in the hand widget's rows of ``screen``, left to right (the widget's place on
    the screen comes from the app; what is in it, from the client's bytes)."""
    region = app.screen.query_one(Hand).region
    found: list[str] = []
    for y in range(region.y, region.bottom):
        row = "".join(screen.rows[y][region.x : region.right])
        found.extend(HAND_FACE.findall(row))
    return sorted(found)


def table_of(service: RecordingService, name: str) -> tuple[Table, int]:
    session = app_of(service, name).client.session
    assert session is not None and session.table is not None and session.seat is not None
    return session.table, session.seat


def own_view(table: Table, seat: int) -> Any:
    return table.game.view(table.state, seat)


async def makes_a_move(client: Client, service: RecordingService, name: str) -> None:
    """At their turn, the player draws (« d »): a game they have played in, whose seat is kept
    for them if they drop."""
    table, seat = table_of(service, name)
    # Their own move, not a stand-in's: under a short turn timer on a loaded machine the timer
    # can run out before the « d » arrives (the stand-in draws, the « d » comes off turn and is
    # refused), and a seat whose player never moved is not kept (the table closes once everyone
    # has left it). So « d » again at their next turn until a move of theirs is in.
    while not table.human_acted:
        await until(lambda: seat in table.game.to_act(table.state))
        step = table.step
        client.send("d")
        await until(lambda step=step: table.step > step)  # (human_acted: once it is logged)


async def own_hand_shown(client: Client, service: RecordingService, name: str) -> None:
    """Wait until ``client``'s screen shows the table as it is now, with exactly this player's
    hand (a hand wider than the screen is not compared)."""
    table, seat = table_of(service, name)
    app = app_of(service, name)
    await until(lambda: app.table_screen is not None and app.table_screen.update.step == table.step)
    await asyncio.sleep(0.2)  # the frame reaches the client
    letters = app.t("colour.letters")
    await client.wait_for(lambda _screen: hand_on_screen(client.screen, app)
                          == sorted(faces(own_view(table, seat).hand, letters))
                          or len(own_view(table, seat).hand) > 18)
    # Its own view, current (waited for: a bot may have moved since the hand was compared).
    await until(lambda: app.table_screen is not None
                and app.table_screen.update.view == own_view(table, seat))
