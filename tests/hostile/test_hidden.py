"""No byte sent to a player or a spectator shows a card they may not see: whole games of Défausse
over SSH (the real app behind the real server), two players, a bot and two spectators (one
sharing a screen to the end, one handed an app of its own by a key), with chat, a dropped and
reclaimed connection, the end of the game, then ``pioche replay`` as each of them.

How the check is sound. After the game, the table's log is replayed with the engine, and for each
viewer we collect every card it was ever allowed to see: for a seat, every card that was in its
hand at any step; for everyone, every card that went to the discard (played or flipped: public).
A card is drawn on screen by its labels — its face in a hand or on the discard (« R 7 », « B+2 »,
« ★+4 », see ``widgets.defausse_cards.face``) and its name in the log (« 7 rouge », « Joker
+4 »). Défausse has two copies of most cards, so a label does not name one card: the check only
uses the *forbidden* labels, those of which no copy was ever allowed to the viewer. Such a label
can only reach the viewer's terminal by a leak, so finding none of them is a real proof for those
cards, never a false alarm — and the test insists there are enough of them to mean something.
Where a forbidden label is looked for: every byte each client of the viewer received (first
screen, updates, the reconnection, the log, chat, the podium), as text with style sequences
removed (so a label split by colour changes is still found), and the screen rebuilt from those
bytes (``tests.server.conftest.Screen``) every 2 KB, so a label assembled by separate writes is
found too; and the text of ``pioche replay`` as that seat or as a spectator.

Collection deals every card into view by the end of a round (the round ends when both draw piles
are empty), so a whole-game search would find little to look for. The search is therefore also
made in time: each chunk a client receives is noted with the table's step at its arrival (server
and clients share this test's event loop, so nothing sent then can show a later step), and the
screen rebuilt up to that chunk is searched for the labels forbidden *at that step* — the cards
still in the draw piles, others' Quantique cards, the tops another's Flip showed. Collection's
labels are its classic cards' faces (« R3 ») and names (« 3 rouge »); Rainbow, Shadow and the
specials have words that screens use for other things (« Double paire », the Joker answer to a
Shadow).
"""

from __future__ import annotations

import asyncio
import codecs
import functools
import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import asyncssh
import pytest

from pioche_tui.coordinator.table import Table
from pioche_tui.engine import GAMES
from pioche_tui.engine.base import Event
from pioche_tui.engine.collection import rules as collection_rules
from pioche_tui.engine.collection.cards import CLASSIC, KIND
from pioche_tui.engine.defausse.cards import CARDS
from pioche_tui.i18n import Catalogue
from pioche_tui.narrate.collection import card_name as collection_name
from pioche_tui.narrate.defausse import card_name
from pioche_tui.replay import replay_lines
from pioche_tui.store.log import LogWriter, read_log
from server.serve import DEFAULT_APP
from server.ssh import PiocheServer
from tests.hostile.conftest import RecordingService, reset
from tests.hostile.defausse import app_of, until
from tests.hostile.test_restart_live import login
from tests.server.conftest import Client, Connect, Screen
from tests.server.process import LikeOpenSSH, serve_process
from tests.server.process import reset as drop
from widgets.collection_cards import face as collection_face
from widgets.defausse_cards import face

FRENCH = Catalogue("fr")
TITLE = re.compile(r"Défausse · table ([A-Z2-9]{4})  ·  coup (\d+)")  # the table's step


def defausse_labels(card: int) -> set[str]:
    return {face(card, FRENCH("colour.letters")).strip(), card_name(FRENCH, card)}


def collection_labels(card: int) -> set[str]:
    if KIND[card] != CLASSIC:
        return set()
    return {collection_face(card, FRENCH("col.letters")), collection_name(FRENCH, card)}


def defausse_visible(state: Any, viewer: int | None) -> set[int]:
    """What the rules let ``viewer`` see now: the discard, and its own hand."""
    return set(state.discard) | (set(state.hand(viewer)) if viewer is not None else set())


