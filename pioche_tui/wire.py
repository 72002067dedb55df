"""The msgpack codecs of everything that crosses the seam between the apps and the coordinator.

Today the apps and the coordinator share one process and hand each other these values as they
are; once they live in separate processes (the workers of ``pioche serve --workers``, then a
cluster), what one sends the other is ``encode(value)`` and what it reads is ``decode(data)``.

**The format: a tagged map.** Every value is a msgpack map: the key ``"$"`` holds the type's
tag (``"TableUpdate"``, ``"defausse.View"``…), every other key is one of the type's fields by
name. Fields hold ints, strings, bools, None, floats, arrays (read back as tuples) and more
tagged maps. Names over positions: a message reads on its own in a dump, and a reader told of
a field it does not know says which, instead of shifting the others. (Not msgpack's ext
types: their payload is bytes to unpack a second time, under limits of its own.)

**The registry** (``CODECS``) is the list of the types allowed, each written out by hand: its
tag, its fields and the kind of each (``INT``, ``Optional(STR)``, ``Tuple(One("Event"))``…).
Nothing is encoded by reflection, nothing is decoded by a class name read from the bytes: a
tag not in the registry is refused, and so is a value of a type without a codec — a type added
later must be given one (tests/wire/: real games through a real coordinator, everything that
reaches a mailbox round-tripped; each codec checked to name its type's fields). Other games
(the tests' toy game) add theirs with ``register``.

**Refusals.** ``decode`` raises :class:`WireError`, and only it, on anything that is not
exactly a registered value: bytes that are no msgpack or are cut short or run on, an unknown
tag, an unknown or missing field, a field of the wrong type; the message names the type and
the field (``TableUpdate.seat: expected an int or None, got 'x'``). Sizes are bounded before
anything is built (msgpack's own limits: ``MAX_BYTES``, ``MAX_ITEMS``, ``MAX_STR``). ``encode``
raises it too, for a value it has no codec for.

**Requests and answers.** A client's request crosses as a ``Call``: the request's name (a
method of ``client.CoordinatorClient``) and every one of its arguments by name; what it
returns crosses as an ``Answer`` naming the request, and a refusal as the ``Refused`` it
raised. ``REQUESTS`` lists, by hand as the codecs, each request's arguments and the kind of
its answer: an unknown request, an unknown or missing argument, an argument or an answer of
the wrong kind are refused as any other field. (``create_table``'s ``bots``, seat numbers to
bot names, crosses as pairs: msgpack's map keys are strings here.) The news read by ``mail``
is that request's answer, a ``Mail``.

The engines' actions cross as the engines write them in table logs (``Game.action_to_wire``,
checked by ``Game.action_from_wire``): one codec per game, not one per action.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, get_args

import msgpack

from .coordinator.mailbox import Mail, Notice
from .coordinator.model import (
    UNRATED,
    AdminSession,
    AdminTable,
    AdminView,
    Ban,
    ChatLine,
    GameInfo,
    GamePlayed,
    GuestPass,
    LeaderboardRow,
    LobbySnapshot,
    OnlineEntry,
    Place,
    Player,
    PlayerStats,
    Profile,
    Refused,
    Replay,
    ReplayFrame,
    SeatInfo,
    SeatKind,
    ServerInfo,
    TableStatus,
    TableSummary,
    TableUpdate,
)
from .engine.base import Event, Game, Outcome
from .engine.collection import GAME as COLLECTION
from .engine.collection import actions as collection_actions
from .engine.collection.objectives import Combination
from .engine.collection.views import CollectionView, SeatView
from .engine.defausse import GAME as DEFAUSSE
from .engine.defausse import rules as defausse_rules
from .engine.defausse.rules import RoundResult
from .engine.defausse.views import DefausseView

TAG = "$"
MAX_BYTES = 8 * 1024 * 1024
"""The largest message read. The largest real ones: a lobby of 200 six-seat tables and 1,000
sessions online is 220 KiB; a first table update with the table's history (``table.HISTORY``
moves, some 800 events) 35 KiB."""
MAX_ITEMS = 65_536  # in one array: the lobby's sessions online, a history's events
MAX_FIELDS = 64  # in one map: the most fields a type has, with room
VERSION = 1
"""The wire's version: a front and a coordinator of different versions refuse each other (header
``bus.WIRE_HEADER`` on every request and answer). Bump it when a codec, a request or a subject
changes so that a machine of the other version would misread it (docs/deploy.md, « Upgrading
one machine at a time »)."""
WIRE_MISMATCH = "Le serveur est en cours de mise à jour : réessayez dans quelques minutes."
"""What a player reads when their front and the coordinator speak different versions."""
MAX_STR = 65_536  # bytes in one string: names and chat lines are a few hundred at most
MAX_DEPTH = 16  # nesting of plain values (an event's arguments): a few levels in practice


class WireError(ValueError):
    """Bytes that are not exactly one registered value, or a value with no codec; the message
    names the type and the field."""


class Kind:
    """What one field holds: ``encode`` turns a value into msgpack's plain data, ``decode``
    checks plain data and builds the value; both raise WireError naming ``where``."""

    expected = ""  # what the error says was expected

    def encode(self, value: Any, where: str) -> Any:
        return self.check(value, where)

    def decode(self, data: Any, where: str) -> Any:
        return self.check(data, where)

    def check(self, value: Any, where: str) -> Any:
        raise NotImplementedError

    def wrong(self, value: Any, where: str) -> WireError:
        shown = repr(value)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        return WireError(f"{where}: expected {self.expected}, got {shown}")


class _Exact(Kind):
    """A value of exactly one builtin type (an int is not a bool, a bool is not an int)."""

    def __init__(self, type_: type, expected: str) -> None:
        self.type = type_
        self.expected = expected

    def check(self, value: Any, where: str) -> Any:
        if type(value) is not self.type:
            raise self.wrong(value, where)
        return value


INT = _Exact(int, "an int")
STR = _Exact(str, "a string")
BOOL = _Exact(bool, "a bool")


class _Float(Kind):
    """A finite number, read back as a float (``60`` and ``60.0`` are the same timer)."""

    expected = "a finite number"

    def check(self, value: Any, where: str) -> float:
        if type(value) not in (int, float) or not math.isfinite(value):
            raise self.wrong(value, where)
        return float(value)


FLOAT = _Float()


class Choice(Kind):
    """One of a few strings (``SeatInfo.kind``, ``TableSummary.status``)."""

    def __init__(self, *values: str) -> None:
        self.values = frozenset(values)
        self.expected = "one of " + ", ".join(sorted(values))

    def check(self, value: Any, where: str) -> Any:
        if type(value) is not str or value not in self.values:
            raise self.wrong(value, where)
        return value


class Optional(Kind):
    """None, or a value of ``kind``."""

    def __init__(self, kind: Kind) -> None:
        self.kind = kind
        self.expected = f"{kind.expected} or None"

    def encode(self, value: Any, where: str) -> Any:
        return None if value is None else self.kind.encode(value, where)

    def decode(self, data: Any, where: str) -> Any:
        return None if data is None else self.kind.decode(data, where)


class Tuple(Kind):
    """A tuple of any length, each item of ``kind``."""

    def __init__(self, kind: Kind) -> None:
        self.kind = kind
        self.expected = f"an array of {kind.expected}"

    def encode(self, value: Any, where: str) -> Any:
        if not isinstance(value, tuple):
            raise self.wrong(value, where)
        return [self.kind.encode(item, f"{where}[{i}]") for i, item in enumerate(value)]

    def decode(self, data: Any, where: str) -> Any:
        if type(data) is not tuple:
            raise self.wrong(data, where)
        return tuple(self.kind.decode(item, f"{where}[{i}]") for i, item in enumerate(data))


class Fixed(Kind):
    """A tuple of exactly ``len(kinds)`` items, each of its own kind (``tuple[int, int]``)."""

    def __init__(self, *kinds: Kind) -> None:
        self.kinds = kinds
        self.expected = f"an array of {len(kinds)}"

    def encode(self, value: Any, where: str) -> Any:
        if not isinstance(value, tuple) or len(value) != len(self.kinds):
            raise self.wrong(value, where)
        pairs = enumerate(zip(self.kinds, value, strict=True))
        return [k.encode(v, f"{where}[{i}]") for i, (k, v) in pairs]

    def decode(self, data: Any, where: str) -> Any:
        if type(data) is not tuple or len(data) != len(self.kinds):
            raise self.wrong(data, where)
        pairs = enumerate(zip(self.kinds, data, strict=True))
        return tuple(k.decode(v, f"{where}[{i}]") for i, (k, v) in pairs)


class _Plain(Kind):
    """Plain data an engine leaves open (an event's arguments, a table's option values): None,
    bools, ints, floats, strings and tuples of them, nested at most MAX_DEPTH deep."""

    expected = "plain data (None, bool, int, float, str, array)"

    def check(self, value: Any, where: str, depth: int = 0) -> Any:
        if value is None or type(value) in (bool, int, str):
            return value
        if type(value) is float and math.isfinite(value):
            return value
        if isinstance(value, tuple) and depth < MAX_DEPTH:
            return tuple(self.check(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value))
        raise self.wrong(value, where)

    def encode(self, value: Any, where: str) -> Any:
        return self.check(value, where)  # tuples stay tuples: msgpack writes them as arrays


PLAIN = _Plain()


class StrMap(Kind):
    """A dict of strings to values of ``kind`` (``Refused.params``)."""

    def __init__(self, kind: Kind) -> None:
        self.kind = kind
        self.expected = f"a map of strings to {kind.expected}"

    def check(self, value: Any, where: str) -> Any:
        if not isinstance(value, dict) or not all(type(k) is str for k in value):
            raise self.wrong(value, where)
        return value

    def encode(self, value: Any, where: str) -> Any:
        return {k: self.kind.encode(v, f"{where}.{k}") for k, v in self.check(value, where).items()}

    def decode(self, data: Any, where: str) -> Any:
        return {k: self.kind.decode(v, f"{where}.{k}") for k, v in self.check(data, where).items()}


class One(Kind):
    """A value of one of the registered types ``tags``, as its own tagged map."""

    def __init__(self, *tags: str) -> None:
        self.tags = tags

    @property
    def expected(self) -> str:  # type: ignore[override]
        return " or ".join(self.tags)

    def encode(self, value: Any, where: str) -> Any:
        codec = _BY_TYPE.get(type(value))
        if codec is None or codec.tag not in self.tags:
            raise WireError(f"{where}: expected {self.expected}, got a {type(value).__name__}"
                            + ("" if codec else " (no codec)"))
        memo = _memo
        if memo is None or codec.tag not in SHARED:
            return codec.encode(value)
        seen = memo.get(id(value))
        if seen is not None and seen[0] is value:
            return seen[1]
        plain = codec.encode(value)
        memo[id(value)] = (value, plain)
        return plain

    def decode(self, data: Any, where: str) -> Any:
        return _decode_tagged(data, where, self.tags)


@dataclass(frozen=True)
class Codec:
    """One registered type: its ``tag``, the classes it encodes (several for an engine's
    actions), its ``fields`` and their kinds. ``read(value, name)`` gets a field to encode
    (``getattr`` by default); ``make(**fields)`` builds the value decoded (the class)."""

    tag: str
    types: tuple[type, ...]
    fields: tuple[tuple[str, Kind], ...]
    make: Callable[..., Any]
    read: Callable[[Any, str], Any] = getattr

    def encode(self, value: Any) -> dict[str, Any]:
        data: dict[str, Any] = {TAG: self.tag}
        for name, kind in self.fields:
            data[name] = kind.encode(self.read(value, name), f"{self.tag}.{name}")
        return data

    def check_fields(self, data: Mapping[str, Any]) -> None:
        """WireError unless ``data`` has every field and no other (but the tag)."""
        unknown = sorted(set(data) - {name for name, _ in self.fields} - {TAG})
        if unknown:
            raise WireError(f"{self.tag}: unknown field {unknown[0]!r}")
        missing = [name for name, _ in self.fields if name not in data]
        if missing:
            raise WireError(f"{self.tag}: missing field {missing[0]!r}")

    def decode(self, data: Mapping[str, Any]) -> Any:
        self.check_fields(data)
        fields = {
            name: kind.decode(data[name], f"{self.tag}.{name}") for name, kind in self.fields
        }
        try:
            return self.make(**fields)
        except WireError:
            raise
        except (TypeError, ValueError) as error:  # (what the type itself refuses)
            raise WireError(f"{self.tag}: {error}") from None


def record(cls: type, tag: str, **fields: Kind) -> Codec:
    """The codec of a frozen dataclass: its fields by name, built back with the class."""
    return Codec(tag, (cls,), tuple(fields.items()), cls)


def actions(game: Game[Any, Any], union: Any, tag: str) -> Codec:
    """An engine's actions, as its table logs write them (``[name, args…]``), checked on the
    way in by the engine's own ``action_from_wire``."""

    def make(action: Any) -> Any:
        try:
            return game.action_from_wire(action)
        except ValueError as error:
            raise WireError(f"{tag}.action: {error}") from None

    return Codec(tag, get_args(union), (("action", PLAIN),), make,
                 lambda value, _name: _tuples(game.action_to_wire(value)))


