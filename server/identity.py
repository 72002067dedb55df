"""What a client tells us about itself, made safe: nickname, terminal type, locale, watch command.

Everything here is pure (standard library only). The nickname rule itself is
``pioche_tui.coordinator.text.nickname``: the app and the coordinator apply it too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Login names that say nothing about the player: the client's default user on servers, clouds and
# boards, or words people type when unsure. Such a name makes the app ask for a nickname.
DEFAULT_LOGIN_NAMES = frozenset({
    "admin", "administrator", "anonymous", "azureuser", "centos", "debian", "ec2-user", "fedora",
    "ftp", "git", "guest", "invite", "invité", "joueur", "nobody", "opc", "oracle", "pi", "pioche",
    "play", "player", "postgres", "root", "test", "toor", "ubuntu", "user", "vagrant", "www-data",
})

WATCH_USERNAME = "watch"
WATCH_COMMAND = "watch"

DEFAULT_TERM = "xterm-256color"
_TERM_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
_LANG_RE = re.compile(r"[A-Za-z0-9_.@-]{1,64}")
_TABLE_RE = re.compile(r"[A-Za-z0-9_-]{1,32}")


def is_default_login_name(name: str) -> bool:
    return name.casefold() in DEFAULT_LOGIN_NAMES


def sanitize_term(raw: str | None) -> str:
    """The client's TERM if it looks like a terminal name, else ``xterm-256color``."""
    if raw and _TERM_RE.fullmatch(raw):
        return raw
    return DEFAULT_TERM


def pick_lang(env: dict[str, str]) -> str | None:
    """The locale the client sent, in POSIX precedence (LC_ALL, LC_MESSAGES, LANG), if sane."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value and _LANG_RE.fullmatch(value):
            return value
    return None


@dataclass(frozen=True)
class WatchRequest:
    table: str | None  # None: browse the lobby as a spectator


class BadCommand(ValueError):
    """The exec command is not one Pioche runs; the message is for the client."""


def parse_command(command: str) -> WatchRequest:
    """Parse ``watch [TABLE]``, the only command a client may run."""
    words = command.split()
    if not words or words[0] != WATCH_COMMAND:
        raise BadCommand(
            "Pioche n'exécute pas de commande : connectez-vous sans commande, "
            "ou avec « watch [TABLE] » pour regarder."
        )
    if len(words) > 2 or (len(words) == 2 and not _TABLE_RE.fullmatch(words[1])):
        raise BadCommand("Usage : watch [TABLE] (lettres, chiffres, _ et -, 32 au plus).")
    return WatchRequest(words[1] if len(words) == 2 else None)
