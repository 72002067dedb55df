"""User text (nicknames, chat): made safe to store and to show, and rate-limited.

Safe means: no control or escape character can reach a terminal (C0, C1 — U+009B is a CSI —
DEL, ESC), no bidirectional override or zero-width character can disguise a line, no pile of
combining marks can overflow a cell, and the length is capped. The result is plain text: screens
render it as ``Text``, never as markup (design.md, convention 7).
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from collections import deque

CHAT_MAX = 300
MAX_MARKS = 2  # combining marks kept after one base character (enough for any real script)
NICKNAME_MIN, NICKNAME_MAX = 2, 16
NICKNAME_PUNCTUATION = frozenset("_.-")


# Letters a nickname may hold besides those of the ASCII alphabet with accents: the ones French
# and its neighbours write that decompose to no ASCII letter. Everything else is dropped, even
# when Unicode calls it Latin: « ɑ » (alpha), « ı » (dotless i), « ǀ » (a click), « ʟ » (small
# capital) and their like exist to look like an ASCII letter, and a name has no use for them.
EXTRA_LETTERS = frozenset("æœøßłđÆŒØẞŁĐ")

# The name key's folding, after case folding and accents are gone (see ``name_key``): letters
# that decompose to no ASCII letter, and the look-alikes among what is left. Unicode's
# confusables (TS #39) make « 0 » an « O » and « 1 » and « I » an « l »; case folding has
# already made « I » an « i », so « i » joins « l » too.
_KEY_FOLD = str.maketrans({
    "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d",
    "0": "o", "1": "l", "i": "l",
})
_KEY_PAIRS = (("rn", "m"),)  # the one look-alike pair of TS #39 within the alphabet


def _is_name_letter(char: str) -> bool:
    # One ASCII letter, with or without accents (NFD: the letter, then combining marks).
    return char in EXTRA_LETTERS or unicodedata.normalize("NFD", char)[0] in _ASCII_LETTERS


_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def nickname(raw: str) -> str | None:
    """The nickname ``raw`` asks for: letters, digits and ``_.-`` kept, others dropped, cut to 16
    characters; None when fewer than 2 remain. ``nickname(x) == x`` says x is valid.

    A letter is an ASCII letter, accented or not (« é », « ç », « ė »), or one of
    ``EXTRA_LETTERS``. The text is NFKC-normalised first: full-width « ａ », the ligature « ﬁ »
    and the script « ℓ » become the letters they stand for, accents are composed.

    The SSH server applies it to login names, the app to names typed in, the coordinator to every
    player who connects. Two names are the same name when their ``name_key`` is."""
    kept = "".join(
        char for char in unicodedata.normalize("NFKC", raw)
        if _is_name_letter(char) or char in "0123456789" or char in NICKNAME_PUNCTUATION
    )[:NICKNAME_MAX]
    return kept if len(kept) >= NICKNAME_MIN else None


def name_key(name: str) -> str:
    """What makes two nicknames the same name: the one comparison used everywhere (who is
    online, who owns a name in the database, seats held for an absent player, watchers).

    NFKC, then ``casefold`` (« Élise » is « élise »), then accents dropped (« élise » is
    « elise », « alicė » is « alice »: a dot or an accent is too easily missed on a terminal),
    then a small confusables skeleton for what the nickname alphabet allows (``_KEY_FOLD``):
    « aIice », « al1ce » and « alice » have one key. The alphabet itself (``nickname``) keeps
    out the rest of Unicode's look-alikes, so no whole TS #39 table is needed. Not for display.
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    bare = "".join(c for c in unicodedata.normalize("NFD", folded) if not unicodedata.combining(c))
    key = bare.translate(_KEY_FOLD)
    for pair, single in _KEY_PAIRS:
        key = key.replace(pair, single)
    return key


MENTION = re.compile(r"@([\w.\-]+)")
"""« @name » in a chat line: the nickname alphabet's characters after an @ (``mentions``)."""


