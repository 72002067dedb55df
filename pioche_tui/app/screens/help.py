"""Help: every key of the screen it was opened from, then the rules of the game(s)."""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Input, Static

from widgets.document import MarkdownPage
from widgets.keybar import KeyBar

from ..games import game_title, game_ui
from .base import Dialog, describe


def screen_bindings(screen: Screen[Any]) -> list[Binding]:
    """Every binding of a Pioche screen and of the widgets on it: the game's widgets (a hand's
    arrows) first, then the screen's, then the inputs' (the chat's Enter and Escape). The keys
    Textual binds everywhere are described apart."""
    classes: list[type] = []
    widgets = screen.walk_children()
    inputs = [w for w in widgets if isinstance(w, Input)]  # typing keys: least needed, last
    for node in (*(w for w in widgets if not isinstance(w, Input)), screen, *inputs):
        for cls in type(node).__mro__:
            if cls.__module__.startswith(("pioche_tui.", "widgets.")) and cls not in classes:
                classes.append(cls)
    found: list[Binding] = []
    for cls in classes:
        declared: Iterable[BindingType] = cls.__dict__.get("BINDINGS", ())
        found.extend(Binding.make_bindings(declared))
    return found


def merge_keys(keys: Sequence[str]) -> str:
    """"1", "2", … "9" → "1–9"; otherwise the keys joined with " / "."""
    if len(keys) > 2 and all(len(k) == 1 and k.isdigit() for k in keys):
        return f"{keys[0]}–{keys[-1]}"
    return " / ".join(keys)


class HelpScreen(Dialog[None]):
    """Built once per app and shown again for whichever screen asks (``show_for``)."""

    CSS_PATH = "help.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark,q", "close", "key.close", show=False),
    ]

    def __init__(self, under: Screen[Any], games: Sequence[str]) -> None:
        super().__init__()
        self.show_for(under, games)

    def compose(self) -> ComposeResult:
        yield Static(self.t("help.title"), id="help-title", classes="title", markup=False)
        with VerticalScroll(id="help-scroll"):
            # Not Textual's Markdown widget (a widget per block: seconds of CPU for a page of
            # rules on a shared server), nor Rich's in a Static (rendered again at each
            # opening): rendered once for the process (widgets/document.py).
            yield MarkdownPage(self.document(), id="help-text")
        yield KeyBar()

    def show_for(self, under: Screen[Any], games: Sequence[str]) -> None:
        """Show the keys of ``under`` and the rules of ``games`` from now on, from the top."""
        # Weakly: the help, kept for the next time, does not keep the screen it was opened
        # from (a table screen, long closed).
        self._under = weakref.ref(under)
        self.games = tuple(games)
        if self.is_mounted:
            self.query_one(MarkdownPage).markdown = self.document()
            self.query_one("#help-scroll", VerticalScroll).scroll_home(animate=False)

    @property
    def under(self) -> Screen[Any]:
        """The screen the help was opened from (it is under the help while it is shown)."""
        under = self._under()
        assert under is not None, "the screen under the help is gone"
        return under

    def on_screen_resume(self) -> None:
        self.query_one("#help-scroll").focus()

    def keys_table(self) -> list[str]:
        t = self.t
        rows: dict[str, list[str]] = {}
        for binding in screen_bindings(self.under):
            keys = rows.setdefault(describe(t, binding, long=True), [])
            display = self.app.get_key_display(binding)
            if display not in keys:
                keys.append(display)
        everywhere = (("Ctrl+Q", t("help.ctrl_q")), ("Tab", t("help.tab")),
                      (t("keyname.esc").capitalize(), t("help.escape")))
        lines = [f"## {t('help.keys')}", "", f"| {t('help.col.key')} | {t('help.col.action')} |",
                 "|---|---|"]
        lines += [f"| `{merge_keys(keys)}` | {text} |" for text, keys in rows.items()]
        lines += [f"| `{key}` | {text} |" for key, text in everywhere]
        return lines

    def document(self) -> str:
        t = self.t
        parts = ["\n".join(self.keys_table())]
        legend = getattr(self.under, "legend", None)  # what a game's signs mean, if it says
        if callable(legend):
            parts.append(legend())
        for game in self.games:
            title = game_title(t, game)
            path = game_ui(game).rules_path
            try:
                rules = path.read_text(encoding="utf-8")
            except OSError:
                rules = t("help.no_rules", game=title)
            note = t("help.rules_french")
            parts.append(f"## {t('help.rules', game=title)}\n\n" + (f"*{note}*\n\n" if note
                                                                      else "") + rules)
        return "\n\n".join(parts)
