"""End to end, every SSH client players use (tests/e2e/clients.py), in a real terminal (tmux),
with a key and as a guest, against ``pioche serve`` serving the game: a new player's first
connection (the host key asked and checked), the lobby in the player's language when the client
can send it, a quick game and one move, leaving the table and the game, then the identity the
server bound, as the game's database holds it.

One server for the whole matrix; each run has its own nickname. A client that is not installed
skips and says why (``.ci/run`` installs them on Debian when root).
"""

from __future__ import annotations

import re
import shutil
import signal
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import asyncssh
import pytest

from pioche_tui.i18n import Catalogue, pick_lang
from server.keys import fingerprint
from server.serve import DEFAULT_APP
from tests.e2e.clients import CLIENTS, Player, SSHClient, Tmux
from tests.server.process import ServeProcess, serve_process

pytestmark = pytest.mark.skipif(
    shutil.which("tmux") is None, reason="needs tmux (apt-get install tmux; .ci/run does)"
)

LANG = "en_GB.UTF-8"  # the players' terminals: English, so a screen in English shows it was sent


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
           ) -> Iterator[ServeProcess]:
    """The game, with bots that play at once and no turn timer; in one process, or with
    ``--workers N`` when the test's parameter ``served`` says N (indirect)."""
    workers: int | None = getattr(request, "param", None)
    with serve_process(tmp_path_factory.mktemp("served"), "--bot-delay", "0.02,0.05",
                       "--turn-timer", "0", app=DEFAULT_APP, workers=workers) as served:
        yield served
        served.process.send_signal(signal.SIGTERM)
        assert served.wait() == 0


@pytest.fixture
def client_type(request: pytest.FixtureRequest, served: ServeProcess) -> type[SSHClient]:
    """The test's client; against the process tree, OpenSSH's alone (what the tree changes is
    behind the fronts, the same for every client: one is enough for the suite's time)."""
    client: type[SSHClient] = request.param
    if served.workers is not None and client is not CLIENTS[0]:
        pytest.skip("the process tree is tried with OpenSSH alone")
    return client


def bound_identities(served: ServeProcess, nickname: str) -> list[str]:
    """The identities the game's database holds for ``nickname``."""
    database = served.log.parent / "data" / "pioche.sqlite3"
    with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
        rows = db.execute("SELECT identity FROM players WHERE nickname = ?", (nickname,))
        return [identity for (identity,) in rows]


def play_one_move(tmux: Tmux, t: Catalogue, name: str) -> None:
    """Wait for the player's turn in a new Défausse game and make a move: the starting colour
    when it is theirs to choose, else draw (or take the cards, or pass: all the key d)."""
    my_turn = t("df.your_turn").partition(":")[0]  # « À vous », « Your turn »
    choose = t("df.choose_colour")
    screen = tmux.wait_for(lambda screen: my_turn in screen or choose in screen)
    if choose in screen:
        tmux.send("1")
        done = [t("ev.colour", name=name, colour="")]
    else:
        tmux.send("d")
        done = [t("ev.draw", name=name, cards=""), t("ev.pass", name=name)]
    # The table's log tells the move on a line of its own (another's card may make a player
    # draw too, but mid-line: « X joue +2 — NAME pioche 2 cartes »).
    moved = re.compile("^ *(?:" + "|".join(re.escape(line.strip()) for line in done) + ")",
                       re.MULTILINE)
    tmux.wait_for(lambda screen: moved.search(screen) is not None)


@pytest.mark.parametrize("keyed", [True, False], ids=["key", "guest"])
@pytest.mark.parametrize("client_type", [
    pytest.param(client, id=client.name,
                 marks=pytest.mark.skipif(client.missing() is not None,
                                          reason=client.missing() or ""))
    for client in CLIENTS
], indirect=True)
@pytest.mark.parametrize("served", [None, 2], ids=["", "workers2"], indirect=True)
def test_a_player_with(
    client_type: type[SSHClient], keyed: bool, served: ServeProcess, tmux: Tmux, tmp_path: Path
) -> None:
    key = None
    if keyed:
        key = asyncssh.generate_private_key("ssh-ed25519")
        key.write_private_key(tmp_path / "id_ed25519")
        (tmp_path / "id_ed25519").chmod(0o600)
    name = f"{client_type.name}-{'key' if keyed else 'guest'}"
    player = Player(name, tmp_path / "id_ed25519" if keyed else None, LANG)
    client = client_type(tmp_path / "home", served.port)
    t = Catalogue(pick_lang(LANG if client.sends_lang else None))

    tmux.start(client.command(player))
    client.log_in(tmux, served.fingerprint)
    tmux.wait_for(t("lobby.hello", name=name))
    tmux.send("p")  # a quick game of Défausse against bots
    play_one_move(tmux, t, name)
    tmux.send("l")
    tmux.wait_for(t("confirm.leave").partition("?")[0])
    tmux.send("y")
    tmux.wait_for(t("lobby.hello", name=name))
    tmux.send("q")
    tmux.wait_for(t("confirm.quit"))
    tmux.send("y")
    assert tmux.exit_status() == 0

    if key is not None:  # the key that signed is the name's owner
        assert bound_identities(served, name) == [fingerprint(key)]
    else:  # a guest: an identity of the session's own, kept nowhere
        assert bound_identities(served, name) == []
        assert f"nickname {name}, guest" in served.log_text()
