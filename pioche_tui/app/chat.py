"""The chat as a player sees and types it: each line's look, and the commands (« /help »).

The coordinator routes the lines (who reads what: ``Coordinator.chat``); this module says how
one reads on a screen and what a typed line asks for. A line is shown as parts, each a piece
of text and its role (``Part``), which the log styles (``GameLog.add_chat``): user text stays
text, never markup. The choices are written down in docs/screens.md, « The chat ».
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..coordinator.model import ChatLine
from ..coordinator.text import mentions, name_key
from ..i18n import Catalogue

Part = tuple[str, str]
"""A piece of a chat line and its role: "" (plain), "time", "name", "private", "mention",
"info" (``GameLog.add_chat``)."""

COMMANDS = ("help", "msg", "me", "ignore", "unignore")
"""The chat's commands, in the order /help lists them (``chat.help.NAME`` in the catalogue)."""


def clock(when: float) -> str:
    """A line's time as HH:MM, in the server's time zone (its ``TZ``): a player's own is not
    known over SSH."""
    return time.strftime("%H:%M", time.localtime(when))


def chat_parts(line: ChatLine, t: Catalogue, reader: str) -> tuple[Part, ...]:
    """How ``line`` reads for the player named ``reader``: its time, then « name : text »,
    « * name text » (``/me``), a private line marked so with its addressee, a spectators'
    line marked so; a line that mentions the reader (« @name ») stands out."""
    parts: list[Part] = [(clock(line.time), "time"), (" ", "")]
    if line.me:
        parts.append(("* ", ""))
    parts.append((line.name, "name"))
    if line.spectators:
        parts.append((t("chat.spectator"), ""))
    if line.to:
        parts += [(" → ", "private"), (line.to, "name"), (t("chat.private"), "private")]
    parts.append((" " if line.me else t("chat.separator"), ""))
    mentioned = (reader and name_key(line.name) != name_key(reader)
                 and name_key(reader) in mentions(line.text))
    parts.append((line.text, "mention" if mentioned else "private" if line.to else ""))
    return tuple(parts)


def info_parts(text: str) -> tuple[Part, ...]:
    """A line the app itself shows in the chat to its player alone (/help, /ignore)."""
    return ((text, "info"),)


@dataclass(frozen=True, slots=True)
class Typed:
    """What a line typed in the chat asks for: ``command`` (one of ``COMMANDS``, "" to say
    ``text``, or the unknown command's name as typed) and its arguments: ``name`` (/msg,
    /ignore, /unignore) and ``text``."""

    command: str
    name: str = ""
    text: str = ""


def parse(typed: str) -> Typed:
    """A typed line read: « /msg bob salut » is Typed("msg", "bob", "salut"); a line not
    starting with « / » is said as it is, and « // » says a line that starts with « / »."""
    typed = typed.strip()
    if not typed.startswith("/"):
        return Typed("", text=typed)
    if typed.startswith("//"):
        return Typed("", text=typed[1:])
    word, _, rest = typed[1:].partition(" ")
    command, rest = word.lower(), rest.strip()
    if command in ("msg", "ignore", "unignore"):
        name, _, text = rest.partition(" ")
        return Typed(command, name, text.strip())
    if command in COMMANDS:
        return Typed(command, text=rest)
    return Typed(word, text=rest)
