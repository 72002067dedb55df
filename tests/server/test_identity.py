"""Who a player is: key fingerprint or guest, the nickname the username asks for, watchers."""

from __future__ import annotations

import asyncssh
import pytest

from pioche_tui.coordinator.text import nickname as sanitize_nickname
from server.identity import (
    DEFAULT_TERM,
    BadCommand,
    JoinRequest,
    ResumeRequest,
    WatchRequest,
    parse_command,
    pick_lang,
    reached_address,
    sanitize_term,
)
from server.keys import fingerprint
from server.limits import Limits
from server.ssh import MSG_KEY_ATTEMPTS, PiocheServer
from tests.server.conftest import Connect
from tests.server.demo_app import DemoService


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("alice", "alice"),
        ("Zoé", "Zoé"),
        ("Zoe\u0301", "Zoé"),  # decomposed accent: normalised, kept
        ("jean pierre!", "jeanpierre"),
        ("x_y.z-9", "x_y.z-9"),
        ("a", None),
        ("", None),
        ("!!", None),
        ("\x1b[31mred", "31mred"),
        ("abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnop"),
        ("аlice", "lice"),  # a Cyrillic « а » is not a Latin « a »
        ("名前ab", "ab"),
    ],
)
def test_sanitize_nickname(raw: str, expected: str | None) -> None:
    assert sanitize_nickname(raw) == expected


def test_term_lang_and_watch_command() -> None:
    assert sanitize_term("screen-256color") == "screen-256color"
    for bad in (None, "", "xterm;rm -rf /", "x" * 65, "-xterm", "xterm\x1b"):
        assert sanitize_term(bad) == DEFAULT_TERM
    assert pick_lang({"LANG": "fr_FR.UTF-8"}) == "fr_FR.UTF-8"
    assert pick_lang({"LANG": "en_GB.UTF-8", "LC_ALL": "fr_FR.UTF-8"}) == "fr_FR.UTF-8"
    assert pick_lang({"LANG": "fr FR; evil"}) is None
    assert pick_lang({}) is None
    assert parse_command("watch") == WatchRequest(None)
    assert parse_command("  watch   T-12 ") == WatchRequest("T-12")
    for bad in ("ls", "", "watch a b", "watch ../x", "watchx", "watch " + "t" * 33):
        with pytest.raises(BadCommand):
            parse_command(bad)


def test_the_join_command() -> None:
    assert parse_command("join K7QM") == JoinRequest("K7QM", None)
    assert parse_command(" join  k7qm  AB12CD ") == JoinRequest("k7qm", "AB12CD")
    for bad in ("join", "join a b c", "join ../x", "join a;b", "join " + "t" * 33):
        with pytest.raises(BadCommand, match="join TABLE"):
            parse_command(bad)


def test_the_resume_command() -> None:
    # OpenSSH sends `ssh -t host resume a-b-c` as the exec request "resume a-b-c".
    assert parse_command("resume mixte-benefice-hesiter") == ResumeRequest(
        "mixte-benefice-hesiter")
    assert parse_command(" resume  Mixte BENEFICE  hesiter ") == ResumeRequest(
        "mixte-benefice-hesiter")
    for bad in ("resume", "resume a-b", "resume a-b-c-d", "resume a-b-c1", "resume a--b",
                "resume a-b-é", "resume a-b-" + "c" * 17, "resume a;b-c"):
        with pytest.raises(BadCommand, match="resume MOT-MOT-MOT"):
            parse_command(bad)
    assert reached_address(("::ffff:192.0.2.7", 2222, 0, 0)) == ("192.0.2.7", 2222)
    assert reached_address(("2001:db8::1", 22, 0, 0)) == ("2001:db8::1", 22)
    assert reached_address(None) is None


async def test_a_resume_session(connect: Connect) -> None:
    client = await connect("root", command="resume Mixte-Benefice-Hesiter")
    screen = await client.wait_for("mode : joueur reprise mixte-benefice-hesiter")
    assert "pseudo : ? demander=True" in screen  # (the app decides what the token is worth)
    bad = await connect("alice", command="resume 123")
    assert await bad.finished() == 1
    assert "Usage : resume MOT-MOT-MOT" in bad.stderr.decode()


class PublicHalfOnly(asyncssh.SSHKeyPair):
    """What someone who knows a public key, not its private half, can offer: it cannot sign."""

    def __init__(self, public: asyncssh.SSHKey) -> None:
        super().__init__(
            public.algorithm, public.algorithm, public.sig_algorithms, public.sig_algorithms,
            public.public_data, None,
        )

    def sign(self, data: bytes) -> bytes:
        raise ValueError("no private key here")


class SignsWithAnotherKey(PublicHalfOnly):
    def __init__(self, public: asyncssh.SSHKey, signer: asyncssh.SSHKey) -> None:
        super().__init__(public)
        self._signer = signer

    def sign(self, data: bytes) -> bytes:
        signature: bytes = self._signer.sign(data, self.sig_algorithm)
        return signature


