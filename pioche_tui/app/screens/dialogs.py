"""Small windows: a private table's code, a yes/no question."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Static

from widgets.keybar import KeyBar

from .base import Dialog


class CodePrompt(Dialog[str | None]):
    """Asks the code of a private table; the result is what was typed (None: cancelled)."""

    CSS_PATH = "dialogs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "ok", "key.ok")]

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id = table_id

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.t("code.title", id=self.table_id), classes="title", markup=False)
            yield Static(self.t("code.prompt"), markup=False)
            yield Input(max_length=12, id="code-input")
            yield KeyBar()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_ok()

    def action_ok(self) -> None:
        self.dismiss(self.query_one(Input).value.strip() or None)


class Confirm(Dialog[bool | None]):
    """A question answered with y (or o, for oui) / n; Escape is no."""

    CSS_PATH = "dialogs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,o", "answer(True)", "key.yes"),
        Binding("n", "answer(False)", "key.no"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.question, markup=False)
            yield KeyBar()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
