"""Ratings per game: openskill's Plackett-Luce model over each game's finishing order.

Each key player has one rating per game (Défausse and Collection apart): a mean ``mu`` and an
uncertainty ``sigma``, from 25 ± 8.33 at their first rated game. A rated game updates the rated
players' ratings from their finishing order among themselves (``Outcome.standing``: the places
as the game's rules rank players, ties shared); bots and guests at the table are not rated and
do not count in that order. The leaderboard sorts by the conservative rating ``mu − 3σ``: a
player is there only once ``MIN_RATED_GAMES`` of their games were rated.

A game is unrated (``unrated_reason``), and says so, when fewer than two players with a key sat
at it (against bots only, or with guests only), or when a stand-in made more than half of one
of those players' decisions (the turn timer's, while they were away, or after they left). A
learn table's result is not recorded at all. docs/server.md, « Ratings ».
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from .model import UNRATED_BOTS, UNRATED_GUESTS, UNRATED_STAND_IN

MODEL = PlackettLuce()


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating in one game (the board sorts by ``model.conservative`` of it)."""

    mu: float
    sigma: float


NEW = Rating(MODEL.mu, MODEL.sigma)  # a player's rating before their first rated game


@dataclass(frozen=True, slots=True)
class SeatPlay:
    """Who sat at a seat and who made its decisions, for ``unrated_reason``.

    ``human``: a player sat there (not a bot from the start); ``key``: that player has a key
    (a guest's identity lasts a session: never rated); ``own`` and ``stand_in``: the decisions
    the player made and those their stand-in made."""

    human: bool
    key: bool
    own: int = 0
    stand_in: int = 0


def unrated_reason(seats: Sequence[SeatPlay]) -> str:
    """Why a finished game is not rated ("" when it is): ``UNRATED_BOTS`` when fewer than two
    players sat at it, ``UNRATED_GUESTS`` when fewer than two of them have a key, and
    ``UNRATED_STAND_IN`` when a stand-in made more than half of a key player's decisions (a
    guest's stand-in is a bot like any other to the key players' order)."""
    if sum(seat.human for seat in seats) < 2:
        return UNRATED_BOTS
    rated = [seat for seat in seats if seat.human and seat.key]
    if len(rated) < 2:
        return UNRATED_GUESTS
    if any(seat.stand_in > seat.own for seat in rated):
        return UNRATED_STAND_IN
    return ""


def rate(ratings: Sequence[Rating], places: Sequence[int]) -> list[Rating]:
    """The players' new ratings after a game they finished at these ``places`` (1 is first;
    equal places are a tie), one team of one per player."""
    teams = [[MODEL.create_rating([r.mu, r.sigma])] for r in ratings]
    new = MODEL.rate(teams, ranks=[float(p) for p in places])
    return [Rating(team[0].mu, team[0].sigma) for team in new]
