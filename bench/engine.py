"""Engine throughput: bot games played headless, in actions per second.

    uv run python bench/engine.py --game defausse --players 2 --bots random --single-round
    uv run --group bench python bench/engine.py --game defausse --players 2 --bots random \\
        --single-round --rlcard          # side by side with RLCard's UNO engine
    uv run --group bench python bench/engine.py --game defausse --profile   # pyinstrument
    uv run python bench/engine.py --game collection --players 4 --bots random --games 300

An action is what the simulator does once per move: ask the engine for the legal actions, let the
bot pick one, apply it, and ask who may interject (``pioche_tui.sim.play_one``, events not
counted). Each workload is a game of ``WORKLOADS``; ``--rlcard`` adds the game's yardstick, run
alternately with ours in the same process, each run of the yardstick sized to as many actions as
ours, so that both see the same machine load. Reported: the best of ``--repeat`` runs (the least
disturbed by other processes), the median, and the median of the paired ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pioche_tui.engine import GAMES
from pioche_tui.engine.base import derive_seed
from pioche_tui.sim import parse_option, play_one


@dataclass
class Run:
    """One timed batch of games."""

    games: int
    actions: int
    seconds: float

    @property
    def actions_per_s(self) -> float:
        return self.actions / self.seconds


def run_ours(
    game_name: str, players: int, games: int, seed: int, bots: list[str], options: dict[str, Any]
) -> Run:
    """Games of our engine, dealt and played exactly as ``pioche sim`` does."""
    game = GAMES[game_name]
    seats = [game.bot(bots[s % len(bots)]) for s in range(players)]
    checked = game.options(options)
    actions = 0
    start = time.perf_counter()
    for i in range(games):
        actions += play_one(game, players, checked, derive_seed(seed, i), seats)[2]
    return Run(games, actions, time.perf_counter() - start)


def run_rlcard_uno(players: int, games: int, seed: int) -> Run:
    """RLCard's UNO through its game API (``UnoGame.init_game``/``step``), random legal actions.

    The legal actions come from the state that ``step`` returns (RLCard computes them there), so
    every action includes the legal-action list a bot needs, and nothing is computed twice.
    RLCard plays one round (its winner is whoever empties their hand first)."""
    from rlcard.games.uno.game import UnoGame

    rng = random.Random(seed)
    game = UnoGame(num_players=players)
    game.np_random.seed(seed % 2**32)
    actions = 0
    start = time.perf_counter()
    for _ in range(games):
        state, _player = game.init_game()
        while not game.is_over():
            legal = state["legal_actions"]
            state, _player = game.step(legal[rng.randrange(len(legal))])
            actions += 1
    return Run(games, actions, time.perf_counter() - start)


@dataclass
class Workload:
    """A game to measure, and the outside engine to compare it with (if any)."""

    game: str
    yardstick: str | None = None  # a name for the report
    yardstick_run: Callable[[int, int, int], Run] | None = None  # (players, games, seed)
    yardstick_module: str | None = None  # what must be importable for the yardstick


WORKLOADS: dict[str, Workload] = {
    "defausse": Workload(
        "defausse", "RLCard UNO (rlcard.games.uno.game.UnoGame)", run_rlcard_uno, "rlcard"
    ),
    "collection": Workload("collection"),  # no outside engine plays it
}


def machine() -> dict[str, Any]:
    model = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "load_before": [round(x, 2) for x in os.getloadavg()],
    }


def profile(args: argparse.Namespace, options: dict[str, Any]) -> int:
    try:
        from pyinstrument import Profiler
    except ImportError:
        print("--profile needs pyinstrument: uv sync --group bench", file=sys.stderr)
        return 2
    profiler = Profiler(interval=0.0005)
    with profiler:
        run_ours(args.game, args.players, args.games, args.seed, args.bots, options)
    print(profiler.output_text(unicode=True, color=False, show_all=False))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(WORKLOADS), default="defausse")
    parser.add_argument("--players", "-p", type=int, default=2)
    parser.add_argument("--games", "-n", type=int, default=2000, help="games per timed run")
    parser.add_argument("--repeat", "-r", type=int, default=5, help="timed runs (best is kept)")
    parser.add_argument("--seed", "-s", type=int, default=0)
    parser.add_argument("--bots", default="random", help="comma-separated, one per seat")
    parser.add_argument("--single-round", action="store_true")
    parser.add_argument("--mode", help="game mode (Collection: classique or decouverte)")
    parser.add_argument("--option", "-o", action="append", type=parse_option, default=[],
                        metavar="NAME=VALUE")  # fmt: skip
    parser.add_argument("--rlcard", action="store_true", help="run the yardstick side by side")
    parser.add_argument("--profile", action="store_true", help="profile our engine instead")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    args.bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    options = dict(args.option)
    if args.single_round:
        options["single_round"] = True
    if args.mode:
        options["mode"] = args.mode
    if args.profile:
        return profile(args, options)

    workload = WORKLOADS[args.game]
    yardstick = workload.yardstick_run if args.rlcard else None
    if yardstick is not None and workload.yardstick_module:
        try:
            __import__(workload.yardstick_module)
        except ImportError:
            print(
                f"--rlcard: {workload.yardstick_module} is not installed, so the side-by-side "
                "run is skipped (install it with: uv sync --group bench)",
                file=sys.stderr,
            )
            yardstick = None
    info = machine()
    ours: list[Run] = []
    theirs: list[Run] = []
    warm = run_ours(args.game, args.players, max(args.games // 10, 1), args.seed, args.bots,
                    options)  # fmt: skip
    their_games = args.games
    if yardstick is not None:  # as many actions per run as ours
        their_warm = yardstick(args.players, max(args.games // 10, 1), args.seed)
        their_games = round(args.games * warm.actions / their_warm.actions)
    for r in range(args.repeat):  # alternate, so that both see the same load
        seed = args.seed + 1 + r
        ours.append(run_ours(args.game, args.players, args.games, seed, args.bots, options))
        if yardstick is not None:
            theirs.append(yardstick(args.players, their_games, seed))
    info["load_after"] = [round(x, 2) for x in os.getloadavg()]

    report: dict[str, Any] = {
        "command": " ".join(["bench/engine.py", *(argv if argv is not None else sys.argv[1:])]),
        "machine": info,
        "game": args.game,
        "players": args.players,
        "bots": args.bots,
        "options": GAMES[args.game].options(options),
        "ours": summary(ours),
    }
    if theirs:
        report["yardstick"] = {"name": workload.yardstick, **summary(theirs)}
        report["ratio_best"] = round(
            report["ours"]["best_actions_per_s"] / report["yardstick"]["best_actions_per_s"], 2
        )
        ratios = [a.actions_per_s / b.actions_per_s for a, b in zip(ours, theirs, strict=True)]
        report["ratio_paired_median"] = round(statistics.median(ratios), 2)
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print(text(report))
    return 0


def summary(runs: list[Run]) -> dict[str, Any]:
    rates = [r.actions_per_s for r in runs]
    games = [r.games / r.seconds for r in runs]
    return {
        "runs": len(runs),
        "games_per_run": runs[0].games,
        "actions_per_game": round(sum(r.actions for r in runs) / sum(r.games for r in runs), 1),
        "best_actions_per_s": round(max(rates)),
        "median_actions_per_s": round(statistics.median(rates)),
        "best_games_per_s": round(max(games), 1),
        "median_games_per_s": round(statistics.median(games), 1),
    }


def text(report: dict[str, Any]) -> str:
    m = report["machine"]
    lines = [
        f"{report['command']}",
        f"machine: {m['cpu']}, {m['cores']} cores, Python {m['python']}, "
        f"load {m['load_before']} → {m['load_after']}",
        f"{report['game']}, {report['players']} players, bots {','.join(report['bots'])}, "
        f"options {report['options']}",
    ]
    rows = [("Pioche " + report["game"], report["ours"])]
    if "yardstick" in report:
        rows.append((report["yardstick"]["name"], report["yardstick"]))
    for name, s in rows:
        lines.append(
            f"  {name}: best {s['best_actions_per_s']:,} actions/s, median "
            f"{s['median_actions_per_s']:,}; best {s['best_games_per_s']:,} games/s, median "
            f"{s['median_games_per_s']:,} ({s['runs']} runs of {s['games_per_run']} games, "
            f"{s['actions_per_game']} actions per game)"
        )
    if "ratio_best" in report:
        lines.append(
            f"  ratio: {report['ratio_best']}× best to best, "
            f"{report['ratio_paired_median']}× median of the paired runs"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
