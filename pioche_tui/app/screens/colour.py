"""The colour a Joker asks for: the colour's letter as on the cards (or 1–4), or the arrows
and Enter."""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import Static

from widgets.defausse_cards import colour_style
from widgets.keybar import KeyBar

from .base import Dialog


class ColourPicker(Dialog[int | None]):
    """The result is the colour's index (0–3), or None when cancelled with Escape."""

    CSS_PATH = "colour.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "key.choose"),
        Binding("right", "move(1)", "key.choose"),
        Binding("enter", "pick", "key.ok"),
        *(Binding(str(n), f"pick({n - 1})", "key.colour", show=False) for n in range(1, 5)),
    ]

    chosen: reactive[int] = reactive(0)

    def __init__(self, letters: str, start: int = 0) -> None:
        """``start``: the colour chosen at first (the one the player holds most)."""
        super().__init__()
        self.letters = letters
        self.set_reactive(ColourPicker.chosen, start)

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            yield Static(self.t("df.pick_colour"), classes="title", markup=False)
            yield Static(id="swatches")
            yield KeyBar()

    def on_mount(self) -> None:
        self.watch_chosen()  # the first drawing, if a key came before the screen was built

    def watch_chosen(self) -> None:
        # A key can reach the picker before its widgets are built (Enter pressed as the Joker
        # is played): reading `chosen` then runs this watcher early, with no swatches to fill
        # (bench/soak.py found it). on_mount draws them; until then, and once closed, the
        # query finds nothing.
        t = self.t
        swatches = Text()
        for colour, letter in enumerate(self.letters):
            mark = "▸" if colour == self.chosen else " "
            swatches.append(f"{mark}{letter.lower()} ", "bold")
            style = colour_style(colour, bold=colour == self.chosen)
            if colour == self.chosen:
                style += Style(underline=True)
            swatches.append(f" {t(f'colour.{colour}')} ", style)
            swatches.append("  ")
        for box in self.query("#swatches").results(Static):
            box.update(swatches)

    def on_key(self, event: events.Key) -> None:
        letter = (event.character or "").upper()
        if letter and letter in self.letters:
            event.stop()
            self.dismiss(self.letters.index(letter))

    def action_move(self, step: int) -> None:
        self.chosen = (self.chosen + step) % len(self.letters)

    def action_pick(self, colour: int | None = None) -> None:
        self.dismiss(self.chosen if colour is None else colour)
