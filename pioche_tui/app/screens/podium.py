"""The end of a game: the players ranked, the winners first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from widgets.keybar import KeyBar

from ...engine.base import Outcome
from .base import Dialog


class PodiumScreen(Dialog[bool | None]):
    """Enter: back to the lobby (result True); Escape: look at the final table."""

    CSS_PATH = "podium.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "lobby", "key.lobby"),
        Binding("escape", "close", "key.see_table"),
    ]

    def __init__(self, names: Sequence[str], outcome: Outcome, reason: str = "",
                 unrated: str | None = None) -> None:
        """``reason``: why the game ended, a sentence (« La partie s'arrête : … »);
        ``unrated``: why the game is not rated, "" when it is (``TableSummary.unrated``),
        None to say nothing of ratings (a learn table says it counts for nothing)."""
        super().__init__()
        self.names = tuple(names)
        self.outcome = outcome
        self.reason = reason
        self.unrated = unrated

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
            yield KeyBar()

    def action_lobby(self) -> None:
        self.dismiss(True)
