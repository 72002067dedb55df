"""Modern algorithms only: a client that offers nothing better than SHA-1 or CBC cannot connect,
and a SHA-1 signature (ssh-rsa) proves no identity."""

from __future__ import annotations

from typing import Any

import asyncssh
import pytest

from server.keys import fingerprint
from server.ssh import PiocheServer
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
