"""What the wire's codecs cost (pioche_tui/wire.py): CPU per table update encoded and decoded,
and its size, for each game, as a seated player's and a spectator's updates of real games.

    uv run python bench/wire.py --games 3 --seats 4

Bot games are played with the engine alone; after each move, each seat and a spectator get the
update the coordinator would send (the table's summary, their view, the move's events as their
eyes see them, a turn timer). Their encoding and decoding are timed apart, in process CPU time
(the machine is shared), best of ``--repeat`` passes.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from typing import Any

from pioche_tui import wire
from pioche_tui.coordinator.model import SeatInfo, TableSummary, TableUpdate
from pioche_tui.engine import GAMES
from pioche_tui.engine.base import events_seen_by


def updates(game_name: str, games: int, seats: int, seed: int) -> list[TableUpdate]:
    """Every update of ``games`` bot games, for each seat and a spectator, after each move."""
    game = GAMES[game_name]
    rng = random.Random(seed)
    found: list[TableUpdate] = []
    infos = tuple(SeatInfo("player", f"joueur{i}", identity=f"SHA256:{'k' * 43}{i}")
                  for i in range(seats))
    summary = TableSummary("ABCDEF", game_name, game.title, tuple(game.options({}).items()),
                           infos, "playing", 1, False, 60.0, "joueur0")
    for g in range(games):
        state = game.new_game(seats, game.options({}), seed + g)
        step = 0
        while game.outcome(state) is None:
            seat = game.to_act(state)[0]
            legal = game.legal_actions(state, seat)
            events = game.apply(state, seat, legal[rng.randrange(len(legal))])
            step += 1
            for viewer in (*range(seats), None):
                found.append(TableUpdate(
                    summary, viewer, step, game.view(state, viewer),
                    events_seen_by(events, viewer), game.to_act(state), 42.0))
    return found


def timed(function: Any, values: list[Any], repeat: int) -> float:
    """The best CPU seconds of ``repeat`` passes of ``function`` over ``values``."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for value in values:
            function(value)
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}; {args.games} games of {args.seats} seats")
    for game in GAMES:
        found = updates(game, args.games, args.seats, args.seed)
        data = [wire.encode(u) for u in found]
        assert [wire.decode(d) for d in data] == found
        encode = timed(wire.encode, found, args.repeat) / len(found)
        decode = timed(wire.decode, data, args.repeat) / len(found)
        sizes = sorted(len(d) for d in data)
        print(f"{game:10} {len(found):6} updates: encode {encode * 1e6:5.0f} µs, decode "
              f"{decode * 1e6:5.0f} µs; {statistics.mean(sizes):5.0f} bytes mean, "
              f"{sizes[len(sizes) * 95 // 100]:5} p95, {sizes[-1]:5} max")


if __name__ == "__main__":
    main()
