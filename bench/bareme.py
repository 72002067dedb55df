"""Collection's scorecard, measured: how hard each objective is, and whether choices matter.

    nice -n 10 uv run python bench/bareme.py chances --games 300      # the table for pricing
    nice -n 10 uv run python bench/bareme.py choices --games 200      # spread, waiting

``chances``: basic bots at 2, 4 and 6 seats, both modes; at the end of every round, for every
seat, which objectives its collection can make (the matcher says: ``combinations`` with every
objective open, whether or not it is still open on the scorecard). Suite pure is counted as
each of its two forms. Prints, per objective, the chance per round in each configuration and
−ln of it averaged over them, and what the current points would be in proportion.

``choices``: with the engine's current points (run it before and after a change of barème):
the spread of final scores (standard deviation within a game, averaged; the gap between the
winner and the last), and how often waiting pays: at each validation but the last round's, one
seat (turning) holds back in turn each objective of its best selection, the rest of the game is
played again from there with the same deals and bots, and waiting pays when that seat ends with
more points than if it had validated everything. Bounded: ``--games`` per configuration.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import statistics
import sys
import time
from collections.abc import Iterator
from typing import Any

from pioche_tui.engine.base import Bot, derive_seed, new_rng
from pioche_tui.engine.collection import GAME
from pioche_tui.engine.collection.actions import Validate
from pioche_tui.engine.collection.cards import OBJECTIVES, SUITE_SHADOW_POINTS
from pioche_tui.engine.collection.objectives import (
    ALL_OBJECTIVES,
    SUITE_PURE,
    best_selection,
    combinations,
)
from pioche_tui.engine.collection.rules import VALIDATION, State

CONFIGS = [(seats, mode) for seats in (2, 4, 6) for mode in ("classique", "decouverte")]
LINES = [o.name for o in OBJECTIVES[:-1]] + ["Suite Rainbow", "Suite Shadow"]


def play(seats: int, mode: str, seed: int, bots: list[Bot], state: State | None = None,
         rngs: list[Any] | None = None) -> Iterator[State]:
    """Play a game (or go on with ``state``), yielding the state at each round's validation
    before anybody validates."""
    if state is None:
        state = GAME.new_game(seats, {"mode": mode}, seed)
        rngs = [new_rng(derive_seed(seed, 1000 + s)) for s in range(seats)]
    assert rngs is not None
    seen = 0
    while actors := GAME.to_act(state):
        if state.phase is VALIDATION and seen != state.round:
            seen = state.round
            yield state
            actors = GAME.to_act(state)
            if not actors:
                break
        seat = actors[0]
        action = bots[seat].choose(state, seat, GAME.legal_actions(state, seat), rngs[seat])
        GAME.apply(state, seat, action)


def chances(games: int, seed: int) -> dict[str, Any]:
    table: dict[str, list[float]] = {line: [] for line in LINES}
    bot = GAME.bot("basic")
    for seats, mode in CONFIGS:
        made = dict.fromkeys(LINES, 0)
        rounds = 0
        for i in range(games):
            for state in play(seats, mode, derive_seed(seed, seats, i), [bot] * seats):
                for s in range(seats):
                    rounds += 1
                    offers = combinations(state.collections[s], ALL_OBJECTIVES)
                    can = {(c.objective, c.points) for c in offers}
                    for o in OBJECTIVES[:-1]:
                        made[o.name] += any(obj == o.number for obj, _ in can)
                    made["Suite Rainbow"] += (SUITE_PURE, OBJECTIVES[-1].points) in can
                    made["Suite Shadow"] += (SUITE_PURE, SUITE_SHADOW_POINTS) in can
        for line in LINES:
            table[line].append(made[line] / rounds)
        print(f"{seats} seats, {mode}: {rounds} collections", file=sys.stderr)
    return {"configs": [f"{s}p {m}" for s, m in CONFIGS], "chance": table,
            "minus_log": {line: statistics.fmean(-math.log(max(p, 1e-4)) for p in ps)
                          for line, ps in table.items()}}


def choices(games: int, seed: int, seats_list: list[int]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    bot = GAME.bot("basic")
    for seats in seats_list:
        spreads, gaps, trials, pays, gains = [], [], 0, 0, []
        for i in range(games):
            game_seed = derive_seed(seed, seats, i)
            state = GAME.new_game(seats, {"mode": "classique"}, game_seed)
            rngs = [new_rng(derive_seed(game_seed, 1000 + s)) for s in range(seats)]
            for at in play(seats, "classique", game_seed, [bot] * seats, state, rngs):
                if at.round >= at.max_rounds:
                    continue
                seat = at.round % seats
                best = best_selection(at.collections[seat], at.open_objectives(seat))
                if len(best) < 1:
                    continue
                base = finish(at, rngs, seats, seat, Validate(best))
                for held in best:
                    trials += 1
                    waited = finish(at, rngs, seats, seat,
                                    Validate(tuple(c for c in best if c is not held)))
                    pays += waited > base
                    gains.append(waited - base)
            scores = state.outcome.scores if state.outcome else ()
            spreads.append(statistics.pstdev(scores))
            gaps.append(max(scores) - min(scores))
        out[f"{seats}p"] = {
            "final_score_sd_within_game": round(statistics.fmean(spreads), 1),
            "winner_minus_last": round(statistics.fmean(gaps), 1),
            "waiting_trials": trials,
            "waiting_pays": round(pays / max(trials, 1), 4),
            "waiting_mean_gain": round(statistics.fmean(gains), 2) if gains else 0,
        }
        print(f"{seats} seats: {out[f'{seats}p']}", file=sys.stderr)
    return out


def finish(state: State, rngs: list[Any], seats: int, seat: int, action: Validate) -> int:
    """``seat``'s final points if it validates ``action`` now and the game goes on as the bots
    play it (a copy: the real game is untouched)."""
    state, rngs = copy.deepcopy(state), copy.deepcopy(rngs)
    GAME.apply(state, seat, action)
    bot = GAME.bot("basic")
    for _ in play(seats, state.mode, 0, [bot] * seats, state, rngs):
        pass
    assert state.outcome is not None
    return state.outcome.scores[seat]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=["chances", "choices"])
    parser.add_argument("--games", type=int, default=200, help="games per configuration")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--seats", default="2,4,6", help="choices: seat counts")
    args = parser.parse_args()
    start = time.process_time()
    if args.what == "chances":
        result = chances(args.games, args.seed)
    else:
        result = choices(args.games, args.seed, [int(s) for s in args.seats.split(",")])
    result["cpu_seconds"] = round(time.process_time() - start, 1)
    result["points"] = [o.points for o in OBJECTIVES]
    print(json.dumps(result, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