def collection_visible(state: Any, viewer: int | None) -> set[int]:
    """What the rules let ``viewer`` see now: every card but the draw piles (except the tops its
    own Flip showed), the Quantique's cards of another seat, and the cards another seat
    discarded face down from its Quantique."""
    hidden = set(state.draw[0]) | set(state.draw[1])
    if state.phase == collection_rules.QUANTIQUE_CHOICE and viewer != state.current:
        hidden |= set(state.held)
    for seat in range(state.seats):
        if seat != viewer:
            hidden |= set(state.private_discards[seat])
    seen = set(state.private_discards[viewer]) if viewer is not None else set()
    if viewer is not None:
        seen |= {top for top in collection_rules.known_tops(state, viewer) if top >= 0}
    return (set(state.deck) - hidden) | seen


def defausse_laid(events: Sequence[Event]) -> set[int]:
    """The cards a step laid face up for everyone (played, or turned to start a discard), which
    the state after it may no longer show: the card that ends a round (« Firmin joue 1 vert »)
    is under the next round's deal by the end of its step, and a Joker +4 turned to start a
    round goes back into the pile."""
    return {event.args[0] for event in events if event.kind in ("play", "flip")}


def collection_laid(events: Sequence[Event]) -> set[int]:
    """Collection is searched over one round (``single_round``), whose last state still shows
    every card its steps moved: nothing is laid out of sight. A next round would put cards back
    in the piles within a step, which the search does not follow: refused."""
    assert all(event.args[0] == 1 for event in events if event.kind == "round"), "one round"
    return set()


@dataclass(frozen=True)
class Cards:
    """A game's cards as the search sees them."""

    all: Sequence[int]
    labels: Callable[[int], set[str]]
    visible: Callable[[Any, int | None], set[int]]
    laid: Callable[[Sequence[Event]], set[int]]


GAME_CARDS = {
    "defausse": Cards(CARDS, defausse_labels, defausse_visible, defausse_laid),
    "collection": Cards(range(len(KIND)), collection_labels, collection_visible,
                        collection_laid),
}


def allowed_cards(log: Path) -> dict[int | None, list[set[int]]]:
    """Per viewer (a seat, None for a spectator), per step of the game in ``log``: every card it
    was allowed to see up to that step (what the state after each step shows it, and what the
    step laid face up for everyone)."""
    contents = read_log(log)
    header = contents.header
    game = GAMES[header["game"]]
    cards = GAME_CARDS[header["game"]]
    seats = len(header["seats"])
    state = game.new_game(seats, game.options(header["options"]), header["seed"])
    laid = cards.laid(getattr(state, "opening", ()))
    viewers: list[int | None] = [*range(seats), None]
    allowed: dict[int | None, list[set[int]]] = {
        viewer: [cards.visible(state, viewer) | laid] for viewer in viewers}
    for seat, wire in contents.actions():
        laid = cards.laid(game.apply(state, seat, game.action_from_wire(wire)))
        for viewer in viewers:
            allowed[viewer].append(allowed[viewer][-1] | cards.visible(state, viewer) | laid)
    return allowed


def forbidden_labels(allowed: set[int], cards: Cards) -> set[str]:
    """Labels of which no copy was allowed to the viewer."""
    seen = set().union(*(cards.labels(card) for card in allowed))
    return set().union(*(cards.labels(card) for card in cards.all)) - seen


SGR = re.compile(r"\x1b\[[0-9;:]*m")
OTHER_SEQUENCE = re.compile(r"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
                            r"|\x1b.")


def texts_sent(raw: bytes) -> list[str]:
    """The text runs of a terminal stream: styles removed (they move nothing), split where the
    cursor moves."""
    stream = SGR.sub("", raw.decode("utf-8", "replace"))
    return OTHER_SEQUENCE.split(stream)


CURSOR_MOVE = re.compile(r"\x1b\[[0-9;]*H")