def _tuples(data: Any) -> Any:
    """An engine's wire form (lists) as tuples, the plain data this module carries."""
    return tuple(_tuples(item) for item in data) if isinstance(data, list | tuple) else data


class IntMap(Kind):
    """A dict of ints to values of ``kind``, crossing as an array of pairs (msgpack's map keys
    are strings here: ``create_table``'s ``bots``, seat number to bot name)."""

    def __init__(self, kind: Kind) -> None:
        self.kind = kind
        self.expected = f"an array of [int, {kind.expected}] pairs"

    def encode(self, value: Any, where: str) -> Any:
        if not isinstance(value, Mapping) or not all(type(k) is int for k in value):
            raise self.wrong(value, where)
        return [[k, self.kind.encode(v, f"{where}[{k}]")] for k, v in value.items()]

    def decode(self, data: Any, where: str) -> Any:
        if type(data) is not tuple or not all(
                type(p) is tuple and len(p) == 2 and type(p[0]) is int for p in data):
            raise self.wrong(data, where)
        result = {k: self.kind.decode(v, f"{where}[{k}]") for k, v in data}
        if len(result) != len(data):
            raise WireError(f"{where}: a key twice")
        return result


class Either(Kind):
    """A value of the first of ``kinds`` that takes it (``create_table``'s ``timer``: seconds,
    the string ``"default"`` or None)."""

    def __init__(self, *kinds: Kind) -> None:
        self.kinds = kinds
        self.expected = " or ".join(kind.expected for kind in kinds)

    def _first(self, value: Any, where: str, decode: bool) -> Any:
        for kind in self.kinds:
            try:
                return kind.decode(value, where) if decode else kind.encode(value, where)
            except WireError:
                continue
        raise self.wrong(value, where)

    def encode(self, value: Any, where: str) -> Any:
        return self._first(value, where, decode=False)

    def decode(self, data: Any, where: str) -> Any:
        return self._first(data, where, decode=True)


