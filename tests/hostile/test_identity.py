"""Identity attacks over SSH, against the real app behind the real server (and, for the way back
to a seat, OpenSSH against ``pioche serve``):

- a second guest with the same name from the same address (anyone behind the same NAT) takes
  neither a dropped guest's seat nor her name, and sees neither her hand nor her token; the
  reconnect token shown on her screen gives her seat back, and only it;
- names alike but for case, accents or look-alike letters are one name: another key (or guest)
  cannot be online or recorded under them;
- a watcher never shows under the name of someone online;
- guests leave no row in the players table.
"""

from __future__ import annotations

import contextlib
import re

import asyncssh
import pytest
from textual.widgets import Input

from pioche_tui.app.app import PiocheApp
from pioche_tui.coordinator.guests import WORDS
from pioche_tui.coordinator.text import name_key
from server.keys import fingerprint
from server.limits import Limits
from server.ssh import PiocheServer
from tests.hostile.conftest import RecordingService, reset
from tests.hostile.defausse import app_of, makes_a_move, own_hand_shown, table_of, until
from tests.server.conftest import Client, Connect

SIZE = (100, 30)
RESUME = re.compile(r"ssh -t -p (\d+) (\S+) resume ([a-z]+-[a-z]+-[a-z]+)")


def newest_app(service: RecordingService) -> PiocheApp:
    return service.made[-1]


async def retype(client: Client, app: PiocheApp, text: str) -> None:
    """Clear the nickname field, then type ``text`` and Enter. (The backspaces go first, alone:
    keys sent in one write after a backspace reach the field before it. Sent again while the
    field is not empty: keys read before the field has the focus go to the screen, and a
    busy app may read them so.)"""
    field = app.screen.query_one(Input)
    for _attempt in range(10):
        client.send("\x7f" * len(field.value))
        with contextlib.suppress(AssertionError):
            await until(lambda: field.value == "", 1.0)
        if not field.value:
            break
    assert field.value == "", f"the nickname field kept {field.value!r}"
    client.send(text + "\r")


async def asked_to_quit(client: Client) -> None:
    """q, until the quit question shows (a key read before the lobby has the focus is lost:
    a busy app may read it so)."""
    for _attempt in range(5):
        client.send("q")
        with contextlib.suppress(AssertionError):
            await client.wait_for("Quitter Pioche ?", timeout=2.0)
            return
    await client.wait_for("Quitter Pioche ?")


def another_token(token: str) -> str:
    """A token of real words that is not ``token``."""
    first, rest = token.split("-", 1)
    return "-".join((WORDS[(WORDS.index(first) + 1) % len(WORDS)], rest))


async def test_a_guest_with_the_same_name_and_address_takes_neither_seat_nor_hand(
    connect: Connect, server: PiocheServer, service: RecordingService,
) -> None:
    alice = await connect("alice", term_size=SIZE)
    await alice.wait_for("Bonjour alice")
    alice.send("p")  # a quick game of Défausse against bots
    await alice.wait_for("Défausse · table")
    await own_hand_shown(alice, service, "alice")
    her_screen = alice.screen.text()  # what she can read before her connection drops
    await makes_a_move(alice, service, "alice")  # (a game left before any move just closes)
    table, seat = table_of(service, "alice")
    her_session = table.seats[seat].session
    # While she plays, the same name from the same address does not replace her.
    early = await connect("alice", term_size=SIZE)
    await early.wait_for(lambda s: "Votre pseudo" in s or "Défausse · table" in s)
    assert table.seats[seat].session is her_session and not alice.closed.is_set()
    assert "Le pseudo alice est déjà en ligne" in early.screen.text()
    reset(alice)
    await until(lambda: table.seats[seat].away)

    # From the same address, under the same name, with no key: not her.
    intruder = await connect("alice", term_size=SIZE)
    await intruder.wait_for(lambda s: "Votre pseudo" in s or "Défausse · table" in s)
    assert table.seats[seat].away, "her seat was taken"
    assert "Le pseudo alice garde une place à la table" in intruder.screen.text()
    intruder_app = newest_app(service)
    assert intruder_app.client.session is None
    # What her screen showed (the game, and the command that brings her back).
    shown = RESUME.search(her_screen)
    assert shown is not None, her_screen
    port, host, token = shown.groups()
    assert (int(port), host) == (server.port, "127.0.0.1")  # a command she can type as it is
    # A wrong token does no better (a notice, then an ordinary guest's first screen).
    guesser = await connect("alice", term_size=SIZE, command=f"resume {another_token(token)}")
    await guesser.wait_for("Ce code ne garde aucune place")
    assert newest_app(service).client.session is None
    # Under another name the intruder may watch her table: no seat, no hand, no token.
    await retype(intruder, intruder_app, "mallory")
    await intruder.wait_for("Bonjour mallory")
    mallory = app_of(service, "mallory").client.session
    assert mallory is not None and mallory.table is None
    mallory.watch(table.id)
    await intruder.wait_for(f"table {table.id}")
    assert mallory.seat is None
    step = table.step
    await until(lambda: table.step > step + 2)  # the stand-in plays for her meanwhile
    assert table.seats[seat].away
    assert token not in intruder.output and token not in guesser.output

    # Her token, however she types it, from any login name: her seat, her name, her hand.
    back = await connect("root", term_size=SIZE, command=f"resume {token.upper()}")
    await back.wait_for("Vous retrouvez votre place")
    session = app_of(service, "alice").client.session
    assert session is not None and table.seats[seat].session is session
    await own_hand_shown(back, service, "alice")
    await back.wait_for(token)  # and her way back, for next time


