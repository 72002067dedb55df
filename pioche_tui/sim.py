"""``pioche sim GAME``: bot games played headless, as fast as the engine goes.

The same seed gives the same results: game ``i`` is dealt from ``derive_seed(seed, i)`` and each
seat's bot draws from its own generator, seeded the same way.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .engine import GAMES
from .engine.base import BadOptions, Bot, Game, Outcome, derive_seed, new_rng
from .engine.collection.stats import CollectionStats


@dataclass
class SimResult:
    game: str
    players: int
    bots: tuple[str, ...]
    games: int = 0
    actions: int = 0
    rounds: int = 0
    seconds: float = 0.0
    wins: list[float] = field(default_factory=list)  # by seat; a shared win counts 1/k each
    events: Counter[str] = field(default_factory=Counter)
    extra: dict[str, Any] = field(default_factory=dict)  # game-specific statistics

    def wins_by_bot(self) -> dict[str, float]:
        by_bot: dict[str, float] = {}
        for seat, name in enumerate(self.bots):
            by_bot[name] = by_bot.get(name, 0.0) + self.wins[seat]
        return by_bot

    def to_json(self) -> dict[str, Any]:
        seconds = max(self.seconds, 1e-9)
        games = max(self.games, 1)
        return {
            "game": self.game,
            "players": self.players,
            "bots": list(self.bots),
            "games": self.games,
            "actions": self.actions,
            "rounds": self.rounds,
            "seconds": round(self.seconds, 6),
            "games_per_s": round(self.games / seconds, 2),
            "actions_per_s": round(self.actions / seconds, 1),
            "actions_per_game": round(self.actions / games, 2),
            "rounds_per_game": round(self.rounds / games, 3),
            "wins": [round(w, 4) for w in self.wins],
            "win_rate": [round(w / games, 4) for w in self.wins],
            "wins_by_bot": {k: round(v, 4) for k, v in self.wins_by_bot().items()},
            "win_rate_by_bot": {
                k: round(v / (games * self.bots.count(k)), 4)
                for k, v in self.wins_by_bot().items()
            },
            **({"events": dict(sorted(self.events.items()))} if self.events else {}),
            **self.extra,
        }


GameObserver = Callable[[Any, Outcome], None]
"""Called with each finished game's state and outcome, for game-specific statistics."""


def play_one(
    game: Game[Any, Any],
    players: int,
    options: Mapping[str, Any],
    seed: int,
    bots: Sequence[Bot],
    events: Counter[str] | None = None,
) -> tuple[Any, Outcome, int]:
    """Play one game to its end; return the final state, its outcome and the action count."""
    state = game.new_game(players, options, seed)
    rngs = [new_rng(derive_seed(seed, 1000 + s)) for s in range(players)]
    to_act, legal_actions, apply = game.to_act, game.legal_actions, game.apply
    interjectors = game.interjectors
    actions = 0
    while actors := to_act(state):
        seat = actors[0]
        action = bots[seat].choose(state, seat, legal_actions(state, seat), rngs[seat])
        happened = apply(state, seat, action)
        actions += 1
        for other in interjectors(state):  # out-of-turn chances, lowest seat first
            extra = bots[other].interject(state, other, legal_actions(state, other), rngs[other])
            if extra is not None:
                happened += apply(state, other, extra)
                actions += 1
                break
        if events is not None:
            events.update(e.kind for e in happened)
    outcome = game.outcome(state)
    assert outcome is not None, "to_act() is empty but the game has no outcome"
    return state, outcome, actions


def simulate(
    game: Game[Any, Any],
    players: int,
    games: int,
    seed: int,
    bot_names: Sequence[str],
    options: Mapping[str, Any],
    observer: GameObserver | None = None,
    progress: Callable[[int], None] | None = None,
    count_events: bool = False,
) -> SimResult:
    if len(bot_names) == 1:
        bot_names = list(bot_names) * players
    if len(bot_names) != players:
        raise BadOptions(f"{len(bot_names)} bots named for {players} seats")
    bots = [game.bot(name) for name in bot_names]
    options = game.options(options)
    result = SimResult(game.name, players, tuple(bot_names), wins=[0.0] * players)
    start = time.perf_counter()
    for i in range(games):
        state, outcome, actions = play_one(
            game, players, options, derive_seed(seed, i), bots,
            result.events if count_events else None,
        )
        result.games += 1
        result.actions += actions
        result.rounds += outcome.rounds
        for w in outcome.winners:
            result.wins[w] += 1 / len(outcome.winners)
        if observer is not None:
            observer(state, outcome)
        if progress is not None:
            progress(i + 1)
    result.seconds = time.perf_counter() - start
    return result


# --- command line -------------------------------------------------------------------------


