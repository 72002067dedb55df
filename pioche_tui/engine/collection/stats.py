"""Balance statistics for ``pioche sim collection``: what the scorecard does over many games.

``observe`` reads each finished game (its final state and outcome); ``summary`` gives a
JSON-ready dict the simulator adds to its own (which already has the wins by seat and the rounds
per game). Pure: no clock, no I/O, the same games give the same numbers.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..base import Outcome
from .cards import OBJECTIVES, SHADOW_WILD_BONUS, SUITE_SHADOW_POINTS
from .rules import State


class CollectionStats:
    def __init__(self) -> None:
        self.games = 0
        self.players = 0  # seats over all games
        self.validated = [0] * len(OBJECTIVES)  # seats that validated each objective
        self.points = [0] * len(OBJECTIVES)  # the points they scored with it
        self.shadowed = [0] * len(OBJECTIVES)  # of those, with a Shadow (or a Suite Shadow)
        self.totals = 0  # points of every seat
        self.winner_totals = 0.0  # points of the winners (a shared win counts each 1/k)
        self.done = 0  # objectives validated by every seat
        self.rounds: Counter[int] = Counter()
        self.complete = 0  # games ended by a complete scorecard
        self.turns = 0
        self.busts = 0

    def observe(self, state: State, outcome: Outcome) -> None:
        self.games += 1
        self.players += state.seats
        for card in state.scorecards:
            for i, points in enumerate(card):
                if points:
                    self.validated[i] += 1
                    self.points[i] += points
                    best = SUITE_SHADOW_POINTS if i == len(OBJECTIVES) - 1 else (
                        OBJECTIVES[i].points + SHADOW_WILD_BONUS
                    )
                    self.shadowed[i] += points == best
            self.done += sum(1 for p in card if p)
            self.complete += all(card)
        self.totals += sum(outcome.scores)
        self.winner_totals += sum(outcome.scores[w] for w in outcome.winners) / len(
            outcome.winners
        )
        self.rounds[outcome.rounds] += 1
        self.turns += state.turns
        self.busts += state.busts

    def summary(self, result: object = None) -> dict[str, Any]:
        """The balance report. (``result`` is the simulator's, unused: everything needed was
        observed.)"""
        games, players = max(self.games, 1), max(self.players, 1)
        objectives = {
            o.name: {
                "validated_rate": round(self.validated[i] / players, 4),
                "avg_points": round(self.points[i] / max(self.validated[i], 1), 2),
                "shadow_rate": round(self.shadowed[i] / max(self.validated[i], 1), 4),
            }
            for i, o in enumerate(OBJECTIVES)
        }
        return {
            "balance": {
                "objectives": objectives,
                "avg_points": round(self.totals / players, 2),
                "avg_winner_points": round(self.winner_totals / games, 2),
                "avg_objectives": round(self.done / players, 3),
                "complete_scorecard_rate": round(self.complete / players, 4),
                "rounds": {str(r): round(n / games, 4) for r, n in sorted(self.rounds.items())},
                "turns_per_game": round(self.turns / games, 2),
                "busts_per_turn": round(self.busts / max(self.turns, 1), 4),
            }
        }