class _Value(Kind):
    """A registered value (as its tagged map) or plain data: an action, which is an engine's
    registered action or, for a game from elsewhere, plain data (the toy game's ints)."""

    expected = "a registered value or plain data"

    def encode(self, value: Any, where: str) -> Any:
        codec = _BY_TYPE.get(type(value))
        return codec.encode(value) if codec is not None else PLAIN.encode(value, where)

    def decode(self, data: Any, where: str) -> Any:
        return _decode_tagged(data, where) if isinstance(data, dict) else PLAIN.decode(data, where)


def _refused(code: str, message: str, params: dict[str, Any]) -> Refused:
    return Refused(code, message, **params)


@dataclass(frozen=True)
class Call:
    """One request of a client (``client.CoordinatorClient``): the method's ``name`` and every
    one of its arguments by name, defaults included (``REQUESTS`` says which and of what kind)."""

    name: str
    args: Mapping[str, Any]


@dataclass(frozen=True)
class Answer:
    """What the request ``request`` returned (of the kind ``REQUESTS`` says). A request refused
    answers with its ``Refused`` instead."""

    request: str
    value: Any


@dataclass(frozen=True)
class CoordAlive:
    """The coordinator's heartbeat on the bus (``bus.COORD_ALIVE``): ``boot``, drawn when it
    started, changes when it restarts."""

    boot: str


