"""The games' rules, pure: standard library only (see base.py and design.md).

``GAMES`` maps a game's name to its engine object (a :class:`~.base.Game`).
"""

from __future__ import annotations

from typing import Any

from .base import Game
from .collection import GAME as COLLECTION
from .defausse import GAME as DEFAUSSE

GAMES: dict[str, Game[Any, Any]] = {g.name: g for g in (DEFAUSSE, COLLECTION)}
