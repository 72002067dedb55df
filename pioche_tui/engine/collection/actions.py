"""What a Collection player can do, and how an action is written in a table log.

Actions are small frozen dataclasses; the ones without arguments exist once (``LOCK``, ``STOP``…)
so that listing legal actions costs nothing. ``to_wire``/``from_wire`` turn them into plain lists
and back; ``from_wire`` reads untrusted logs, so it checks every field and raises ValueError.
Whether an action is *legal* is the rules' business (rules.py), not the codec's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import CARD_COUNT, OBJECTIVES
from .objectives import Combination

MAX_SEATS = 6


@dataclass(frozen=True, slots=True)
class Lock:
    """Lock the pile: it joins the collection. The whole turn."""


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw the top card of draw pile ``pile`` (0: A, 1: B)."""

    pile: int


@dataclass(frozen=True, slots=True)
class Stop:
    """End the turn after drawing (the pile stays, unlocked), or end a skipped turn."""


@dataclass(frozen=True, slots=True)
class Activate:
    """Play a special card: the one just drawn, or one from the reserve. ``target`` is the seat
    aimed at (Double, Passe Ton Tour, Swipe), ``pile`` the draw pile a Quantique takes from."""

    card: int
    target: int | None = None
    pile: int | None = None


@dataclass(frozen=True, slots=True)
class Reserve:
    """Put the special card just drawn in the reserve."""


@dataclass(frozen=True, slots=True)
class ShadowChoice:
    """After a Shadow: discard it and keep the pile (True), or lose the pile and start a new one
    with the Shadow (False)."""

    keep_pile: bool


@dataclass(frozen=True, slots=True)
class PlayJoker:
    """Answer the Shadow just drawn with the Joker from the reserve."""


@dataclass(frozen=True, slots=True)
class Keep:
    """Keep one of the Quantique's cards, or none (None)."""

    card: int | None


@dataclass(frozen=True, slots=True)
class Validate:
    """The combinations a player validates at the end of a round (possibly none)."""

    combos: tuple[Combination, ...] = ()


Action = Lock | Draw | Stop | Activate | Reserve | ShadowChoice | PlayJoker | Keep | Validate

LOCK = Lock()
STOP = Stop()
RESERVE = Reserve()
PLAY_JOKER = PlayJoker()
KEEP_PILE = ShadowChoice(True)
NEW_PILE = ShadowChoice(False)
DRAWS = (Draw(0), Draw(1))
VALIDATE_NOTHING = Validate(())


def to_wire(action: Action) -> list[Any]:
    if isinstance(action, Lock):
        return ["lock"]
    if isinstance(action, Draw):
        return ["draw", action.pile]
    if isinstance(action, Stop):
        return ["stop"]
    if isinstance(action, Activate):
        return ["activate", action.card, action.target, action.pile]
    if isinstance(action, Reserve):
        return ["reserve"]
    if isinstance(action, ShadowChoice):
        return ["shadow", action.keep_pile]
    if isinstance(action, PlayJoker):
        return ["joker"]
    if isinstance(action, Keep):
        return ["keep", action.card]
    return ["validate", [[c.objective, list(c.cards), c.points] for c in action.combos]]


def _int(value: Any, low: int, high: int, what: str) -> int:
    if type(value) is not int or not low <= value < high:
        raise ValueError(f"{what}: expected an int in [{low}, {high}), got {value!r}")
    return value


def _optional_int(value: Any, low: int, high: int, what: str) -> int | None:
    return None if value is None else _int(value, low, high, what)


def _list(value: Any, what: str, max_len: int) -> list[Any] | tuple[Any, ...]:
    if not isinstance(value, list | tuple) or len(value) > max_len:
        raise ValueError(f"{what}: expected a list of at most {max_len} items, got {value!r}")
    return value


def _combination(data: Any) -> Combination:
    items = _list(data, "combination", 3)
    if len(items) != 3:
        raise ValueError(f"combination: expected [objective, cards, points], got {data!r}")
    objective = _int(items[0], 1, len(OBJECTIVES) + 1, "objective")
    cards = tuple(_int(c, 0, CARD_COUNT, "card") for c in _list(items[1], "cards", 5))
    return Combination(objective, cards, _int(items[2], 0, 1000, "points"))


def from_wire(data: Any) -> Action:
    """The action ``data`` stands for; ValueError if it is not exactly a well-formed action."""
    items = _list(data, "action", 4)
    if not items or not isinstance(items[0], str):
        raise ValueError(f"action: expected [name, ...], got {data!r}")
    name, args = items[0], items[1:]
    arity = {"lock": 0, "draw": 1, "stop": 0, "activate": 3, "reserve": 0, "shadow": 1,
             "joker": 0, "keep": 1, "validate": 1}
    if name not in arity:
        raise ValueError(f"action: unknown name {name!r}")
    if len(args) != arity[name]:
        raise ValueError(f"action {name!r}: expected {arity[name]} arguments, got {len(args)}")
    if name == "lock":
        return LOCK
    if name == "draw":
        return DRAWS[_int(args[0], 0, 2, "pile")]
    if name == "stop":
        return STOP
    if name == "activate":
        return Activate(
            _int(args[0], 0, CARD_COUNT, "card"),
            _optional_int(args[1], 0, MAX_SEATS, "target"),
            _optional_int(args[2], 0, 2, "pile"),
        )
    if name == "reserve":
        return RESERVE
    if name == "shadow":
        if type(args[0]) is not bool:
            raise ValueError(f"shadow: expected a bool, got {args[0]!r}")
        return KEEP_PILE if args[0] else NEW_PILE
    if name == "joker":
        return PLAY_JOKER
    if name == "keep":
        return Keep(_optional_int(args[0], 0, CARD_COUNT, "card"))
    combos = _list(args[0], "combinations", len(OBJECTIVES))
    return Validate(tuple(_combination(c) for c in combos))
