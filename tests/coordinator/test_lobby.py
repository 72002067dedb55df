"""The lobby's snapshots: a change reaches the sessions in the lobby at once, a crowd of changes
as one snapshot at most every ``Settings.lobby_interval``."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from pioche_tui.coordinator.core import Coordinator

from .conftest import player, until


async def test_lobby_snapshots_are_spaced_out(
    make_coordinator: Callable[..., Awaitable[Coordinator]],
) -> None:
    c = await make_coordinator(lobby_interval=2.0)  # longer than a busy machine's pauses
    ana = c.connect(player("Ana"))
    assert ana.mailbox.take() is not None  # her own snapshot, at once
    loop = asyncio.get_running_loop()
    arrivals: list[tuple[float, tuple[str, ...]]] = []

    async def arrived() -> None:
        await until(lambda: ana.mailbox.pending)
        mail = ana.mailbox.take()
        assert mail is not None and mail.lobby is not None
        arrivals.append((loop.time(), tuple(e.name for e in mail.lobby.online)))

    c.connect(player("Bob"))  # the lobby was quiet: Ana hears of Bob at the next turns
    await arrived()
    for name in ("Cid", "Dan", "Eve"):  # a crowd: one snapshot, once the interval is over
        c.connect(player(name))
    await asyncio.sleep(0)
    assert not ana.mailbox.pending
    await arrived()
    assert [names for _, names in arrivals] == [("Ana", "Bob"), ("Ana", "Bob", "Cid", "Dan", "Eve")]
    assert arrivals[1][0] - arrivals[0][0] >= c.settings.lobby_interval * 0.9
