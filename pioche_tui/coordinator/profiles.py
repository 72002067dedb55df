"""Profiles and replays: what ``CoordinatorClient.profile`` and ``replay`` answer.

A profile is a key's: its results per game, its rating in each game with the rating's recent
history, and its last games (``model.Profile``). A guest's identity lasts one session and owns
no name: a guest has no profile.

A replay is a finished game's log played again by ``replay.Replayer`` (the engine of
``pioche replay``), here in the coordinator's process, which has the data directory: every
step's view and events are sent, never the log (a front under ``--workers`` has no data
directory, and the log holds every hidden card). It is told as a spectator saw it, or as one
seat saw it, for the player who sat there only. A private table's game is replayed for its
players alone. An ended table's log is compacted, then removed after the retention
(``pioche serve --keep-finished``): its replay is then refused (``replay_gone``), its result
stays in the profile.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..engine.base import Game
from ..replay import Replayer, find_log
from ..store.db import Database
from ..store.log import LogContents, LogError, read_log
from .model import (
    PROFILE_GAMES,
    PROFILE_HISTORY,
    REPLAY_PAGE,
    Profile,
    Refused,
    Replay,
    ReplayFrame,
    SeatInfo,
    TableSummary,
    conservative,
)

MAX_REPLAY_STEPS = 5000
"""The longest game replayed (each page of it plays the whole log again): real games are some
300 to 800 moves."""
_NONE = object()


def profile(db: Database, name: str) -> Profile | None:
    """The profile of the key that owns ``name`` (None: nobody does, a guest's name)."""
    identity = db.name_owner(name.strip())
    stats = db.player_stats(identity) if identity is not None else None
    if identity is None or stats is None:
        return None
    history = tuple(
        (game, tuple(conservative(r.mu, r.sigma)
                     for _, r in db.rating_history(identity, game)[-PROFILE_HISTORY:]))
        for game, *_ in stats.ratings)
    return Profile(identity, stats.name, stats.by_game, stats.ratings, history,
                   tuple(db.last_games(identity, PROFILE_GAMES)))


def replay(db: Database, tables_dir: Path, games: Mapping[str, Game[Any, Any]], identity: str,
           table_id: str, seat: int | None, first: int = 0,
           contents: LogContents | None = None) -> Replay:
    """The finished game of ``table_id`` told for ``seat``'s eyes (None: a spectator's), for
    the player ``identity``: its steps from ``first`` (``REPLAY_PAGE`` of them at most).
    Refused: no such game, a seat that was not theirs, a private table they did not sit at,
    its log gone (retention) or unreadable, a game too long, a step it does not have.
    ``contents``: the log, read already (from the stream: ``Coordinator.replay``); else the
    file ``games.log_file`` names is read."""
    table_id = table_id.strip().upper()
    record = db.game_record(table_id)
    if record is None:
        raise Refused("no_game", "Aucune partie terminée sous ce numéro.")
    log_file, finished, unrated = record
    gone = Refused("replay_gone", "Le journal de cette partie n'est plus gardé : "
                   "seul son résultat reste.")
    if not log_file:
        raise gone
    try:
        if contents is None:
            contents = read_log(find_log(tables_dir / log_file))
    except FileNotFoundError:
        raise gone from None
    except (OSError, LogError) as e:
        raise Refused("replay_unreadable", "Le journal de cette partie est illisible.") from e
    header = contents.header
    seats: list[dict[str, Any]] = list(header.get("seats", ()))
    mine = [i for i, s in enumerate(seats) if s.get("identity") == identity]
    if seat is not None and seat not in mine:
        raise Refused("not_your_seat", "Seul le joueur de cette place peut voir la partie "
                      "avec ses cartes.")
    if header.get("code") and not mine:
        raise Refused("private_replay", "Une table privée ne se revoit qu'entre ses joueurs.")
    try:
        replayer = Replayer(contents, seat, games)
        frames, total, rounds = _frames(replayer, first)
    except (ValueError, KeyError, TypeError) as e:
        raise Refused("replay_unreadable", "Le journal de cette partie est illisible.") from e
    if not frames:
        raise Refused("no_step", "Cette partie n'a pas ce coup.")
    game = replayer.game
    summary = TableSummary(
        id=table_id, game=game.name, title=game.title,
        options=tuple((k, _plain(v)) for k, v in sorted(dict(header.get("options", {})).items())),
        seats=tuple(SeatInfo("bot" if s.get("kind") == "bot" else "player",
                             str(s.get("name") or f"#{i}"), str(s.get("bot") or ""),
                             identity=s.get("identity"))
                    for i, s in enumerate(seats)),
        status="finished", spectators=0, private=bool(header.get("code")), timer=None,
        creator=next((str(s.get("name")) for s in seats
                      if s.get("identity") == header.get("creator")), ""),
        unrated=unrated)
    return Replay(summary, seat, first, total, frames, rounds, finished)


def _frames(replayer: Replayer, first: int
            ) -> tuple[tuple[ReplayFrame, ...], int, tuple[int, ...]]:
    """The frames of the steps ``first`` to ``first + REPLAY_PAGE - 1``, the game's steps in
    all and the step each round begins at. Every step is played (the engine is fast: a whole
    game of Collection for five, 600 moves, is some 25 ms); only the page's views are made."""
    game, seat = replayer.game, replayer.viewer
    frames: list[ReplayFrame] = []
    rounds: list[int] = []
    last_round: Any = _NONE  # (step 0 begins the first round, whatever it is called)
    total = 0
    for move in replayer.moves():
        if move.took_over or move.end:
            continue  # (not a step of the game: its seats stay as they began)
        if move.step > MAX_REPLAY_STEPS:
            raise Refused("replay_long", "Cette partie est trop longue pour être revue ici.",
                          n=MAX_REPLAY_STEPS)
        total = move.step + 1
        state = replayer.state
        if (now := getattr(state, "round", None)) != last_round:
            last_round = now
            rounds.append(move.step)
        if first <= move.step < first + REPLAY_PAGE:
            frames.append(ReplayFrame(move.step, game.view(state, seat), move.events,
                                      tuple(game.to_act(state))))
    return tuple(frames), total, tuple(rounds)


def _plain(value: Any) -> Any:
    """A log's value (msgpack reads arrays as lists) as the plain data that crosses: tuples."""
    return tuple(_plain(v) for v in value) if isinstance(value, list | tuple) else value
