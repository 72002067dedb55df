"""The operator's console over a real server: ``pioche admin`` against a running ``pioche serve``
(one process, and ``--workers 2``), real SSH clients, bans held at login by the SSH front, and
the server's log as JSON lines."""

from __future__ import annotations

import asyncio
import json
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import asyncssh

from pioche_tui.coordinator.control import socket_path
from server.keys import fingerprint
from server.serve import DEFAULT_APP
from tests.app.test_terminal_process import session
from tests.server.process import ROOT, ServeProcess, holder_of, serve_process


def admin(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``pioche admin`` as the operator runs it, in its own process."""
    return subprocess.run(
        [sys.executable, "-m", "pioche_tui.cli", "admin", "--data-dir", str(data_dir), *args],
        cwd=ROOT, capture_output=True, text=True, timeout=30, check=False)


def admin_json(data_dir: Path, *args: str) -> Any:
    done = admin(data_dir, "--json", *args)
    return json.loads(done.stdout)


async def until_admin(data_dir: Path, check: Any, *args: str) -> Any:
    """Ask ``pioche admin --json ARGS`` again until ``check(answer)`` holds (the fronts' news
    takes a moment to cross the bus)."""
    for _ in range(100):
        answer = admin_json(data_dir, *args)
        if check(answer):
            return answer
        await asyncio.sleep(0.1)
    raise AssertionError(f"never: {answer}")


def events(served: ServeProcess) -> list[dict[str, Any]]:
    """The server's log, a JSON object a line (``--log-format json``)."""
    return [json.loads(line) for line in served.log_text().splitlines() if line.strip()]


async def test_pioche_admin_against_a_running_server(tmp_path: Path) -> None:
    data = tmp_path / "data"
    bob_key = asyncssh.generate_private_key("ssh-ed25519")
    with serve_process(tmp_path, "--turn-timer", "0", "--log-format", "json",
                       app=DEFAULT_APP) as served:
        # Only the owner may reach the socket: 0600 in a 0700 directory.
        path = socket_path(data)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        async with (session(served.port, "alice", "xterm-256color") as alice,
                    session(served.port, "bob", "xterm-256color", key=bob_key) as bob):
            await alice.wait_for("Bonjour alice !")
            await bob.wait_for("Bonjour bob !")
            online = admin_json(data, "online")["result"]
            assert [(s["name"], s["address"]) for s in online] == [
                ("alice", "127.0.0.1"), ("bob", "127.0.0.1")]
            assert online[1]["identity"] == fingerprint(bob_key)
            bob.send("p")  # a quick game: a table in the list
            await bob.wait_for("vous")
            (table,) = admin_json(data, "tables")["result"]
            assert table["status"] == "playing" and table["seats"][0] == "bob"
            done = admin(data, "motd", "Tournoi ce soir")
            assert done.returncode == 0, done.stderr
            await alice.wait_for("Tournoi ce soir")  # in the lobby, at once
            assert admin(data, "broadcast", "Redémarrage à minuit").returncode == 0
            await alice.wait_for("Redémarrage à minuit")
            await bob.wait_for("Redémarrage à minuit")
            assert admin(data, "close", table["id"]).returncode == 0
            await bob.wait_for("Un administrateur a fermé cette table")
            assert admin(data, "kick", "alice").returncode == 0
            await alice.wait_for("Un administrateur a fermé votre session.")
            await asyncio.wait_for(alice.closed.wait(), 10)
            done = admin(data, "ban", "bob", "--for", "2h")
            assert done.returncode == 0 and "bannie pour 7200 s" in done.stdout
            await asyncio.wait_for(bob.closed.wait(), 10)
        # The ban holds at login, with a clear message, and names nothing of the game.
        async with session(served.port, "bob", "xterm-256color", key=bob_key) as again:
            await asyncio.wait_for(again.closed.wait(), 10)
            assert b"Votre cl\xc3\xa9 est bannie de ce serveur jusqu'au" in again.stderr
        refused = admin(data, "kick", "nobody")
        assert refused.returncode == 1
        assert "Personne en ligne sous le nom nobody." in refused.stderr
        lines = events(served)
    # The story of the server, as JSON lines: every line an object, its events told.
    told = {line.get("event"): line for line in lines}
    assert told["table_created"]["table"] == table["id"]
    assert told["table_started"]["seats"][0] == "bob"
    assert told["table_closed"]["table"] == table["id"]
    assert told["session_opened"]["identity"]
    admins = [line for line in lines if line.get("event") == "admin"]
    assert [a["action"] for a in admins] == ["motd", "broadcast", "close", "kick", "ban"]
    assert {a["admin"] for a in admins} == {admins[0]["admin"]}  # who did it
    assert admins[0]["admin"].startswith("console (")
    ended = [line for line in lines if line.get("event") == "ssh_session_closed"]
    assert {line["player"] for line in ended} >= {"alice", "bob"}
    assert all({"time", "level", "logger", "role", "pid", "message"} <= set(line)
               for line in lines)
    # After the server: a clear error, no traceback.
    gone = admin(data, "online")
    assert gone.returncode == 1 and "no Pioche server" in gone.stderr
    assert "Traceback" not in gone.stderr


async def test_bans_survive_a_restart(tmp_path: Path) -> None:
    data = tmp_path / "data"
    key = asyncssh.generate_private_key("ssh-ed25519")
    with serve_process(tmp_path, app=DEFAULT_APP):
        assert admin(data, "ban", fingerprint(key)).returncode == 0
    with serve_process(tmp_path, app=DEFAULT_APP) as served:
        assert [b["value"] for b in admin_json(data, "bans")["result"]] == [fingerprint(key)]
        async with session(served.port, "bob", "xterm-256color", key=key) as bob:
            await asyncio.wait_for(bob.closed.wait(), 10)
            assert "Votre clé est bannie de ce serveur.".encode() in bob.stderr


async def test_the_admin_screen_is_for_admins_only(tmp_path: Path) -> None:
    """An admin's key (the admins' file) gets the Admin screen over SSH; another key never
    sees its key."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "admins").write_text(f"{fingerprint(key)}  # the operator\n")
    with serve_process(tmp_path, app=DEFAULT_APP) as served:
        async with (session(served.port, "oper", "xterm-256color", key=key) as root,
                    session(served.port, "eve", "xterm-256color") as eve):
            await root.wait_for("Bonjour oper !")
            await root.wait_for("admin")  # (its key, in the key bar)
            await eve.wait_for("Bonjour eve !")
            eve.send("A")
            root.send("A")
            await root.wait_for("Admin · 2 en ligne")
            await root.wait_for("eve")
            await asyncio.sleep(0.3)
            assert "admin" not in eve.screen.text() and "Admin ·" not in eve.screen.text()


async def test_under_workers_kick_on_a_front_and_ban_at_login(tmp_path: Path) -> None:
    """``--workers 2``: the socket is the coordinator process's; a session on a front is
    kicked, and a front refuses a banned key at login (it asks the coordinator)."""
    data = tmp_path / "data"
    key = asyncssh.generate_private_key("ssh-ed25519")
    with serve_process(tmp_path, "--log-format", "json", app=DEFAULT_APP,
                       workers=2) as served:
        tree = served.tree()
        async with session(served.port, "bob", "xterm-256color", key=key) as bob:
            await bob.wait_for("Bonjour bob !")
            await until_admin(data, lambda a: [s["name"] for s in a["result"]] == ["bob"],
                              "online")
            assert admin(data, "kick", "bob").returncode == 0
            await bob.wait_for("Un administrateur a fermé votre session.")
            await asyncio.wait_for(bob.closed.wait(), 10)
        assert admin(data, "ban", fingerprint(key), "--for", "1h").returncode == 0
        fronts = tree["front"]
        for _ in range(4):  # (the kernel spreads connections: every front refuses)
            async with asyncssh.connect(
                    "127.0.0.1", served.port, username="bob", known_hosts=None,
                    agent_path=None, config=None, client_keys=[key]) as conn:
                assert holder_of(conn, fronts) in fronts
                result = await conn.run(term_type="xterm", check=False, timeout=10)
                assert result.exit_status == 1
                assert "Votre clé est bannie" in str(result.stderr)
        lines = events(served)
    roles = {line["role"] for line in lines}
    assert {"supervisor", "coordinator", "front"} <= roles
    refusals = [line for line in lines
                if line["role"] == "front" and "banned:" in line["message"]]
    assert refusals
