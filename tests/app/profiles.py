"""Finished games between key players, played through a real coordinator (real logs, a real
SQLite file), for the profile and replay tests."""

from __future__ import annotations

import asyncio
import random

from pioche_tui.coordinator.core import Coordinator
from pioche_tui.coordinator.model import Player


async def finish_games(coordinator: Coordinator, names: tuple[str, ...] = ("Alice", "Bob"),
                       count: int = 1, seed: int = 1,
                       identities: tuple[str, ...] | None = None) -> list[str]:
    """``count`` games of Défausse (one round each) between the key players ``names`` (their
    ``identities``: ``SHA256:NAME`` by default), each move a random legal one; the tables'
    ids. The players' sessions close at the end."""
    rng = random.Random(seed)
    identities = identities or tuple(f"SHA256:{name}" for name in names)
    sessions = [coordinator.connect(Player(identity, name))
                for identity, name in zip(identities, names, strict=True)]
    played = []
    for _ in range(count):
        tid = sessions[0].create_table("defausse", seats=len(names),
                                       options={"single_round": True}, timer=None)
        for session in sessions[1:]:
            session.join(tid)  # (the table starts once full)
        table = coordinator.tables[tid]
        for _ in range(5000):
            if table.status != "playing":
                break
            actors = table.game.to_act(table.state)
            if actors:
                seat = actors[0]
                legal = table.game.legal_actions(table.state, seat)
                sessions[seat].act(legal[rng.randrange(len(legal))], table.step)
            await asyncio.sleep(0)
        assert table.status == "finished", "the game did not end"
        for session in sessions:
            session.leave()
        played.append(tid)
    for session in sessions:
        session.close()
    return played
