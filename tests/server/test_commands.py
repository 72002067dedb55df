"""``pioche keygen`` and ``pioche serve`` as an operator runs them."""

from __future__ import annotations

import signal
import stat
import subprocess
import sys
from pathlib import Path

import asyncssh
import pytest

from pioche_tui.cli import main
from server.keys import HOST_KEY_NAME, ensure_host_key, fingerprint
from server.ssh import MSG_SHUTDOWN
from tests.server.conftest import Client, LikeOpenSSH
from tests.server.process import ROOT, serve_process


def test_keygen_writes_the_key_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    keys = tmp_path / "keys"
    assert main(["keygen", "--keys-dir", str(keys)]) == 0
    first = capsys.readouterr().out
    assert first.startswith(f"wrote {keys / HOST_KEY_NAME}: SHA256:")
    assert stat.S_IMODE((keys / HOST_KEY_NAME).stat().st_mode) == 0o600
    public = asyncssh.read_public_key(keys / (HOST_KEY_NAME + ".pub"))
    assert main(["keygen", "--keys-dir", str(keys)]) == 0
    second = capsys.readouterr().out
    assert second.startswith("kept ") and second.split()[-1] == first.split()[-1]
    key, created = ensure_host_key(keys)
    assert not created and fingerprint(key) == fingerprint(public) == first.split()[-1]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_serve_runs_until_a_signal_and_stops_cleanly(
    tmp_path: Path, signum: signal.Signals
) -> None:
    with serve_process(tmp_path) as served:
        public = asyncssh.read_public_key(served.keys_dir / (HOST_KEY_NAME + ".pub"))
        assert served.fingerprint == fingerprint(public)
        known_hosts = asyncssh.import_known_hosts(
            f"[127.0.0.1]:{served.port} {public.export_public_key().decode()}"
        )
        async with asyncssh.connect(
            "127.0.0.1", served.port, username="alice", known_hosts=known_hosts,
            client_keys=None, agent_path=None, config=None, client_factory=LikeOpenSSH,
        ) as conn:
            _chan, client = await conn.create_session(
                Client, term_type="xterm-256color", term_size=(80, 24), encoding=None
            )
            await client.wait_for("connectes : alice")
            served.process.send_signal(signum)
            assert await client.finished() == 0
        assert client.output.endswith(MSG_SHUTDOWN + "\r\n")
        assert served.wait() == 0
        log = served.log_text()
        assert "wrote a new host key" in log
        assert "signal received: stopping" in log and log.rstrip().endswith("store closed; bye")


def test_serve_says_when_the_app_cannot_be_loaded(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pioche_tui.cli", "serve", "--port", "0", "--app", "nowhere:x",
         "--keys-dir", str(tmp_path / "keys"), "--data-dir", str(tmp_path / "data")],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert "cannot load --app 'nowhere:x': No module named 'nowhere'" in done.stderr
    assert not (tmp_path / "keys").exists()  # nothing written for a server that never ran
