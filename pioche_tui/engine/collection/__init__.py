"""Collection: the push-your-luck collection game of seed 000 (docs/rules/collection.md)."""

from __future__ import annotations

from .game import GAME

__all__ = ["GAME"]
