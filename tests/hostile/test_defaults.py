"""Defaults valid against the server's settings (issue 12, item 12): with ``--turn-timer`` outside
the bounds a player may choose (10 to 600 s), the create-table dialog's default was refused, so
no table could be created from it. A real ``pioche serve``, a real SSH client, the real dialog."""

from __future__ import annotations

import re
from pathlib import Path

import asyncssh
import pytest

from pioche_tui.store.log import LogError, read_log
from tests.coordinator.conftest import until
from tests.hostile.test_restart import TABLE_TITLE as TABLE
from tests.hostile.test_restart import player
from tests.server.process import serve_process

REAL_APP = "pioche_tui.app:open_service"


@pytest.mark.parametrize("timer", ["5", "7.5", "900"])
async def test_the_create_dialog_creates_a_table_with_its_defaults(tmp_path: Path,
                                                                   timer: str) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    with serve_process(tmp_path, "--app", REAL_APP, "--turn-timer", timer) as served:
        conn, alice = await player(served.port, key)
        await alice.wait_for("Bonjour alice")
        alice.send("n")
        chosen = re.compile(rf"Minuteur +{re.escape(timer)} s ")  # the server's default
        await alice.wait_for(lambda screen: bool(chosen.search(screen)))
        alice.send("\x13")  # ctrl+s: create, every field as it came
        found = TABLE.search(await alice.wait_for(lambda screen: bool(TABLE.search(screen))))
        assert found is not None
        alice.send("\r")  # start now: bots take the free seats, the log is written
        log = tmp_path / "data" / "tables" / f"{found[1]}.log"
        await until(lambda: _header(log) is not None)  # (the file exists before its header)
        conn.close()
    assert _header(log) == float(timer)


def _header(log: Path) -> float | None:
    """The timer in the log's header, None while the log or its header is not written."""
    try:
        return float(read_log(log).header["timer"])
    except (OSError, LogError):
        return None
