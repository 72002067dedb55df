"""The end of a game: the players ranked, the winners first, and the rematch (« Revanche »):
a seated player asks for it with r, the others accept with r too, or decline by going back to
the lobby (Enter); the line under the ranking says who asked and the seconds left
(``Coordinator.rematch``)."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import Static

from widgets.keybar import KeyBar

from ...coordinator.model import TableUpdate
from ...engine.base import Outcome
from .base import Dialog


class PodiumScreen(Dialog[bool | None]):
    """Enter: back to the lobby (result True: a rematch asked for is declined); Escape: look at
    the final table; r: ask for a rematch, or accept it (a seated player's, not at a learn
    table).

    A key typed before the podium appeared does nothing to it: a player pressing Enter to play
    their last card, a little ahead of a server that is behind, would otherwise close the
    podium before reading it (and go on in the lobby with the keys that follow)."""

    CSS_PATH = "podium.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "rematch", "key.rematch"),
        Binding("enter", "lobby", "key.lobby"),
        Binding("escape", "close", "key.see_table"),
    ]

    def __init__(self, names: Sequence[str], outcome: Outcome, reason: str = "",
                 unrated: str | None = None, update: TableUpdate | None = None) -> None:
        """``reason``: why the game ended, a sentence (« La partie s'arrête : … »);
        ``unrated``: why the game is not rated, "" when it is (``TableSummary.unrated``),
        None to say nothing of ratings (a learn table says it counts for nothing);
        ``update``: the table's newest, for its rematch (``show_rematch``)."""
        super().__init__()
        self.names = tuple(names)
        self.outcome = outcome
        self.reason = reason
        self.unrated = unrated
        self.update: TableUpdate | None = None
        self._rematch_end: float | None = None  # the loop time the proposal ends
        self._ticker: Timer | None = None  # while it counts down
        self._shown = math.inf  # when it was mounted (Textual's clock: time.monotonic)
        if update is not None:
            self.show_rematch(update)

    def compose(self) -> ComposeResult:
        t = self.t
        outcome = self.outcome
        winners = [self.names[s] for s in outcome.winners if s < len(self.names)]
        key = "podium.winner" if len(winners) == 1 else "podium.winners"
        places = outcome.standing()  # (as the game ranks players: ties share a place)
        order = sorted(range(len(outcome.scores)), key=lambda s: (places[s], s))
        ranking = Text()
        for seat in order:
            won = seat in outcome.winners
            ranking.append(f"{t('podium.rank', n=places[seat]):>4} ", "bold" if won else "")
            ranking.append("★ " if won else "  ")
            name = self.names[seat] if seat < len(self.names) else "?"
            ranking.append(f"{name[:20]:<21}", "bold" if won else "")
            ranking.append(t("podium.points", n=outcome.scores[seat]))
            ranking.append("\n")
        ranking.rstrip()
        with Vertical(id="podium-box"):
            yield Static(t("podium.title"), classes="title", markup=False)
            yield Static(t(key, names=t.names(winners)), id="podium-winners", markup=False)
            if self.reason:
                yield Static(self.reason, id="podium-reason", markup=False)
            yield Static(ranking, id="podium-ranking")
            if self.unrated is not None:
                rated = f"podium.unrated.{self.unrated}" if self.unrated else "podium.rated"
                yield Static(t(rated), id="podium-rated", classes="muted", markup=False)
            yield Static(id="podium-rematch", markup=False)
            yield KeyBar()

    def on_mount(self) -> None:
        self._shown = time.monotonic()
        self._tick()
        self._count_down()

    def on_key(self, event: events.Key) -> None:
        if event.time < self._shown:  # (typed before: see the class's doc)
            event.prevent_default()
            event.stop()

    def _count_down(self) -> None:
        """A timer ticks each second only while a proposal counts down (a podium nobody asks
        a rematch at holds none: opened and closed again and again, it leaves nothing)."""
        if self._rematch_end is not None and self._ticker is None:
            self._ticker = self.set_interval(1.0, self._tick)
        elif self._rematch_end is None and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    def show_rematch(self, update: TableUpdate) -> None:
        """The table's rematch as ``update`` says it: who asked, the seconds left, or off."""
        self.update = update
        left = update.rematch_left
        self._rematch_end = None if left is None or update.rematch_off else (
            asyncio.get_running_loop().time() + left)
        if self.is_mounted:  # (else on_mount shows it)
            self._tick()
            self._count_down()
            self.refresh_bindings()

    def _tick(self) -> None:
        update, t = self.update, self.t
        text = ""
        if update is not None and update.rematch_off:
            text = t("podium.rematch.off")
        elif update is not None and self._rematch_end is not None:
            left = max(0, math.ceil(self._rematch_end - asyncio.get_running_loop().time()))
            asked = [self.names[s] for s in update.rematch if s < len(self.names)]
            mine = update.seat is not None and update.seat not in update.rematch
            key = "podium.rematch.asked_you" if mine else "podium.rematch.asked"
            text = t(key, names=t.names(asked), n=left)
        widget = self.query_one("#podium-rematch", Static)
        widget.display = bool(text)
        widget.update(text)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "rematch":
            update = self.update
            return (update is not None and update.table.status == "finished"
                    and update.seat is not None and not update.table.learn
                    and not update.rematch_off and update.seat not in update.rematch)
        return True

    async def action_rematch(self) -> None:
        if self.check_action("rematch", ()):
            await self.pioche.call(self.pioche.client.rematch)

    def action_lobby(self) -> None:
        self.dismiss(True)