async def test_a_key_is_an_identity(connect: Connect, client_key: asyncssh.SSHKey) -> None:
    expected = f"identite : {fingerprint(client_key)}"
    first = await connect("alice", client_keys=[client_key])
    await first.wait_for(expected)
    again = await connect("alice", client_keys=[client_key])
    await again.wait_for(expected)


async def test_no_key_is_a_guest(connect: Connect) -> None:
    guest = await connect("alice")
    screen = await guest.wait_for("identite : invite")
    assert "pseudo : alice demander=False" in screen


async def test_a_key_offered_but_not_signed_gives_no_identity(
    connect: Connect, client_key: asyncssh.SSHKey
) -> None:
    # The server says "this key would do" (PK_OK) to an offer; only a valid signature binds it.
    mallory = await connect("mallory", client_keys=[PublicHalfOnly(client_key)])
    screen = await mallory.wait_for("identite : invite")
    assert fingerprint(client_key) not in screen


async def test_a_key_signed_by_another_key_gives_no_identity(
    connect: Connect, client_key: asyncssh.SSHKey
) -> None:
    other = asyncssh.generate_private_key("ssh-ed25519")
    mallory = await connect("mallory", client_keys=[SignsWithAnotherKey(client_key, other)])
    screen = await mallory.wait_for("identite : invite")
    assert fingerprint(client_key) not in screen and fingerprint(other) not in screen


@pytest.mark.parametrize(
    ("username", "shown"),
    [
        ("root", "pseudo : ? demander=True"),
        ("Ubuntu", "pseudo : ? demander=True"),
        ("a", "pseudo : ? demander=True"),
        ("Zoé!", "pseudo : Zoé demander=False"),
        ("watch", "pseudo : ? demander=False"),
    ],
)
async def test_the_username_is_the_wished_nickname(
    connect: Connect, username: str, shown: str
) -> None:
    client = await connect(username)
    await client.wait_for(shown)


async def test_a_name_bound_to_another_key_is_asked_again(
    connect: Connect, service: DemoService, client_key: asyncssh.SSHKey
) -> None:
    service.owners["alice"] = fingerprint(client_key)
    owner = await connect("alice", client_keys=[client_key])
    await owner.wait_for("pseudo : alice demander=False")
    other_key = asyncssh.generate_private_key("ssh-ed25519")
    impostor = await connect("alice", client_keys=[other_key])
    await impostor.wait_for("pseudo : ? demander=True")
    guest = await connect("alice")
    await guest.wait_for("pseudo : ? demander=True")


async def test_watch_sessions(connect: Connect) -> None:
    by_name = await connect("watch")
    await by_name.wait_for("mode : spectateur -")
    by_command = await connect("bob", command="watch T-12")
    screen = await by_command.wait_for("mode : spectateur T-12")
    assert "pseudo : bob demander=False" in screen
    joining = await connect("carol", command="join T-12 CODE")  # a player, not a spectator
    await joining.wait_for("mode : joueur rejoindre T-12 CODE")


async def test_term_and_lang_reach_the_app(connect: Connect) -> None:
    client = await connect(
        "alice", term_type="screen-256color", env={"LANG": "fr_FR.UTF-8", "EVIL": "x" * 1000}
    )
    await client.wait_for("term : screen-256color lang : fr_FR.UTF-8")
    odd = await connect("bob", term_type="xterm;reboot")
    await odd.wait_for("term : xterm-256color lang : -")


@pytest.mark.parametrize("term", ["", "x" * 1024, "xterm\x1b]0;pwned\x07", "\x1b[2J\x1b[6n"])
async def test_an_odd_term_becomes_the_default(connect: Connect, term: str) -> None:
    # (asyncssh itself refuses a TERM that is not ASCII: a protocol error ends that connection)
    client = await connect("alice", term_type=term, request_pty="force")
    screen = await client.wait_for("term : xterm-256color lang : -")
    assert "pwned" not in client.output and "\x1b[6n" not in client.output
    assert screen.count("term :") == 1


@pytest.mark.parametrize("limits", [Limits(max_key_attempts=6)])
async def test_a_hundred_keys_offered_end_in_a_disconnect(
    connect: Connect, server: PiocheServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keys that cannot sign (each offered, then signed by another key): the server checks at
    most ``max_key_attempts`` of them, then disconnects, even if keyboard-interactive follows."""
    from server import ssh

    checked = []
    validate = ssh._Connection.validate_public_key

    def counting(self: ssh._Connection, username: str, key: asyncssh.SSHKey) -> bool:
        checked.append(key)
        return validate(self, username, key)

    monkeypatch.setattr(ssh._Connection, "validate_public_key", counting)
    other = asyncssh.generate_private_key("ssh-ed25519")
    keys = [SignsWithAnotherKey(asyncssh.generate_private_key("ssh-ed25519"), other)
            for _key in range(100)]
    with pytest.raises(asyncssh.PermissionDenied) as refused:
        await connect("mallory", client_keys=keys)
    assert refused.value.reason == MSG_KEY_ATTEMPTS.format(limit=6)
    assert len(checked) == 7  # six checked, the seventh request ends the connection
    assert server.sessions == []
