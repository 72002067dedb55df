"""User text (nicknames, chat): made safe to store and to show, and rate-limited.

Safe means: no control or escape character can reach a terminal (C0, C1 — U+009B is a CSI —
DEL, ESC), no bidirectional override or zero-width character can disguise a line, no pile of
combining marks can overflow a cell, and the length is capped. The result is plain text: screens
render it as ``Text``, never as markup (design.md, convention 7).
"""

from __future__ import annotations

import unicodedata
from collections import deque

CHAT_MAX = 300
MAX_MARKS = 2  # combining marks kept after one base character (enough for any real script)
NICKNAME_MIN, NICKNAME_MAX = 2, 16
NICKNAME_PUNCTUATION = frozenset("_.-")


def _is_latin_letter(char: str) -> bool:
    # Latin script only (accents included): a Cyrillic « а » must not pass for a Latin « a ».
    return char.isalpha() and unicodedata.name(char, "").startswith("LATIN ")


def nickname(raw: str) -> str | None:
    """The nickname ``raw`` asks for: Latin letters, digits and ``_.-`` kept, others dropped, cut
    to 16 characters; None when fewer than 2 remain. ``nickname(x) == x`` says x is valid.

    The SSH server applies it to login names, the app to names typed in, the coordinator to every
    player who connects."""
    kept = "".join(
        char for char in unicodedata.normalize("NFC", raw)
        if _is_latin_letter(char) or char in "0123456789" or char in NICKNAME_PUNCTUATION
    )[:NICKNAME_MAX]
    return kept if len(kept) >= NICKNAME_MIN else None


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
