"""The player's terminal over a real ``pioche serve`` process: each session's colours from what
its client sends (TERM, COLORTERM, NO_COLOR), in one process at once; settings kept for a key
from one connection to the next; the bell and the title when the turn comes."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from server.serve import DEFAULT_APP
from tests.server.conftest import Client
from tests.server.process import LikeOpenSSH, ServeProcess, serve_process

_SGR = re.compile(r"\x1b\[([0-9;:]*)m")
GREYS = {0, 7, 8, 15, 16, 59, 102, 145, 188, 231, *range(232, 256)}  # 256 colours' greys


def colours_used(output: str) -> set[str]:
    """The kinds of colour the escape codes in ``output`` ask for: ``24bit``, ``256`` (and
    ``256-colour`` when one is not a grey), ``16``."""
    kinds: set[str] = set()
    for params in _SGR.findall(output):
        codes = [int(code) if code.isdigit() else -1 for code in re.split("[;:]", params)]
        i = 0
        while i < len(codes):
            code = codes[i]
            if code in (38, 48) and i + 1 < len(codes):
                if codes[i + 1] == 2:
                    kinds.add("24bit")
                    i += 5
                elif codes[i + 1] == 5 and i + 2 < len(codes):
                    kinds.add("256")
                    if codes[i + 2] not in GREYS:
                        kinds.add("256-colour")
                    i += 3
                else:
                    i += 2
                continue
            if 30 <= code <= 37 or 40 <= code <= 47 or 90 <= code <= 97 or 100 <= code <= 107:
                kinds.add("16")
            i += 1
    return kinds


@pytest.fixture
def served(tmp_path: Path) -> Iterator[ServeProcess]:
    with serve_process(tmp_path, "--turn-timer", "0", app=DEFAULT_APP) as served:
        yield served


@asynccontextmanager
async def session(port: int, username: str, term: str, env: dict[str, str] | None = None,
                  key: asyncssh.SSHKey | None = None) -> AsyncIterator[Client]:
    options: dict[str, Any] = {"client_keys": [key] if key else None}
    async with asyncssh.connect(
        "127.0.0.1", port, username=username, known_hosts=None, agent_path=None, config=None,
        client_factory=LikeOpenSSH, **options,
    ) as conn:
        _chan, client = await conn.create_session(
            Client, term_type=term, term_size=(80, 24), env=env or {}, encoding=None)
        yield client


async def test_each_session_gets_the_colours_its_terminal_says(served: ServeProcess) -> None:
    """A true-colour client first (the rows every lobby shares are rendered for it first),
    then 256 colours, 16, none (vt100) and NO_COLOR, all at once in one process."""
    port = served.port
    async with session(port, "ana", "xterm-256color", {"COLORTERM": "truecolor"}) as truecolor:
        await truecolor.wait_for("Bonjour ana !")
        async with (session(port, "bea", "xterm-256color") as c256,
                    session(port, "cyd", "xterm") as c16,
                    session(port, "dan", "vt100") as bare,
                    session(port, "eve", "xterm-256color", {"NO_COLOR": "1"}) as grey):
            for client, name in ((c256, "bea"), (c16, "cyd"), (bare, "dan"), (grey, "eve")):
                await client.wait_for(f"Bonjour {name} !")
                await client.wait_for("eve")  # everybody's lobby has changed since
            assert "24bit" in colours_used(truecolor.output)
            assert "256-colour" in colours_used(c256.output)
            assert "24bit" not in colours_used(c256.output)
            assert colours_used(c16.output) == {"16"}
            assert colours_used(bare.output) == set()
            assert "256" in colours_used(grey.output)
            assert colours_used(grey.output) == {"256"}  # greys only


async def test_settings_are_kept_for_the_key(served: ServeProcess) -> None:
    """English and no colours chosen in the settings; the next connection with the same key
    (from a French terminal, in colour) starts with them."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    async with session(served.port, "alice", "xterm-256color", {"LANG": "fr_FR.UTF-8"},
                       key) as first:
        await first.wait_for("Bonjour alice !")
        first.send("o")
        await first.wait_for("Réglages")
        first.send("\x1b[C")  # → the language: English
        await first.wait_for("‹ English ›")
        first.send("\x1b[B\x1b[D")  # ↓ ← the colours: none
        await first.wait_for("‹ aucune ›")
        first.send("\x1b")
        await first.wait_for("Hello alice!")
    async with session(served.port, "alice", "xterm-256color", {"LANG": "fr_FR.UTF-8"},
                       key) as second:
        await second.wait_for("Hello alice!")
        assert colours_used(second.output) == set()


