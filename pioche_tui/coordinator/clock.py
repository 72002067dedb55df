"""The coordinator's timers (grace periods, turn timers, bots' moves, the lobby's sends), in no
session's context.

``loop.call_later`` runs its callback in the context it was called from, and keeps that context
for as long as the handle lives: a grace period of minutes, and even once cancelled, until its
time comes. The coordinator is mostly called from a player's app, whose context holds Textual's
context variables (the active app, the active screen): a timer started as a player left kept
that player's whole app alive after the session ended (issue 12, item 4). So every timer runs in
a fresh, empty context.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from typing import Any


def later(delay: float, callback: Callable[..., object], *args: Any) -> asyncio.TimerHandle:
    """``callback(*args)`` in ``delay`` seconds (at the next loop turn if not positive)."""
    loop = asyncio.get_running_loop()
    return loop.call_later(max(delay, 0.0), callback, *args, context=contextvars.Context())
