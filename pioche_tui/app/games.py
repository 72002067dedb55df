"""What the app knows of each game beyond its engine: its table options as the create dialog
offers them, the screen that shows its table, and its rules as players read them (the help).

Adding a game's screen: write ``screens/<game>.py`` with a :class:`TableScreen` subclass and
name it in ``GAME_UIS``. Until then the generic table screen shows the game's seats and log.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..i18n import MESSAGES, Catalogue

if TYPE_CHECKING:
    from .screens.table import TableScreen

RULES_DIR = Path(__file__).resolve().parents[1] / "rules"
"""The players' rules, one Markdown page per language and game (``fr/defausse.md``), shipped
with the package. (The project's own notes on the rules, with their reasons, are in docs/rules.)"""


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One table option: a yes/no, a number from ``low`` to ``high``, or one of ``choices``.
    Its label is the catalogue's ``opt.<name>`` (and ``opt.<name>.<choice>`` for choices)."""

    name: str
    kind: Literal["bool", "int", "choice"]
    default: Any
    low: int = 0
    high: int = 0
    choices: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GameUI:
    name: str
    options: tuple[OptionSpec, ...]
    screen: str = ""  # "module:Class" of its table screen, imported when first needed

    def rules_path(self, lang: str) -> Path:
        return RULES_DIR / lang / f"{self.name}.md"


GAME_UIS: dict[str, GameUI] = {
    "defausse": GameUI(
        "defausse",
        (
            OptionSpec("target", "int", 500, 100, 1000),
            OptionSpec("annonce", "bool", False),
            OptionSpec("cumul", "bool", False),
            OptionSpec("pioche_jusqua_jouer", "bool", False),
        ),
        "pioche_tui.app.screens.defausse:DefausseTableScreen",
    ),
    "collection": GameUI(
        "collection",
        (OptionSpec("mode", "choice", "classique", choices=("classique", "decouverte")),),
        "pioche_tui.app.screens.collection:CollectionTableScreen",
    ),
}


def game_ui(name: str) -> GameUI:
    return GAME_UIS.get(name) or GameUI(name, ())


def table_screen_class(game: str) -> type[TableScreen]:
    """The screen class for ``game``'s tables (imported on first use: start-up stays lean)."""
    target = game_ui(game).screen
    if not target:
        from .screens.table import TableScreen

        return TableScreen
    module, _, name = target.partition(":")
    cls: type[TableScreen] = getattr(importlib.import_module(module), name)
    return cls


@cache
def rules_page(game: str, lang: str) -> str | None:
    """The rules of ``game`` for players, in ``lang`` (Markdown), read once for the process;
    None for a game that has none."""
    try:
        return game_ui(game).rules_path(lang).read_text(encoding="utf-8")
    except OSError:
        return None


def game_title(t: Catalogue, game: str) -> str:
    key = f"game.{game}"
    return t(key) if key in MESSAGES else game


def summarise_options(t: Catalogue, game: str, options: Mapping[str, Any], timer: float | None,
                      private: bool) -> str:
    """A table's options in a few words, for the lobby (yes/no options only when on)."""
    words: list[str] = [t("lobby.private")] if private else []
    for spec in game_ui(game).options:
        value = options.get(spec.name, spec.default)
        if spec.kind == "choice":
            words.append(t(f"opt.{spec.name}.{value}"))
        elif spec.kind == "int":
            words.append(t(f"optshort.{spec.name}", value=value))
        elif value:
            words.append(t(f"optshort.{spec.name}"))
    words.append(t("optshort.timer", n=f"{timer:g}") if timer else t("optshort.no_timer"))
    return ", ".join(words)