@dataclass(frozen=True)
class Lease:
    """A coordinator's lease in the bucket ``bus.LEASES_BUCKET`` (key: its boot id), put every
    ``bus.owners.LEASE_EVERY``: when it started (wall clock) and on which host. It is alive
    while its key is there (the bucket's max age)."""

    started: float
    host: str


@dataclass(frozen=True)
class Owner:
    """A table's owner in the bucket ``bus.OWNERS_BUCKET`` (key: the table id): the boot id
    of the coordinator serving it. Changed only by compare-and-set (``bus.owners``)."""

    cid: str


@dataclass(frozen=True)
class GuestSecret:
    """The guests' secret every coordinator of a bus signs guests' identities with, in the
    bucket ``bus.KEYS_BUCKET`` (key ``guests``; hex): the first coordinator's ``guests.key``,
    so that a guest's pass holds on any of them (``coordinator/owners.py``)."""

    secret: str


@dataclass(frozen=True)
class FrontAlive:
    """A front's heartbeat on the bus (``bus.FRONT_ALIVE``): its id, its sessions playing and
    its admitted connections by address (the limits across fronts); ``bye``: it stops, its
    sessions may be closed at once."""

    front: str
    sessions: int
    addresses: tuple[tuple[str, int], ...]
    bye: bool = False


@dataclass(frozen=True)
class Online:
    """Who is online under one name, as the bucket ``bus.ONLINE_BUCKET`` holds it (one key per
    session, keyed by the name's ``name_key``: bus/directory.py): the name shown, the
    session's identity (a newer connection of the same identity takes the name over), whether
    it only watches, the table it sits at or watches, the front and session holding it, and
    its home: the id of the coordinator serving it (``CoordinatorHost.boot``), where a
    private line or an admin's kick for it goes (coordinator/cross.py)."""

    name: str
    identity: str
    watch_only: bool
    table: str | None
    front: str
    sid: str
    home: str = ""


@dataclass(frozen=True)
class Told:
    """A private line for the player online under the name key ``to`` at the coordinator it
    is published to (``bus.tell_subject``: coordinator/cross.py)."""

    line: ChatLine
    to: str


@dataclass(frozen=True)
class AdminDone:
    """An admin's action done on one coordinator, for the others to apply
    (``bus.ADMIN_DONE``; ``Console.relayed``)."""

    by: str
    action: str
    target: str
    until: float | None


@dataclass(frozen=True)
class Resumable:
    """A guest's seat held, in the guests' bucket (``bus.GUESTS_BUCKET``) under their reconnect
    token's digest: the identity the token proves, the name on the seat, and its table."""

    identity: str
    name: str
    table: str


