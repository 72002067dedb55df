"""Collection engine throughput: full games per second on one core, validation included.

    uv run python bench/collection_engine.py                 # random and basic, 4 seats
    uv run python bench/collection_engine.py --bots basic --games 500 --seats 2
    uv run python bench/collection_engine.py --profile       # where the time goes (pyinstrument)

Each game is dealt from ``derive_seed(seed, i)`` and played to its end by the bots through the
engine's own ``to_act`` / ``legal_actions`` / ``apply``, exactly as the simulator does, minus
the simulator's statistics. The solver memoises what it learns across games (see
objectives.py), so a warm-up of games runs first and is reported apart: the steady rate is what
a long simulation or a busy server sees.
"""

from __future__ import annotations

import argparse
import platform
import time
from typing import Any

from pioche_tui.engine.base import derive_seed, new_rng
from pioche_tui.engine.collection import GAME


def play(games: int, seats: int, bots: str, mode: str, seed: int) -> tuple[float, int, int]:
    """Play ``games`` games; return the seconds, actions and rounds they took."""
    options = GAME.options({"mode": mode})
    players = [GAME.bot(bots) for _ in range(seats)]
    to_act, legal_actions, apply = GAME.to_act, GAME.legal_actions, GAME.apply
    actions = rounds = 0
    start = time.perf_counter()
    for i in range(games):
        game_seed = derive_seed(seed, i)
        state: Any = GAME.new_game(seats, options, game_seed)
        rngs = [new_rng(derive_seed(game_seed, 1000 + s)) for s in range(seats)]
        while actors := to_act(state):
            seat = actors[0]
            action = players[seat].choose(state, seat, legal_actions(state, seat), rngs[seat])
            apply(state, seat, action)
            actions += 1
        rounds += state.round
    return time.perf_counter() - start, actions, rounds


def report(games: int, seats: int, bots: str, mode: str, warmup: int) -> None:
    warm_seconds, _, _ = play(warmup, seats, bots, mode, seed=1)
    seconds, actions, rounds = play(games, seats, bots, mode, seed=0)
    print(
        f"{bots:>6} bots, {seats} seats, {mode}: {games / seconds:8.1f} games/s "
        f"({actions / seconds:,.0f} actions/s, {actions / games:.0f} actions and "
        f"{rounds / games:.2f} rounds per game); warm-up {warmup} games: "
        f"{warmup / warm_seconds:.1f} games/s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--bots", choices=GAME.bot_names(), action="append")
    parser.add_argument("--mode", default="classique", choices=("classique", "decouverte"))
    parser.add_argument("--profile", action="store_true", help="profile with pyinstrument")
    args = parser.parse_args()
    print(f"Python {platform.python_version()} on {platform.processor() or platform.machine()}")
    for bots in args.bots or ["random", "basic"]:
        if args.profile:
            from pyinstrument import Profiler

            play(args.warmup, args.seats, bots, args.mode, seed=1)
            with Profiler() as profiler:
                play(args.games, args.seats, bots, args.mode, seed=0)
            profiler.print()
        else:
            report(args.games, args.seats, bots, args.mode, args.warmup)


if __name__ == "__main__":
    main()
