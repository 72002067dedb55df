"""Spectators' names (``Coordinator._watcher_name``): the first of « NAME », « NAME2 »… that no
session shows and nobody else owns or holds. Found with a count of the names online (issue 15:
looking through every session for each candidate cost ~75 ms at 2,000 spectators); the names
must be those the search gave."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Awaitable, Callable

from pioche_tui.coordinator.core import Coordinator, Session
from pioche_tui.coordinator.model import Player
from pioche_tui.coordinator.text import NICKNAME_MAX, name_key, nickname


def searched_name(c: Coordinator, wanted: str, identity: str, avoid: str = "") -> str:
    """The name as the search through every session found it (before the count)."""
    base = nickname(wanted) or "spectateur"
    number = 1
    while True:
        suffix = str(number) if number > 1 else ""
        name = base[: NICKNAME_MAX - len(suffix)] + suffix
        key = name_key(name)
        if (key != avoid and all(s.name_key != key for s in c.sessions.values())
                and c._name_user(name, identity) is None):
            return name
        number += 1


async def test_watcher_names_are_those_the_search_gave(
    make_coordinator: Callable[..., Awaitable[Coordinator]],
) -> None:
    c = await make_coordinator()
    rng = random.Random(15)
    live: list[Session] = []
    renamed = 0  # watchers renamed for their own player's name
    wanted = ("spectateur", "alice", "Alice", "bob", "")
    for step in range(400):
        roll = rng.random()
        if live and roll < 0.35:
            live.pop(rng.randrange(len(live))).close()
        elif roll < 0.45:  # a player takes a name: a watcher showing it is renamed
            name = rng.choice(("alice", "bob", "spectateur2"))
            identity = f"SHA256:{name}"
            if c._name_user(name, identity) is None and identity not in c.sessions:
                own = [s for s in live if s.player.identity == identity
                       and s.name_key == name_key(name)]
                live.append(c.connect(Player(identity, name)))
                renamed += sum(s.name_key != name_key(name) for s in own)
        else:
            ask = rng.choice(wanted)
            identity = rng.choice(("SHA256:w1", "SHA256:w2", "SHA256:alice", "SHA256:bob"))
            expected = searched_name(c, ask, identity)
            session = c.connect(Player(identity, ask, watch_only=True))
            assert session.player.name == expected, step
            live.append(session)
        live = [s for s in live if s.open]
        # The count is the sessions' names, always.
        assert c._online_names == Counter(s.name_key for s in c.sessions.values()), step
    assert len({s.name_key for s in c.sessions.values()}) == len(c.sessions)
    assert renamed > 3
