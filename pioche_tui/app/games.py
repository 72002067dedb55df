"""What the app knows of each game beyond its engine: its table options as the create dialog
offers them, the screen that shows its table, and where its rules are written.

Adding a game's screen: write ``screens/<game>.py`` with a :class:`TableScreen` subclass and
name it in ``GAME_UIS``. Until then the generic table screen shows the game's seats and log.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..i18n import MESSAGES, Catalogue

if TYPE_CHECKING:
    from .screens.table import TableScreen

RULES_DIR = Path(__file__).resolve().parents[2] / "docs" / "rules"


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

    @property
    def rules_path(self) -> Path:
        return RULES_DIR / f"{self.name}.md"


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
