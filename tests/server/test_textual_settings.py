"""What a process of many apps needs from Textual: nothing reaches the server's files, browser
or streams."""

from __future__ import annotations

import logging
import sys

import pytest
from textual.app import App

from server.driver import configure_textual
from tests.server.conftest import Connect


async def test_the_command_palette_offers_no_screenshot() -> None:
    configure_textual()
    app: App[None] = App()
    async with app.run_test():
        titles = [command.title for command in app.get_system_commands(app.screen)]
    assert "Quit" in titles and "Screenshot" not in titles


def test_only_known_colour_systems() -> None:
    with pytest.raises(ValueError, match="colour system"):
        configure_textual("8")


async def test_no_file_no_browser_and_print_goes_to_the_server_stream(
    connect: Connect, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    stdout = sys.stdout
    alice = await connect("alice")
    bob = await connect("bob")
    await alice.wait_for("connectes : alice, bob")
    alice.send("s")  # a screenshot would be an SVG written on the server
    await alice.wait_for("livraison refusee : no file delivery over SSH")
    with caplog.at_level(logging.INFO, logger="pioche.server"):
        alice.send("u")
        alice.send("k")
        await alice.wait_for("touche : k")
    assert "refused to open a URL" in caplog.text
    alice.send("p")
    alice.send("q")  # apps end in another order than they started: stdout must not follow them
    await alice.finished()
    bob.send("q")
    await bob.finished()
    assert sys.stdout is stdout
    assert "print from session" in capsys.readouterr().out