@dataclass(frozen=True)
class Motd:
    """The message of the day in the lobby's bucket (``bus.LOBBY_BUCKET``, key ``motd``)."""

    text: str


@dataclass(frozen=True)
class Request:
    """What one request takes (its arguments' names and kinds, in order) and returns."""

    args: tuple[tuple[str, Kind], ...]
    answer: Kind


class _RequestCodec(Codec):
    """``Call`` and ``Answer``: a request's name, then the rest checked against what
    ``REQUESTS`` says of that request (each argument, or the answer)."""

    def encode(self, value: Any) -> dict[str, Any]:
        name, rest = self.fields[0][0], self.fields[1][0]
        request = _request(getattr(value, name), self.tag)
        part = getattr(value, rest)
        if isinstance(value, Call):
            return {TAG: self.tag, name: value.name, rest: _args(value.name, request, part, True)}
        return {TAG: self.tag, name: value.request,
                rest: request.answer.encode(part, f"{value.request} answer")}

    def decode(self, data: Mapping[str, Any]) -> Any:
        self.check_fields(data)
        name, rest = (data[field] for field, _ in self.fields)
        request = _request(name, self.tag)
        if self.tag == "Call":
            return Call(name, _args(name, request, rest, False))
        return Answer(name, request.answer.decode(rest, f"{name} answer"))


def _request(name: Any, where: str) -> Request:
    request = REQUESTS.get(name) if type(name) is str else None
    if request is None:
        raise WireError(f"{where}: unknown request {name!r}")
    return request


def _args(name: str, request: Request, args: Any, encode: bool) -> dict[str, Any]:
    """A request's arguments checked: every one given, no other, each of its kind."""
    if not isinstance(args, Mapping) or not all(type(k) is str for k in args):
        raise WireError(f"{name}: expected a map of arguments by name, got {type(args).__name__}")
    unknown = sorted(set(args) - {arg for arg, _ in request.args})
    if unknown:
        raise WireError(f"{name}: unknown argument {unknown[0]!r}")
    missing = [arg for arg, _ in request.args if arg not in args]
    if missing:
        raise WireError(f"{name}: missing argument {missing[0]!r}")
    return {
        arg: (kind.encode if encode else kind.decode)(args[arg], f"{name}.{arg}")
        for arg, kind in request.args
    }


VIEWS = One("defausse.View", "collection.View")
"""What ``TableUpdate.view`` may hold: a game's view (``register`` adds another game's)."""
OPT_INT = Optional(INT)
INTS = Tuple(INT)
COMBINATIONS = Tuple(One("collection.Combination"))
OUTCOME = Optional(One("Outcome"))
EVENTS = Tuple(One("Event"))

NONE = _Exact(type(None), "None")
OPT_STR = Optional(STR)
OPTIONS = Optional(StrMap(PLAIN))
NOTHING = Request((), NONE)

REQUESTS: dict[str, Request] = {
    # (the methods of client.CoordinatorClient, with its parameters' names: tests/wire/)
    "server_info": Request((), One("ServerInfo")),
    "preferences": Request((("identity", STR),), StrMap(PLAIN)),
    "keep_preferences": Request((("identity", STR), ("data", StrMap(PLAIN))), BOOL),
    "known_name": Request((("identity", STR),), OPT_STR),
    "guest_pass": Request((), One("GuestPass")),
    "resume": Request((("token", STR), ("address", STR)), Fixed(One("GuestPass"), STR)),
    "connect": Request((("player", One("Player")), ("guest_pass", Optional(One("GuestPass")))),
                       One("Place")),
    "mail": Request((), One("Mail")),
    "place": Request((), One("Place")),
    "create_table": Request((("game", STR), ("seats", INT), ("options", OPTIONS),
                             ("bots", Optional(IntMap(STR))),
                             ("timer", Either(NONE, FLOAT, Choice("default"))),
                             ("private", BOOL), ("sit", BOOL)), STR),
    "quick_play": Request((("game", STR), ("seats", INT), ("options", OPTIONS)), STR),
    "learn": Request((("game", STR),), STR),
    "join": Request((("table_id", STR), ("seat", OPT_INT), ("code", OPT_STR)), NONE),
    "watch": Request((("table_id", STR), ("code", OPT_STR)), NONE),
    "start": NOTHING,
    "leave": NOTHING,
    "rematch": Request((("accept", BOOL),), NONE),
    "act": Request((("action", _Value()), ("step", OPT_INT)), NONE),
    "chat": Request((("text", STR), ("to", OPT_STR), ("me", BOOL)), NONE),
    "ignore": Request((("name", STR),), Tuple(STR)),
    "unignore": Request((("name", STR),), Tuple(STR)),
    "ignored": Request((), Tuple(STR)),
    "close": NOTHING,
    "server_stopping": NOTHING,
    "leaderboard": Request((("game", OPT_STR), ("limit", INT)), Tuple(One("LeaderboardRow"))),
    "player_stats": Request((), Optional(One("PlayerStats"))),
    "profile": Request((("name", STR),), Optional(One("Profile"))),
    "replay": Request((("table_id", STR), ("seat", OPT_INT), ("first", INT)), One("Replay")),
    "learned": Request((), Tuple(STR)),
    "note_learned": Request((("situation", STR),), NONE),
    "forget_learned": NOTHING,
    "admin_view": Request((), One("AdminView")),
    "admin_act": Request((("action", STR), ("target", STR), ("seconds", Optional(FLOAT))),
                         STR),
    # (the front's own, over the bus: coordinator/remote.py's Remote and RemoteClient)
    "mirror": Request((("table_id", STR),), NONE),
    "name_owner": Request((("nickname", STR),), OPT_STR),
    "banned": Request((("identity", OPT_STR), ("address", STR)), OPT_STR),
    "lobby": Request((), One("LobbySnapshot")),
    "player": Request((), Optional(One("Player"))),
    "resync": Request((), OPT_STR),
}
"""Every request a client makes: its arguments (all sent, by name) and its answer's kind."""
FRONT_REQUESTS = frozenset({"mirror", "name_owner", "banned", "lobby", "player", "resync"})
"""The requests of ``REQUESTS`` that are not ``client.CoordinatorClient``'s: a front's over the
bus (``mirror``: a mirror session under the request's session id; ``lobby``: the newest
snapshot; ``player``: the connected session's player as the coordinator names it;
``resync``: the session's whole state in its news again, its front having lost some, and the
table it is at)."""

