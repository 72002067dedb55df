"""Values as the other side of the wire reads them, and a client whose every answer, refusal
and mail crosses the codecs: a ``CoordinatorClient`` implementation for the contract suite
(tests/contract/), to prove that what the in-process client hands over would cross unchanged.

``crossed`` is what a bus will do to a request's arguments and to its answer: registered values
through their codecs (pioche_tui/wire.py), tuples, lists, dicts and frozensets item by item,
plain scalars through msgpack. The toy game of the app's tests gets codecs of its own here
(``register_toy``): its view crosses as a game's view does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgpack

from pioche_tui import wire
from pioche_tui.coordinator.model import Refused
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


class ThroughTheWire:
    """Wraps a client: its requests' arguments, answers and refusals, its mail and what it
    knows of its player all cross the codecs (``crossed``)."""

    def __init__(self, client: Any) -> None:
        self._client = client

    @property
    def player(self) -> Any:
        return crossed(self._client.player)

    @property
    def open(self) -> bool:
        return bool(self._client.open)

    @property
    def pending(self) -> bool:
        return bool(self._client.pending)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        request = getattr(self._client, name)

        async def crossing(*args: Any, **kwargs: Any) -> Any:
            try:
                answer = await request(*crossed(args), **crossed(kwargs))
            except Refused as refusal:
                raise crossed(refusal) from None
            return crossed(answer)

        return crossing


class WireConnector:
    """A connector whose clients are wrapped in ``ThroughTheWire``."""

    def __init__(self, connector: Any) -> None:
        register_toy()
        self._connector = connector

    def client(self) -> ThroughTheWire:
        return ThroughTheWire(self._connector.client())
