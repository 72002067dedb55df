"""A player's settings (the settings window): language, colours, the turn's bell and title.

Kept per key fingerprint in the database (``Database.preferences``); a guest's last their
session. What is stored is read leniently: an unknown or malformed value is the default, so an
older or newer server's rows never stop a player from connecting.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..i18n import LANGS
from .colours import CHOICES


@dataclass(frozen=True)
class Preferences:
    lang: str | None = None
    """``fr`` or ``en``; None follows the client's locale (LANG)."""
    colours: str = "auto"
    """``auto`` (what the terminal says, and NO_COLOR) or a depth (``colours.DEPTHS``), never
    more than the server allows."""
    bell: bool = True
    """Ring the terminal's bell when the player's turn comes after others played."""
    title: bool = True
    """Say « À vous — Pioche » in the window's title while it is the player's turn."""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Preferences:
        lang = data.get("lang")
        colours = data.get("colours")
        bell, title = data.get("bell"), data.get("title")
        return cls(
            lang=lang if lang in LANGS else None,
            colours=colours if colours in CHOICES else "auto",
            bell=bell if isinstance(bell, bool) else True,
            title=title if isinstance(title, bool) else True,
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
