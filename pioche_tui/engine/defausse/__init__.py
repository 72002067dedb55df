"""Défausse: the shedding game of colours, numbers, Passe, Inverse, +2 and Jokers.

``GAME`` is the engine (a :class:`~pioche_tui.engine.base.Game`); the rules are in
``docs/rules/defausse.md``. Cards are ints 0–107 (see :mod:`.cards`), actions the small frozen
dataclasses of :mod:`.rules`, views :class:`.views.DefausseView`.

Events (``kind``, ``seat``, ``args``; ``secret`` only for ``seat``), in the order they happen:

- ``round`` (None; round number, dealer): a round starts; ``deal`` (seat; 7; secret: the hand)
  for each seat; ``flip`` (None; card): a card turned to start the discard (a Joker +4 is
  followed by ``reshuffle`` and another ``flip``); then the first card's effect, as below.
- ``play`` (seat; card, colour now active); ``announce`` (seat): with the card, option annonce.
- ``skip`` (the seat that loses its turn); ``reverse`` (None; new direction, 1 or -1).
- ``penalty`` (seat; how many; secret: the cards): drawn for a +2, a Joker +4, the cumul total
  or a catch; ``catch`` (culprit; catcher) comes before its penalty.
- ``draw`` (seat; how many; secret: the cards); ``keep`` (seat): the drawn card kept (after
  every draw that is not laid, whether it fits or not: the table cannot tell);
  ``pass`` (seat): nothing left to draw and nothing to lay; ``colour`` (seat; colour): the
  colour of a first-card Joker.
- ``reshuffle`` (None; new draw pile size): the discard but its top became the draw pile.
- ``round_end`` (winner; points left in each hand, points scored); then ``game_end`` (None;
  scores, winners) or the next round's events.
"""

from __future__ import annotations

from ..base import Bot, Game, Wire
from . import rules
from .bots import BOTS
from .cards import COLOURS, DECK_SIZE
from .rules import (
    CATCH,
    CHOOSE,
    DRAW,
    KEEP,
    MAX_SEATS,
    MIN_SEATS,
    PLAYS_OR_ANNOUNCE,
    Action,
    Catch,
    ChooseColour,
    Draw,
    Keep,
    Play,
    State,
)
from .views import DefausseView, view

__all__ = [
    "GAME", "Action", "Catch", "ChooseColour", "DefausseView", "Draw", "Keep", "Play", "State",
]  # fmt: skip


def action_to_wire(action: Action) -> Wire:
    """An action as a plain list: ``["play", card, colour, announce]``, ``["draw"]``,
    ``["keep"]``, ``["colour", colour]``, ``["catch", seat]``."""
    if isinstance(action, Play):
        return ["play", action.card, action.colour, action.announce]
    if isinstance(action, Draw):
        return ["draw"]
    if isinstance(action, Keep):
        return ["keep"]
    if isinstance(action, ChooseColour):
        return ["colour", action.colour]
    if isinstance(action, Catch):
        return ["catch", action.target]
    raise TypeError(f"not a Défausse action: {action!r}")


def _index(value: object, size: int, what: str) -> int:
    if type(value) is not int or not 0 <= value < size:
        raise ValueError(f"bad {what}: {value!r}")
    return value


def action_from_wire(data: Wire) -> Action:
    """Inverse of :func:`action_to_wire`; ValueError on anything malformed (logs are
    untrusted). Returns the engine's shared action objects."""
    if not isinstance(data, list | tuple) or not data or not isinstance(data[0], str):
        raise ValueError(f"not a Défausse action: {data!r}")
    kind, args = data[0], data[1:]
    if kind == "play" and len(args) == 3:
        card = _index(args[0], DECK_SIZE, "card")
        colour, announce = args[1], args[2]
        if type(announce) is not bool:
            raise ValueError(f"bad announcement flag: {announce!r}")
        if colour is not None:
            _index(colour, len(COLOURS), "colour")
        for action in PLAYS_OR_ANNOUNCE[card]:
            if action.colour == colour and action.announce == announce:
                return action
        raise ValueError(f"card {card} cannot take the colour {colour!r}")
    if kind == "draw" and not args:
        return DRAW
    if kind == "keep" and not args:
        return KEEP
    if kind == "colour" and len(args) == 1:
        return CHOOSE[_index(args[0], len(COLOURS), "colour")]
    if kind == "catch" and len(args) == 1:
        return CATCH[_index(args[0], MAX_SEATS, "seat")]
    raise ValueError(f"not a Défausse action: {data!r}")


class Defausse:
    """The Défausse engine; the rules' functions are the methods."""

    name = "defausse"
    title = "Défausse"
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS

    options = staticmethod(rules.check_options)
    new_game = staticmethod(rules.new_game)
    to_act = staticmethod(rules.to_act)
    interjectors = staticmethod(rules.interjectors)
    legal_actions = staticmethod(rules.legal_actions)
    apply = staticmethod(rules.apply)
    view = staticmethod(view)
    outcome = staticmethod(rules.outcome)
    action_to_wire = staticmethod(action_to_wire)
    action_from_wire = staticmethod(action_from_wire)

    def bot(self, name: str) -> Bot:
        return BOTS[name]

    def stand_in_action(self, state: State, seat: int) -> Action | None:
        """The rules say nothing of a stand-in's moves: the bot chooses."""
        return None

    def bot_names(self) -> tuple[str, ...]:
        return tuple(BOTS)


GAME: Game[State, Action] = Defausse()
