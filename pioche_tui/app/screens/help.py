"""Help: the rules of each game as players read them, and every key of the screen it was opened
from, one page at a time under a row of tabs.

At a table the help opens on that game's rules (its keys one page away); from the lobby, on the
keys, with the rules of every game beside them. The pages are the Markdown files of
pioche_tui/rules/<lang>/, in the player's language (tests/app/test_rules_pages.py holds them to
the engines)."""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Input, Static, Tab, Tabs

from widgets.document import MarkdownPage
from widgets.keybar import KeyBar

from ...i18n import Catalogue
from ..games import GAME_UIS, game_title, rules_page
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


KEYS = "keys"
"""The page of keys; the other pages are named after their game."""


def typeset(t: Catalogue, markdown: str) -> str:
    """French puts a space before « : », « ; », « ! », « ? » and inside « »: a no-break one,
    so that no line of the help starts with a colon (widgets/document.py keeps it whole)."""
    if t.lang != "fr":
        return markdown
    return re.sub(r" (?=[:;!?»])|(?<=«) ", "\u00a0", markdown)


def merge_keys(keys: Sequence[str]) -> str:
    """"1", "2", … "9" → "1–9"; otherwise the keys joined with " / "."""
    if len(keys) > 2 and all(len(k) == 1 and k.isdigit() for k in keys):
        return f"{keys[0]}–{keys[-1]}"
    return " / ".join(keys)


class HelpScreen(Dialog[None]):
    """Built once per app and shown again for whichever screen asks (``show_for``): its tabs
    are made once, for every game with rules, and only those of the games asked are shown."""

    CSS_PATH = "help.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark,q", "close", "key.close", show=False),
        # Before the scrolling area's own arrows: the help never scrolls sideways.
        Binding("left", "turn(-1)", "key.page", priority=True),
        Binding("right", "turn(1)", "key.page", priority=True),
    ]

    def __init__(self, under: Screen[Any], games: Sequence[str]) -> None:
        super().__init__()
        self.show_for(under, games)

    @property
    def all_pages(self) -> tuple[str, ...]:
        """Every page the help can show in this language: the keys, then each game's rules."""
        return (KEYS, *(game for game in GAME_UIS if rules_page(game, self.t.lang)))

    def compose(self) -> ComposeResult:
        t = self.t
        yield Static(t("help.title"), id="help-title", classes="title", markup=False)
        yield Tabs(*(Tab(t("help.keys") if page == KEYS else t("help.rules",
                                                                game=game_title(t, page)),
                         id=page) for page in self.all_pages),
                   id="help-tabs")  # its page is chosen once mounted (_show_tabs)
        with VerticalScroll(id="help-scroll"):
            # Not Textual's Markdown widget (a widget per block: seconds of CPU for a page of
            # rules on a shared server), nor Rich's in a Static (rendered again at each
            # opening): rendered once for the process (widgets/document.py).
            yield MarkdownPage(self.shown(), id="help-text")
        yield KeyBar()

    def on_mount(self) -> None:
        # The page's tab is chosen here, not in compose: Tabs would look for it as it is
        # mounted, and Textual mounts the widgets of a window closed before it was shown
        # (KeyBarMixin.closed_unseen), where it is gone. The arrows and a click turn the
        # pages: the focus stays on the page, which scrolls.
        self.query_one(Tabs).can_focus = False
        self._show_tabs()

    def show_for(self, under: Screen[Any], games: Sequence[str]) -> None:
        """Show the keys of ``under`` and the rules of ``games`` from now on: the game's rules
        when there is one game, else the keys; from the top."""
        # Weakly: the help, kept for the next time, does not keep the screen it was opened
        # from (a table screen, long closed).
        self._under = weakref.ref(under)
        self.pages = tuple(page for page in self.all_pages if page == KEYS or page in games)
        self.page = self.pages[1] if len(self.pages) == 2 else KEYS
        if self.is_mounted:
            self._show_tabs()
            self._show_page()

    def _show_tabs(self) -> None:
        tabs = self.query_one(Tabs)
        for page in self.all_pages:
            tabs.query_one(f"#{page}", Tab).set_class(page not in self.pages, "-hidden")
        tabs.active = self.page

    def _show_page(self) -> None:
        self.query_one(MarkdownPage).markdown = self.shown()
        self.query_one("#help-scroll", VerticalScroll).scroll_home(animate=False)

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        """A tab clicked (the arrows have turned the page already)."""
        event.stop()
        page = event.tab.id or KEYS
        if page != event.tabs.active:
            return  # the first tab, which Tabs activates as it is mounted, before _show_tabs
        if page != self.page and page in self.pages:
            self.page = page
            self._show_page()

    def action_turn(self, step: int) -> None:
        """The page before or after (round the row)."""
        pages = self.pages
        self.page = pages[(pages.index(self.page) + step) % len(pages)]
        # The tab and the page together: one layout and one frame, not one each.
        self.query_one(Tabs).active = self.page
        self._show_page()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action != "turn" or len(self.pages) > 1

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
        restricted: frozenset[str] = getattr(self.under, "RESTRICTED", frozenset())
        for binding in screen_bindings(self.under):
            if binding.action in restricted and not self.under.check_action(binding.action, ()):
                continue  # (a key only some players have: the Admin screen's)
            keys = rows.setdefault(describe(t, binding, long=True), [])
            display = self.app.get_key_display(binding)
            if display not in keys:
                keys.append(display)
        everywhere = (("Ctrl+Q", t("help.ctrl_q")), ("Tab", t("help.tab")),
                      (t("keyname.esc").capitalize(), t("help.escape")))
        lines = [f"| {t('help.col.key')} | {t('help.col.action')} |", "|---|---|"]
        lines += [f"| `{merge_keys(keys)}` | {text} |" for text, keys in rows.items()]
        lines += [f"| `{key}` | {text} |" for key, text in everywhere]
        return lines

    def page_text(self, page: str) -> str:
        """The Markdown of ``page``: a game's rules, or the keys of the screen under the help
        (with what a game's signs mean, where its screen says)."""
        if page != KEYS:
            return rules_page(page, self.t.lang) or ""
        parts = ["\n".join(self.keys_table())]
        legend = getattr(self.under, "legend", None)
        if callable(legend):
            parts.append(legend())
        return "\n\n".join(parts)

    def document(self) -> str:
        """The Markdown of the page shown."""
        return self.page_text(self.page)

    def shown(self) -> str:
        """The page shown, typeset for the screen."""
        return typeset(self.t, self.document())
