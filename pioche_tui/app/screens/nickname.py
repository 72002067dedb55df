"""The first screen when the server does not know what to call the player."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Static

from widgets.keybar import KeyBar

from ...coordinator.text import NICKNAME_MAX, nickname
from .base import PiocheScreen

if TYPE_CHECKING:
    from ..app import PiocheApp

class NicknameScreen(PiocheScreen[None]):
    """Asks for a nickname until the coordinator accepts one (it may be taken)."""

    CSS_PATH = "nickname.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "submit", "key.ok")]

    def __init__(self, default: str = "", error: str = "") -> None:
        super().__init__()
        self.default = default
        self.error = error

    def compose(self) -> ComposeResult:
        t = self.t
        with Vertical(id="nick-box"):
            yield Static(t("nick.welcome"), id="nick-title", classes="title", markup=False)
            yield Static(t("nick.intro"), id="nick-intro", markup=False)
            yield Static(t("nick.prompt"), markup=False)
            yield Input(self.default, placeholder=t("nick.placeholder"), max_length=NICKNAME_MAX,
                        id="nick-input")
            yield Static(self.error, id="nick-error", classes="error", markup=False)
            yield Static(t("nick.hint"), classes="muted", markup=False)
        yield KeyBar()

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        await self.action_submit()

    async def action_submit(self) -> None:
        typed = self.query_one(Input).value.strip()
        name = nickname(typed)
        if name != typed:
            error: str | None = self.t("nick.invalid")
        else:
            error = await cast("PiocheApp", self.app).connect(name)
        if error:
            self.query_one("#nick-error", Static).update(error)