def whole_writes(text: str) -> int:
    """Where the last cursor move of ``text`` starts: the writes before it are whole. A screen
    looked at in the middle of a write shows a line half rewritten, the new text over the old,
    which no write made: « Gaspard pioche 1 » over « alice joue Passe vert — … » read
    « Gaspard pioche 1 vert — … », found on a spectator's screen through the tree."""
    moves = [move.start() for move in CURSOR_MOVE.finditer(text)]
    return moves[-1] if moves else 0


def screens_shown(raw: bytes, size: tuple[int, int], every: int = 2048) -> Iterable[str]:
    """The screen rebuilt from ``raw``, looked at about every ``every`` characters (where the
    cursor moves: ``whole_writes``), and at the end."""
    screen = Screen(*size)
    text = raw.decode("utf-8", "replace")
    start = 0
    while len(text) - start > every:
        end = start + every + whole_writes(text[start + every : start + 2 * every])
        screen.feed(text[start:end])
        start = end
        yield screen.text()
    screen.feed(text[start:])
    yield screen.text()


@functools.cache
def label_pattern(labels: frozenset[str]) -> re.Pattern[str]:
    # A label stands alone: « 2 vert » inside « +2 vert », « R 2 » inside « R 22 », « Joker »
    # inside « Joker +4 » and « ★ » inside « ★+4 » are others. After « un », a label names a kind
    # of card, not a card: « il faut du vert ou un Joker » (why a card is refused), « seul un +2
    # y répond »; no line of the game names a card that way. On the podium, « 1. ★ alice »
    # marks a winner, not a Joker.
    return re.compile("|".join(
        rf"(?<![\w+])(?<!un\s)(?<!\d\.\s){re.escape(label)}(?![\w+]| \+)"
        for label in sorted(labels)))


def find_labels(texts: Iterable[str], labels: set[str]) -> set[str]:
    if not labels:
        return set()
    pattern = label_pattern(frozenset(labels))
    found: set[str] = set()
    for text in texts:
        found.update(match[0] for match in pattern.finditer(text))
    return found


def note_steps(client: Client, step: Callable[[], int]) -> list[tuple[int, int]]:
    """From now on, for each chunk ``client`` receives: where it ends in ``client.raw``, and the
    table's step when it arrived."""
    marks: list[tuple[int, int]] = []
    receive = client.data_received

    def data_received(data: bytes, datatype: asyncssh.DataType) -> None:
        receive(data, datatype)
        marks.append((len(client.raw), step()))

    client.data_received = data_received  # type: ignore[method-assign]
    return marks


def found_in_time(raw: bytes, marks: list[tuple[int, int]], size: tuple[int, int],
                  labels_at: Callable[[int], set[str]]) -> tuple[set[str], int]:
    """The labels ``labels_at`` a chunk's step (those forbidden then, say) found on the screen
    rebuilt up to that chunk; and how many chunks were searched with at least ten labels to
    find. A write the chunk cuts (``whole_writes``) is looked at once whole, with the next
    chunk: one write goes out at once (``server.driver.Terminal``), so both chunks came after
    the same steps, but for a move made between the two reads."""
    screen = Screen(*size)
    decode = codecs.getincrementaldecoder("utf-8")("replace").decode
    found: set[str] = set()
    strong = start = 0
    cut = ""
    for end, step in marks:
        text = cut + decode(raw[start:end])
        start = end
        whole = whole_writes(text) if end < len(raw) else len(text)
        screen.feed(text[:whole])
        cut = text[whole:]
        labels = labels_at(step)
        strong += len(labels) >= 10
        found |= find_labels([screen.text()], labels)
    return found, strong


