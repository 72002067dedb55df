"""What every game engine offers the rest of Pioche.

An engine is a module-level object that satisfies :class:`Game`. It is pure: standard library
only, no I/O, no clock, no asyncio. Its state is a mutable object it owns and changes in place
(speed: bots and the simulator play thousands of games a second); everything that leaves it —
views, events, outcomes — is a fresh frozen dataclass built from tuples.

The same seed and the same list of ``(seat, action)`` give the same game, always: the state
carries its own ``random.Random(seed)`` and nothing else draws randomness. The coordinator's
log, restoring tables after a restart, replays and bug reports all rest on that.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

Wire = Any
"""A value made only of ints, strings, bools, None, lists/tuples and str-keyed dicts: what the
store can write with msgpack and read back as the same thing."""


class IllegalAction(Exception):
    """An action the rules refuse. Raised before any change: the state is as it was.

    ``str(error)`` is a sentence a player can read (in French, like the rest of the game).
    """


class BadOptions(ValueError):
    """Table options or a seat count the game does not accept; the message says which and why."""


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, for the screen's log and animations.

    ``args`` is public. ``secret`` holds what only ``seat`` may know (the cards they drew, what a
    Flip showed them); :meth:`seen_by` strips it for everybody else. One event list per action,
    filtered per viewer, so a hidden card can only leave the engine through its owner's copy.
    """

    kind: str
    seat: int | None = None
    args: tuple[Any, ...] = ()
    secret: tuple[Any, ...] = ()

    def seen_by(self, viewer: int | None) -> Event:
        if not self.secret or viewer == self.seat:
            return self
        return Event(self.kind, self.seat, self.args)


def events_seen_by(events: Sequence[Event], viewer: int | None) -> tuple[Event, ...]:
    """The events as ``viewer`` (a seat, or None for a spectator) may see them."""
    return tuple(e.seen_by(viewer) for e in events)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: final scores by seat, the winners (several when shared), how many
    rounds were played, a short reason a screen can show, and each seat's finishing place as
    the game's rules rank players (``places``: 1 is first; seats tied share a place, the next
    place skips as many: 1, 1, 3). A game that gives no places ranks its winners first, then
    by score (``standing``)."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    rounds: int = 1
    reason: str = ""
    places: tuple[int, ...] = ()

    def standing(self) -> tuple[int, ...]:
        """Each seat's finishing place: ``places``, or the winners first, then by score."""
        if len(self.places) == len(self.scores):
            return self.places
        return places_by([(s in self.winners, score) for s, score in enumerate(self.scores)])


def places_by(keys: Sequence[Any]) -> tuple[int, ...]:
    """The finishing places of seats ranked by ``keys`` (higher is better, equal keys tie):
    ``places_by([5, 9, 5, 1]) == (2, 1, 2, 4)``."""
    return tuple(1 + sum(1 for other in keys if other > key) for key in keys)


StateT = TypeVar("StateT")
ActionT = TypeVar("ActionT")


class Bot(Protocol):
    """A player program. ``choose`` may read the state but only what ``seat`` could see: its own
    hidden cards and the public table (bots never peek at draw piles or other hands). ``rng`` is
    the bot's own seeded generator, never the game's, so bots do not change the deal."""

    name: str

    def choose(self, state: Any, seat: int, legal: Sequence[Any], rng: random.Random) -> Any: ...

    def interject(
        self, state: Any, seat: int, legal: Sequence[Any], rng: random.Random
    ) -> Any | None:
        """An out-of-turn action (see Game.interjectors), or None to let the moment pass."""
        ...


class Game(Protocol[StateT, ActionT]):
    """The rules of one game, as the coordinator, bots and simulator use them."""

    name: str  # "defausse", "collection": the key in GAMES and in logs
    title: str  # shown to players
    min_seats: int
    max_seats: int

    def options(self, raw: Mapping[str, Any]) -> Mapping[str, Any]:
        """Check table options and fill in defaults; raise BadOptions with a reason."""
        ...

    def new_game(self, seats: int, options: Mapping[str, Any], seed: int) -> StateT:
        """A game ready for its first action (dealt, first card resolved)."""
        ...

    def to_act(self, state: StateT) -> tuple[int, ...]:
        """Seats that may act now: one, several in a simultaneous phase, none once over."""
        ...

    def interjectors(self, state: StateT) -> tuple[int, ...]:
        """Seats outside to_act() that hold an out-of-turn action now — Défausse's catch of a
        missing announcement — usually none. Their legal_actions() list only those actions."""
        ...

    def legal_actions(self, state: StateT, seat: int) -> Sequence[ActionT]:
        """The actions ``seat`` may take now (empty when there are none, and for a seat number
        not at the table). apply() accepts exactly these (tests/engine/test_legal_is_exact.py);
        where the choices are too many to list (Collection's validation) this lists a
        documented representative set, which is what bots choose from."""
        ...

    def apply(self, state: StateT, seat: int, action: ActionT) -> list[Event]:
        """Check and apply; raise IllegalAction (state unchanged) if the rules refuse it, or if
        ``seat`` is not a seat of the table."""
        ...

    def view(self, state: StateT, seat: int | None) -> Any:
        """What ``seat`` sees (None: a spectator), as a frozen dataclass of tuples."""
        ...

    def outcome(self, state: StateT) -> Outcome | None:
        """None while the game goes on."""
        ...

    def action_to_wire(self, action: ActionT) -> Wire: ...

    def action_from_wire(self, data: Wire) -> ActionT:
        """Inverse of action_to_wire; raise ValueError on anything malformed."""
        ...

    def bot(self, name: str) -> Bot:
        """A bot by name ("random", "basic"); KeyError if there is none."""
        ...

    def stand_in_action(self, state: StateT, seat: int) -> ActionT | None:
        """What a player's stand-in must do now, where the rules say it (their turn timer ran
        out, or they are away): Collection's validation takes the best-scoring selection. None:
        the stand-in bot chooses."""
        ...

    def bot_names(self) -> tuple[str, ...]: ...


def new_rng(seed: int) -> random.Random:
    """The one way engines make randomness: a private generator from an integer seed."""
    return random.Random(seed)


def derive_seed(seed: int, *salt: int) -> int:
    """A new 63-bit seed from a seed and integers (a round number, a seat), stable across runs
    and Python versions (no ``hash()``, which is salted per process for strings)."""
    x = seed & 0xFFFFFFFFFFFFFFFF
    for s in salt:
        x ^= (s + 0x9E3779B97F4A7C15 + (x << 6) + (x >> 2)) & 0xFFFFFFFFFFFFFFFF
        # splitmix64 finaliser: spreads nearby inputs over the whole range
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9 & 0xFFFFFFFFFFFFFFFF
        x = (x ^ (x >> 27)) * 0x94D049BB133111EB & 0xFFFFFFFFFFFFFFFF
        x ^= x >> 31
    return x & 0x7FFFFFFFFFFFFFFF


class RandomBot:
    """Uniform over the legal actions: the baseline every game has."""

    name = "random"

    def choose(self, state: object, seat: int, legal: Sequence[Any], rng: random.Random) -> Any:
        return legal[rng.randrange(len(legal))]

    def interject(
        self, state: object, seat: int, legal: Sequence[Any], rng: random.Random
    ) -> Any | None:
        """Uniform over the legal actions and doing nothing."""
        i = rng.randrange(len(legal) + 1)
        return legal[i] if i < len(legal) else None
