"""Values as the other side of the wire reads them, for the contract suite (tests/contract/):
a client wrapped so that every argument, answer, refusal and mail is ``crossed`` proves that
what the in-process client hands over would cross the wire unchanged.

``crossed`` is what a bus will do to a request's arguments and to its answer: registered values
through their codecs (pioche_tui/wire.py), tuples, lists, dicts and frozensets item by item,
plain scalars through msgpack. The toy game of the app's tests gets a codec of its own here
(``register_toy``): its view crosses as a game's view does (its actions are ints).
"""

from __future__ import annotations

from typing import Any

import msgpack

from pioche_tui import wire
from tests.app.toy import ToyView

TOY_VIEW = wire.record(ToyView, "toy.View", total=wire.INT, current=wire.OPT_INT,
                       outcome=wire.OUTCOME)


def register_toy() -> None:
    """The toy game's view may cross (its actions are ints: plain data)."""
    wire.register(TOY_VIEW, view=True)


def crossed(value: Any) -> Any:
    """``value`` encoded and decoded; WireError if some part of it cannot cross."""
    if value is None or type(value) in (bool, int, float, str):
        return msgpack.unpackb(msgpack.packb(value))
    if type(value) in (tuple, list, frozenset):
        return type(value)(crossed(item) for item in value)
    if type(value) is dict:
        return {crossed(k): crossed(v) for k, v in value.items()}
    return wire.decode(wire.encode(value), expect=type(value))
