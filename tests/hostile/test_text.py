"""Names and chat holding escape sequences, bidirectional overrides, zero-width characters, piles
of combining marks, Textual markup or 10 KB of text: made plain text by the coordinator
(``coordinator.text``), and over SSH another player's terminal receives nothing but what the
app draws — its screen is unchanged outside the chat, and nothing is executed."""

from __future__ import annotations

import asyncio
import re
import unicodedata

import pytest

from pioche_tui.coordinator.text import CHAT_MAX, MAX_MARKS, nickname, sanitise
from server.ssh import PiocheServer
from tests.hostile.conftest import RecordingService
from tests.hostile.defausse import app_of, until
from tests.server.conftest import Client, Connect

HOSTILE = {
    "csi_clear": "avant\x1b[2Japrès",
    "osc_title": "\x1b]0;piraté\x07titre",
    "osc_clipboard": "\x1b]52;c;cm0gLXJmIH4K\x07presse-papier",
    "osc_clipboard_st": "\x1b]52;c;cm0gLXJmIH4K\x1b\\fin",
    "cursor_report": "où\x1b[6nsuis-je",
    "c1_csi": "rouge\x9b31mvif",
    "rtl_override": "txt.\u202eexe.doc",
    "zero_width": "a\u200bb\u200cc\u200dd\u2060e\ufefff",
    "combining": "Z" + "\u0301" * 20 + "algo",
    "markup": "[@click=app.quit]x[/] [bold red]gras[/]",
    "ten_kb": "é" * 10 * 1024,
    "controls": "bip\x07\x08\x00\x7f\x85nul",
}


def is_unsafe(char: str) -> bool:
    """A character that changes a terminal's state or hides text instead of showing itself."""
    return unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn")


@pytest.mark.parametrize("raw", HOSTILE.values(), ids=HOSTILE.keys())
def test_chat_becomes_plain_text(raw: str) -> None:
    clean = sanitise(raw)
    assert clean and len(clean) <= CHAT_MAX
    assert not any(is_unsafe(char) for char in clean)
    marks = re.findall(r"[\u0300-\u036f]+", clean)
    assert all(len(run) <= MAX_MARKS for run in marks)
    assert sanitise(clean) == clean  # plain text stays as it is
    if raw.startswith("[@click"):
        assert clean == raw  # markup is kept as text: screens never read it as markup


@pytest.mark.parametrize("raw", HOSTILE.values(), ids=HOSTILE.keys())
def test_names_keep_only_letters_digits_and_punctuation(raw: str) -> None:
    name = nickname(raw)
    assert name is None or (
        2 <= len(name) <= 16 and all(char.isalnum() or char in "_.-" for char in name)
    )


# What the app may send to a terminal: cursor moves (CSI row;col H), styles (CSI … m), the
# modes it sets at start and leaves at exit (CSI ? … h/l, CSI ? 2026 $ p, kitty keys CSI > / <
# … u) and the mouse pointer's shape (OSC 22). Anything else in another player's stream would
# have come from a player.
ALLOWED_SEQUENCE = re.compile(
    r"\x1b\[[0-9;]*[Hm]|\x1b\[\?[0-9;]*[hl]|\x1b\[\?2026\$p|\x1b\[[<>][0-9]*u"
    r"|\x1b\]22;[a-z-]*\x1b\\|\x1b\]22;[a-z-]*\x07"
)


def foreign_bytes(stream: str) -> list[str]:
    """Escape sequences and unsafe characters in ``stream`` the app itself does not send."""
    rest = ALLOWED_SEQUENCE.sub("", stream)
    return [char for char in rest if is_unsafe(char) and char not in "\r\n"]


async def quiet(client: Client, still: float = 0.3) -> None:
    """Wait until ``client`` has received nothing for ``still`` seconds (its screen settled)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + 10.0
    while True:
        received = len(client.raw)
        await asyncio.sleep(still)
        if len(client.raw) == received:
            return
        assert loop.time() < end, "the screen never settled"


async def test_hostile_chat_and_names_reach_nobody_as_anything_but_text(
    connect: Connect, server: PiocheServer, service: RecordingService
) -> None:
    bob = await connect("bob", term_size=(100, 30))
    await bob.wait_for("Bonjour bob")
    # The login name is the wished nickname: what is left of it is letters and digits. (A login
    # name holding controls or bidirectional overrides never gets this far: asyncssh refuses it
    # by SASLprep, RFC 4013, and disconnects; the nickname rule is tested above.)
    raw_name = "[@click=app.quit]m\u200ba\u0301\u0301\u0301\u0301l"
    mallory = await connect(raw_name, term_size=(100, 30))
    name = nickname(raw_name)
    assert name is not None
    await mallory.wait_for(f"Bonjour {name}")
    await bob.wait_for(name)
    await quiet(bob)  # the lobby settles (online list, key bar)
    lobby = app_of(service, "bob").screen
    chat = lobby.query_one("#lobby-chat").region
    before = [list(row) for row in bob.screen.rows]
    mark = len(bob.raw)

    # Through the keyboard: a bracketed paste into the chat line (everything, 10 KB last).
    mallory.send("c")
    await until(lambda: type(app_of(service, name).focused).__name__ == "ChatInput")
    pasted = "".join(text for key, text in HOSTILE.items() if key != "ten_kb")
    mallory.send("\x1b[200~" + pasted + HOSTILE["ten_kb"] + "\x1b[201~\r")
    await bob.wait_for("avant")
    # Straight to the coordinator too (a client could bypass what the chat input does to
    # controls): the sanitiser alone stands between it and bob.
    session = app_of(service, name).client.session
    assert session is not None
    session.chat(pasted)
    await bob.wait_for(lambda screen: screen.count(f"{name} :") >= 2)
    mallory.send("\x1b")  # the keys go back to the lobby
    await until(lambda: type(app_of(service, name).focused).__name__ != "ChatInput")
    await quiet(bob)

    stream = bytes(bob.raw[mark:]).decode("utf-8")
    assert foreign_bytes(stream) == []
    after = bob.screen.rows
    for y, (old, new) in enumerate(zip(before, after, strict=True)):
        for x, (was, now) in enumerate(zip(old, new, strict=True)):
            if not (chat.y <= y < chat.bottom and chat.x <= x < chat.right):
                assert now == was, f"bob's screen changed outside the chat at ({x}, {y})"
    for y in range(chat.y, chat.bottom):  # the chat box's edges are whole
        assert after[y][chat.x] in "╭│╰" and after[y][chat.right - 1] in "╮│╯", after[y]
    # Nothing executed: both apps run, both players act.
    assert len(server.sessions) == 2 and all(app.is_running for app in service.apps)
    for client, player in ((bob, "bob"), (mallory, name)):
        assert not client.closed.is_set()
        client.send("s")  # the scores
        await client.wait_for("Classement")
        assert type(app_of(service, player).screen).__name__ == "ScoresScreen"
