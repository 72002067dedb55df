"""End to end: OpenSSH's own ``ssh`` client, in a real terminal (tmux), against ``pioche serve``.

This is what a player does. It needs ``ssh`` and ``tmux`` (``.ci/run`` installs both on Debian);
without them the test skips and says so.
"""

from __future__ import annotations

import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import asyncssh
import pytest

from server.keys import HOST_KEY_NAME, fingerprint
from server.ssh import MSG_FORWARDING_ASKED, MSG_SHUTDOWN
from tests.server.process import serve_process

MISSING = [tool for tool in ("ssh", "tmux") if shutil.which(tool) is None]
pytestmark = pytest.mark.skipif(
    bool(MISSING),
    reason=f"needs {' and '.join(MISSING)} (apt-get install openssh-client tmux; .ci/run does)",
)


class Tmux:
    """A tmux server of our own (its own socket), with one window running a command."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def __call__(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def screen(self) -> str:
        return self("capture-pane", "-p", "-t", "e2e")

    def wait_for(self, check: str | Callable[[str], bool], timeout: float = 15.0) -> str:
        test = check if callable(check) else (lambda screen: check in screen)
        deadline = time.monotonic() + timeout
        while not test(screen := self.screen()):
            if time.monotonic() > deadline:
                raise AssertionError(f"never shown: {check!r}; screen:\n{screen}")
            time.sleep(0.1)
        return screen


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    tmux = Tmux(f"pioche-e2e-{tmp_path.name}")
    yield tmux
    subprocess.run(["tmux", "-L", tmux.socket, "kill-server"], capture_output=True, timeout=10)


def test_a_player_with_openssh(tmp_path: Path, tmux: Tmux) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    key_path = tmp_path / "id_ed25519"
    key.write_private_key(key_path)
    key_path.chmod(0o600)
    with serve_process(tmp_path) as served:
        host_key = (served.keys_dir / (HOST_KEY_NAME + ".pub")).read_text().split()[:2]
        known_hosts = tmp_path / "known_hosts"
        known_hosts.write_text(f"[127.0.0.1]:{served.port} {' '.join(host_key)}\n")
        ssh = [
            "ssh", "-F", "/dev/null", "-p", str(served.port), "-i", str(key_path),
            "-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none",
            "-o", f"UserKnownHostsFile={known_hosts}", "-o", "StrictHostKeyChecking=yes",
            "-o", "SetEnv=LANG=fr_FR.UTF-8", "alice@127.0.0.1",
        ]
        tmux("new-session", "-d", "-s", "e2e", "-x", "100", "-y", "30", shlex.join(ssh))
        tmux("set-option", "-t", "e2e", "remain-on-exit", "on")
        screen = tmux.wait_for("connectes : alice")
        assert f"identite : {fingerprint(key)}" in screen
        assert "pseudo : alice demander=False" in screen
        assert "lang : fr_FR.UTF-8" in screen
        assert "taille : 100x30" in screen
        tmux("send-keys", "-t", "e2e", "a")
        tmux.wait_for("touche : a")
        tmux("send-keys", "-t", "e2e", "Escape")
        tmux.wait_for("touche : escape")
        tmux("resize-window", "-t", "e2e", "-x", "120", "-y", "40")
        tmux.wait_for("taille : 120x40")
        served.process.send_signal(signal.SIGTERM)
        tmux.wait_for(MSG_SHUTDOWN)
        assert served.wait() == 0


@pytest.mark.parametrize("forwarding", [
    ["-A", "-o", "IdentityAgent={agent}"],  # OpenSSH asks for it only with an agent to forward
    ["-X", "-o", "IdentityAgent=none"],
    ["-R", "0:127.0.0.1:9", "-o", "IdentityAgent=none"],
], ids=["agent", "x11", "remote"])
def test_openssh_asking_for_forwarding_is_refused(tmp_path: Path, forwarding: list[str]) -> None:
    agent_path = tmp_path / "agent.sock"  # an empty ssh-agent of our own
    agent = subprocess.Popen(["ssh-agent", "-D", "-a", str(agent_path)], stdout=subprocess.DEVNULL)
    try:
        with serve_process(tmp_path) as served:
            done = subprocess.run(
                ["ssh", "-F", "/dev/null", "-tt", "-p", str(served.port),
                 "-o", "UserKnownHostsFile=/dev/null", "-o", "StrictHostKeyChecking=no",
                 *(option.format(agent=agent_path) for option in forwarding), "alice@127.0.0.1"],
                stdin=subprocess.DEVNULL, capture_output=True, timeout=30,
                env={"PATH": "/usr/bin:/bin", "DISPLAY": "127.0.0.1:99", "HOME": str(tmp_path)},
            )
    finally:
        agent.terminate()
        agent.wait(timeout=10)
    assert done.returncode == 1
    assert MSG_FORWARDING_ASKED in done.stderr.decode()
    assert done.stdout == b""  # no app drew a screen
