"""``pioche keygen``: write the server's host key if absent, and print its fingerprint."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "keygen",
        help="write the SSH host key if absent and print its fingerprint",
        description="Write an ed25519 host key into the keys directory, unless one is there.",
    )
    p.add_argument(
        "--keys-dir", type=Path, default=Path("keys"), help="host keys (default ./keys)"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from .keys import HOST_KEY_NAME, ensure_host_key, fingerprint

    key, created = ensure_host_key(args.keys_dir)
    verb = "wrote" if created else "kept"
    print(f"{verb} {args.keys_dir / HOST_KEY_NAME}: {fingerprint(key)}")
    return 0
