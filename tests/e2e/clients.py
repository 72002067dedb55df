"""Real SSH clients in a real terminal (tmux), as players run them: OpenSSH's ``ssh``, PuTTY's
``plink`` and Dropbear's ``dbclient``.

Each client is told who the player is (a login name, an OpenSSH private key or none, a ``LANG``
to send) and gets a home directory of its own, where it keeps its known hosts and its own copy of
the key in its own format; then it answers, in the terminal, what it asks before the game shows
(the new host key, PuTTY's « Access granted »), as a player would.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

TERMINAL = (100, 30)


class Tmux:
    """A tmux server of our own (its own socket), with one window running a command."""

    def __init__(self, socket: str, directory: Path) -> None:
        self.socket = socket
        self.status_file = directory / "exit-status"

    def __call__(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def start(self, argv: list[str]) -> None:
        """Run ``argv`` in a new window, kept when it ends. Its exit status is written down by
        the window's shell: tmux (3.3a) sometimes never reaps its child, so never learns it."""
        width, height = TERMINAL
        command = f"{shlex.join(argv)}; echo $? > {shlex.quote(str(self.status_file))}"
        self("new-session", "-d", "-s", "e2e", "-x", str(width), "-y", str(height), command)
        self("set-option", "-t", "e2e", "remain-on-exit", "on")

    def screen(self) -> str:
        return self("capture-pane", "-p", "-t", "e2e")

    def send(self, *keys: str) -> None:
        """tmux key names (``Enter``, ``Escape``) or text, typed in that order."""
        self("send-keys", "-t", "e2e", *keys)

    def wait_for(self, check: str | Callable[[str], bool], timeout: float = 15.0) -> str:
        test = check if callable(check) else (lambda screen: check in screen)
        deadline = time.monotonic() + timeout
        while not test(screen := self.screen()):
            if time.monotonic() > deadline:
                raise AssertionError(f"never shown: {check!r}; screen:\n{screen}")
            time.sleep(0.1)
        return screen

    def exit_status(self, timeout: float = 15.0) -> int:
        """Wait for the command to end; its exit status."""
        deadline = time.monotonic() + timeout
        while not (written := self.status_file.read_text() if self.status_file.exists() else ""
                   ).endswith("\n"):
            if time.monotonic() > deadline:
                raise AssertionError(f"still running; screen:\n{self.screen()}")
            time.sleep(0.1)
        return int(written)


@dataclass(frozen=True)
class Player:
    login: str  # the SSH login name: the nickname asked for
    key: Path | None  # an OpenSSH private key, or None: a guest
    lang: str | None  # the LANG of the player's terminal, which the client sends if it can


class SSHClient(ABC):
    """One SSH client program: how a player starts it, and what it asks on the way in."""

    name: ClassVar[str]
    program: ClassVar[str]
    package: ClassVar[str]  # the Debian package that has it
    sends_lang: ClassVar[bool]

    @classmethod
    def missing(cls) -> str | None:
        """Why this client cannot run here, or None."""
        if shutil.which(cls.program) is None:
            return f"needs {cls.program} (apt-get install {cls.package}; .ci/run does as root)"
        return None

    def __init__(self, home: Path, port: int) -> None:
        self.home = home  # the client's home: its known hosts, its key, its settings
        self.port = port
        home.mkdir(parents=True, exist_ok=True)

    def command(self, player: Player) -> list[str]:
        """The command line, in the environment of the player's terminal: no agent, the
        player's LANG and nothing else of ours."""
        env = ["env", "-u", "SSH_AUTH_SOCK", "-u", "LC_ALL", "-u", "LC_MESSAGES", "-u", "LANG",
               f"HOME={self.home}"]
        if player.lang is not None:
            env.append(f"LANG={player.lang}")
        return [*env, *self.argv(player)]

    @abstractmethod
    def argv(self, player: Player) -> list[str]:
        """The client's command line for this player (its key converted to its own format)."""

    @abstractmethod
    def log_in(self, tmux: Tmux, host_fingerprint: str) -> None:
        """Answer what the client asks before the session starts: at least the new host key,
        checking that it shows ours."""


