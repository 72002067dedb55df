"""Each type that crosses the seam round-trips through its msgpack codec (pioche_tui/wire.py),
and what is not exactly one of them is refused with a WireError naming the type and field."""

from __future__ import annotations

import dataclasses
import inspect
import random
from functools import partial
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pioche_tui import wire
from pioche_tui.coordinator.client import CoordinatorClient
from pioche_tui.coordinator.mailbox import Mail, Notice
from pioche_tui.coordinator.model import (
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
    ServerInfo,
    TableSummary,
    TableUpdate,
)
from pioche_tui.engine import GAMES
from pioche_tui.engine.base import Event, Outcome
from pioche_tui.engine.collection import actions as collection_actions
from pioche_tui.engine.collection.cards import CARD_COUNT
from pioche_tui.engine.collection.objectives import Combination
from pioche_tui.engine.collection.views import CollectionView
from pioche_tui.engine.defausse import rules as defausse_rules
from pioche_tui.engine.defausse.rules import RoundResult
from pioche_tui.engine.defausse.views import DefausseView

# --- strategies: one per registered tag ----------------------------------------------------

names = st.text(max_size=20)
ints = st.integers(-(2**63), 2**64 - 1)
small = st.integers(0, 1000)
seats_no = st.integers(0, 9)
floats = st.floats(allow_nan=False, allow_infinity=False)
plain = st.recursive(
    st.none() | st.booleans() | ints | floats | names,
    lambda inner: st.lists(inner, max_size=4).map(tuple), max_leaves=12,
)
ints_tuple = st.lists(small, max_size=8).map(tuple)

players = st.builds(Player, names, names, st.booleans(), st.booleans(), names)
seat_infos = st.builds(SeatInfo, st.sampled_from(["free", "player", "bot"]), names, names,
                       st.booleans(), st.none() | names)
summaries = st.builds(
    TableSummary, names, names, names,
    st.lists(st.tuples(names, plain), max_size=4).map(tuple),
    st.lists(seat_infos, max_size=6).map(tuple),
    st.sampled_from(["waiting", "playing", "finished", "closed"]), small, st.booleans(),
    st.none() | st.floats(0, 600), names, st.booleans(), st.booleans(),
    st.sampled_from(["", *UNRATED]),
)
online = st.builds(OnlineEntry, names, st.booleans(), st.none() | names)
lobbies = st.builds(LobbySnapshot, st.lists(summaries, max_size=3).map(tuple),
                    st.lists(online, max_size=5).map(tuple), names)
statuses = st.sampled_from(["waiting", "playing", "finished", "closed"])
admin_sessions = st.builds(AdminSession, names, names, names, st.none() | names, floats,
                           st.booleans())
admin_tables = st.builds(AdminTable, names, names, statuses,
                         st.lists(names, max_size=4).map(tuple), small, small, st.booleans())
bans = st.builds(Ban, st.sampled_from(["key", "address"]), names, st.none() | floats, names)
admin_views = st.builds(AdminView, st.lists(admin_sessions, max_size=3).map(tuple),
                        st.lists(admin_tables, max_size=3).map(tuple),
                        st.lists(bans, max_size=2).map(tuple), names)
chat_lines = st.builds(ChatLine, names, names, names, floats, st.booleans(), names,
                       st.booleans(), st.booleans())
events = st.builds(Event, names, st.none() | seats_no, st.lists(plain, max_size=3).map(tuple),
                   st.lists(plain, max_size=3).map(tuple))
outcomes = st.builds(Outcome, ints_tuple, ints_tuple, small, names, ints_tuple)
notices = st.builds(Notice, names, names)
refusals = st.builds(lambda code, message, params: Refused(code, message, **params), names,
                     names, st.dictionaries(names, plain, max_size=3))
rows = st.builds(LeaderboardRow, names, names, small, small, small, small, floats, floats)
stats = st.builds(PlayerStats, names, names, small, small, small, small,
                  st.lists(st.tuples(names, small, small), max_size=3).map(tuple),
                  st.lists(st.tuples(names, small, floats, floats), max_size=3).map(tuple))
combinations = st.builds(Combination, st.integers(1, 10),
                         st.lists(st.integers(0, CARD_COUNT - 1), max_size=5).map(tuple),
                         st.integers(0, 999))