class Typist:
    """Presses the game's keys at random, fast, so the game moves (the turn timer plays for a
    player who does nothing).

    Keys typed before the game's end may reach the app after it (an app behind its input, under
    load), on the podium, then the lobby: so none may start another game there, whose deal
    would be this player's own cards, never allowed at the table searched. Défausse's keys have
    no « a » (the lobby's « Apprendre », then « d » or Enter: a learn table); these games have
    no announcement, where « a » is the key. Collection's « a », « r » (a rematch, once every
    player asks) and the rest are needed to play: a new deal there would show nothing the
    search looks for, every card of a round being in view by its end."""

    KEYS: ClassVar[dict[str, tuple[str, ...]]] = {
        "defausse": ("\r", "\r", "d", "k", "1", "2", "3", "\x1b[C", "\x1b[D", "x"),
        "collection": ("a", "b", "a", "s", "k", "r", "e", "\r", "\r", "1", "2", "\x1b[B"),
    }

    def __init__(self, game: str, seed: int) -> None:
        self.keys = self.KEYS[game]
        self.rng = random.Random(seed)

    async def run(self, client: Client, until_done: Callable[[], bool]) -> None:
        while not until_done() and not client.closed.is_set():
            client.send(self.rng.choice(self.keys))
            await asyncio.sleep(self.rng.uniform(0.02, 0.08))


