"""End to end: OpenSSH's own ``ssh`` client, in a real terminal (tmux), against ``pioche serve``.

This is what a player does. It needs ``ssh`` and ``tmux`` (``.ci/run`` installs both on Debian);
without them the test skips and says so.
"""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
from pathlib import Path

import asyncssh
import pytest

from server.keys import HOST_KEY_NAME, fingerprint
from server.ssh import KEX_ALGS, MSG_FORWARDING_ASKED, MSG_SHUTDOWN
from tests.e2e.clients import Tmux
from tests.server.process import serve_process

MISSING = [tool for tool in ("ssh", "tmux") if shutil.which(tool) is None]
pytestmark = pytest.mark.skipif(
    bool(MISSING),
    reason=f"needs {' and '.join(MISSING)} (apt-get install openssh-client tmux; .ci/run does)",
)


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
        tmux.start(ssh)
        screen = tmux.wait_for("connectes : alice")
        assert f"identite : {fingerprint(key)}" in screen
        assert "pseudo : alice demander=False" in screen
        assert "lang : fr_FR.UTF-8" in screen
        assert "taille : 100x30" in screen
        tmux.send("a")
        tmux.wait_for("touche : a")
        tmux.send("Escape")
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


def test_openssh_gets_the_first_key_exchange_of_its_own_list_that_we_have(tmp_path: Path) -> None:
    # The client's order picks: OpenSSH >= 9.9 gets ML-KEM (its first), older ones
    # curve25519-sha256 (sntrup761 first, which we do not offer). Whatever our order.
    options = ["-F", "/dev/null", "-o", "UserKnownHostsFile=/dev/null",
               "-o", "StrictHostKeyChecking=no", "-o", "PubkeyAuthentication=no"]
    settings = subprocess.run(["ssh", *options, "-G", "-p", "22", "x"], capture_output=True,
                              text=True, timeout=10, check=True).stdout
    theirs = re.search(r"^kexalgorithms (\S+)$", settings, re.MULTILINE)
    assert theirs is not None, settings
    expected = next(alg for alg in theirs[1].split(",") if alg in KEX_ALGS)
    with serve_process(tmp_path) as served:
        done = subprocess.run(
            ["ssh", *options, "-v", "-T", "-p", str(served.port), "alice@127.0.0.1"],
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30,
            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        )
    assert f"debug1: kex: algorithm: {expected}\n" in done.stderr, done.stderr
    if theirs[1].startswith("mlkem768x25519-sha256,"):  # an OpenSSH that wants ML-KEM gets it
        assert "debug1: kex: algorithm: mlkem768x25519-sha256\n" in done.stderr
