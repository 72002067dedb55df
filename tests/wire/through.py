"""Values as the other side of the wire reads them, for the contract suite (tests/contract/):
a client wrapped so that every request, answer, refusal and mail is ``crossed`` proves that
what the in-process client hands over would cross the wire unchanged.

``crossed`` is what a bus will do: ``wire.encode`` then ``wire.decode``, nothing else. The
contract suite sends each request as a ``wire.Call``, its answer as a ``wire.Answer`` and a
refusal as its ``Refused``. The toy game of the app's tests gets a codec of its own here
(``register_toy``): its view crosses as a game's view does (its actions are ints).
"""

from __future__ import annotations

from typing import Any

from pioche_tui import wire
from tests.app.toy import ToyView

TOY_VIEW = wire.record(ToyView, "toy.View", total=wire.INT, current=wire.OPT_INT,
                       outcome=wire.OUTCOME)


def register_toy() -> None:
    """The toy game's view may cross (its actions are ints: plain data)."""
    wire.register(TOY_VIEW, view=True)


def crossed(value: Any) -> Any:
    """``value`` (a registered value) encoded and decoded; WireError if it cannot cross."""
    return wire.decode(wire.encode(value), expect=type(value))