@pytest.mark.parametrize("settings", [{"turn_timer": 0.3}], indirect=True)
@pytest.mark.parametrize("game", sorted(GAME_CARDS))
async def test_no_viewer_receives_a_card_it_may_not_see(
    connect: Connect, server: PiocheServer, service: RecordingService, game: str,
    client_key: asyncssh.SSHKey,
) -> None:
    size = (100, 30)
    keys = {"alice": client_key, "bob": asyncssh.generate_private_key("ssh-ed25519")}
    tables: list[Table] = []

    def step() -> int:
        return tables[0].step if tables else 0

    clients: dict[str, list[Client]] = {}
    marks: dict[int, list[tuple[int, int]]] = {}  # by id of the client

    async def connected(name: str, **options: Any) -> Client:
        client = await connect(name, term_size=size, **options)
        marks[id(client)] = note_steps(client, step)
        clients.setdefault(name, []).append(client)
        return client

    for name, key in keys.items():
        await (await connected(name, client_keys=[key])).wait_for(f"Bonjour {name}")
    alice = app_of(service, "alice").client.session
    bob = app_of(service, "bob").client.session
    assert alice is not None and bob is not None
    table_id = alice.create_table(game, seats=3, bots={2: "basic"}, timer="default",
                                  options={"single_round": True})
    table: Table = service.coordinator.tables[table_id]
    tables.append(table)
    # The spectator shares a screen (server/share.py): what it receives is the shared frames.
    await (await connected("watch", command=f"watch {table_id}")).wait_for("Vous regardez")
    assert server.hub is not None
    assert [len(group.members) for group in server.hub.groups.values()] == [1]
    assert not any(app.watch_only for app in service.apps
                   if app.client.session is None or not app.client.session.mirror)
    # A second spectator leaves the shared screen for an app of its own (scrolling the log
    # needs one; not the help, whose rules show every kind of card): what both send it is
    # searched too.
    own = await connected("watch2", command=f"watch {table_id}")
    await own.wait_for("Vous regardez")
    own.send("\x1b[5~")  # PageUp
    await until(lambda: any(app.watch_only for app in service.apps
                            if app.client.session is not None
                            and not app.client.session.mirror))
    # bob's seat starts the game, once everyone is watching: the turn timer plays for players
    # who type nothing, and while spectators connect (seconds, under load) whole games went by.
    bob.join(table_id)
    assert table.status == "playing"
    alice.chat("Bonne chance à tous !")

    def over() -> bool:
        return table.status != "playing"

    typing = [asyncio.create_task(Typist(game, seed).run(clients[name][0], over))
              for seed, name in enumerate(("alice", "bob"))]
    # Mid-game, bob's connection drops; he comes back with the same key.
    # (Under load his screen may lag the table: it has shown some of the game when it drops.)
    first = marks[id(clients["bob"][0])]
    await until(lambda: (table.step >= 25 and bool(first) and first[-1][1] > 0) or over(),
                timeout=60)
    reset(clients["bob"][0])
    await until(lambda: table.seats[1].away or over())
    again = await connected("bob", client_keys=[keys["bob"]])
    typing.append(asyncio.create_task(Typist(game, 7).run(again, over)))
    await until(over, timeout=120)
    await asyncio.gather(*typing)
    live = [client for group in clients.values() for client in group
            if not client.closed.is_set()]
    # Every screen gets something after the last move (the end, the podium).
    await until(lambda: all(marks[id(c)] and marks[id(c)][-1][1] == table.step for c in live))
    await asyncio.sleep(0.3)  # and the rest of that frame
    # (and the spectator shared its screen to the end: every byte it got was a shared frame)
    assert [len(group.members) for group in server.hub.groups.values()] == [1]
    # Every byte searched is of this table: nobody's keys started another game (Typist).
    assert set(service.coordinator.tables) <= {table_id}

    log = service.coordinator.log_path(table_id)
    allowed = allowed_cards(log)
    cards = GAME_CARDS[game]
    viewers: dict[str, int | None] = {"alice": 0, "bob": 1, "watch": None, "watch2": None}
    for name, viewer in viewers.items():
        steps = allowed[viewer]

        def forbidden_at(step: int, steps: list[set[int]] = steps) -> set[str]:
            return forbidden_labels(steps[min(step, len(steps) - 1)], cards)

        forbidden = forbidden_at(len(steps))  # never allowed in the whole game (may be none)
        strong = 0
        assert sum(len(client.raw) for client in clients[name]) > 10_000  # whole screens
        for client in clients[name]:
            raw = bytes(client.raw)
            assert find_labels(texts_sent(raw), forbidden) == set(), name
            assert find_labels(screens_shown(raw, size), forbidden) == set(), name
            leaks, strong_chunks = found_in_time(raw, marks[id(client)], size, forbidden_at)
            assert leaks == set(), name
            strong += strong_chunks
        assert strong >= 10, f"too few labels to prove anything for {name} in time"
        replayed = list(replay_lines(log, viewer, FRENCH))
        assert len(replayed) > 20
        assert find_labels(replayed, forbidden) == set(), f"replay as {name}"
    # The check does find labels where they are allowed: a player's own cards are on their
    # screen (Défausse), the cards drawn since the first steps on everybody's (Collection). In
    # Défausse, searched in time: each player's screen shows, at some moment, a card of theirs
    # the spectator was not allowed then (their first hand, at least). Over the whole game a
    # player may hold nothing the others never saw: in a long game every card they held may
    # have been played, or its twin.
    if game == "defausse":
        for name, seat in (("alice", 0), ("bob", 1)):

            def own_at(step: int, seat: int = seat) -> set[str]:
                at = min(step, len(allowed[None]) - 1)
                return (forbidden_labels(allowed[None][at], cards)
                        - forbidden_labels(allowed[seat][at], cards))

            assert any(found_in_time(bytes(client.raw), marks[id(client)], size, own_at)[0]
                       for client in clients[name]), name
    else:
        drawn_later = forbidden_labels(allowed[None][1], cards) - forbidden_labels(
            allowed[None][-1], cards)
        assert find_labels(texts_sent(bytes(clients["watch"][0].raw)), drawn_later)


