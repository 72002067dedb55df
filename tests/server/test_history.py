"""Over a real server process (issue 14, « A table you can follow »): a player whose connection
drops comes back to a log that tells what happened meanwhile — her drop, what the stand-in
played in her name, marked as such — and whoever watches reads that she dropped and came back.

The real app (``pioche serve``, no turn timer, bots answering in a third of a second), two
players with keys over asyncssh: alice at a quick game of Défausse, bob watching it (someone
stays at the table, so the stand-in plays for her while she is away).
"""

from __future__ import annotations

import re
from pathlib import Path

import asyncssh

from tests.hostile.test_restart_live import login, table_id
from tests.server.process import reset, serve_process

APP = ("--app", "pioche_tui.app:open_service", "--turn-timer", "0", "--bot-delay", "0.3,0.4")
STAND_IN_PLAYED = re.compile(r"perdu la connexion[^\n]*\n(?:.*\n)*?\W*alice (joue|pioche|garde)")


async def test_back_after_a_drop_alice_reads_what_the_stand_in_played_for_her(
    tmp_path: Path
) -> None:
    keys = {name: asyncssh.generate_private_key("ssh-ed25519") for name in ("alice", "bob")}
    with serve_process(tmp_path, *APP) as served:
        conn_alice, alice = await login(served.port, "alice", keys["alice"])
        await alice.wait_for("Bonjour alice")
        alice.send("p")
        table = table_id(await alice.wait_for("Défausse · table"))
        conn_bob, bob = await login(served.port, "bob", keys["bob"])
        await bob.wait_for(table)
        bob.send("w")
        await bob.wait_for("Vous regardez cette partie")
        await alice.wait_for("À vous")
        alice.send("d")  # she plays (a game left before any move closes)
        await bob.wait_for("alice pioche 1 carte")
        reset(conn_alice)  # her connection drops
        await bob.wait_for("alice a perdu la connexion : le robot joue à sa place")
        await bob.wait_for(lambda screen: STAND_IN_PLAYED.search(screen) is not None,
                           timeout=30)
        conn_alice, alice = await login(served.port, "alice", keys["alice"])
        await alice.wait_for(f"Défausse · table {table}")
        await alice.wait_for("le robot a joué pour vous : alice ")
        await alice.wait_for("Vous avez perdu la connexion : le robot a joué à votre place.")
        await alice.wait_for("Vous êtes de retour à votre place.")
        await bob.wait_for("alice est de retour.")
        for conn in (conn_alice, conn_bob):
            conn.close()
