"""The rematch and join by name over a real ``pioche serve`` process and real SSH clients, in
one process and with ``--workers 2`` (the apps on fronts, the coordinator in another process):
a table found by its name (``ssh -t HOST join TABLE``) and its join command copied, a game to
its podium, the rematch asked and accepted (spectators follow to the new table), and declined."""

from __future__ import annotations

import base64
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncssh

from server.serve import DEFAULT_APP
from tests.server.conftest import Client
from tests.server.process import LikeOpenSSH, serve_process

# Stand-ins play every turn at once (the players' timers run out), bots think little: a game
# to 100 points takes a round or two, a few seconds. At that pace each screen costs far more
# CPU than at a player's, past the server's budget, which would stop reading their keys for
# a while (server/budget.py): the budgets are raised here.
SETTINGS = ("--turn-timer", "0.05", "--bot-delay", "0.01,0.02",
            "--cpu-per-connection", "2", "--cpu-per-address", "4")
TITLE = re.compile(r"Défausse · table ([A-Z2-9]{4})")
OSC52 = re.compile(r"\x1b\]52;c;([A-Za-z0-9+/=]*)\x07")
GAME = 90.0  # seconds a game may take to its podium on a busy machine


@asynccontextmanager
async def player(port: int, name: str, command: str | None = None) -> AsyncIterator[Client]:
    async with asyncssh.connect(
        "127.0.0.1", port, username=name, known_hosts=None, agent_path=None, config=None,
        client_factory=LikeOpenSSH, client_keys=None,
    ) as conn:
        _chan, client = await conn.create_session(
            Client, command, term_type="xterm-256color", term_size=(100, 30), encoding=None)
        client.screen.resize(100, 30)  # (the terminal's size, as the server was told)
        yield client


def table_of(client: Client) -> str:
    found = TITLE.search(client.screen.text())
    assert found is not None, client.screen.text()
    return found[1]


async def create_table(alice: Client) -> str:
    """A Défausse table of four to 100 points, Alice at seat 1, three seats free."""
    await alice.wait_for("Bonjour alice !")
    alice.send("n")
    await alice.wait_for("Objectif (points)")
    alice.send("\t" * 7)  # to the target
    alice.send("\x7f" * 3)
    alice.send("100")
    await alice.wait_for(lambda screen: re.search(r"Objectif \(points\)\s+100", screen)
                         is not None)
    alice.send("\x13")  # Ctrl+S: create
    await alice.wait_for("En attente de joueurs")
    return table_of(alice)


async def test_join_by_name_then_a_rematch_everyone_follows(tmp_path: Path) -> None:
    with serve_process(tmp_path, *SETTINGS, app=DEFAULT_APP) as served:
        port = served.port
        async with player(port, "alice") as alice:
            table = await create_table(alice)
            alice.send("I")  # the join command, shown and copied
            command = f"ssh -t -p {port} 127.0.0.1 join {table}"
            await alice.wait_for(f"join {table}")
            copied = OSC52.findall(alice.output)
            assert [base64.b64decode(c).decode() for c in copied] == [command]
            async with (player(port, "carol", "join ZZZZ") as carol,
                        player(port, "bob", f"join {table.lower()}") as bob):
                await carol.wait_for("Pas de table ZZZZ.")  # in the lobby, told why
                await bob.wait_for("bob (vous)")
                await alice.wait_for("bob")
                async with player(port, "dan", f"watch {table}") as dan:
                    await dan.wait_for(f"table {table}")
                    alice.send("\r")  # start: bots take the free seats
                    for client in (alice, bob):
                        await client.wait_for("Fin de la partie", GAME)
                        await client.wait_for("r revanche")
                    alice.send("r")
                    await alice.wait_for("Revanche demandée par alice :")
                    await bob.wait_for("Revanche demandée par alice : r pour accepter,")
                    bob.send("r")
                    for client in (alice, bob, dan):  # at the new table, the spectator too
                        await client.wait_for(lambda screen: (
                            (found := TITLE.search(screen)) is not None
                            and found[1] != table and "coup" in screen))
                    new = table_of(alice)
                    assert table_of(bob) == new == table_of(dan)
                    # the seats turned by one: Bob first, Alice last
                    rows = alice.screen.text().splitlines()[1:5]
                    assert "bob" in rows[0] and "alice" in rows[3], rows


async def test_join_by_name_through_a_front(tmp_path: Path) -> None:
    """With ``--workers 2``: the app on a front, the coordinator in another process. (A table
    made with the create dialog does not show there yet, whatever this feature does: the
    table's news overtakes the dialog's answer; the report of issue 17's rematch helper. So
    this one joins a game in progress, and the rematch crosses the bus in tests/contract/.)"""
    with serve_process(tmp_path, *SETTINGS, app=DEFAULT_APP, workers=2) as served:
        port = served.port
        async with player(port, "alice") as alice:
            await alice.wait_for("Bonjour alice !")
            alice.send("p")  # a quick game against bots: started at once
            await alice.wait_for("coup")
            table = table_of(alice)
            async with (player(port, "carol", "join ZZZZ") as carol,
                        player(port, "bob", f"join {table.lower()}") as bob):
                await carol.wait_for("Pas de table ZZZZ.")
                await carol.wait_for("Bonjour carol !")  # in the lobby, told why
                await bob.wait_for("La partie a déjà commencé ; vous pouvez la regarder.")
                await bob.wait_for("Bonjour bob !")


async def test_a_rematch_declined_is_off_for_all(tmp_path: Path) -> None:
    with serve_process(tmp_path, *SETTINGS, app=DEFAULT_APP) as served:
        port = served.port
        async with player(port, "alice") as alice:
            table = await create_table(alice)
            async with player(port, "bob", f"join {table}") as bob:
                await bob.wait_for("bob (vous)")
                alice.send("\r")
                for client in (alice, bob):
                    await client.wait_for("r revanche", GAME)
                bob.send("r")
                await alice.wait_for("Revanche demandée par bob : r pour accepter,")
                alice.send("\r")  # back to the lobby: declined
                await alice.wait_for("Bonjour alice !")
                await bob.wait_for("La revanche n'aura pas lieu : un joueur est parti.")
                await bob.wait_for("Pas de revanche à cette table.")
                assert "r revanche" not in bob.screen.text()