def test_a_leak_would_be_found() -> None:
    """The search itself: a forbidden label is found whatever styles surround it or split it."""
    raw = ("\x1b[5;3H\x1b[1;38;2;255;255;255;48;2;198;40;40m│R \x1b[0m\x1b[1m7│\x1b[0m"
           "\x1b[9;1HAlice pioche 1 carte : \x1b[31m4\x1b[0m\x1b[31m bleu\x1b[0m").encode()
    assert find_labels(texts_sent(raw), {"R 7", "4 bleu"}) == {"R 7", "4 bleu"}
    assert find_labels(screens_shown(raw, (80, 24)), {"R 7", "4 bleu"}) == {"R 7", "4 bleu"}
    assert find_labels(["Ambre joue +2 vert", "R 22"], {"2 vert", "R 2"}) == set()
    assert find_labels(["Ambre joue Joker +4", "│★+4│"], {"Joker", "★"}) == set()
    assert find_labels(["Ambre joue Joker, couleur : vert", "│ ★ │"], {"Joker", "★"}) == {
        "Joker", "★"}
    assert find_labels(["R 7 ne va pas : il faut du rouge ou un\nJoker."], {"Joker"}) == set()
    assert find_labels(["Ambre pioche 1 carte : Joker"], {"Joker"}) == {"Joker"}
    assert find_labels(["  1. ★ alice               120 pts"], {"★"}) == set()  # (the podium)


def test_a_sequence_cut_between_reads_draws_nothing() -> None:
    """The screen rebuilt from bytes cut anywhere is the screen rebuilt from them whole. Fed as
    text, the tail of a sequence cut between two reads drew characters nobody sent: once
    « [0 jaune » beside a log line on bob's screen, taken for a leak."""
    raw = ("\x1b[1;1H\x1b[1;38;5;58;48;5;58mjaune (J)\x1b[0m\x1b[2;1H\x1b]8;id=1;https://x\x1b\\"
           "lien\x1b]8;;\x1b\\\x1b[38;5;253;48;5;233m 4 jaune\x1b[0m\x1b[3;5H\x1b7+2 bleu\x1b8")
    whole = Screen(20, 4)
    whole.feed(raw)
    for cut in range(len(raw)):
        screen = Screen(20, 4)
        screen.feed(raw[:cut])
        screen.feed(raw[cut:])
        assert screen.text() == whole.text(), cut


def defausse_log(path: Path, seed: int, until: Callable[[list[Event]], bool]
                 ) -> tuple[Any, list[Event]]:
    """A game of Défausse for three bots written to a real table log at ``path`` until a step's
    events satisfy ``until``: the state then, and that step's events."""
    game = GAMES["defausse"]
    options = game.options({})
    state = game.new_game(3, options, seed)
    writer = LogWriter.create(path, {"table": "TEST", "game": "defausse", "options": options,
                                     "seed": seed, "seats": [{"name": n} for n in "abc"]})
    bot, rng = game.bot("basic"), random.Random(seed)
    try:
        while True:
            seat = game.to_act(state)[0]
            action = bot.choose(state, seat, game.legal_actions(state, seat), rng)
            events = game.apply(state, seat, action)
            writer.append_action(seat, game.action_to_wire(action))
            if until(events):
                return state, events
    finally:
        writer.close()


def test_what_a_step_laid_face_up_is_allowed(tmp_path: Path) -> None:
    """A card seen face up only within a step is allowed to everyone from that step: the card
    that ends a round (the next round's deal clears the discard in the same step; the tree's
    capture once found « Firmin joue 1 vert » there and took it for a leak), and a Joker +4
    turned to start a round, which goes back into the pile."""
    log = tmp_path / "round.log"
    state, events = defausse_log(log, 1, lambda events: any(e.kind == "round" for e in events))
    last = next(e.args[0] for e in events if e.kind == "play")
    assert last not in state.discard  # (under the new deal)
    allowed = allowed_cards(log)
    assert last not in allowed[None][-2]
    for viewer in (0, 1, 2, None):
        assert last in allowed[viewer][-1], viewer
    # A seed whose first card is a Joker +4, turned back into the pile.
    def flips(seed: int) -> list[int]:
        game = GAMES["defausse"]
        opening = game.new_game(3, game.options({}), seed).opening
        return [event.args[0] for event in opening if event.kind == "flip"]

    seed = next(seed for seed in range(1000) if len(flips(seed)) > 1)
    log = tmp_path / "opening.log"
    state, _events = defausse_log(log, seed, lambda events: True)
    joker = flips(seed)[0]
    assert face(joker, FRENCH("colour.letters")).strip() == "★+4"
    assert joker not in state.discard
    for viewer, steps in allowed_cards(log).items():
        assert joker in steps[0], viewer