def mentions(text: str) -> frozenset[str]:
    """The name keys (``name_key``) a chat line mentions with « @name ». A sentence's own
    punctuation after the name (« @bob. », « @bob- ») may be the name's or not: both are
    taken, so « merci @bob. » mentions bob, and « @b.o.b » still mentions « b.o.b »."""
    found: set[str] = set()
    for match in MENTION.finditer(text):
        word = match.group(1)
        for name in (word, word.rstrip(".-")):
            if len(name) >= NICKNAME_MIN:  # (« @- », « @. »: no name)
                found.add(name_key(name))
    return frozenset(found)


def sanitise(text: str, limit: int = CHAT_MAX) -> str:
    """Plain, single-line, printable text of at most ``limit`` characters."""
    text = unicodedata.normalize("NFC", text)
    out: list[str] = []
    marks = 0
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in "\t\n\r\x0b\x0c\u2028\u2029":
            ch, cat = " ", "Zs"
        if cat in ("Cc", "Cf", "Cs", "Co", "Cn"):
            # controls (C0, C1, DEL), formats (bidi overrides, zero-width), surrogates,
            # private use and unassigned code points: none is text a player meant
            continue
        if 0xFE00 <= ord(ch) <= 0xFE0F:
            continue  # variation selectors: terminals disagree on the width they give
        if cat.startswith("M"):
            if marks >= MAX_MARKS or not out:
                continue
            marks += 1
        else:
            marks = 0
        if ch == " " and (not out or out[-1] == " "):
            continue  # collapse runs of spaces, no leading space
        out.append(ch)
        if len(out) >= limit:
            break
    return "".join(out).rstrip()


class RateLimiter:
    """At most ``count`` events per ``period`` seconds per key (a sliding window).

    A key whose window is empty is forgotten (all of them once per period), so a client that
    invents keys grows it by no more than the events of one period."""

    def __init__(self, count: int = 3, period: float = 3.0) -> None:
        self.count = count
        self.period = period
        self._times: dict[str, deque[float]] = {}
        self._swept = 0.0  # when keys with an empty window were last forgotten

    def wait(self, key: str, now: float) -> float:
        """Seconds before ``key`` may have another event; 0 when it may now."""
        if now - self._swept >= self.period:
            self._swept = now
            for stale in [k for k, times in self._times.items()
                          if not times or now - times[-1] >= self.period]:
                del self._times[stale]
        times = self._times.get(key)
        if times is None:
            return 0.0
        while times and now - times[0] >= self.period:
            times.popleft()
        return 0.0 if len(times) < self.count else times[0] + self.period - now

    def note(self, key: str, now: float) -> None:
        """Count an event for ``key`` (whether or not ``wait`` allowed it)."""
        self._times.setdefault(key, deque()).append(now)

    def allow(self, key: str, now: float) -> bool:
        """Count an event for ``key`` if the window has room; False (and nothing counted) if not."""
        if self.wait(key, now) > 0:
            return False
        self.note(key, now)
        return True

    def forget(self, key: str) -> None:
        self._times.pop(key, None)

    def __len__(self) -> int:
        """Keys remembered (for tests: the limiter stays bounded)."""
        return len(self._times)


def idle_text(seconds: float) -> str:
    """An idle time in whole minutes, « 7 min », « 2 h 05 » (the admins' lists: read at a
    glance; seconds would only flicker)."""
    minutes = int(seconds // 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d}"


def duration(text: str) -> float | None:
    """``30s``, ``10m``, ``2h``, ``7d``, a number of seconds, or ``forever``/"" (None: for
    good). ValueError on anything else."""
    text = text.strip().lower()
    if text in ("", "forever", "permanent", "toujours"):
        return None
    units = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}
    factor = units.get(text[-1], 0.0)
    number = text[:-1] if factor else text
    value = float(number) * (factor or 1.0)
    if not 0 < value < 1e9:
        raise ValueError(text)
    return value


def network(address: str) -> str:
    """Whom to count a client's attempts against: the address, or its /64 for IPv6 (one
    subscriber's network: each machine on it may have many addresses)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 6:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)
