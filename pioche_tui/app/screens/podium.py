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

    def __init__(self, names: Sequence[str], outcome: Outcome, reason: str = "") -> None:
        """``reason``: why the game ended, a sentence (« La partie s'arrête : … »)."""
        super().__init__()
        self.names = tuple(names)
        self.outcome = outcome
        self.reason = reason

    def compose(self) -> ComposeResult:
        t = self.t
        outcome = self.outcome
        winners = [self.names[s] for s in outcome.winners if s < len(self.names)]
        key = "podium.winner" if len(winners) == 1 else "podium.winners"
        order = sorted(range(len(outcome.scores)),
                       key=lambda s: (s not in outcome.winners, -outcome.scores[s], s))
        ranking = Text()
        rank = 0
        previous: tuple[bool, int] | None = None
        for place, seat in enumerate(order, 1):
            standing = (seat in outcome.winners, outcome.scores[seat])
            if standing != previous:
                rank, previous = place, standing
            won = seat in outcome.winners
            ranking.append(f"{t('podium.rank', n=rank):>4} ", "bold" if won else "")
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
            yield KeyBar()

    def action_lobby(self) -> None:
        self.dismiss(True)
