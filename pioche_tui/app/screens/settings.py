"""The player's settings: language, colours, the bell and the title when their turn comes.

A small window over the lobby: ↑ ↓ choose a line, ← → (or Enter, Space, a click) change it.
Colours apply at once; the language when the window closes (the lobby is built again in it).
What the player chooses is kept for their key when the window closes (``PiocheApp.save_prefs``);
a guest's for the session.
"""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar, cast

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from widgets.keybar import KeyBar
from widgets.lines import CursorLines

from ...i18n import LANGS
from ..colours import DEPTHS, capped
from .base import Dialog

FIELDS = ("lang", "colours", "bell", "title")
LABELS = {"lang": "settings.lang", "colours": "settings.colours", "bell": "settings.bell",
          "title": "settings.title_line"}
LABEL_WIDTH = 24


class SettingsLines(CursorLines):
    """One line per setting; the screen says what they show."""

    DEFAULT_CSS = """
    SettingsLines { height: auto; }
    SettingsLines > .settingslines--cursor { background: $accent 40%; text-style: bold; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"settingslines--cursor"}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "key.choose"),
        Binding("down", "move(1)", "key.choose"),
        Binding("left", "change(-1)", "key.change", show=False),
        Binding("right,enter,space", "change(1)", "key.change"),
    ]

    def _draw(self) -> None:
        screen = self.screen
        if isinstance(screen, SettingsScreen):
            self.lines = screen.lines(self.cursor if self.has_focus else -1,
                                      self.get_component_rich_style("settingslines--cursor"))

    def action_move(self, step: int) -> None:
        self.cursor = (self.cursor + step) % len(FIELDS)

    def action_change(self, step: int) -> None:
        cast(SettingsScreen, self.screen).change(FIELDS[self.cursor], step)

    def on_click(self, event: events.Click) -> None:
        """A click on a line changes it (as → does)."""
        if 0 <= event.y < len(FIELDS):
            self.cursor = event.y
            self.action_change(1)


class SettingsScreen(Dialog[None]):
    CSS_PATH = "settings.tcss"
    AUTO_FOCUS = "SettingsLines"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("o", "close", "key.close", show=False)]

    def compose(self) -> ComposeResult:
        with Vertical(id="settings-box") as box:
            box.border_title = self.t("settings.title")
            yield SettingsLines()
            yield Static(self.t("settings.hint"), classes="muted", markup=False)
            yield KeyBar()

    def lines(self, cursor: int, cursor_style: Style) -> tuple[Text, ...]:
        """One line per setting, ``cursor`` on one of them (-1: none)."""
        t, app = self.t, self.pioche
        prefs = app.prefs
        lang = prefs.lang or app.locale_lang
        if prefs.colours == "auto":
            colours = t("settings.colours.auto", depth=self._depth(
                capped(app.terminal_colours, app.ceiling)))
        else:
            colours = self._depth(capped(prefs.colours, app.ceiling))
        values = {
            "lang": t(f"settings.lang.{lang}"),
            "colours": colours,
            "bell": t("key.yes") if prefs.bell else t("key.no"),
            "title": t("key.yes") if prefs.title else t("key.no"),
        }
        rows = []
        for index, name in enumerate(FIELDS):
            row = Text("›" if index == cursor else " ", "bold")
            row.append(f" {t(LABELS[name]):<{LABEL_WIDTH}}")
            row.append(f"‹ {values[name]} ›")
            if index == cursor:
                row.stylize(cursor_style)
            rows.append(row)
        return tuple(rows)

    def _depth(self, depth: str) -> str:
        return self.t(f"settings.depth.{depth}")

    def change(self, name: str, step: int) -> None:
        app = self.pioche
        prefs = app.prefs
        if name == "lang":
            lang = prefs.lang or app.locale_lang
            prefs = replace(prefs, lang=LANGS[(LANGS.index(lang) + step) % len(LANGS)])
        elif name == "colours":
            # Only the depths the server allows (and auto).
            offered = ("auto", *(d for d in DEPTHS if capped(d, app.ceiling) == d))
            at = offered.index(prefs.colours) if prefs.colours in offered else 0
            prefs = replace(prefs, colours=offered[(at + step) % len(offered)])
        elif name == "bell":
            prefs = replace(prefs, bell=not prefs.bell)
        else:
            prefs = replace(prefs, title=not prefs.title)
        app.set_prefs(prefs)
        self.query_one(SettingsLines)._draw()

    def action_close(self) -> None:
        self.dismiss(None)