class OpenSSH(SSHClient):
    """``ssh``: LANG sent with SendEnv, as Debian's and macOS's ssh_config do for LANG and
    LC_* (test_openssh.py sends it with SetEnv)."""

    name, program, package, sends_lang = "openssh", "ssh", "openssh-client", True

    def argv(self, player: Player) -> list[str]:
        known_hosts = self.home / "known_hosts"
        argv = ["ssh", "-F", "/dev/null", "-p", str(self.port), "-o", "IdentityAgent=none",
                "-o", f"UserKnownHostsFile={known_hosts}"]
        if player.key is not None:
            argv += ["-i", str(player.key), "-o", "IdentitiesOnly=yes"]
        else:
            argv += ["-o", "PubkeyAuthentication=no"]
        return [*argv, "-o", "SendEnv=LANG", f"{player.login}@127.0.0.1"]

    def log_in(self, tmux: Tmux, host_fingerprint: str) -> None:
        tmux.wait_for("Are you sure you want to continue connecting")
        assert host_fingerprint in tmux.screen()
        tmux.send(host_fingerprint, "Enter")  # OpenSSH takes the fingerprint itself as a yes


class PuTTY(SSHClient):
    """``plink``: keys in PuTTY's .ppk format (``puttygen`` converts); LANG only from a saved
    session's environment variables (``-load``)."""

    name, program, package, sends_lang = "plink", "plink", "putty-tools", True
    SESSION = "pioche"

    def argv(self, player: Player) -> list[str]:
        settings = self.home / ".putty"  # PuTTY's own directory (on Unix; the registry on Windows)
        (settings / "sessions").mkdir(parents=True, exist_ok=True)
        session = ["Protocol=ssh"]
        if player.lang is not None:
            session.append(f"Environment=LANG={player.lang}")
        (settings / "sessions" / self.SESSION).write_text("\n".join(session) + "\n")
        argv = ["plink", "-load", self.SESSION, "-P", str(self.port), "-noagent"]
        if player.key is not None:
            ppk = self.home / "key.ppk"
            subprocess.run(["puttygen", str(player.key), "-O", "private", "-o", str(ppk)],
                           check=True, capture_output=True, timeout=30)
            argv += ["-i", str(ppk)]
        return [*argv, f"{player.login}@127.0.0.1"]

    def log_in(self, tmux: Tmux, host_fingerprint: str) -> None:
        tmux.wait_for("Store key in cache?")
        assert host_fingerprint in tmux.screen()
        tmux.send("y", "Enter")
        # plink's defence against a server faking its prompts once the session runs; it comes
        # with a key as well as without (see the README).
        tmux.wait_for("Access granted. Press Return to begin session.")
        tmux.send("Enter")


class Dropbear(SSHClient):
    """``dbclient``: keys in Dropbear's format (``dropbearconvert``), ~/.ssh/id_dropbear used
    by default; sends no environment variables at all."""

    name, program, package, sends_lang = "dbclient", "dbclient", "dropbear-bin", False

    def argv(self, player: Player) -> list[str]:
        if player.key is not None:
            ssh_dir = self.home / ".ssh"
            ssh_dir.mkdir(mode=0o700, exist_ok=True)
            subprocess.run(["dropbearconvert", "openssh", "dropbear", str(player.key),
                            str(ssh_dir / "id_dropbear")],
                           check=True, capture_output=True, timeout=30)
        return ["dbclient", "-p", str(self.port), f"{player.login}@127.0.0.1"]

    def log_in(self, tmux: Tmux, host_fingerprint: str) -> None:
        tmux.wait_for("Do you want to continue connecting? (y/n)")
        assert host_fingerprint in tmux.screen()
        tmux.send("y", "Enter")


CLIENTS: tuple[type[SSHClient], ...] = (OpenSSH, PuTTY, Dropbear)