CODECS: tuple[Codec, ...] = (
    # --- the envelopes of requests and answers (a refusal crosses as ``Refused``) ---
    _RequestCodec("Call", (Call,), (("name", STR), ("args", PLAIN)), Call),
    _RequestCodec("Answer", (Answer,), (("request", STR), ("value", PLAIN)), Answer),
    # --- the coordinator's (coordinator/model.py, coordinator/mailbox.py) ---
    record(Player, "Player", identity=STR, name=STR, guest=BOOL, watch_only=BOOL, address=STR),
    record(SeatInfo, "SeatInfo", kind=Choice(*get_args(SeatKind)), name=STR, bot=STR,
           away=BOOL, identity=Optional(STR)),
    record(TableSummary, "TableSummary", id=STR, game=STR, title=STR,
           options=Tuple(Fixed(STR, PLAIN)), seats=Tuple(One("SeatInfo")),
           status=Choice(*get_args(TableStatus)), spectators=INT,
           private=BOOL, timer=Optional(FLOAT), creator=STR, paused=BOOL, learn=BOOL,
           unrated=Choice("", *UNRATED)),
    record(OnlineEntry, "OnlineEntry", name=STR, watch_only=BOOL, table=Optional(STR)),
    record(LobbySnapshot, "LobbySnapshot", tables=Tuple(One("TableSummary")),
           online=Tuple(One("OnlineEntry")), motd=STR),
    record(AdminSession, "AdminSession", name=STR, identity=STR, address=STR,
           table=Optional(STR), idle=FLOAT, watch_only=BOOL),
    record(AdminTable, "AdminTable", id=STR, game=STR, status=Choice(*get_args(TableStatus)),
           seats=Tuple(STR), step=INT, spectators=INT, private=BOOL),
    record(Ban, "Ban", kind=Choice("key", "address"), value=STR, until=Optional(FLOAT),
           by=STR),
    record(AdminView, "AdminView", sessions=Tuple(One("AdminSession")),
           tables=Tuple(One("AdminTable")), bans=Tuple(One("Ban")), motd=STR),
    record(ChatLine, "ChatLine", scope=STR, name=STR, text=STR, time=FLOAT, me=BOOL, to=STR,
           spectators=BOOL, bell=BOOL),
    record(TableUpdate, "TableUpdate", table=One("TableSummary"), seat=OPT_INT, step=INT,
           view=Optional(VIEWS), events=EVENTS,
           to_act=INTS, time_left=Optional(FLOAT), history=EVENTS, creator=BOOL,
           code=Optional(STR), rematch=INTS, rematch_left=Optional(FLOAT), rematch_off=BOOL),
    Codec("Refused", (Refused,), (("code", STR), ("message", STR), ("params", StrMap(PLAIN))),
          _refused, lambda error, name: str(error) if name == "message" else getattr(error, name)),
    record(Notice, "Notice", code=STR, text=STR),
    record(Mail, "Mail", lobby=Optional(One("LobbySnapshot")), table=Optional(One("TableUpdate")),
           left_table=BOOL, chat=Tuple(One("ChatLine")), notices=Tuple(One("Notice")),
           closed=BOOL),
    record(GuestPass, "GuestPass", identity=STR, token=STR),
    # --- the bus's heartbeats (pioche_tui/bus) ---
    record(CoordAlive, "CoordAlive", boot=STR),
    record(FrontAlive, "FrontAlive", front=STR, sessions=INT,
           addresses=Tuple(Fixed(STR, INT)), bye=BOOL),
    # --- the directory's buckets (pioche_tui/bus/directory.py) ---
    record(Online, "Online", name=STR, identity=STR, watch_only=BOOL, table=Optional(STR),
           front=STR, sid=STR, home=STR),
    # --- what crosses coordinators (pioche_tui/coordinator/cross.py) ---
    record(Told, "Told", line=One("ChatLine"), to=STR),
    record(AdminDone, "AdminDone", by=STR, action=STR, target=STR, until=Optional(FLOAT)),
    record(Resumable, "Resumable", identity=STR, name=STR, table=STR),
    record(Motd, "Motd", text=STR),
    # --- several coordinators (pioche_tui/bus/owners.py) ---
    record(Lease, "Lease", started=FLOAT, host=STR),
    record(Owner, "Owner", cid=STR),
    record(GuestSecret, "GuestSecret", secret=STR),
    record(Place, "Place", table=Optional(STR), seat=OPT_INT,
           status=Optional(Choice(*get_args(TableStatus)))),
    record(GameInfo, "GameInfo", name=STR, min_seats=INT, max_seats=INT, bots=Tuple(STR)),
    record(ServerInfo, "ServerInfo", games=Tuple(One("GameInfo")), turn_timer=Optional(FLOAT),
           min_timer=FLOAT, max_timer=FLOAT, grace=FLOAT),
    # --- scores (model.py; the store makes them), as the scores screen reads them ---
    record(LeaderboardRow, "LeaderboardRow", name=STR, identity=STR, games=INT, wins=INT,
           points=INT, rated=INT, mu=FLOAT, sigma=FLOAT),
    record(PlayerStats, "PlayerStats", identity=STR, name=STR, games=INT, wins=INT, points=INT,
           best_score=INT, by_game=Tuple(Fixed(STR, INT, INT)),
           ratings=Tuple(Fixed(STR, INT, FLOAT, FLOAT))),
    # --- profiles and replays (model.py; coordinator/profiles.py makes them) ---
    record(GamePlayed, "GamePlayed", table_id=STR, game=STR, finished=FLOAT, seat=INT, seats=INT,
           place=INT, unrated=Choice("", *UNRATED), replay=BOOL),
    record(Profile, "Profile", identity=STR, name=STR, by_game=Tuple(Fixed(STR, INT, INT)),
           ratings=Tuple(Fixed(STR, INT, FLOAT, FLOAT)),
           history=Tuple(Fixed(STR, Tuple(FLOAT))), last=Tuple(One("GamePlayed"))),
    record(ReplayFrame, "ReplayFrame", step=INT, view=Optional(VIEWS), events=EVENTS,
           to_act=INTS),
    record(Replay, "Replay", table=One("TableSummary"), seat=OPT_INT, first=INT, total=INT,
           frames=Tuple(One("ReplayFrame")), rounds=INTS, finished=FLOAT),
    # --- every game's (engine/) ---
    record(Event, "Event", kind=STR, seat=OPT_INT, args=Tuple(PLAIN), secret=Tuple(PLAIN)),
    record(Outcome, "Outcome", scores=INTS, winners=INTS, rounds=INT, reason=STR,
           places=INTS),
    actions(DEFAUSSE, defausse_rules.Action, "defausse.Action"),
    record(RoundResult, "defausse.RoundResult", round=INT, winner=INT, hand_points=INTS,
           gained=INT),
    record(DefausseView, "defausse.View", seat=OPT_INT, hand=INTS,
           legal=Tuple(One("defausse.Action")), top=INT, colour=OPT_INT, direction=INT,
           current=OPT_INT, phase=STR, drawn=OPT_INT, counts=INTS, scores=INTS,
           announced=Tuple(BOOL), draw_size=INT, discard_size=INT, dealer=INT, round=INT,
           target=INT, pending=INT, catchable=OPT_INT,
           last_round=Optional(One("defausse.RoundResult")), outcome=OUTCOME),
    actions(COLLECTION, collection_actions.Action, "collection.Action"),
    record(Combination, "collection.Combination", objective=INT, cards=INTS, points=INT),
    record(SeatView, "collection.SeatView", seat=INT, pile=INTS, collection=INTS, reserve=INTS,
           scorecard=INTS, total=INT, objectives=INT, doubles=INT, skips=INT, validated=BOOL),
    record(CollectionView, "collection.View", viewer=OPT_INT, mode=STR, phase=STR,
           current=OPT_INT, round=INT, max_rounds=INT, draw_sizes=Fixed(INT, INT),
           discard_size=INT, seats=Tuple(One("collection.SeatView")), held=INTS, held_count=INT,
           must_draw=INT, legal=Tuple(One("collection.Action")), peek=Fixed(OPT_INT, OPT_INT),
           quantique=INTS, risk=Optional(Fixed(Optional(FLOAT), Optional(FLOAT))),
           combinations=COMBINATIONS, best=COMBINATIONS, best_points=INT,
           last_results=Tuple(COMBINATIONS), outcome=OUTCOME),
)

