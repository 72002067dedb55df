"""Pastes of 1 MiB and 16 MiB into the real app, at a table, while another player plays at
another table: the paste is cut (paste limit; the rest is dropped at little cost, within the
sender's input budget), the other table does not notice, and the sender stays connected."""

from __future__ import annotations

import asyncssh
import pytest
from textual import events
from textual.widgets import Input

from pioche_tui.coordinator.text import CHAT_MAX
from server.driver import PARSE_SLICE, SSHDriver
from server.ssh import PiocheServer
from tests.hostile.conftest import RecordingService
from tests.hostile.defausse import app_of, table_of, until
from tests.server.conftest import Client, Connect

MiB = 1024 * 1024


async def at_a_quick_game(connect: Connect, name: str) -> Client:
    key = asyncssh.generate_private_key("ssh-ed25519")
    client = await connect(name, client_keys=[key], term_size=(100, 30))
    await client.wait_for(f"Bonjour {name}")
    client.send("p")
    await client.wait_for("Défausse · table")
    return client


@pytest.mark.parametrize("settings", [{"turn_timer": 0.3}], indirect=True)
@pytest.mark.parametrize("size", [MiB, 16 * MiB], ids=["1MiB", "16MiB"])
async def test_a_huge_paste_is_cut_and_other_tables_go_on(
    connect: Connect, server: PiocheServer, service: RecordingService,
    monkeypatch: pytest.MonkeyPatch, size: int,
) -> None:
    pasted: list[int] = []
    process_message = SSHDriver.process_message

    def recording(self: SSHDriver, message: object) -> None:
        if isinstance(message, events.Paste):
            pasted.append(len(message.text))
        process_message(self, message)  # type: ignore[arg-type]

    monkeypatch.setattr(SSHDriver, "process_message", recording)
    alice = await at_a_quick_game(connect, "alice")
    bob = await at_a_quick_game(connect, "bob")
    bob_table, _seat = table_of(service, "bob")
    alice.send("c")  # the table's chat line
    await until(lambda: type(app_of(service, "alice").focused).__name__ == "ChatInput")
    step = bob_table.step
    assert alice.chan is not None
    alice.send(b"\x1b[200~" + b"x" * size + b"\x1b[201~")
    # Meanwhile bob's table plays on, and his keys act.
    await until(lambda: bob_table.step >= step + 5 or bob_table.status != "playing")
    bob.send("?")
    await until(lambda: type(app_of(service, "bob").screen).__name__ == "HelpScreen")
    await until(lambda: alice.chan is not None and alice.chan.get_write_buffer_size() == 0,
                timeout=60)
    await until(lambda: bool(pasted))
    # Cut: the app got the first max_paste characters (give or take a parse slice).
    assert max(pasted) <= server.limits.max_paste + PARSE_SLICE
    # The chat line keeps what fits in a message, and that is all that is sent. (The paste
    # is recorded as the driver hands it to the app, a moment before the line takes it.)
    chat = app_of(service, "alice").focused
    assert isinstance(chat, Input)
    await until(lambda: chat.value == "x" * CHAT_MAX)
    alice.send("\r")
    await until(lambda: any(service.coordinator._chat.values()))
    assert [line.text for lines in service.coordinator._chat.values() for line in lines] == [
        "x" * CHAT_MAX]
    alice.send("\x1b")  # and her keys act again
    await until(lambda: type(app_of(service, "alice").focused).__name__ == "Hand")
    assert not alice.closed.is_set() and len(server.sessions) == 2
