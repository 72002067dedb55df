"""One process per data directory, with real processes: a running ``pioche serve`` (or ``pioche
play``) holds its data directory; a second server or local game on it is refused with the
holder's pid and command, exits non-zero and changes nothing. ``pioche play`` keeps its own
directory by default, so it never opens a server's ``./data``.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pioche_tui.play import default_data_dir
from pioche_tui.store.lock import LOCK_NAME, DataDirBusy, DataDirLock

from .process import ROOT, serve_process

TIMEOUT = 60.0  # seconds a process gets to start or to be refused (a busy machine is slow)


def tree(path: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``path`` with its size and modification time: what "changes nothing"
    compares."""
    if not path.exists():
        return {}
    return {str(p.relative_to(path)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(path.rglob("*"))}


def pioche(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None
           ) -> subprocess.CompletedProcess[str]:
    """Run ``pioche ARGS`` to its end (a refused one ends at once)."""
    return subprocess.run([sys.executable, "-m", "pioche_tui.cli", *args], cwd=cwd, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=TIMEOUT)


def holder_pid(data_dir: Path) -> int | None:
    try:
        return int(json.loads((data_dir / LOCK_NAME).read_text())["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


@dataclass
class PlayProcess:
    process: subprocess.Popen[bytes]
    output: bytearray = field(default_factory=bytearray)


@contextlib.contextmanager
def play_process(*args: str, cwd: Path, env: dict[str, str]) -> Iterator[PlayProcess]:
    """``pioche play ARGS`` in a pseudo-terminal of 80×24 (it is a Textual app), its output
    read as it comes; killed at the end."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    process = subprocess.Popen(
        [sys.executable, "-m", "pioche_tui.cli", "play", *args], cwd=cwd, env=env,
        stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
    os.close(slave)
    played = PlayProcess(process)

    def read() -> None:
        with contextlib.suppress(OSError):  # EIO once the process is gone
            while chunk := os.read(master, 65536):
                played.output += chunk

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        yield played
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(TIMEOUT)
        reader.join(5)
        os.close(master)


def wait_for_holder(data_dir: Path, pid: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + TIMEOUT
    while holder_pid(data_dir) != pid:
        assert process.poll() is None, "the process ended before it held its data directory"
        assert time.monotonic() < deadline, "the process never held its data directory"
        time.sleep(0.05)


def settled(data_dir: Path) -> dict[str, tuple[int, int]]:
    """The files of a directory once a starting process has opened its store (the same names
    for a second)."""
    deadline = time.monotonic() + TIMEOUT
    names: set[str] = set()
    while True:
        time.sleep(1.0)
        files = tree(data_dir)
        if set(files) == names and "guests.key" in names:
            return files
        assert time.monotonic() < deadline, "the directory never settled"
        names = set(files)


def play_env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg"), "TERM": "xterm-256color",
            "LANG": "en_US.UTF-8"}


def test_a_second_server_and_a_local_game_are_refused_and_change_nothing(tmp_path: Path
                                                                         ) -> None:
    with serve_process(tmp_path) as served:
        data = tmp_path / "data"
        assert holder_pid(data) == served.process.pid
        before = tree(data)
        keys = tmp_path / "keys2"
        second = pioche("serve", "--host", "127.0.0.1", "--port", "0", "--keys-dir", str(keys),
                        "--data-dir", str(data))
        assert second.returncode != 0
        assert f"in use by process {served.process.pid} (pioche serve" in second.stderr
        assert "--data-dir" in second.stderr
        assert not keys.exists()  # not even a host key written
        local = pioche("play", "--data-dir", str(data), "--lang", "fr")
        assert local.returncode != 0
        assert f"le processus {served.process.pid} (pioche serve" in local.stderr
        assert "--data-dir" in local.stderr
        assert tree(data) == before
        assert served.process.poll() is None  # the first one is untouched
        os.kill(served.process.pid, signal.SIGKILL)  # a crash: the kernel lets go of the lock
        served.process.wait(TIMEOUT)
    with serve_process(tmp_path) as again:  # the same directory: taken at once
        assert holder_pid(tmp_path / "data") == again.process.pid


def test_a_server_is_refused_while_a_local_game_holds_the_directory(tmp_path: Path) -> None:
    data = tmp_path / "local"
    with play_process("--data-dir", str(data), cwd=tmp_path, env=play_env(tmp_path)) as played:
        wait_for_holder(data, played.process.pid, played.process)
        before = settled(data)
        server = pioche("serve", "--host", "127.0.0.1", "--port", "0", "--keys-dir",
                        str(tmp_path / "keys"), "--data-dir", str(data))
        assert server.returncode != 0
        assert f"in use by process {played.process.pid} (pioche play" in server.stderr
        assert not (tmp_path / "keys").exists()
        # The same files (the local game's heartbeat may touch its database meanwhile).
        assert set(tree(data)) == set(before)
        assert played.process.poll() is None


def test_local_play_keeps_its_own_directory_beside_a_running_server(tmp_path: Path) -> None:
    """``pioche play`` run where a server keeps ``./data`` opens a directory of its own."""
    with serve_process(tmp_path) as served:  # its data: tmp_path / "data", i.e. ./data below
        data = tmp_path / "data"
        before = tree(data)
        env = play_env(tmp_path)
        with play_process("--game", "defausse", cwd=tmp_path, env=env) as played:
            own = tmp_path / "xdg" / "pioche"
            wait_for_holder(own, played.process.pid, played.process)
            # (the directory is locked first, then the store opened in it)
            deadline = time.monotonic() + TIMEOUT
            while not (own / "pioche.sqlite3").exists():
                assert time.monotonic() < deadline, "no store in its own directory"
                time.sleep(0.05)
            assert holder_pid(data) == served.process.pid
            assert tree(data) == before


def test_the_default_directory_follows_xdg(tmp_path: Path) -> None:
    home = os.path.expanduser("~")
    assert default_data_dir({"XDG_DATA_HOME": "/srv/x"}) == Path("/srv/x/pioche")
    # Unset or relative: the specification says to ignore it.
    assert default_data_dir({}) == Path(home, ".local", "share", "pioche")
    assert default_data_dir({"XDG_DATA_HOME": "rel"}) == Path(home, ".local", "share", "pioche")


def test_the_lock_is_let_go_and_taken_again(tmp_path: Path) -> None:
    lock = DataDirLock.acquire(tmp_path, "first")
    try:
        DataDirLock.acquire(tmp_path, "second")
    except DataDirBusy as busy:
        assert busy.holder.pid == os.getpid() and busy.holder.command == "first"
    else:
        raise AssertionError("a held directory was locked twice")
    lock.release()
    assert (tmp_path / LOCK_NAME).read_text() == ""  # no stale name left behind
    with DataDirLock.acquire(tmp_path, "third"):
        assert holder_pid(tmp_path) == os.getpid()
