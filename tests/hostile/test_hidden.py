"""No byte sent to a player or a spectator shows a card they may not see: whole games of Défausse
over SSH (the real app behind the real server), two players, a bot and a spectator, with chat,
a dropped and reclaimed connection, the end of the game, then ``pioche replay`` as each of them.

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

Collection's labels come with its table screen (not merged yet): add them to LABELS then.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Callable, Iterable
from pathlib import Path

import asyncssh
import pytest

from pioche_tui.coordinator.table import Table
from pioche_tui.engine import GAMES
from pioche_tui.engine.defausse.cards import CARDS
from pioche_tui.i18n import Catalogue
from pioche_tui.narrate.defausse import card_name
from pioche_tui.replay import replay_lines
from pioche_tui.store.log import read_log
from server.ssh import PiocheServer
from tests.hostile.conftest import RecordingService, reset
from tests.hostile.defausse import app_of, until
from tests.server.conftest import Client, Connect, Screen
from widgets.defausse_cards import face

FRENCH = Catalogue("fr")


def defausse_labels(card: int) -> set[str]:
    return {face(card, FRENCH("colour.letters")).strip(), card_name(FRENCH, card)}


LABELS: dict[str, Callable[[int], set[str]]] = {"defausse": defausse_labels}


def allowed_cards(log: Path) -> dict[int | None, set[int]]:
    """Per viewer (a seat, None for a spectator): every card it was allowed to see at some point
    of the game in ``log``."""
    contents = read_log(log)
    header = contents.header
    game = GAMES[header["game"]]
    seats = len(header["seats"])
    state = game.new_game(seats, game.options(header["options"]), header["seed"])
    public: set[int] = set()
    own: dict[int, set[int]] = {seat: set() for seat in range(seats)}

    def look() -> None:
        public.update(state.discard)
        for seat in range(seats):
            own[seat].update(state.hand(seat))

    look()
    for seat, wire in contents.actions():
        game.apply(state, seat, game.action_from_wire(wire))
        look()
    allowed: dict[int | None, set[int]] = {seat: own[seat] | public for seat in range(seats)}
    allowed[None] = public
    return allowed


def forbidden_labels(allowed: set[int], labels: Callable[[int], set[str]]) -> set[str]:
    """Labels of which no copy was ever allowed to the viewer."""
    seen = set().union(*(labels(card) for card in allowed))
    return set().union(*(labels(card) for card in CARDS)) - seen


SGR = re.compile(r"\x1b\[[0-9;:]*m")
OTHER_SEQUENCE = re.compile(r"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
                            r"|\x1b.")


def texts_sent(raw: bytes) -> list[str]:
    """The text runs of a terminal stream: styles removed (they move nothing), split where the
    cursor moves."""
    stream = SGR.sub("", raw.decode("utf-8", "replace"))
    return OTHER_SEQUENCE.split(stream)


def screens_shown(raw: bytes, size: tuple[int, int], every: int = 2048) -> Iterable[str]:
    screen = Screen(*size)
    text = raw.decode("utf-8", "replace")
    for start in range(0, len(text), every):
        screen.feed(text[start : start + every])
        yield screen.text()


def find_labels(texts: Iterable[str], labels: set[str]) -> set[str]:
    # A label stands alone: « 2 vert » inside « +2 vert », « R 2 » inside « R 22 » are others.
    pattern = re.compile(
        "|".join(rf"(?<![\w+]){re.escape(label)}(?![\w])" for label in sorted(labels)))
    found: set[str] = set()
    for text in texts:
        found.update(match[0] for match in pattern.finditer(text))
    return found


class Typist:
    """Presses the game's keys at random, fast, so the game moves (the turn timer plays for a
    player who does nothing)."""

    KEYS = ("\r", "\r", "d", "k", "1", "2", "3", "\x1b[C", "\x1b[D", "a", "x")

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    async def run(self, client: Client, until_done: Callable[[], bool]) -> None:
        while not until_done() and not client.closed.is_set():
            client.send(self.rng.choice(self.KEYS))
            await asyncio.sleep(self.rng.uniform(0.02, 0.08))


@pytest.mark.parametrize("settings", [{"turn_timer": 0.3}], indirect=True)
@pytest.mark.parametrize("game", sorted(LABELS))
async def test_no_viewer_receives_a_card_it_may_not_see(
    connect: Connect, server: PiocheServer, service: RecordingService, game: str,
    client_key: asyncssh.SSHKey,
) -> None:
    size = (100, 30)
    keys = {"alice": client_key, "bob": asyncssh.generate_private_key("ssh-ed25519")}
    clients: dict[str, list[Client]] = {}
    for name, key in keys.items():
        clients[name] = [await connect(name, client_keys=[key], term_size=size)]
        await clients[name][0].wait_for(f"Bonjour {name}")
    clients["watch"] = [await connect("watch", term_size=size)]
    await clients["watch"][0].wait_for("Bonjour")
    alice = app_of(service, "alice").session
    bob = app_of(service, "bob").session
    assert alice is not None and bob is not None
    table_id = alice.create_table(game, seats=3, bots={2: "basic"}, timer="default",
                                  options={"single_round": True})
    table: Table = service.coordinator.tables[table_id]
    bob.join(table_id)
    watcher = next(app.session for app in service.apps if app.watch_only)
    assert watcher is not None
    watcher.watch(table_id)
    alice.chat("Bonne chance à tous !")

    def over() -> bool:
        return table.status != "playing"

    typing = [asyncio.create_task(Typist(seed).run(clients[name][0], over))
              for seed, name in enumerate(("alice", "bob"))]
    # Mid-game, bob's connection drops; he comes back with the same key.
    await until(lambda: table.step >= 25 or over(), timeout=60)
    reset(clients["bob"][0])
    await until(lambda: table.seats[1].away or over())
    again = await connect("bob", client_keys=[keys["bob"]], term_size=size)
    clients["bob"].append(again)
    typing.append(asyncio.create_task(Typist(7).run(again, over)))
    await until(over, timeout=90)
    await asyncio.gather(*typing)
    await asyncio.sleep(0.5)  # the podium reaches every screen

    log = service.coordinator.log_path(table_id)
    allowed = allowed_cards(log)
    labels = LABELS[game]
    viewers: dict[str, int | None] = {"alice": 0, "bob": 1, "watch": None}
    for name, viewer in viewers.items():
        forbidden = forbidden_labels(allowed[viewer], labels)
        assert len(forbidden) >= 10, f"too few labels to prove anything for {name}"
        for client in clients[name]:
            raw = bytes(client.raw)
            assert len(raw) > 10_000  # whole screens were received
            assert find_labels(texts_sent(raw), forbidden) == set(), name
            assert find_labels(screens_shown(raw, size), forbidden) == set(), name
        replayed = list(replay_lines(log, viewer, FRENCH))
        assert len(replayed) > 20
        assert find_labels(replayed, forbidden) == set(), f"replay as {name}"
    # The check does find labels where they are allowed: alice's own cards are on her screen.
    alice_only = forbidden_labels(allowed[1], labels) - forbidden_labels(allowed[0], labels)
    assert find_labels(texts_sent(bytes(clients["alice"][0].raw)), alice_only)


def test_a_leak_would_be_found() -> None:
    """The search itself: a forbidden label is found whatever styles surround it or split it."""
    raw = ("\x1b[5;3H\x1b[1;38;2;255;255;255;48;2;198;40;40m│R \x1b[0m\x1b[1m7│\x1b[0m"
           "\x1b[9;1HAlice pioche 1 carte : \x1b[31m4\x1b[0m\x1b[31m bleu\x1b[0m").encode()
    assert find_labels(texts_sent(raw), {"R 7", "4 bleu"}) == {"R 7", "4 bleu"}
    assert find_labels(screens_shown(raw, (80, 24)), {"R 7", "4 bleu"}) == {"R 7", "4 bleu"}
    assert find_labels(["Ambre joue +2 vert", "R 22"], {"2 vert", "R 2"}) == set()
