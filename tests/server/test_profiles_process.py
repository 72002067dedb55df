"""Profiles and replays over SSH, against a real ``pioche serve`` process, embedded and with
``--workers 2`` (the app on a front that has no data directory: the replay's steps come over
the bus from the coordinator's process).

The games are played before the server starts, by a real coordinator on the same data
directory (real logs, a real SQLite file), between the key players that then log in: a whole
game through the screens is hundreds of moves."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncssh
import pytest

from pioche_tui.coordinator.core import Coordinator, Settings
from server.serve import DEFAULT_APP
from tests.app.profiles import finish_games
from tests.app.test_terminal_process import session
from tests.server.process import serve_process

RIGHT = "\x1b[C"
ESCAPE = "\x1b"


async def played(data: Path, alice: asyncssh.SSHKey, bob: asyncssh.SSHKey) -> None:
    coordinator = Coordinator(Settings(data, bot_delay=(0, 0), turn_timer=None, seed=5))
    await coordinator.start()
    try:
        await finish_games(coordinator, ("alice", "bob"), identities=(
            alice.get_fingerprint(), bob.get_fingerprint()))
    finally:
        coordinator.stop()


@pytest.mark.parametrize("workers", [None, 2])
async def test_a_profile_and_its_games_replay_over_ssh(tmp_path: Path, workers: int | None
                                                       ) -> None:
    alice, bob = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    await played(tmp_path / "data", alice, bob)
    with serve_process(tmp_path, "--turn-timer", "0", app=DEFAULT_APP,
                       workers=workers) as served:
        async with session(served.port, "alice", "xterm-256color", key=alice) as client:
            await client.wait_for("Bonjour alice !")
            # (the picker offers the online list the lobby shows: under --workers, the front's
            # lobby may come a moment after the first screen)
            await client.wait_for("En ligne (1)")
            client.send("i")  # the players online: alice alone
            await client.wait_for("Voir le profil de…")
            client.send("\r")
            await client.wait_for("Défausse : 1 partie")
            await client.wait_for("Dernières parties")
            await client.wait_for("classée")
            client.send("\r")  # the game, as a spectator saw it
            await client.wait_for("Revue, vue de spectateur · coup 0/")
            client.send(RIGHT)
            await client.wait_for("Revue, vue de spectateur · coup 1/")
            client.send("\x1b[F")  # End: the last page, asked for now
            await client.wait_for("Partie terminée")
            client.send(ESCAPE)
            await client.wait_for("Dernières parties")
            await asyncio.sleep(0.2)  # (an Escape and a letter at once read as Alt+letter)
            client.send("v")  # from her own seat, with her cards
            await client.wait_for("Revue depuis votre place · coup 0/")
