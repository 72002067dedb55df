"""Guests: a secret identity for each guest session, and the reconnect token that proves it.

A guest (a client with no SSH key) brings nothing the server could recognise again: a nickname is
public and an address may be shared by a whole household or office (NAT). So each guest session
gets a fresh identity, and the player a *reconnect token* of three words, « abeille-tulipe-zeste »,
shown on their screen while they hold a seat. ``ssh -t -p PORT HOST resume abeille-tulipe-zeste``
proves who they are; nothing else gives a guest's seat back. Without it, the stand-in plays the
seat until the grace period ends, as for anyone who does not come back.

The identity is ``guest:`` and an HMAC of the token under the server's secret (``guests.key`` in
the data directory, written on first start, readable by the server only). So:

- nothing is stored per guest (no database row, nothing to keep in memory);
- a token still works after a restart: tables come back from their logs with their seats'
  identities, and the same secret gives the same identity;
- an identity, which every screen at the table may know, says nothing about its token.

Guessing: the words are the 2,048 of the French BIP-39 list (common words, told apart by their
first four letters), shown without accents so any keyboard types them; three of them make 2^33
tokens. Attempts are limited per address (per /64 network for IPv6): ``RESUME_ATTEMPTS`` in
``RESUME_PERIOD`` seconds. An attacker with 16 addresses trying for a whole 5-minute grace period
makes 16 × 10 × 5 = 800 guesses: against 100 guests away at once, one chance in 100,000 of
taking a seat (800 × 100 / 2^33).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import random
import unicodedata
from pathlib import Path

from mnemonic import Mnemonic

from ..store.db import GUEST_PREFIX
from .model import GuestPass
from .text import RateLimiter, network

TOKEN_WORDS = 3
RESUME_ATTEMPTS, RESUME_PERIOD = 10, 60.0  # resume commands per address per period
SECRET_BYTES = 32


def _unaccented(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


WORDS: tuple[str, ...] = tuple(_unaccented(word) for word in Mnemonic("french").wordlist)
_KNOWN = frozenset(WORDS)


class Guests:
    """Issues guest passes and checks reconnect tokens; the secret is ``guests.key``."""

    def __init__(self, secret: bytes, rng: random.Random) -> None:
        self._secret = secret
        self._rng = rng
        self._attempts = RateLimiter(RESUME_ATTEMPTS, RESUME_PERIOD)

    @classmethod
    def open(cls, path: Path, rng: random.Random) -> Guests:
        """With the secret in ``path``, written (mode 0600) if it does not exist yet."""
        try:
            secret = path.read_bytes()
        except FileNotFoundError:
            secret = os.urandom(SECRET_BYTES)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as file:
                file.write(secret)
        if len(secret) < SECRET_BYTES:
            raise ValueError(f"{path}: a guest secret of {len(secret)} bytes is too short")
        return cls(secret, rng)

    @property
    def secret(self) -> bytes:
        return self._secret

    def share(self, secret: bytes) -> None:
        """Sign with ``secret`` from now on (several coordinators share one:
        ``coordinator/owners.py``)."""
        if len(secret) < SECRET_BYTES:
            raise ValueError(f"a guest secret of {len(secret)} bytes is too short")
        self._secret = secret

    def issue(self) -> GuestPass:
        """A new guest: a token drawn at random, and its identity."""
        token = "-".join(self._rng.choice(WORDS) for _ in range(TOKEN_WORDS))
        return GuestPass(self._identity(token), token)

    def pass_for(self, token: str) -> GuestPass | None:
        """The pass ``token`` stands for, if it is three of our words (any case, with or without
        accents, joined by « - » or spaces); None if it cannot be a token."""
        words = [_unaccented(word).lower() for word in token.replace(" ", "-").split("-") if word]
        if len(words) != TOKEN_WORDS or not all(word in _KNOWN for word in words):
            return None
        canonical = "-".join(words)
        return GuestPass(self._identity(canonical), canonical)

    def allow_attempt(self, address: str, now: float) -> bool:
        """Count one resume attempt from ``address``; False when it has had its share."""
        return self._attempts.allow(network(address), now)

    def _identity(self, token: str) -> str:
        digest = hmac.new(self._secret, token.encode(), hashlib.sha256).digest()
        return GUEST_PREFIX + base64.b32encode(digest[:10]).decode().lower()
