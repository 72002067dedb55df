"""Small windows: a private table's code, a yes/no question."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Static

from widgets.keybar import KeyBar

from .base import Dialog

Attempt = Callable[[str], Awaitable[str | None]]
"""Tries what the player typed: None when it was taken, else why not (in their language)."""


class CodePrompt(Dialog[str | None]):
    """Asks the code of a private table and tries it (``attempt``, the join or the watch it
    is for): the result is the code that was taken, None when cancelled. A refusal (a wrong
    code, the table full meanwhile) is shown in the window, which stays open with the text
    as typed: the player corrects it or leaves with Escape, and no key typed meanwhile
    reaches the lobby under the window."""

    CSS_PATH = "dialogs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "ok", "key.ok")]

    def __init__(self, table_id: str, attempt: Attempt) -> None:
        super().__init__()
        self.table_id = table_id
        self.attempt = attempt

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.t("code.title", id=self.table_id), classes="title", markup=False)
            yield Static(self.t("code.prompt"), markup=False)
            yield Input(max_length=12, id="code-input")
            yield Static(id="code-error", classes="error", markup=False)
            yield KeyBar()

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        await self.action_ok()

    async def action_ok(self) -> None:
        field = self.query_one(Input)
        code = field.value.strip()
        refusal = await self.attempt(code) if code else self.t("code.empty")
        if refusal is None:
            self.dismiss(code)
            return
        self.query_one("#code-error", Static).update(refusal)
        field.focus()


class Confirm(Dialog[bool | None]):
    """A question (``question``, and what answering yes does: ``detail``) answered with o or
    y (oui, yes) / n, or with the buttons. Enter presses the highlighted button, « Non » at
    first, so that a key meant for the screen underneath (Enter plays a card) never says yes;
    Escape is no."""

    CSS_PATH = "dialogs.tcss"
    AUTO_FOCUS = "#no"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o,y", "answer(True)", "key.yes", show=False),
        Binding("n", "answer(False)", "key.no", show=False),
        Binding("left", "app.focus_previous", "key.choose", show=False),
        Binding("right", "app.focus_next", "key.choose", show=False),
    ]

    def __init__(self, question: str, detail: str = "") -> None:
        super().__init__()
        self.question = question
        self.detail = detail

    def compose(self) -> ComposeResult:
        t = self.t
        with Vertical(classes="dialog"):
            yield Static(self.question, classes="title", markup=False)
            if self.detail:
                yield Static(self.detail, id="confirm-detail", markup=False)
            with Horizontal(id="confirm-buttons"):
                yield Button(t("confirm.yes"), id="yes", compact=True)
                yield Button(t("confirm.no"), id="no", compact=True)
            yield Static(t("confirm.keys"), classes="muted", markup=False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class Farewell(Dialog[None]):
    """Why the session ended, over the screen, until the app exits (``PiocheApp.say_farewell``;
    Escape does not wait)."""

    CSS_PATH = "dialogs.tcss"

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.text, classes="title", markup=False)

    def action_close(self) -> None:
        self.app.exit()
