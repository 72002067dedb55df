"""What a client tells us about itself, made safe: nickname, terminal type, locale, its command
(``watch [TABLE]``, ``join TABLE [CODE]`` or ``resume TOKEN``).

Everything here is pure (standard library only). The nickname rule itself is
``pioche_tui.coordinator.text.nickname``: the app and the coordinator apply it too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# Login names that say nothing about the player: the client's default user on servers, clouds and
# boards, or words people type when unsure. Such a name makes the app ask for a nickname.
DEFAULT_LOGIN_NAMES = frozenset({
    "admin", "administrator", "anonymous", "azureuser", "centos", "debian", "ec2-user", "fedora",
    "ftp", "git", "guest", "invite", "invité", "joueur", "nobody", "opc", "oracle", "pi", "pioche",
    "play", "player", "postgres", "root", "test", "toor", "ubuntu", "user", "vagrant", "www-data",
})

WATCH_USERNAME = "watch"
WATCH_COMMAND = "watch"
RESUME_COMMAND = "resume"
JOIN_COMMAND = "join"
TOKEN_WORDS = 3  # a reconnect token: three words (pioche_tui.coordinator.guests)

DEFAULT_TERM = "xterm-256color"
_TERM_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
_LANG_RE = re.compile(r"[A-Za-z0-9_.@-]{1,64}")
_COLORTERM_RE = re.compile(r"[A-Za-z0-9_.+-]{1,32}")
_TABLE_RE = re.compile(r"[A-Za-z0-9_-]{1,32}")
_TOKEN_WORD_RE = re.compile(r"[A-Za-z]{1,16}")


def is_default_login_name(name: str) -> bool:
    return name.casefold() in DEFAULT_LOGIN_NAMES


def sanitize_term(raw: str | None) -> str:
    """The client's TERM if it looks like a terminal name, else ``xterm-256color``."""
    if raw and _TERM_RE.fullmatch(raw):
        return raw
    return DEFAULT_TERM


def sanitize_colorterm(raw: str | None) -> str | None:
    """The client's COLORTERM (``truecolor``, ``24bit``) if it looks like one, else None."""
    return raw if raw and _COLORTERM_RE.fullmatch(raw) else None


def wants_no_color(env: dict[str, str]) -> bool:
    """The client sent NO_COLOR with a value (https://no-color.org: set and not empty)."""
    return bool(env.get("NO_COLOR"))


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


@dataclass(frozen=True)
class ResumeRequest:
    """``resume WORD-WORD-WORD``: a guest proving who they were, to get their seat back."""

    token: str  # lower case, the words joined by « - »; whether it is a token: the coordinator's


@dataclass(frozen=True)
class JoinRequest:
    """``join TABLE [CODE]``: open Pioche seated at that table (its code if private); whether
    the table takes the player: the coordinator's."""

    table: str
    code: str | None


Command = WatchRequest | ResumeRequest | JoinRequest


class BadCommand(ValueError):
    """The exec command is not one Pioche runs; the message is for the client."""


def parse_command(command: str) -> Command:
    """Parse ``watch [TABLE]``, ``join TABLE [CODE]`` or ``resume TOKEN``, the only commands a
    client may run.

    A token is three words of letters joined by « - » (spaces do too: ``resume a b c``), in any
    case: OpenSSH sends ``ssh -t host resume abeille-tulipe-zeste`` as the exec request
    ``resume abeille-tulipe-zeste``."""
    words = command.split()
    if words[:1] == [RESUME_COMMAND]:
        parts = "-".join(words[1:]).split("-")
        if len(parts) != TOKEN_WORDS or not all(_TOKEN_WORD_RE.fullmatch(p) for p in parts):
            raise BadCommand("Usage : resume MOT-MOT-MOT (le code affiché pendant la partie).")
        return ResumeRequest("-".join(parts).lower())
    if words[:1] == [JOIN_COMMAND]:
        if not 2 <= len(words) <= 3 or not all(_TABLE_RE.fullmatch(w) for w in words[1:]):
            raise BadCommand("Usage : join TABLE [CODE] (lettres, chiffres, _ et -, 32 au "
                             "plus).")
        return JoinRequest(words[1], words[2] if len(words) == 3 else None)
    if not words or words[0] != WATCH_COMMAND:
        raise BadCommand(
            "Pioche n'exécute pas de commande : connectez-vous sans commande, "
            "avec « watch [TABLE] » pour regarder, « join TABLE [CODE] » pour vous asseoir à "
            "une table, ou « resume MOT-MOT-MOT » pour reprendre votre place."
        )
    if len(words) > 2 or (len(words) == 2 and not _TABLE_RE.fullmatch(words[1])):
        raise BadCommand("Usage : watch [TABLE] (lettres, chiffres, _ et -, 32 au plus).")
    return WatchRequest(words[1] if len(words) == 2 else None)


def reached_address(sockname: tuple[Any, ...] | None) -> tuple[str, int] | None:
    """The server's address and port as this client reached them (the socket's own end), for
    the commands the app shows (``ssh -t -p PORT HOST resume …``). An IPv4 address seen
    through an IPv6 socket (``::ffff:192.0.2.1``) is given as IPv4."""
    if not sockname:
        return None
    return (str(sockname[0]).removeprefix("::ffff:"), int(sockname[1]))
