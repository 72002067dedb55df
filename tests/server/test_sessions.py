"""Sessions end to end with asyncssh clients: the app shows, keys act, resizes, people meet."""

from __future__ import annotations

import asyncio

import asyncssh

from server.keys import fingerprint
from server.ssh import MSG_CRASH, PiocheServer
from tests.server.conftest import Connect, all_sessions_gone
from tests.server.demo_app import DemoService


async def test_a_player_sees_the_app_and_keys_act(
    connect: Connect, client_key: asyncssh.SSHKey
) -> None:
    alice = await connect("alice", client_keys=[client_key])
    screen = await alice.wait_for("pseudo : alice demander=False")
    assert f"identite : {fingerprint(client_key)}" in screen
    assert "mode : joueur" in screen
    assert "taille : 80x24" in screen
    alice.send("a")
    await alice.wait_for("touche : a")
    alice.send("\x1b[A")  # an escape sequence: one key
    await alice.wait_for("touche : up")
    alice.send("\x1b")  # a lone Esc: resolved by the escape-delay timer, no more input needed
    await alice.wait_for("touche : escape")
    alice.send("é")
    await alice.wait_for("touche : é")
    alice.send("q")
    assert await alice.finished() == 0


async def test_invalid_utf8_is_replaced_never_a_disconnect(connect: Connect) -> None:
    alice = await connect("alice")
    await alice.wait_for("pseudo : alice")
    alice.send(b"\xff")
    await alice.wait_for("touche : replacement_character")  # U+FFFD
    alice.send(b"\xc3")  # half a character, completed by the next packet
    await asyncio.sleep(0.05)
    alice.send(b"\xa9")
    await alice.wait_for("touche : é")
    for bad in (b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"):  # overlong, surrogate,
        alice.send(b"a")  # past U+10FFFF
        await alice.wait_for("touche : a")
        alice.send(bad)
        await alice.wait_for("touche : replacement_character")
    alice.send(b"\xe2\x82")  # a character split across packets, then cut short by another
    await asyncio.sleep(0.05)
    alice.send(b"z")
    await alice.wait_for("touche : z")
    alice.send(b"\xe2\x82")  # split, then completed
    await asyncio.sleep(0.05)
    alice.send(b"\xac")
    await alice.wait_for("touche : euro_sign")
    assert not alice.closed.is_set()


async def test_resize_reaches_the_app(connect: Connect) -> None:
    alice = await connect("alice")
    await alice.wait_for("taille : 80x24")
    alice.resize(120, 40)
    await alice.wait_for("taille : 120x40")
    for width in range(60, 100):  # a burst of window changes: the app ends at the last one
        alice.resize(width, 30)
    await alice.wait_for("taille : 99x30")


async def test_two_sessions_see_each_other(connect: Connect) -> None:
    alice = await connect("alice")
    await alice.wait_for("connectes : alice")
    bob = await connect("bob")
    await bob.wait_for("connectes : alice, bob")
    await alice.wait_for("connectes : alice, bob")
    bob.send("q")
    await bob.finished()
    await alice.wait_for(lambda screen: "connectes : alice\n" in screen + "\n")


async def test_disconnect_mid_render_leaves_the_server_well(
    connect: Connect, server: PiocheServer, service: DemoService
) -> None:
    alice = await connect("alice")
    await alice.wait_for("pseudo : alice")
    alice.send("f")  # a new frame every 20 ms
    await alice.wait_for("trame 5")
    assert alice.conn is not None
    alice.conn.abort()
    await all_sessions_gone(server, service)
    bob = await connect("bob")
    await bob.wait_for("connectes : bob")


async def test_a_failing_app_ends_its_session_only(connect: Connect) -> None:
    alice = await connect("alice")
    bob = await connect("bob")
    await alice.wait_for("connectes : alice, bob")
    alice.send("x")  # the demo app raises
    assert await alice.finished() == 1
    assert MSG_CRASH in alice.output
    bob.send("z")
    await bob.wait_for("touche : z")
    await bob.wait_for(lambda screen: "connectes : bob\n" in screen + "\n")


async def test_end_of_input_ends_the_session(connect: Connect) -> None:
    alice = await connect("alice")
    await alice.wait_for("pseudo : alice")
    assert alice.chan is not None
    alice.chan.write_eof()  # as `ssh -tt host < /dev/null` does
    assert await alice.finished() == 0
