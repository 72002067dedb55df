"""The server's host key: an ed25519 key written once into the keys directory, then reused."""

from __future__ import annotations

import os
from pathlib import Path

import asyncssh

HOST_KEY_NAME = "ssh_host_ed25519_key"


def fingerprint(key: asyncssh.SSHKey) -> str:
    """The key's SHA256 fingerprint as OpenSSH prints it: ``SHA256:…``."""
    result: str = key.get_fingerprint("sha256")
    return result


def ensure_host_key(keys_dir: Path) -> tuple[asyncssh.SSHKey, bool]:
    """Load the host key from ``keys_dir``, generating it first if absent.

    Returns the key and whether it was just created. The private key (mode 0600) is written to a
    temporary file, then linked into place: the key file never exists half-written, and of two
    servers starting at once the second loads the first one's key. The public half goes beside it
    (``.pub``) for operators to publish.
    """
    path = keys_dir / HOST_KEY_NAME
    if path.exists():
        return asyncssh.read_private_key(path), False
    keys_dir.mkdir(parents=True, exist_ok=True)
    key = asyncssh.generate_private_key("ssh-ed25519", comment="pioche host key")
    temporary = path.with_name(f".{HOST_KEY_NAME}.{os.getpid()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(key.export_private_key("openssh"))
    try:
        os.link(temporary, path)
    except FileExistsError:
        return asyncssh.read_private_key(path), False
    finally:
        temporary.unlink()
    key.write_public_key(path.with_name(HOST_KEY_NAME + ".pub"), "openssh")
    return key, True
