"""Modern algorithms only: a client that offers nothing better than SHA-1 or CBC cannot connect,
and a SHA-1 signature (ssh-rsa) proves no identity."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any

import asyncssh
import pytest
from asyncssh.kex import get_kex_algs

from server.keys import fingerprint
from server.ssh import KEX_ALGS, KEX_PREFERENCE, PiocheServer
from tests.server.conftest import Connect, LikeOpenSSH


@pytest.mark.parametrize(
    "options",
    [
        {"kex_algs": ["diffie-hellman-group14-sha1"]},
        {"kex_algs": ["diffie-hellman-group1-sha1"]},
        {"kex_algs": ["diffie-hellman-group-exchange-sha1"]},
        {"mac_algs": ["hmac-sha1"], "encryption_algs": ["aes128-ctr"]},
        {"mac_algs": ["hmac-sha1-etm@openssh.com"], "encryption_algs": ["aes256-ctr"]},
        {"mac_algs": ["umac-64-etm@openssh.com"], "encryption_algs": ["aes256-ctr"]},
        {"encryption_algs": ["aes128-cbc"]},
        {"encryption_algs": ["3des-cbc"]},
    ],
)
async def test_old_algorithms_are_refused(server: PiocheServer, options: dict[str, Any]) -> None:
    with pytest.raises(asyncssh.KeyExchangeFailed):
        await asyncssh.connect(
            "127.0.0.1", server.port, username="alice", known_hosts=None, client_keys=None,
            agent_path=None, config=None, client_factory=LikeOpenSSH, **options,
        )


async def test_modern_defaults_connect(connect: Connect) -> None:
    client = await connect("alice", kex_algs=["curve25519-sha256"], mac_algs=["hmac-sha2-256"],
                           encryption_algs=["aes128-ctr"])
    await client.wait_for("pseudo : alice")


async def test_an_rsa_key_counts_with_sha2_only(connect: Connect) -> None:
    rsa = asyncssh.generate_private_key("ssh-rsa", key_size=2048)
    sha2 = await connect("alice", client_keys=[rsa], signature_algs=["rsa-sha2-256"])
    await sha2.wait_for(f"identite : {fingerprint(rsa)}")
    sha1 = await connect("alice", client_keys=[rsa], signature_algs=["ssh-rsa"])
    await sha1.wait_for("identite : invite")


# Clients that send their first key-exchange packet on a guess (RFC 4253 §7,
# first_kex_packet_follows), and the algorithm they guess: their first. Dropbear's list is
# sshkex[] in its common-algo.c (before 2020.79 it had no ed25519, our host key's type: it
# cannot connect at all); OpenSSH, PuTTY and asyncssh never guess.
KEX_GUESSES = {
    "dropbear 2020.79-2024.86": "curve25519-sha256",
    "dropbear 2025.87-": "sntrup761x25519-sha512",
}


@pytest.mark.parametrize("guess", KEX_GUESSES.values(), ids=KEX_GUESSES.keys())
@pytest.mark.parametrize("offered", [KEX_PREFERENCE, KEX_ALGS], ids=["preferred", "offered"])
def test_a_guessing_client_and_the_server_judge_its_guess_alike(
    offered: tuple[str, ...], guess: str
) -> None:
    # asyncssh takes the guessed packet when the algorithm agreed on is the client's first,
    # which (the client's order deciding) is whenever the server has it. The client, as the RFC
    # says, keeps it only when both sides list it first, and otherwise sends another: if asyncssh
    # took the first one, that one meets a finished key exchange and the client is thrown out
    # (Dropbear's « Disconnect received »). Both agree only if the guess is our first or absent.
    # KEX_PREFERENCE is checked too: what we would offer with a crypto library that has it all.
    assert guess not in offered or offered[0] == guess


# OpenSSH 10's default KexAlgorithms, in its order (ssh_config(5)).
OPENSSH_10_KEX = (
    "mlkem768x25519-sha256", "sntrup761x25519-sha512", "sntrup761x25519-sha512@openssh.com",
    "curve25519-sha256", "curve25519-sha256@libssh.org",
    "ecdh-sha2-nistp256", "ecdh-sha2-nistp384", "ecdh-sha2-nistp521",
    "diffie-hellman-group-exchange-sha256", "diffie-hellman-group16-sha512",
    "diffie-hellman-group18-sha512", "diffie-hellman-group14-sha256",
)


@pytest.fixture
def asyncssh_debug() -> Iterator[None]:
    asyncssh.set_debug_level(2)  # the key exchange algorithm is logged at debug level 2
    yield
    asyncssh.set_debug_level(1)


@pytest.mark.usefixtures("asyncssh_debug")
async def test_openssh_10_gets_ml_kem(connect: Connect, caplog: pytest.LogCaptureFixture) -> None:
    # The client's order picks the algorithm: OpenSSH ≥ 9.9 lists ML-KEM first and gets it,
    # whatever comes first on our list.
    available = {alg.decode() for alg in get_kex_algs()}
    caplog.set_level(logging.DEBUG, logger="asyncssh")
    client = await connect("alice", kex_algs=[alg for alg in OPENSSH_10_KEX if alg in available])
    await client.wait_for("pseudo : alice")
    chosen = {found[1] for record in caplog.records
              if (found := re.search(r"Key exchange alg: (\S+)", record.getMessage()))}
    assert chosen == {"mlkem768x25519-sha256"}  # the same on the server's side and the client's
