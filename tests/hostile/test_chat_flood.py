"""Chat from many guests of one address, against ``pioche serve`` running the real app.

The chat limit was per identity (3 lines in 3 s), and a guest is a new identity: one address
holding its eight sessions said 8 lines a second to every lobby screen, and more by connecting
new guests. The limit now holds per address too (6 lines in 3 s): the flooders read why, and
the lines past it are neither said nor stored.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from tests.hostile.test_input_cost import REAL_APP, connect
from tests.server.process import serve_process

FLOODERS = 5
LINES_EACH = 2  # within the per-identity limit (3 in 3 s): only the address's can refuse them
ADDRESS_LIMIT = 6
WINDOW = 3.0


async def test_guests_of_one_address_share_one_chat_limit(tmp_path: Path) -> None:
    with serve_process(tmp_path, *REAL_APP) as served:
        bob = await connect(served.port, "bob", "127.0.0.2")
        flooders = [await connect(served.port, f"spam{i}", "127.0.0.1") for i in range(FLOODERS)]
        for flooder in flooders:
            flooder.send("c")  # the lobby's chat line
        await asyncio.sleep(0.5)
        for i, flooder in enumerate(flooders):
            for n in range(LINES_EACH):
                flooder.send(f"flood {i}-{n}\r")
        # (the connections' lines reach the coordinator in any order: whoever comes past the
        # address's limit is told, not necessarily the last to type)
        waits = [asyncio.ensure_future(flooder.wait_for("depuis votre adresse"))
                 for flooder in flooders]
        done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        for wait in pending:
            wait.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        assert any(wait.exception() is None for wait in done)
        bob.send("c")
        bob.send("hello\r")  # another address: its own limit
        await bob.wait_for("bob : hello")  # said (not only typed)
        said = list(sqlite3.connect(tmp_path / "data" / "pioche.sqlite3").execute(
            "SELECT text, time FROM chat WHERE scope = 'lobby' ORDER BY id"))
        assert "hello" in [text for text, _time in said]
        flood = [time for text, time in said if text.startswith("flood")]
        # 10 were sent within a second or so, each within its sender's own limit: at most 6
        # in any 3 s (the machine may spread them over more than one window).
        assert flood and all(
            sum(1 for t in flood if start <= t < start + WINDOW) <= ADDRESS_LIMIT
            for start in flood), flood
