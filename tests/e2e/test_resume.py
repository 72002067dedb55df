"""End to end: a guest whose OpenSSH dies mid-game comes back to her seat by typing the command
her screen showed (``ssh -t -p PORT HOST resume TOKEN``: a pty, then an exec request)."""

from __future__ import annotations

import re
import shlex
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from pioche_tui.store.log import read_log
from server.keys import HOST_KEY_NAME
from server.serve import DEFAULT_APP
from tests.e2e.clients import Tmux
from tests.server.process import serve_process

MISSING = [tool for tool in ("ssh", "tmux") if shutil.which(tool) is None]
RESUME = re.compile(r"ssh -t -p (\d+) (\S+) resume ([a-z]+-[a-z]+-[a-z]+)")


@pytest.mark.skipif(bool(MISSING), reason=f"needs {' and '.join(MISSING)}")
@pytest.mark.parametrize("workers", [None, 2], ids=["one-process", "workers2"])
def test_openssh_resumes_a_guest_with_the_command_on_her_screen(
    tmp_path: Path, tmux: Tmux, workers: int | None
) -> None:
    app = ("--bot-delay", "0.05,0.1", "--turn-timer", "0")
    with serve_process(tmp_path, *app, app=DEFAULT_APP, workers=workers) as served:
        host_key = (served.keys_dir / (HOST_KEY_NAME + ".pub")).read_text().split()[:2]
        known_hosts = tmp_path / "known_hosts"
        known_hosts.write_text(f"[127.0.0.1]:{served.port} {' '.join(host_key)}\n")
        options = ["-F", "/dev/null", "-o", "PubkeyAuthentication=no", "-o", "IdentityAgent=none",
                   "-o", f"UserKnownHostsFile={known_hosts}", "-o", "StrictHostKeyChecking=yes"]
        tmux.start(["ssh", *options, "-p", str(served.port), "zoe@127.0.0.1"])
        tmux.wait_for("Bonjour zoe")
        tmux.send("p")
        shown = RESUME.search(tmux.wait_for(lambda screen: RESUME.search(screen) is not None))
        assert shown is not None
        typed = shown[0].split()  # ssh -t -p PORT HOST resume TOKEN
        tmux.wait_for("À vous")
        tmux.send("d")  # she plays (a game left before any move closes)
        logs = tmp_path / "data" / "tables"
        deadline = time.monotonic() + 10
        while not any(record[:2] == ["a", 0] for log in logs.glob("*.log")
                      for record in read_log(log).records):
            assert time.monotonic() < deadline, "her move never reached the log"
            time.sleep(0.05)
        # Her ssh dies with its terminal (killed by tmux), and she types the command in a new one.
        tmux("respawn-pane", "-k", "-t", "e2e", shlex.join([typed[0], *options, *typed[1:]]))
        screen = tmux.wait_for("Vous retrouvez votre place")
        assert "zoe" in screen and shown[3] in screen
        db = sqlite3.connect(tmp_path / "data" / "pioche.sqlite3")
        try:
            assert db.execute("SELECT COUNT(*) FROM players").fetchone()[0] == 0
        finally:
            db.close()
