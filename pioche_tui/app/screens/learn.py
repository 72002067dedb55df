"""« Apprendre »: the lobby's window that opens a learn table (app/learn.py says what it
explains): the game, explanations on or off, and those already seen shown again."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from widgets.keybar import KeyBar

from ..learn import LEARN_GAMES
from .base import Dialog


class LearnDialog(Dialog[str | None]):
    """The result is the game to learn (None: closed)."""

    CSS_PATH = "learn.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "learn('collection')", "game.collection",
                tooltip="help.learn_collection"),
        Binding("d", "learn('defausse')", "game.defausse", tooltip="help.learn_defausse"),
        Binding("e", "switch", "key.hints", tooltip="help.learn_hints"),
        Binding("r", "reset", "key.learn_reset", tooltip="help.learn_reset"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.t("learn.title"), classes="title", markup=False)
            yield Static(self.t("learn.intro"), markup=False)
            yield Static(id="learn-state", markup=False)
            yield KeyBar()

    def on_mount(self) -> None:
        self.show_state()

    def show_state(self) -> None:
        memory = self.pioche.learning
        lines = [self.t("learn.hints_on" if memory.on else "learn.hints_off")]
        if memory.seen:
            lines.append(self.t("learn.seen", n=len(memory.seen)))
        self.query_one("#learn-state", Static).update("\n".join(lines))
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "learn":
            game = parameters[0]
            return game in LEARN_GAMES and game in self.pioche.games
        if action == "reset":
            return bool(self.pioche.learning.seen)
        return True

    def action_learn(self, game: str) -> None:
        self.dismiss(game)

    def action_switch(self) -> None:
        memory = self.pioche.learning
        memory.on = not memory.on
        self.show_state()

    def action_reset(self) -> None:
        self.pioche.learning.forget()
        self.show_state()