async def test_colours_chosen_in_the_settings_repaint_the_whole_screen(
        served: ServeProcess) -> None:
    """From a vt100 (no colours) to 256 in the settings: every row of the terminal is written
    again, in colour (the lobby under the window too), not only the window's rows."""
    async with session(served.port, "alice", "vt100") as client:
        await client.wait_for("Bonjour alice !")
        client.send("o")
        await client.wait_for("‹ auto (aucune) ›")
        assert colours_used(client.output) == set()
        before = len(client.raw)
        client.send("\x1b[B\x1b[C\x1b[C")  # ↓ → →: the colours, millions then 256
        await client.wait_for("‹ 256 ›")
        await client.wait_for(lambda _screen: len(coloured_rows(client.raw[before:])) >= 20)


def bells(output: bytes) -> int:
    """The bells rung in ``output`` (BEL characters that do not end an OSC sequence)."""
    return re.sub(rb"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)", b"", output).count(b"\x07")


def coloured_rows(output: bytes) -> set[int]:
    """The rows written in colour: the cursor moved there (``ESC [ row ; col H``), then a
    colour of the 256 set."""
    rows = set()
    for row, written in re.findall(rb"\x1b\[(\d+);\d+H((?:(?!\x1b\[\d+;\d+H).)*)", output,
                                   re.DOTALL):
        if "256" in colours_used(written.decode("utf-8", "replace")):
            rows.add(int(row))
    return rows


async def test_the_bell_and_the_title_when_the_turn_comes(tmp_path: Path) -> None:
    """A quick game against bots: once the bots have played, the player's terminal gets the
    bell (BEL) and the title « À vous — Pioche » (OSC 2), then « Pioche » once they played;
    the terminal's own title is saved at the start and given back at the end."""
    with serve_process(tmp_path, "--turn-timer", "0", "--bot-delay", "0.05,0.1",
                       app=DEFAULT_APP) as served:
        async with session(served.port, "alice", "xterm-256color") as client:
            await client.wait_for("Bonjour alice !")
            assert b"\x1b[22;0t" in client.raw  # the terminal's title, kept
            client.send("p")
            for _ in range(10):  # until the bots have played before a turn of Alice's
                await client.wait_for(lambda screen: "À vous" in screen)
                if bells(client.raw):
                    break
                client.send("d")  # draw (or take, or pass); keep a card drawn
                await client.wait_for(lambda screen: "À vous" not in screen
                                      or "garder" in screen)
                client.send("k")
            assert bells(client.raw) == 1  # once: at the turn the bots' moves led to
            turn = client.raw.index("\x1b]2;À vous — Pioche\x07".encode())
            client.send("d")  # Alice plays (and keeps a card drawn): the title says so no more
            await client.wait_for(lambda screen: "À vous" not in screen or "garder" in screen)
            client.send("k")
            await client.wait_for(lambda _screen: b"\x1b]2;Pioche\x07" in client.raw[turn:])
            client.send("\x11")  # Ctrl+Q, in a game: asks first
            await client.wait_for("Quitter Pioche ?")
            client.send("o")
            await client.finished()
        assert b"\x1b[23;0t" in client.raw  # given back