played = st.builds(GamePlayed, names, names, floats, seats_no, small, small,
                   st.sampled_from(["", *UNRATED]), st.booleans())
profiles = st.builds(Profile, names, names,
                     st.lists(st.tuples(names, small, small), max_size=3).map(tuple),
                     st.lists(st.tuples(names, small, floats, floats), max_size=3).map(tuple),
                     st.lists(st.tuples(names, st.lists(floats, max_size=5).map(tuple)),
                              max_size=2).map(tuple),
                     st.lists(played, max_size=3).map(tuple))


def _played(game: str, seats: int, seed: int, moves: int, viewer: int | None) -> Any:
    """The view ``viewer`` has of a real game after ``moves`` random moves."""
    engine = GAMES[game]
    state = engine.new_game(seats, engine.options({}), seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if engine.outcome(state) is not None:
            break
        seat = engine.to_act(state)[0]
        legal = engine.legal_actions(state, seat)
        engine.apply(state, seat, legal[rng.randrange(len(legal))])
    return engine.view(state, viewer if viewer is None or viewer < seats else seats - 1)


def views(game: str) -> st.SearchStrategy[Any]:
    low, high = GAMES[game].min_seats, GAMES[game].max_seats
    return st.builds(_played, st.just(game), st.integers(low, high), st.integers(0, 2**32),
                     st.integers(0, 400), st.none() | st.integers(0, high - 1))


defausse_views = views("defausse")
collection_views = views("collection")
DEFAUSSE_ACTIONS = [a for plays in defausse_rules.PLAYS_OR_ANNOUNCE for a in plays] + [
    defausse_rules.DRAW, defausse_rules.KEEP, *defausse_rules.CHOOSE, *defausse_rules.CATCH]
collection_action = st.sampled_from([
    collection_actions.LOCK, collection_actions.STOP, *collection_actions.DRAWS,
    collection_actions.RESERVE, collection_actions.PLAY_JOKER, collection_actions.KEEP_PILE,
    collection_actions.NEW_PILE, collection_actions.Keep(None), collection_actions.Keep(3),
    collection_actions.Activate(CARD_COUNT - 1, 2, None), collection_actions.Activate(70, None, 1),
]) | st.builds(collection_actions.Validate, st.lists(combinations, max_size=4).map(tuple))
updates = st.builds(
    TableUpdate, summaries, st.none() | seats_no, small,
    st.none() | defausse_views | collection_views, st.lists(events, max_size=4).map(tuple),
    st.lists(seats_no, max_size=3).map(tuple), st.none() | st.floats(0, 600),
    st.lists(events, max_size=4).map(tuple), st.booleans(), st.none() | names,
)
frames = st.builds(ReplayFrame, small, st.none() | defausse_views | collection_views,
                   st.lists(events, max_size=4).map(tuple),
                   st.lists(seats_no, max_size=3).map(tuple))
replays = st.builds(Replay, summaries, st.none() | seats_no, small, small,
                    st.lists(frames, max_size=3).map(tuple),
                    st.lists(small, max_size=4).map(tuple), floats)
mails = st.builds(Mail, st.none() | lobbies, st.none() | updates, st.booleans(),
                  st.lists(chat_lines, max_size=3).map(tuple),
                  st.lists(notices, max_size=3).map(tuple), st.booleans())

game_infos = st.builds(GameInfo, names, small, small, st.lists(names, max_size=3).map(tuple))

guest_passes = st.builds(GuestPass, names, names)
options = st.none() | st.dictionaries(names, plain, max_size=3)
calls = st.one_of(
    st.builds(lambda game, seats, options, bots, timer, private: wire.Call("create_table", {
        "game": game, "seats": seats, "options": options, "bots": bots, "timer": timer,
        "private": private, "sit": True}), names, small, options,
        st.none() | st.dictionaries(seats_no, names, max_size=3),
        st.none() | st.just("default") | st.floats(0, 600), st.booleans()),
    st.builds(lambda action, step: wire.Call("act", {"action": action, "step": step}),
              st.sampled_from(DEFAUSSE_ACTIONS) | collection_action | small | plain,
              st.none() | small),
    st.builds(lambda p, g: wire.Call("connect", {"player": p, "guest_pass": g}), players,
              st.none() | guest_passes),
    st.builds(lambda i, d: wire.Call("keep_preferences", {"identity": i, "data": d}), names,
              st.dictionaries(names, plain, max_size=4)),
    st.builds(lambda t, s, c: wire.Call("join", {"table_id": t, "seat": s, "code": c}), names,
              st.none() | seats_no, st.none() | names),
    st.sampled_from([wire.Call("leave", {}), wire.Call("mail", {}), wire.Call("lobby", {}),
                     wire.Call("player", {})]),
    st.builds(lambda t: wire.Call("mirror", {"table_id": t}), names),
    st.builds(lambda n: wire.Call("name_owner", {"nickname": n}), names),
    st.builds(lambda i, a: wire.Call("banned", {"identity": i, "address": a}),
              st.none() | names, names),
    st.just(wire.Call("admin_view", {})),
    st.builds(lambda a, t, s: wire.Call("admin_act", {"action": a, "target": t, "seconds": s}),
              names, names, st.none() | st.floats(0, 1e6)),
    st.builds(lambda n: wire.Call("profile", {"name": n}), names),
    st.builds(lambda t, s, f: wire.Call("replay", {"table_id": t, "seat": s, "first": f}),
              names, st.none() | seats_no, small),
)
answers = st.one_of(
    st.builds(partial(wire.Answer, "preferences"), st.dictionaries(names, plain, max_size=4)),
    st.builds(partial(wire.Answer, "keep_preferences"), st.booleans()),
    st.builds(partial(wire.Answer, "resume"), st.tuples(guest_passes, names)),
    st.builds(partial(wire.Answer, "leaderboard"), st.lists(rows, max_size=3).map(tuple)),
    st.builds(partial(wire.Answer, "player_stats"), st.none() | stats),
    st.builds(partial(wire.Answer, "learned"), st.lists(names, max_size=3).map(tuple)),
    st.builds(partial(wire.Answer, "create_table"), names),
    st.builds(partial(wire.Answer, "known_name"), st.none() | names),
    st.builds(partial(wire.Answer, "mail"), mails),
    st.just(wire.Answer("act", None)),
    st.builds(partial(wire.Answer, "name_owner"), st.none() | names),
    st.builds(partial(wire.Answer, "lobby"), lobbies),
    st.builds(partial(wire.Answer, "player"), st.none() | players),
    st.builds(partial(wire.Answer, "admin_view"), admin_views),
    st.builds(partial(wire.Answer, "admin_act"), names),
    st.builds(partial(wire.Answer, "banned"), st.none() | names),
    st.builds(partial(wire.Answer, "profile"), st.none() | profiles),
    st.builds(partial(wire.Answer, "replay"), replays),
)

SAMPLES: dict[str, st.SearchStrategy[Any]] = {
    "Call": calls, "Answer": answers,
    "Player": players, "SeatInfo": seat_infos, "TableSummary": summaries,
    "OnlineEntry": online, "LobbySnapshot": lobbies, "ChatLine": chat_lines,
    "TableUpdate": updates, "Refused": refusals, "Notice": notices, "Mail": mails,
    "LeaderboardRow": rows, "PlayerStats": stats, "Event": events, "Outcome": outcomes,
    "GuestPass": guest_passes,
    "AdminSession": admin_sessions, "AdminTable": admin_tables, "Ban": bans,
    "AdminView": admin_views,
    "GamePlayed": played, "Profile": profiles, "ReplayFrame": frames, "Replay": replays,
    "Place": st.builds(Place, st.none() | names, st.none() | seats_no,
                       st.none() | st.sampled_from(["waiting", "playing", "finished", "closed"])),
    "GameInfo": game_infos,
    "CoordAlive": st.builds(wire.CoordAlive, names),
    "FrontAlive": st.builds(wire.FrontAlive, names, small,
                            st.lists(st.tuples(names, small), max_size=3).map(tuple),
                            st.booleans()),
    "Online": st.builds(wire.Online, names, names, st.booleans(), st.none() | names, names,
                        names, names),
    "Told": st.builds(wire.Told, chat_lines, names),
    "AdminDone": st.builds(wire.AdminDone, names, names, st.text(max_size=50),
                           st.none() | st.floats(0, 2e9)),
    "Resumable": st.builds(wire.Resumable, names, names, names),
    "Lease": st.builds(wire.Lease, st.floats(0, 2e9), names),
    "Owner": st.builds(wire.Owner, names),
    "GuestSecret": st.builds(wire.GuestSecret, names),
    "Motd": st.builds(wire.Motd, st.text(max_size=200)),
    "ServerInfo": st.builds(ServerInfo, st.lists(game_infos, max_size=3).map(tuple),
                            st.none() | st.floats(0, 600), st.floats(0, 600), st.floats(0, 600),
                            st.floats(0, 3600)),
    "defausse.Action": st.sampled_from(DEFAUSSE_ACTIONS),
    "defausse.RoundResult": st.builds(RoundResult, small, seats_no, ints_tuple, small),
    "defausse.View": defausse_views,
    "collection.Action": collection_action, "collection.Combination": combinations,
    "collection.SeatView": collection_views.map(lambda v: v.seats[0]),
    "collection.View": collection_views,
}


def same(a: Any, b: Any) -> bool:
    if isinstance(a, Refused):
        return (type(b) is Refused and (a.code, str(a), a.params) == (b.code, str(b), b.params))
    return bool(a == b)


def test_every_registered_type_has_a_round_trip_test() -> None:
    assert set(SAMPLES) == {codec.tag for codec in wire.CODECS}


@pytest.mark.parametrize("tag", sorted(SAMPLES))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_round_trip(tag: str, data: st.DataObject) -> None:
    value = data.draw(SAMPLES[tag])
    back = wire.decode(wire.encode(value))
    assert same(back, value) and type(back) is type(value)


def test_each_codec_names_exactly_its_dataclass_fields() -> None:
    """A field added to a type without its codec fails here (and encoding would drop it)."""
    for codec in wire.CODECS:
        for cls in codec.types:
            if dataclasses.is_dataclass(cls) and codec.tag.split(".")[-1] != "Action":
                assert [f.name for f in dataclasses.fields(cls)] == [
                    name for name, _ in codec.fields], codec.tag


def test_a_decoded_value_is_made_of_tuples_as_the_engine_makes_them() -> None:
    view = _played("collection", 3, 7, 60, 0)
    back = wire.decode(wire.encode(view))
    assert type(back.seats) is tuple and type(back.legal) is tuple and hash(back.seats[0].pile)


def test_decode_can_insist_on_a_type() -> None:
    data = wire.encode(Notice("code", "texte"))
    assert wire.decode(data, expect=Notice) == Notice("code", "texte")
    with pytest.raises(wire.WireError, match="expected ChatLine, got Notice"):
        wire.decode(data, expect=ChatLine)


# --- refusals ------------------------------------------------------------------------------

def packed(data: Any) -> bytes:
    result: bytes = msgpack.packb(data, use_bin_type=True)
    return result


def notice_map(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"$": "Notice", "code": "full", "text": "La table est complète."}
    data.update(changes)
    return {k: v for k, v in data.items() if v is not DROP}


DROP = object()


@pytest.mark.parametrize(("data", "message"), [
    (notice_map(), None),  # (the well-formed one, for contrast)
    ({"$": "Pickle", "code": "x"}, "unknown tag 'Pickle'"),
    ({"code": "x", "text": "y"}, "unknown tag None"),
    (notice_map(**{"$": 3}), "unknown tag 3"),
    (notice_map(extra=1), "Notice: unknown field 'extra'"),
    (notice_map(text=DROP), "Notice: missing field 'text'"),
    (notice_map(code=7), "Notice.code: expected a string, got 7"),
    (notice_map(code=None), "Notice.code: expected a string, got None"),
    (["Notice", "full", "x"], "message: expected a tagged map, got tuple"),
    (5, "expected a tagged map, got int"),
    ({"$": "SeatInfo", "kind": "king", "name": "", "bot": "", "away": False, "identity": None},
     "SeatInfo.kind: expected one of bot, free, player, got 'king'"),
    ({"$": "Outcome", "scores": [1, True], "winners": [0], "rounds": 1, "reason": "",
      "places": []},
     r"Outcome.scores\[1\]: expected an int, got True"),
    ({"$": "ChatLine", "scope": "lobby", "name": "a", "text": "b", "time": float("nan"),
      "me": False, "to": "", "spectators": False, "bell": False},
     "ChatLine.time: expected a finite number, got nan"),
    ({"$": "Event", "kind": "play", "seat": 0, "args": [{"$": "Notice"}], "secret": []},
     r"Event.args\[0\]: expected plain data"),
    ({"$": "Mail", "lobby": notice_map(), "table": None, "left_table": False, "chat": [],
      "notices": [], "closed": False}, "Mail.lobby: expected LobbySnapshot, got Notice"),
    ({"$": "defausse.Action", "action": ["play", 500, None, False]},
     "defausse.Action.action: bad card: 500"),
    ({"$": "collection.Action", "action": ["teleport"]},
     "collection.Action.action: action: unknown name 'teleport'"),
    ({"$": "Refused", "code": "x", "message": "y", "params": {"n": [1, {"$": "Notice"}]}},
     r"Refused.params.n\[1\]: expected plain data"),
    ({"$": "Refused", "code": "x", "message": "y", "params": {"code": "z"}},
     "Refused: .*multiple values for .*'code'"),
])
def test_what_is_not_exactly_a_registered_value_is_refused(data: Any, message: str | None
                                                            ) -> None:
    if message is None:
        assert wire.decode(packed(data)) == Notice("full", "La table est complète.")
        return
    with pytest.raises(wire.WireError, match=message):
        wire.decode(packed(data))


def test_a_wrong_field_deep_inside_names_its_type_and_field() -> None:
    update = next(v for v in (_played("defausse", 3, 1, 10, s) for s in range(3)) if v.legal)
    data = msgpack.unpackb(wire.encode(update))
    data["legal"][0]["action"] = ["draw", "now"]
    with pytest.raises(wire.WireError, match=r"defausse.Action.action: not a Défausse action"):
        wire.decode(packed(data))
    data = msgpack.unpackb(wire.encode(update))
    data["counts"] = [1, 2, "3"]
    with pytest.raises(wire.WireError, match=r"defausse.View.counts\[2\]: expected an int"):
        wire.decode(packed(data))


def test_cut_or_padded_bytes_are_refused() -> None:
    data = wire.encode(_played("collection", 4, 3, 80, 1))
    for end in range(len(data)):
        with pytest.raises(wire.WireError):
            wire.decode(data[:end])
    with pytest.raises(wire.WireError, match="bytes after the message"):
        wire.decode(data + b"\x00")
    with pytest.raises(wire.WireError, match="not a message"):
        wire.decode(b"\xc1")  # never used in msgpack


@pytest.mark.parametrize("data", [
    b"\xdd\xff\xff\xff\xff",  # an array of 4 billion items, none there
    b"\xdf\xff\xff\xff\xff",  # a map of 4 billion pairs
    b"\xdb\xff\xff\xff\xff",  # a string of 4 GiB
    b"\xc6\x00\x00\x00\x10" + b"x" * 16,  # bytes: never used here
    b"\xc7\x01\x05x",  # an extension type
    b"\x91" * 100_000 + b"\xc0",  # arrays nested 100,000 deep
    packed({"$": "Notice", "code": "a" * (wire.MAX_STR + 1), "text": ""}),
    packed([0] * (wire.MAX_ITEMS + 1)),
    packed({str(i): i for i in range(wire.MAX_FIELDS + 1)}),
])
def test_huge_claims_are_refused_before_anything_is_built(data: bytes) -> None:
    with pytest.raises(wire.WireError, match=r"not a message: ."):
        wire.decode(data)


def test_plain_data_nested_too_deep_is_refused() -> None:
    args: Any = 0
    for _ in range(wire.MAX_DEPTH + 1):
        args = [args]
    event = {"$": "Event", "kind": "k", "seat": None, "args": [args], "secret": []}
    with pytest.raises(wire.WireError, match=r"Event\.args"):
        wire.decode(packed(event))


def test_a_message_over_the_size_limit_is_refused_unread() -> None:
    with pytest.raises(wire.WireError, match="more than"):
        wire.decode(b"\xc0" * (wire.MAX_BYTES + 1))


@pytest.mark.parametrize(("value", "message"), [
    (object(), "no codec for object"),
    (Notice("code", 3), "Notice.text: expected a string, got 3"),  # type: ignore[arg-type]
    (Event("play", 0, ([1, 2],)), r"Event.args\[0\]: expected plain data"),
    (Event("play", 0, (2**70,)), "cannot be sent"),
    (ChatLine("lobby", "a", "b", 10**400), r"cannot be sent: .*too large"),
    (Notice("code", "\ud800"), "cannot be sent"),
    (TableUpdate(TableSummary("t", "toy", "Toy", (), (), "playing", 0, False, None, "a"), 0, 1,
                 view=object()), "TableUpdate.view: expected defausse.View or collection.View"),
])
def test_encoding_what_has_no_codec_is_refused(value: Any, message: str) -> None:
    with pytest.raises(wire.WireError, match=message):
        wire.encode(value)


def test_a_view_of_each_game_is_checked_on_both_sides() -> None:
    """The two games' views are told apart by their tags, never by guessing from fields."""
    defausse, collection = _played("defausse", 2, 1, 5, 0), _played("collection", 2, 1, 5, 0)
    assert isinstance(wire.decode(wire.encode(defausse)), DefausseView)
    assert isinstance(wire.decode(wire.encode(collection)), CollectionView)
    data = msgpack.unpackb(wire.encode(defausse))
    data["$"] = "collection.View"
    with pytest.raises(wire.WireError, match=r"collection\.View: unknown field"):
        wire.decode(packed(data))



def test_a_game_from_elsewhere_registers_its_view() -> None:
    """The test suite's toy game: its view crosses in a TableUpdate once registered, and a
    second codec for its tag or its class is refused."""
    from tests.app.toy import ToyView
    from tests.wire.through import register_toy

    summary = TableSummary("t", "toy", "Toy", (), (), "playing", 0, False, None, "a")
    update = TableUpdate(summary, 0, 1, ToyView(3, 1, None))
    register_toy()
    register_toy()  # (the same codec again: nothing)
    assert wire.decode(wire.encode(update)) == update
    assert "toy.View" in wire.tags()
    with pytest.raises(ValueError, match="already"):
        wire.register(wire.record(ToyView, "toy.Other", total=wire.INT))
    with pytest.raises(ValueError, match="already"):
        wire.register(wire.record(Notice, "toy.View", code=wire.STR))


# --- requests and answers ------------------------------------------------------------------

def test_every_request_of_the_client_is_listed_with_its_arguments() -> None:
    """A request added to the protocol, or an argument, without its kinds fails here."""
    methods = {
        name: [p for p in inspect.signature(method).parameters if p != "self"]
        for name, method in vars(CoordinatorClient).items()
        if inspect.iscoroutinefunction(method)
    }
    assert methods == {
        name: [arg for arg, _ in request.args] for name, request in wire.REQUESTS.items()
        if name not in wire.FRONT_REQUESTS}
    assert set(wire.REQUESTS) > wire.FRONT_REQUESTS


def call_map(name: Any = "join", **changes: Any) -> dict[str, Any]:
    args: dict[str, Any] = {"table_id": "t1", "seat": 1, "code": None}
    args.update(changes)
    return {"$": "Call", "name": name, "args": {k: v for k, v in args.items() if v is not DROP}}


@pytest.mark.parametrize(("data", "message"), [
    (call_map(), None),  # (the well-formed one, for contrast)
    (call_map("drop_tables"), "Call: unknown request 'drop_tables'"),
    (call_map(7), "Call: unknown request 7"),
    (call_map(colour="red"), "join: unknown argument 'colour'"),
    (call_map(seat=DROP), "join: missing argument 'seat'"),
    (call_map(seat="1"), "join.seat: expected an int, got '1'"),
    (call_map(table_id=None), "join.table_id: expected a string, got None"),
    ({"$": "Call", "name": "join", "args": ["t1", 1, None]},
     "join: expected a map of arguments by name, got tuple"),
    ({"$": "Call", "name": "leave", "args": {}, "extra": 1}, "Call: unknown field 'extra'"),
    ({"$": "Call", "name": "leave"}, "Call: missing field 'args'"),
    ({"$": "Call", "name": "act", "args": {"action": {"$": "Pickle"}, "step": 1}},
     "act.action: unknown tag 'Pickle'"),
    ({"$": "Call", "name": "act", "args": {"action": {"$": "defausse.Action",
                                                      "action": ["fly"]}, "step": 1}},
     "defausse.Action.action: "),
    ({"$": "Call", "name": "create_table", "args": {
        "game": "defausse", "seats": 3, "options": None, "bots": {"1": "basic"},
        "timer": None, "private": False, "sit": True}},
     r"create_table.bots: expected an array of \[int, a string\] pairs"),
    ({"$": "Call", "name": "create_table", "args": {
        "game": "defausse", "seats": 3, "options": None, "bots": [[1, "a"], [1, "b"]],
        "timer": None, "private": False, "sit": True}}, "create_table.bots: a key twice"),
    ({"$": "Call", "name": "create_table", "args": {
        "game": "defausse", "seats": 3, "options": None, "bots": None,
        "timer": "soon", "private": False, "sit": True}},
     "create_table.timer: expected None or a finite number or one of default, got 'soon'"),
    ({"$": "Answer", "request": "create_table", "value": 3},
     "create_table answer: expected a string, got 3"),
    ({"$": "Answer", "request": "leave", "value": "ok"},
     "leave answer: expected None, got 'ok'"),
    ({"$": "Answer", "request": "resume", "value": [{"$": "Notice", "code": "", "text": ""},
                                                    "Ana"]},
     r"resume answer\[0\]: expected GuestPass, got Notice"),
    ({"$": "Answer", "request": "nope", "value": None}, "Answer: unknown request 'nope'"),
])
def test_a_request_or_answer_that_is_not_exactly_right_is_refused(data: Any, message: str | None
                                                                  ) -> None:
    if message is None:
        assert wire.decode(packed(data)) == wire.Call(
            "join", {"table_id": "t1", "seat": 1, "code": None})
        return
    with pytest.raises(wire.WireError, match=message):
        wire.decode(packed(data))


@pytest.mark.parametrize(("value", "message"), [
    (wire.Call("join", {"table_id": "t1", "seat": 1}), "join: missing argument 'code'"),
    (wire.Call("leave", {"now": True}), "leave: unknown argument 'now'"),
    (wire.Call("fly", {}), "Call: unknown request 'fly'"),
    (wire.Call("act", {"action": object(), "step": None}), "act.action: expected plain data"),
    (wire.Call("create_table", {"game": "g", "seats": 2, "options": {1: 2}, "bots": None,
                                "timer": None, "private": False, "sit": True}),
     "create_table.options: expected a map of strings"),
    (wire.Answer("learned", ["a"]), "learned answer: expected an array of a string"),
    (wire.Answer("preferences", {"lang": ["fr"]}), r"preferences answer.lang: expected plain"),
])
def test_encoding_a_request_or_answer_not_as_listed_is_refused(value: Any, message: str
                                                               ) -> None:
    with pytest.raises(wire.WireError, match=message):
        wire.encode(value)


def test_bots_by_seat_cross_as_pairs_and_come_back_as_a_map() -> None:
    """msgpack would refuse int keys in a map on the way in (``strict_map_key``)."""
    call = wire.Call("create_table", {"game": "defausse", "seats": 3, "options": {"target": 200},
                                      "bots": {1: "basic", 2: "basic"}, "timer": 60,
                                      "private": False, "sit": True})
    assert msgpack.unpackb(wire.encode(call))["args"]["bots"] == [[1, "basic"], [2, "basic"]]
    back = wire.decode(wire.encode(call))
    assert back.args["bots"] == {1: "basic", 2: "basic"} and back.args["timer"] == 60.0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=mails, second=mails)
def test_a_memo_shared_by_messages_changes_no_byte(first: Mail, second: Mail) -> None:
    """The bus's host encodes one table update for many sessions' mails with one memo."""
    memo: wire.Memo = {}
    assert wire.encode(first, memo) == wire.encode(first)
    assert wire.encode(second, memo) == wire.encode(second)
    again = dataclasses.replace(second, chat=(), closed=not second.closed)  # (its parts shared)
    assert wire.encode(again, memo) == wire.encode(again)
    assert (first.table is None and second.table is None and first.lobby is None
            and second.lobby is None) or memo  # (the memo is used)