@pytest.mark.parametrize("limits", [Limits(max_per_address=64)])  # 2 × 13 attempts at once
async def test_look_alike_names_are_one_name(
    connect: Connect, service: RecordingService, client_key: asyncssh.SSHKey,
) -> None:
    owners = {"élise": client_key, "alice": asyncssh.generate_private_key("ssh-ed25519")}
    for name, key in owners.items():
        owner = await connect(name, client_keys=[key], term_size=SIZE)
        await owner.wait_for(f"Bonjour {name}")
    zoe = await connect("zoé", term_size=SIZE)  # a guest: owns nothing, but is online
    await zoe.wait_for("Bonjour zoé")
    taken = {name_key(name) for name in (*owners, "zoé")}
    attacker = asyncssh.generate_private_key("ssh-ed25519")
    look_alikes = ["Élise", "ELISE", "elise", "ɑlice", "alıce", "aǀice", "aʟice", "alicė",
                   "aIice", "al1ce", "ALICE", "Zoe", "ZOÉ"]
    for look_alike in look_alikes:
        for keys in ([attacker], []):  # another key, and a guest
            client = await connect(look_alike, client_keys=keys, term_size=SIZE)
            await client.wait_for(lambda s: "Votre pseudo" in s or "Bonjour" in s)
            app = newest_app(service)
            if app.client.session is not None:  # the login name was cleaned into another name
                assert name_key(app.client.session.player.name) not in taken, look_alike
                await asked_to_quit(client)
                client.send("o")
                await client.finished()
                continue
            # Asked for a name: typing the look-alike is refused.
            await retype(client, app, look_alike)
            await client.wait_for(lambda s: any(
                error in s for error in ("appartient à un autre joueur", "déjà en ligne",
                                         "De 2 à 16 lettres")))
            assert app.client.session is None, look_alike
    online = [entry.name for entry in service.coordinator.snapshot().online]
    assert sorted(online) == sorted([*owners, "zoé"])
    assert service.coordinator.db is not None
    db = service.coordinator.db
    for name, key in owners.items():  # the owners keep their names
        assert db.name_owner(name) == fingerprint(key)
    recorded = [row[0] for row in db._conn.execute("SELECT nickname FROM players")]
    keys = [name_key(name) for name in recorded]  # (the attacker's key: a cleaned-up name)
    assert len(set(keys)) == len(keys) and set(keys) & taken == {name_key(n) for n in owners}


async def test_a_watcher_never_shows_under_an_online_name(
    connect: Connect, service: RecordingService, client_key: asyncssh.SSHKey,
) -> None:
    alice = await connect("alice", term_size=SIZE)
    await alice.wait_for("Bonjour alice")
    for username, command in (("alice", "watch"), ("ALICE", "watch"), ("watch", None),
                              ("watch", None)):
        watcher = await connect(username, command=command, term_size=SIZE)
        await watcher.wait_for("Session spectateur")
    # Someone asking to play under a watcher's name is told it is online.
    late = await connect("spectateur", term_size=SIZE)
    await late.wait_for("Le pseudo spectateur est déjà en ligne")
    # bob watches, then plays under his own name: his watch session takes another.
    bob_watching = await connect("bob", client_keys=[client_key], command="watch",
                                 term_size=SIZE)
    await bob_watching.wait_for("Session spectateur")
    bob = await connect("bob", client_keys=[client_key], term_size=SIZE)
    await bob.wait_for("Bonjour bob")
    online = [entry.name for entry in service.coordinator.snapshot().online]
    assert sorted(online) == sorted(["alice", "alice2", "ALICE3", "spectateur", "spectateur2",
                                     "bob", "bob2"])
    assert len({name_key(name) for name in online}) == len(online)
    await alice.wait_for("spectateur2")  # as the lobby lists them
    await bob_watching.wait_for("Bonjour bob2")  # and as the watcher is greeted


async def test_guests_leave_no_player_rows(
    connect: Connect, service: RecordingService, client_key: asyncssh.SSHKey,
) -> None:
    for name in ("gus", "gaston", "gus2"):
        guest = await connect(name, term_size=SIZE)
        await guest.wait_for(f"Bonjour {name}")
        guest.send("p")
        await guest.wait_for("Défausse · table")
        guest.send("q")
    keyed = await connect("kim", client_keys=[client_key], term_size=SIZE)
    await keyed.wait_for("Bonjour kim")
    db = service.coordinator.db
    assert db is not None
    rows = db._conn.execute("SELECT identity, nickname FROM players").fetchall()
    assert [nickname for _identity, nickname in rows] == ["kim"]