_BY_TAG: dict[str, Codec] = {codec.tag: codec for codec in CODECS}
_BY_TYPE: dict[type, Codec] = {cls: codec for codec in CODECS for cls in codec.types}
assert len(_BY_TAG) == len(CODECS), "two codecs with one tag"


def register(codec: Codec, *, view: bool = False) -> None:
    """Allow one more type, from outside this module: a game that is not one of Pioche's own
    (the test suite's toy game); ``view``: its values may be a ``TableUpdate.view``.
    Registering the same codec again does nothing; another one under a tag or for a class
    already taken is a mistake (ValueError)."""
    if _BY_TAG.get(codec.tag) is codec:
        return
    if codec.tag in _BY_TAG or any(cls in _BY_TYPE for cls in codec.types):
        raise ValueError(f"{codec.tag}: a tag or a class already has a codec")
    _BY_TAG[codec.tag] = codec
    _BY_TYPE.update(dict.fromkeys(codec.types, codec))
    if view:
        VIEWS.tags += (codec.tag,)
        SHARED.add(codec.tag)


def tags() -> frozenset[str]:
    """The tags of every type allowed now (``CODECS``, and those registered since)."""
    return frozenset(_BY_TAG)


def _decode_tagged(data: Any, where: str, tags: Sequence[str] | None = None) -> Any:
    if not isinstance(data, dict):
        raise WireError(f"{where}: expected a tagged map, got {type(data).__name__}")
    tag = data.get(TAG)
    codec = _BY_TAG.get(tag) if type(tag) is str else None
    if codec is None:
        raise WireError(f"{where}: unknown tag {tag!r}")
    if tags is not None and tag not in tags:
        raise WireError(f"{where}: expected {' or '.join(tags)}, got {tag}")
    return codec.decode(data)