def parse_option(text: str) -> tuple[str, Any]:
    """``NAME=VALUE`` → (name, value), with ints and booleans recognised."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"option {text!r}: expected NAME=VALUE")
    low = value.lower()
    parsed: Any = value
    if low in ("true", "yes", "on"):
        parsed = True
    elif low in ("false", "no", "off"):
        parsed = False
    elif value.lstrip("-").isdigit():
        parsed = int(value)
    return name.replace("-", "_"), parsed


class Progress:
    """A one-line progress bar on stderr, shown only after a second and only on a terminal."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.start = time.perf_counter()
        self.last = 0.0
        self.shown = False
        self.enabled = sys.stderr.isatty()

    def __call__(self, done: int) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self.start < 1.0 or (now - self.last < 0.1 and done < self.total):
            return
        self.last = now
        width = 30
        filled = width * done // self.total
        rate = done / (now - self.start)
        sys.stderr.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} games"
            f"  {rate:,.0f} games/s"
        )
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "sim",
        help="play bot games headless and print statistics",
        description="Play bot games headless and print speed and win statistics.",
    )
    p.add_argument("game", choices=sorted(GAMES) or None, help="which game")
    p.add_argument("--players", "-p", type=int, default=4, help="seats per game (default 4)")
    p.add_argument("--games", "-n", type=int, default=1000, help="games to play (default 1000)")
    p.add_argument("--seed", "-s", type=int, default=0, help="seed of the whole run (default 0)")
    p.add_argument(
        "--bots", default="basic",
        help="bot per seat, comma-separated (basic,random,…), or one name for every seat",
    )
    p.add_argument("--mode", help="game mode (Collection: classique or decouverte)")
    p.add_argument("--single-round", action="store_true", help="stop each game after one round")
    p.add_argument(
        "--option", "-o", action="append", type=parse_option, default=[], metavar="NAME=VALUE",
        help="a table option, e.g. cumul=true or target=300 (repeatable)",
    )
    p.add_argument("--events", action="store_true",
                   help="also count the events of every kind (slows the run down)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    game = GAMES[args.game]
    options: dict[str, Any] = dict(args.option)
    if args.mode:
        options["mode"] = args.mode
    if args.single_round:
        options["single_round"] = True
    if args.games < 1:
        print("pioche sim: --games must be at least 1", file=sys.stderr)
        return 2
    if not game.min_seats <= args.players <= game.max_seats:
        print(
            f"pioche sim: {game.title} is for {game.min_seats} to {game.max_seats} players",
            file=sys.stderr,
        )
        return 2
    names = [n.strip() for n in args.bots.split(",") if n.strip()]
    unknown = [n for n in names if n not in game.bot_names()]
    if unknown:
        print(
            f"pioche sim: unknown bot {unknown[0]!r}; {game.title} has "
            + ", ".join(game.bot_names()),
            file=sys.stderr,
        )
        return 2
    report = SIM_REPORTS.get(game.name)
    collector = report() if report else None
    progress = Progress(args.games)
    try:
        result = simulate(
            game, args.players, args.games, args.seed, names, options,
            observer=collector.observe if collector else None,
            progress=progress,
            count_events=args.events,
        )
    except BadOptions as e:
        print(f"pioche sim: {e}", file=sys.stderr)
        return 2
    finally:
        progress.close()
    if collector:
        result.extra.update(collector.summary(result))
    data = result.to_json()
    if args.json:
        print(json.dumps(data, ensure_ascii=False))
    else:
        print(format_text(data))
    return 0


def format_text(data: Mapping[str, Any]) -> str:
    lines = [
        f"{data['game']}: {data['games']} games, {data['players']} players, "
        f"bots {','.join(data['bots'])}",
        f"  {data['seconds']:.3f} s — {data['games_per_s']:,.1f} games/s, "
        f"{data['actions_per_s']:,.0f} actions/s",
        f"  per game: {data['actions_per_game']} actions, {data['rounds_per_game']} rounds",
        "  win rate by seat: "
        + "  ".join(f"{i}:{r:.1%}" for i, r in enumerate(data["win_rate"])),
        "  win rate by bot: "
        + "  ".join(f"{k}:{v:.1%}" for k, v in data["win_rate_by_bot"].items()),
    ]
    known = set(SimResult("", 0, ()).to_json())
    for key, value in data.items():
        if key not in known:
            lines.append(f"  {key}: {json.dumps(value, ensure_ascii=False)}")
    return "\n".join(lines)


class SimReport(Protocol):
    """Game-specific statistics: ``observe`` each finished game, then ``summary`` for the JSON."""

    def observe(self, state: Any, outcome: Outcome) -> None: ...

    def summary(self, result: SimResult) -> dict[str, Any]:
        return {}


SIM_REPORTS: dict[str, Callable[[], SimReport]] = {"collection": CollectionStats}
"""Per game name, a factory of its SimReport (balance statistics beyond the common ones)."""