async def test_no_viewer_receives_a_card_it_may_not_see_through_the_tree(
        tmp_path: Path) -> None:
    """The same search over ``pioche serve --workers 2`` (real processes: the views cross the
    bus between the coordinator and the fronts), on every byte a player and a spectator
    sharing a screen received: alice at a quick game of Défausse (three bots), her connection
    dropped mid-game and reclaimed with her key, a spectator on ``watch TABLE`` to the end.

    Whole game only: here the step at each chunk's arrival is not known (another process
    moves the table), so each viewer's labels are those it was never allowed in what was
    played, the log read once every connection is closed (the log can only have grown since
    the last byte: what it allows is a superset of what any byte could show)."""
    size = (100, 30)
    key = asyncssh.generate_private_key("ssh-ed25519")
    with serve_process(tmp_path, "--bot-delay", "0.02,0.05", "--turn-timer", "0",
                       app=DEFAULT_APP, workers=2) as served:
        conn, alice = await login(served.port, "alice", key)
        clients = {"alice": [alice]}
        conns = [conn]
        await alice.wait_for("Bonjour alice")
        alice.send("p")
        table_id = TITLE.search(await alice.wait_for(lambda s: TITLE.search(s) is not None))[1]
        watch_conn = await asyncssh.connect(
            "127.0.0.1", served.port, username="watch", known_hosts=None, client_keys=None,
            agent_path=None, config=None, client_factory=LikeOpenSSH)
        conns.append(watch_conn)
        _chan, watcher = await watch_conn.create_session(
            Client, f"watch {table_id}", term_type="xterm-256color", term_size=size,
            encoding=None)
        watcher.screen.resize(*size)
        clients["watch"] = [watcher]
        await watcher.wait_for("Vous regardez")

        def step(client: Client) -> int:
            found = TITLE.search(client.screen.text())
            return int(found[2]) if found else 0

        async def played_until(client: Client, steps: int) -> None:
            typing = asyncio.create_task(Typist("defausse", 1).run(
                client, lambda: step(client) >= steps))
            await until(lambda: typing.done(), timeout=90)
            await typing

        await played_until(alice, 25)
        drop(conns[0])  # (a TCP reset: her connection is lost)
        conn, again = await login(served.port, "alice", key)
        conns.append(conn)
        clients["alice"].append(again)
        await again.wait_for(f"Défausse · table {table_id}")
        await played_until(again, 50)
        for each in conns:
            each.close()
        for group in clients.values():
            for client in group:
                await asyncio.wait_for(client.closed.wait(), 10)
    log = tmp_path / "data" / "tables" / f"{table_id}.log"
    allowed = allowed_cards(log)
    seat = next(n for n, s in enumerate(read_log(log).header["seats"]) if s["name"] == "alice")
    cards = GAME_CARDS["defausse"]
    for name, viewer in (("alice", seat), ("watch", None)):
        forbidden = forbidden_labels(allowed[viewer][-1], cards)
        assert len(forbidden) >= 10, f"too few labels to prove anything for {name}"
        for client in clients[name]:
            raw = bytes(client.raw)
            assert len(raw) > 10_000
            assert find_labels(texts_sent(raw), forbidden) == set(), name
            assert find_labels(screens_shown(raw, size), forbidden) == set(), name
    # And the search finds her own cards where they are allowed: on her screen.
    own = forbidden_labels(allowed[None][-1], cards) - forbidden_labels(allowed[seat][-1], cards)
    assert own and find_labels(
        [text for client in clients["alice"] for text in texts_sent(bytes(client.raw))], own)
