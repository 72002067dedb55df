"""Collection's solver on the largest collections the simulator produces: CPU time, and the
same best points as a second exact method (an integer linear program).

    nice -n 10 uv run python bench/solver.py --games 300 --largest 1000 --repeat 3 --check

Collections: basic bots on every seat at 2 to 6 seats, both modes, ``--games`` games each (seed
``--seed``); at the end of every round, each seat's collection and open objectives. The
``--largest`` biggest are solved: cold (every memo of the solver emptied before each, the worst
case) and warm (in a row, memos kept, as a server runs), each ``--repeat`` times, keeping each
collection's least CPU time (``time.process_time``: the machine is shared). Prints the worst,
the 99th percentile and the median per collection. ``--check`` compares each best selection's
points with the integer program's (tests/engine/collection_ilp.py, scipy/HiGHS). ``--save``
writes the collections solved, ``--load`` solves them again without playing the games.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from pioche_tui.engine.base import derive_seed, new_rng
from pioche_tui.engine.collection import GAME, objectives
from pioche_tui.engine.collection.rules import VALIDATION, State

Case = tuple[list[int], list[int]]


def harvest(games: int, seed: int) -> list[Case]:
    found: list[Case] = []
    bot = GAME.bot("basic")
    for seats in range(2, 7):
        for mode in ("classique", "decouverte"):
            for i in range(games):
                game_seed = derive_seed(seed, seats, len(mode), i)
                state: State = GAME.new_game(seats, {"mode": mode}, game_seed)
                rngs = [new_rng(derive_seed(game_seed, s)) for s in range(seats)]
                seen = 0
                while actors := GAME.to_act(state):
                    if state.phase is VALIDATION and seen != state.round:
                        seen = state.round
                        found += [(sorted(state.collections[s]), list(state.open_objectives(s)))
                                  for s in range(seats)]
                    seat = actors[0]
                    legal = GAME.legal_actions(state, seat)
                    GAME.apply(state, seat, bot.choose(state, seat, legal, rngs[seat]))
    return found


def forget() -> None:
    """Empty every memo of the solver."""
    objectives._best_selection.cache_clear()
    objectives._arc_ways.cache_clear()
    objectives._NEEDS.clear()


def timed(cases: list[Case], cold: bool, repeat: int) -> list[float]:
    best = [float("inf")] * len(cases)
    for _ in range(repeat):
        forget()
        for i, (cards, open_) in enumerate(cases):
            if cold:
                forget()
            objectives._best_selection.cache_clear()  # warm: the memos, not the answer
            start = time.process_time()
            objectives.best_selection(cards, open_)
            best[i] = min(best[i], time.process_time() - start)
    return best


def summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {"worst_ms": round(ordered[-1] * 1000, 2),
            "p99_ms": round(ordered[int(0.99 * len(ordered))] * 1000, 2),
            "median_ms": round(statistics.median(ordered) * 1000, 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300, help="games per configuration")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--largest", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--check", action="store_true", help="compare with the integer program")
    parser.add_argument("--save", type=Path, help="write the collections solved (JSON)")
    parser.add_argument("--load", type=Path,
                        help="solve the collections --save wrote instead of playing games")
    args = parser.parse_args()
    result: dict[str, Any] = {}
    if args.load:
        cases = [(cards, open_) for cards, open_ in json.loads(args.load.read_text())]
    else:
        start = time.process_time()
        cases = harvest(args.games, args.seed)
        result["harvest_cpu_s"] = round(time.process_time() - start, 1)
    cases.sort(key=lambda case: -len(case[0]))
    largest = cases[: args.largest]
    result |= {
        "collections": len(cases), "solved": len(largest),
        "sizes": [len(largest[-1][0]), len(largest[0][0])],
        "cold": summary(timed(largest, True, args.repeat)),
        "warm": summary(timed(largest, False, args.repeat)),
        "load": os.getloadavg(),
    }
    if args.check:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' package
        from tests.engine.collection_ilp import best_points

        wrong = [case for case in largest if objectives.total_points(
            objectives.best_selection(*case)) != best_points(*case)]
        result["differ_from_integer_program"] = len(wrong)
    if args.save:
        args.save.write_text(json.dumps(largest))
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