def _refuse_ext(code: int, data: bytes) -> Any:
    raise WireError(f"msgpack extension type {code}: not used here")


Memo = dict[int, tuple[Any, Any]]
"""Parts encoded already, by the id of the value (held, so that the id stays its): ``encode``'s
``memo``."""
SHARED = {"TableUpdate", "TableSummary", "LobbySnapshot", "Event", *VIEWS.tags}
"""The types whose encoding ``encode`` looks up in its ``memo``: the big parts one table update
shares with the others of the same publication (a view computed once per seat, the summary
and the events once for all), whatever the message around them (a ``Mail`` each)."""
_memo: Memo | None = None  # encode's, while it runs


def encode(value: Any, memo: Memo | None = None) -> bytes:
    """``value`` (of a registered type) as msgpack bytes; WireError if it has no codec, or a
    field holds what its codec does not allow.

    ``memo``: a dict kept by the caller across calls, which then encode each ``SHARED`` object
    once (the bus's host sends one table update to many sessions: coordinator/host.py). The
    caller empties it once those objects are sent: it holds them."""
    global _memo
    codec = _BY_TYPE.get(type(value))
    if codec is None:
        raise WireError(f"no codec for {type(value).__name__}")
    _memo = memo
    try:
        packed: bytes = msgpack.packb(codec.encode(value), use_bin_type=True)
    except WireError:
        raise
    except (OverflowError, ValueError) as error:  # an int past 64 bits, a lone surrogate
        raise WireError(f"{codec.tag}: cannot be sent: {error}") from None
    finally:
        _memo = None
    return packed


def decode(data: bytes, *, expect: type | None = None) -> Any:
    """The value ``data`` encodes; WireError if it is not exactly one registered value (of
    type ``expect``, when given)."""
    if len(data) > MAX_BYTES:
        raise WireError(f"message of {len(data)} bytes: more than {MAX_BYTES}")
    try:
        plain = msgpack.unpackb(
            data, raw=False, use_list=False, strict_map_key=True, ext_hook=_refuse_ext,
            max_str_len=MAX_STR, max_bin_len=0, max_array_len=MAX_ITEMS,
            max_map_len=MAX_FIELDS, max_ext_len=0,
        )
    except WireError:
        raise
    except msgpack.ExtraData:
        raise WireError("bytes after the message") from None
    except msgpack.StackError:
        raise WireError("not a message: nested too deep") from None
    except (ValueError, TypeError, msgpack.FormatError) as error:
        raise WireError(f"not a message: {error}") from None
    expected = None if expect is None else _BY_TYPE[expect].tag
    return _decode_tagged(plain, "message", None if expected is None else (expected,))
