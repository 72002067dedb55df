"""``pioche bus-config`` (server/busconfig.py): its auth.conf, included in a real nats-server's
config, admits each user (its password's hash) with its role's permissions; run again, it keeps
the passwords."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import nats
import pytest

from pioche_tui import bus
from pioche_tui.bus.natsd import binary
from pioche_tui.cli import main

pytestmark = pytest.mark.asyncio(loop_scope="function")


def env_url(out: Path, name: str) -> str:
    line = next(line for line in (out / f"{name}.env").read_text().splitlines()
                if line.startswith("PIOCHE_BUS="))
    return line.removeprefix("PIOCHE_BUS=")


async def test_the_generated_users_work_on_a_nats_server(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    out = tmp_path / "bus"
    assert main(["bus-config", "--out", str(out), "--bus", "nats://127.0.0.1:4222",
                 "--front", "paris", "--coordinator", "core"]) == 0
    printed = capsys.readouterr().out
    paris = env_url(out, "paris")
    password = urlsplit(paris).password
    assert password and password not in printed
    assert password not in (out / "auth.conf").read_text()  # (its bcrypt hash only)
    assert {p.name: p.stat().st_mode & 0o777 for p in out.iterdir()} == {
        "auth.conf": 0o600, "paris.env": 0o600, "core.env": 0o600}
    assert main(["bus-config", "--out", str(out), "--bus", "nats://127.0.0.1:4222",
                 "--front", "paris", "--front", "lyon", "--coordinator", "core"]) == 0
    assert env_url(out, "paris") == paris  # (a machine added: the others' files stay good)

    node = tmp_path / "node.conf"
    node.write_text(f'listen: "127.0.0.1:-1"\nports_file_dir: "{tmp_path}"\n'
                    'no_sys_acc: true\ninclude "bus/auth.conf"\n')  # (relative to node.conf)
    server = subprocess.Popen([str(binary()), "-c", str(node)], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(500):
            ports = list(tmp_path.glob(f"*_{server.pid}.ports"))
            if ports and ports[0].read_text():
                break
            await asyncio.sleep(0.01)
        port = urlsplit(json.loads(ports[0].read_text())["nats"][0]).port

        def at(url: str) -> str:
            return url.replace(":4222", f":{port}")

        errors: list[str] = []

        async def record(error: Exception) -> None:
            errors.append(str(error).lower())

        lyon = await nats.connect(at(env_url(out, "lyon")), error_cb=record,
                                  allow_reconnect=False)
        core = await nats.connect(at(env_url(out, "core")), allow_reconnect=False)
        try:
            mine = await lyon.subscribe(bus.session_subject("lyon", "s1"))
            await lyon.subscribe(bus.session_subject("paris", "s1"))
            await lyon.flush()
            await core.publish(bus.session_subject("lyon", "s1"), b"news")
            await core.flush()
            assert (await mine.next_msg(timeout=5)).data == b"news", errors
            assert any('subscription to "pioche.s.paris.s1"' in e for e in errors), errors
        finally:
            await lyon.close()
            await core.close()
    finally:
        server.terminate()
        server.wait(10)


async def test_a_clusters_nodes_each_get_the_credentials(tmp_path: Path) -> None:
    out = tmp_path / "bus"
    nodes = "tls://bus1.example.org:4222,tls://bus2.example.org:4222,tls://bus3.example.org:4222"
    assert main(["bus-config", "--out", str(out), "--bus", nodes, "--front", "paris"]) == 0
    urls = [urlsplit(url) for url in env_url(out, "paris").split(",")]
    assert [url.hostname for url in urls] == [f"bus{n}.example.org" for n in (1, 2, 3)]
    assert {(url.scheme, url.username, url.password) for url in urls} == {
        ("tls", "paris", urls[0].password)} and urls[0].password
    assert bus.bus_name(env_url(out, "paris")) == "paris"
    password = urls[0].password
    assert main(["bus-config", "--out", str(out), "--bus", nodes, "--front", "paris",
                 "--front", "lyon"]) == 0
    assert urlsplit(env_url(out, "paris").split(",")[2]).password == password  # (kept)


@pytest.mark.parametrize("argv", [
    ["--bus", "nats://u:p@host:4222", "--front", "a"],  # (credentials in --bus)
    ["--bus", "nats://host:4222,nats://u:p@host2:4222", "--front", "a"],  # (in a node's)
    ["--bus", "nats://host:4222"],  # (no front)
    ["--bus", "nats://host:4222", "--front", "a.b"],  # (not a name)
    ["--bus", "tls://host:4222", "--front", "a", "--verify", "--tls-cert", "c",
     "--tls-key", "k"],  # (--verify without --tls-ca)
])
async def test_bad_arguments_write_nothing(tmp_path: Path, argv: list[str]) -> None:
    out = tmp_path / "bus"
    assert main(["bus-config", "--out", str(out), *argv]) in (1, 2)
    assert not out.exists() or not any(out.iterdir())
