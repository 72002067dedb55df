"""The chat over a real ``pioche serve`` process and real SSH clients: a private line reaches
its two players' terminals and never a third's; a mention rings the mentioned player's
terminal once, within the limit, and never the sender's."""

from __future__ import annotations

from pathlib import Path

from server.serve import DEFAULT_APP
from tests.app.test_terminal_process import bells, session
from tests.server.process import serve_process


async def test_private_lines_and_mentions_between_terminals(tmp_path: Path) -> None:
    with serve_process(tmp_path, "--turn-timer", "0", app=DEFAULT_APP) as served:
        async with (session(served.port, "alice", "xterm-256color") as alice,
                    session(served.port, "bob", "xterm-256color") as bob,
                    session(served.port, "carl", "xterm-256color") as carl):
            for client, name in ((alice, "alice"), (bob, "bob"), (carl, "carl")):
                await client.wait_for(f"Bonjour {name} !")
            await alice.wait_for("En ligne (3)")
            alice.send("c")
            await alice.wait_for("Entrée : envoyer")
            alice.send("/msg bob un secret\r")
            await bob.wait_for("alice → bob (privé) : un secret")
            await alice.wait_for("alice → bob (privé) : un secret")
            alice.send("@bob une partie ?\r")
            await carl.wait_for("alice : @bob une partie ?")  # said to the whole lobby
            await bob.wait_for("alice : @bob une partie ?")
            alice.send("@bob tu es là ?\r")
            await carl.wait_for("alice : @bob tu es là ?")
            await bob.wait_for("alice : @bob tu es là ?")
            assert "un secret" not in carl.output  # (nor in what carl's terminal was sent)
            assert bells(bob.raw) == 1  # the second mention, within 30 s, rang nothing
            assert bells(alice.raw) == 0 and bells(carl.raw) == 0
