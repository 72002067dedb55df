"""Défausse's state and rules: dealing, legal actions, applying them, scoring.

The rules are ``docs/rules/defausse.md``. The state is one mutable object the engine changes in
place; ``legal_actions`` and ``apply`` run once per action in the simulator, so they work on
ints and lookup tables and hand out pre-built action objects.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..base import BadOptions, Event, IllegalAction, Outcome, new_rng, places_by
from .cards import (
    BIT,
    CARDS,
    COLOUR,
    COLOURS,
    DECK_SIZE,
    INVERSE,
    JOKER,
    JOKER4,
    PASSE,
    PLUS2,
    RANK,
    WILD,
    card_name,
    cards_of,
    mask_of,
    mask_points,
)

MIN_SEATS, MAX_SEATS = 2, 10
HAND_SIZE = 7

# --- actions --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Play:
    """Lay ``card``; ``colour`` is the new active colour for a Joker (None otherwise);
    ``announce`` says "one card left" while laying the second-to-last card (option annonce)."""

    card: int
    colour: int | None = None
    announce: bool = False


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw a card — or, with cards pending (option cumul), take them all. With nothing left to
    draw anywhere, a player who cannot play passes with this action."""


@dataclass(frozen=True, slots=True)
class Keep:
    """After a draw, keep the drawn card instead of laying it (the only move when it does not
    fit): the turn passes."""


@dataclass(frozen=True, slots=True)
class ChooseColour:
    """Choose the active colour when the first card of a round is a Joker."""

    colour: int


@dataclass(frozen=True, slots=True)
class Catch:
    """Catch ``target``, who laid their second-to-last card without announcing (option annonce)."""

    target: int


Action = Play | Draw | Keep | ChooseColour | Catch

# Every action the game can ever need, built once: legal_actions hands these out.
DRAW, KEEP = Draw(), Keep()
CHOOSE = tuple(ChooseColour(c) for c in range(len(COLOURS)))
CATCH = tuple(Catch(s) for s in range(MAX_SEATS))


def _plays(card: int, announce: bool) -> tuple[Play, ...]:
    if COLOUR[card] == WILD:
        return tuple(Play(card, c, announce) for c in range(len(COLOURS)))
    return (Play(card, None, announce),)


PLAYS = tuple(_plays(c, False) for c in CARDS)
"""``PLAYS[card]``: the ways to lay a card (four for a Joker, one per colour)."""
PLAYS_OR_ANNOUNCE = tuple(_plays(c, False) + _plays(c, True) for c in CARDS)
"""The same, each with and without the announcement (second-to-last card, option annonce)."""
ONLY_DRAW: tuple[Action, ...] = (DRAW,)
ONLY_KEEP: tuple[Action, ...] = (KEEP,)
PLAY_OR_KEEP: tuple[tuple[Action, ...], ...] = tuple((*p, KEEP) for p in PLAYS)
"""``PLAY_OR_KEEP[card]``: after drawing ``card``, which fits: lay it or keep it."""
PLAY_OR_KEEP_ANNOUNCE: tuple[tuple[Action, ...], ...] = tuple(
    (*p, KEEP) for p in PLAYS_OR_ANNOUNCE
)
ACTORS = tuple((s,) for s in range(MAX_SEATS))
"""``to_act``'s answer for each seat."""

# Events are immutable, so the ones nearly every move makes are built once: creating a frozen
# dataclass costs about as much as the rest of a move (bench/engine.py, docs/performance.md).
PLAYED = tuple(
    tuple(Event("play", s, (c, k)) for c in CARDS for k in range(len(COLOURS)))
    for s in range(MAX_SEATS)
)
"""``PLAYED[seat][card * 4 + colour]``: seat laid card, colour is now active."""
DREW_ONE = tuple(tuple(Event("draw", s, (1,), (c,)) for c in CARDS) for s in range(MAX_SEATS))
"""``DREW_ONE[seat][card]``: seat drew one card (secret to them)."""
KEPT = tuple(Event("keep", s) for s in range(MAX_SEATS))
SKIPPED = tuple(Event("skip", s) for s in range(MAX_SEATS))

# --- options --------------------------------------------------------------------------------

DEFAULT_OPTIONS: dict[str, Any] = {
    "target": 500,
    "annonce": False,
    "cumul": False,
    "pioche_jusqua_jouer": False,
    "single_round": False,
}
TARGET_RANGE = (100, 1000)


def check_options(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Validate table options and fill in the defaults (a plain dict of builtins)."""
    unknown = sorted(set(raw) - set(DEFAULT_OPTIONS))
    if unknown:
        raise BadOptions(
            f"option inconnue {unknown[0]!r} (options : {', '.join(DEFAULT_OPTIONS)})"
        )
    options = dict(DEFAULT_OPTIONS)
    options.update(raw)
    target = options["target"]
    low, high = TARGET_RANGE
    if type(target) is not int or not low <= target <= high:
        raise BadOptions(f"target : un score entier de {low} à {high}, pas {target!r}")
    for name, value in options.items():
        if name != "target" and type(value) is not bool:
            raise BadOptions(f"{name} : oui ou non (true/false), pas {value!r}")
    return options


# --- state ----------------------------------------------------------------------------------

PLAY, AFTER_DRAW, CHOOSE_COLOUR, OVER = "play", "after_draw", "choose_colour", "over"
"""Phases: the player to act lays or draws; has drawn a card (lay it if it fits, or keep it);
chooses the colour of a first-card Joker; the game is over."""


@dataclass(frozen=True, slots=True)
class RoundResult:
    """How a round ended: its winner, the points left in each hand, what the winner scored."""

    round: int
    winner: int
    hand_points: tuple[int, ...]
    gained: int


class State:
    """One game in progress. Mutable; only this module changes it.

    Hands are bit masks of cards (see cards.py; :meth:`hand` lists one), piles are lists whose
    top is the end. ``colour`` is the active colour (WILD while a first-card Joker waits for its
    colour) and ``rank`` the top card's rank. ``culprit`` is the seat that may be caught for a
    missing announcement (-1: none); ``drawn`` the card just drawn, which its player lays (if it
    fits) or keeps (-1: none).
    """

    __slots__ = (
        "annonce", "announced", "colour", "culprit", "cumul", "current", "dealer", "direction",
        "discard", "draw", "drawn", "hands", "last_round", "opening", "options",
        "pending", "phase", "pioche", "rank", "result", "rng", "round", "scores", "seats",
        "single_round", "target",
    )

    def __init__(self, seats: int, options: dict[str, Any], rng: random.Random) -> None:
        self.seats = seats
        self.options = options
        self.target: int = options["target"]
        self.annonce: bool = options["annonce"]
        self.cumul: bool = options["cumul"]
        self.pioche: bool = options["pioche_jusqua_jouer"]
        self.single_round: bool = options["single_round"]
        self.rng = rng
        self.hands: list[int] = [0] * seats
        self.draw: list[int] = []
        self.discard: list[int] = []
        self.colour = WILD
        self.rank = 0
        self.direction = 1
        self.current = 0
        self.phase = PLAY
        self.drawn = -1
        self.pending = 0
        self.culprit = -1
        self.announced = [False] * seats
        self.scores = [0] * seats
        self.dealer = 0
        self.round = 1
        self.last_round: RoundResult | None = None
        self.result: Outcome | None = None
        self.opening: tuple[Event, ...] = ()
        """The events of the current round's deal (the first round's are not returned by any
        apply(); a screen may show them in its log)."""

    def hand(self, seat: int) -> list[int]:
        """The cards ``seat`` holds, in id order (colour, then rank)."""
        return cards_of(self.hands[seat])

    def hand_size(self, seat: int) -> int:
        return self.hands[seat].bit_count()

    def snapshot(self) -> tuple[Any, ...]:
        """Everything the state holds, as comparable builtins (replay checks, debugging)."""
        return (
            self.seats, sorted(self.options.items()), self.rng.getstate(),
            list(self.hands), list(self.draw), list(self.discard), self.colour,
            self.rank, self.direction, self.current, self.phase, self.drawn, self.pending,
            self.culprit, list(self.announced), list(self.scores), self.dealer,
            self.round, self.last_round, self.result,
        )  # fmt: skip


def new_game(seats: int, options: Mapping[str, Any], seed: int) -> State:
    if type(seats) is not int or not MIN_SEATS <= seats <= MAX_SEATS:
        raise BadOptions(f"Défausse se joue de {MIN_SEATS} à {MAX_SEATS} joueurs, pas {seats!r}")
    state = State(seats, check_options(options), new_rng(seed))
    _start_round(state)
    return state


def _start_round(state: State) -> list[Event]:
    deck = list(CARDS)
    state.rng.shuffle(deck)
    return deal(state, deck)


def deal(state: State, deck: list[int]) -> list[Event]:
    """Start the round ``state.round`` from ``deck`` (top = its end): deal, turn the first card
    and apply its effect. Tests call it with a deck in a chosen order."""
    n, dealer = state.seats, state.dealer
    dealt: list[list[int]] = [[] for _ in range(n)]
    for _ in range(HAND_SIZE):
        for k in range(1, n + 1):
            dealt[(dealer + k) % n].append(deck.pop())
    events = [Event("round", None, (state.round, dealer))]
    events += [Event("deal", s, (HAND_SIZE,), tuple(sorted(dealt[s]))) for s in range(n)]
    card = deck.pop()
    while RANK[card] == JOKER4:  # a Joker +4 goes back into the pile, which is shuffled
        events.append(Event("flip", None, (card,)))
        deck.append(card)
        state.rng.shuffle(deck)
        events.append(Event("reshuffle", None, (len(deck),)))
        card = deck.pop()
    events.append(Event("flip", None, (card,)))
    state.hands = [mask_of(h) for h in dealt]
    state.draw, state.discard = deck, [card]
    state.colour, state.rank = COLOUR[card], RANK[card]
    state.direction, state.pending, state.culprit, state.drawn = 1, 0, -1, -1
    state.announced = [False] * n
    state.phase = PLAY
    first = (dealer + 1) % n
    rank = RANK[card]
    if rank == JOKER:
        state.phase = CHOOSE_COLOUR
        state.current = first
    elif rank == PASSE:
        events.append(Event("skip", first))
        state.current = (first + 1) % n
    elif rank == INVERSE:
        state.direction = -1
        events.append(Event("reverse", None, (-1,)))
        state.current = dealer
    elif rank == PLUS2:
        _penalty(state, first, 2, events)
        state.current = (first + 1) % n
    else:
        state.current = first
    state.opening = tuple(events)
    return events


# --- what may be done -----------------------------------------------------------------------

_RANKS = 15


def _matching(colour: int, top_rank: int) -> int:
    """The cards that may be laid on a top card of ``top_rank`` when ``colour`` is active: the
    same colour, the same number or symbol, or a Joker. (A Joker +4 is checked apart: it also
    needs a hand without the active colour.)"""
    return mask_of(
        c for c in CARDS
        if RANK[c] == JOKER or (COLOUR[c] != WILD and (COLOUR[c] == colour or RANK[c] == top_rank))
    )  # fmt: skip


MATCHING = tuple(_matching(c, r) for c in range(len(COLOURS)) for r in range(_RANKS))
"""``MATCHING[colour * 15 + top rank]``, a mask: a hand's playable cards are ``hand & it``."""
OF_COLOUR = tuple(mask_of(c for c in CARDS if COLOUR[c] == k) for k in range(len(COLOURS)))
FOURS = mask_of(c for c in CARDS if RANK[c] == JOKER4)
PLUS_TWOS = mask_of(c for c in CARDS if RANK[c] == PLUS2)


def _can_lay(state: State, hand: int, card: int) -> bool:
    """Whether ``card`` (in ``hand``) may be laid now, answering pending cards if any."""
    rank = RANK[card]
    if state.pending:  # cumul: only the same kind of draw card answers
        if rank != state.rank:
            return False
    elif rank != JOKER4:
        return MATCHING[state.colour * _RANKS + state.rank] & BIT[card] != 0
    return rank != JOKER4 or not hand & OF_COLOUR[state.colour]


def to_act(state: State) -> tuple[int, ...]:
    return () if state.phase is OVER else ACTORS[state.current]


def interjectors(state: State) -> tuple[int, ...]:
    """While a missing announcement may be caught: every seat but the culprit and the seat whose
    turn it is (that seat finds the catch among its own legal actions)."""
    culprit = state.culprit
    if culprit < 0:
        return ()
    current = state.current
    return tuple(s for s in range(state.seats) if s != culprit and s != current)


def legal_actions(state: State, seat: int) -> Sequence[Action]:
    """What ``seat`` may do now, plays in card order; often a shared tuple (never mutate it)."""
    culprit = state.culprit
    if seat != state.current:
        if culprit >= 0 and seat != culprit and seat in range(state.seats):
            return (CATCH[culprit],)
        return ()
    phase = state.phase
    out: Sequence[Action]
    if phase is PLAY:
        hand = state.hands[seat]
        colour = state.colour
        if state.pending:  # cumul: only the same kind of draw card answers
            cards = hand & (PLUS_TWOS if state.rank == PLUS2 else FOURS)
        else:
            cards = hand & MATCHING[colour * _RANKS + state.rank]
            if hand & FOURS:
                cards |= hand & FOURS
        if cards & FOURS and hand & OF_COLOUR[colour]:
            cards &= ~FOURS  # a Joker +4 only without the active colour
        if not cards:
            out = ONLY_DRAW
        else:
            table = PLAYS_OR_ANNOUNCE if state.annonce and hand.bit_count() == 2 else PLAYS
            plays: list[Action] = []
            while cards:  # each card of the mask, lowest first
                low = cards & -cards
                plays += table[low.bit_length() - 1]
                cards ^= low
            if state.pending or state.draw or len(state.discard) > 1:
                plays.append(DRAW)
            out = plays
    elif phase is AFTER_DRAW:
        hand = state.hands[seat]
        if not _can_lay(state, hand, state.drawn):
            out = ONLY_KEEP
        else:
            announce = state.annonce and hand.bit_count() == 2
            out = (PLAY_OR_KEEP_ANNOUNCE if announce else PLAY_OR_KEEP)[state.drawn]
    elif phase is CHOOSE_COLOUR:
        out = CHOOSE
    else:
        return ()
    if culprit >= 0 and culprit != seat:
        return (*out, CATCH[culprit])
    return out


# --- applying actions -----------------------------------------------------------------------


def apply(state: State, seat: int, action: Action) -> list[Event]:
    """Check ``action`` for ``seat`` and apply it; IllegalAction (state unchanged) if refused."""
    if type(seat) is not int or not 0 <= seat < state.seats:
        raise IllegalAction("Siège inconnu.")
    if type(action) is Play:
        return _play(state, seat, action)
    if type(action) is Draw:
        return _draw(state, seat)
    if type(action) is Keep:
        return _keep(state, seat)
    if type(action) is ChooseColour:
        return _choose_colour(state, seat, action)
    if type(action) is Catch:
        return _catch(state, seat, action)
    raise IllegalAction("Action inconnue.")


def _check_turn(state: State, seat: int) -> None:
    if state.phase is OVER:
        raise IllegalAction("La partie est terminée.")
    if seat != state.current:
        raise IllegalAction("Ce n'est pas votre tour.")


def _colour_word(state: State) -> str:
    return COLOURS[state.colour] if state.colour != WILD else "aucune"


def _refuse_play(state: State, seat: int, action: Play) -> str | None:
    """Why ``action`` may not be played now, or None if it may."""
    if state.phase is OVER:
        return "La partie est terminée."
    if seat != state.current:
        return "Ce n'est pas votre tour."
    card = action.card
    if type(card) is not int or not 0 <= card < DECK_SIZE:
        return "Carte inconnue."
    phase = state.phase
    if phase is CHOOSE_COLOUR:
        return "Choisissez d'abord la couleur de départ."
    hand = state.hands[seat]
    if not hand & BIT[card]:
        return "Vous n'avez pas cette carte."
    if phase is AFTER_DRAW and card != state.drawn:
        return "Après avoir pioché, seule la carte piochée peut être posée."
    if not _can_lay(state, hand, card):
        if state.pending:
            answer = "un +2" if state.rank == PLUS2 else "un Joker +4"
            return (
                f"{state.pending} cartes sont en attente : répondez par {answer} "
                "ou piochez-les."
            )
        if RANK[card] == JOKER4:
            return (
                "Le Joker +4 ne se pose que si vous n'avez aucune carte de la couleur "
                f"demandée ({_colour_word(state)})."
            )
        return (
            f"{card_name(card)} ne va pas sur {card_name(state.discard[-1])} "
            f"(couleur demandée : {_colour_word(state)})."
        )
    colour = action.colour
    if COLOUR[card] == WILD:
        if type(colour) is not int or not 0 <= colour < len(COLOURS):
            return "Choisissez la couleur que demande le Joker."
    elif colour is not None:
        return "Seul un Joker change la couleur."
    if action.announce is not False:
        if action.announce is not True:
            return "Annonce invalide."
        if not state.annonce:
            return "L'annonce n'est pas en jeu à cette table."
        if hand.bit_count() != 2:
            return "On annonce en posant son avant-dernière carte."
    return None


def _play(state: State, seat: int, action: Play) -> list[Event]:
    card = action.card
    # The common move (a coloured card that fits, nothing pending, no announcement) passes one
    # quick test; anything else gets the full check, which also says why it is refused.
    if not (
        seat == state.current and state.phase is PLAY and not state.pending
        and action.colour is None and action.announce is False
        and type(card) is int and 0 <= card < DECK_SIZE and COLOUR[card] != WILD
        and state.hands[seat] & MATCHING[state.colour * _RANKS + state.rank] & BIT[card]
    ):  # fmt: skip
        refusal = _refuse_play(state, seat, action)
        if refusal is not None:
            raise IllegalAction(refusal)
    state.hands[seat] = hand = state.hands[seat] ^ BIT[card]
    state.discard.append(card)
    colour = COLOUR[card]
    if colour == WILD:
        colour = action.colour  # type: ignore[assignment]  # a Joker's colour: checked above
    rank = RANK[card]
    state.colour = colour
    state.rank = rank
    state.phase = PLAY
    state.drawn = -1
    state.culprit = -1  # the next player acted: a missed announcement can no longer be caught
    events = [PLAYED[seat][card * 4 + colour]]
    if action.announce:
        state.announced[seat] = True
        events.append(Event("announce", seat))
    elif state.annonce and hand.bit_count() == 1:
        state.culprit = seat
    n = state.seats
    d = state.direction
    nxt = (seat + d) % n
    if not hand:
        state.culprit = -1
        if rank in (PLUS2, JOKER4):  # the last card's penalty is still drawn
            _penalty(state, nxt, state.pending + (2 if rank == PLUS2 else 4), events)
            state.pending = 0
        _end_round(state, seat, events)
        return events
    if rank <= 9 or rank == JOKER:
        state.current = nxt
    elif rank == PASSE or (rank == INVERSE and n == 2):  # with 2 players Inverse acts as Passe
        events.append(SKIPPED[nxt])
        state.current = (nxt + d) % n
    elif rank == INVERSE:
        state.direction = d = -d
        events.append(Event("reverse", None, (d,)))
        state.current = (seat + d) % n
    elif state.cumul:
        state.pending += 2 if rank == PLUS2 else 4
        state.current = nxt
    else:
        _penalty(state, nxt, 2 if rank == PLUS2 else 4, events)
        state.current = (nxt + d) % n
    return events


def _draw(state: State, seat: int) -> list[Event]:
    if seat != state.current or state.phase is not PLAY:
        _check_turn(state, seat)
        if state.phase is AFTER_DRAW:
            raise IllegalAction("Vous avez déjà pioché : posez cette carte ou gardez-la.")
        raise IllegalAction("Choisissez d'abord la couleur de départ.")
    hand = state.hands[seat]
    n = state.seats
    events: list[Event]
    if state.pending:  # cumul: take everything pending and lose the turn
        state.culprit = -1
        events = []
        _penalty(state, seat, state.pending, events)
        state.pending = 0
        state.current = (seat + state.direction) % n
        return events
    draw = state.draw
    if draw and not state.pioche:  # the common case: one card off the pile
        card = draw.pop()
        hand |= BIT[card]
        events = [DREW_ONE[seat][card]]
    elif not draw and len(state.discard) <= 1:
        # Nothing to draw anywhere: who can play must play, the others pass. The whole table can
        # never be stuck: the active colour's cards (24 at least) are all in hands.
        if any(isinstance(a, Play) for a in legal_actions(state, seat)):
            raise IllegalAction("Il n'y a plus rien à piocher : posez une carte.")
        state.culprit = -1
        state.current = (seat + state.direction) % n
        return [Event("pass", seat)]
    else:  # the discard is turned over; with pioche_jusqua_jouer, until a card can be laid
        events = []
        drawn: list[int] = []
        while got := _take(state, 1, events):
            hand |= BIT[got[0]]
            drawn += got
            if not state.pioche or _can_lay(state, hand, got[0]):
                break
        card = drawn[-1]
        events.append(Event("draw", seat, (len(drawn),), tuple(drawn)))
    state.hands[seat] = hand
    state.culprit = -1
    state.announced[seat] = False
    # Whether the card fits or not, the drawer keeps the turn until they lay it or keep it:
    # passing at once would tell the table that it does not fit (**[decision]**).
    state.phase = AFTER_DRAW
    state.drawn = card
    return events


def _keep(state: State, seat: int) -> list[Event]:
    _check_turn(state, seat)
    if state.phase is not AFTER_DRAW:
        raise IllegalAction("Il n'y a rien à garder : vous n'avez pas pioché.")
    state.phase = PLAY
    state.drawn = -1
    state.culprit = -1
    state.current = (seat + state.direction) % state.seats
    return [KEPT[seat]]


def _choose_colour(state: State, seat: int, action: ChooseColour) -> list[Event]:
    _check_turn(state, seat)
    if state.phase is not CHOOSE_COLOUR:
        raise IllegalAction("Il n'y a pas de couleur à choisir maintenant.")
    colour = action.colour
    if type(colour) is not int or not 0 <= colour < len(COLOURS):
        raise IllegalAction("Couleur inconnue.")
    state.colour = colour
    state.phase = PLAY
    return [Event("colour", seat, (colour,))]


def _catch(state: State, seat: int, action: Catch) -> list[Event]:
    if state.phase is OVER:
        raise IllegalAction("La partie est terminée.")
    culprit = state.culprit
    if culprit < 0:
        raise IllegalAction("Il n'y a personne à prendre en défaut.")
    if action.target != culprit:
        raise IllegalAction("Ce joueur n'a pas oublié d'annoncer.")
    if seat == culprit:
        raise IllegalAction("Vous ne pouvez pas vous prendre vous-même.")
    state.culprit = -1
    events = [Event("catch", culprit, (seat,))]
    _penalty(state, culprit, 2, events)
    return events


# --- cards moving ---------------------------------------------------------------------------


def _take(state: State, count: int, events: list[Event]) -> list[int]:
    """Up to ``count`` cards off the draw pile, turning the discard over when it runs out."""
    draw = state.draw
    if len(draw) >= count:  # the common case
        got = draw[-count:]
        del draw[-count:]
        got.reverse()  # the top card first
        return got
    got = []
    while len(got) < count:
        if not draw:
            discard = state.discard
            if len(discard) <= 1:
                break  # nothing left anywhere: draw what there is
            top = discard.pop()
            draw += discard
            discard.clear()
            discard.append(top)
            state.rng.shuffle(draw)
            events.append(Event("reshuffle", None, (len(draw),)))
        got.append(draw.pop())
    return got


def _penalty(state: State, seat: int, count: int, events: list[Event]) -> None:
    """``seat`` draws ``count`` cards (+2, Joker +4, cumul, a catch) and loses any announcement."""
    got = _take(state, count, events)
    state.hands[seat] |= mask_of(got)
    state.announced[seat] = False
    events.append(Event("penalty", seat, (len(got),), tuple(got)))


def _end_round(state: State, winner: int, events: list[Event]) -> None:
    """``winner`` laid their last card: score the round, then deal the next one or end the
    game."""
    points = tuple(mask_points(hand) for hand in state.hands)
    gained = sum(points)
    state.scores[winner] += gained
    state.last_round = RoundResult(state.round, winner, points, gained)
    state.culprit = -1
    state.drawn = -1
    state.pending = 0
    events.append(Event("round_end", winner, (points, gained)))
    scores = tuple(state.scores)
    if state.single_round or max(scores) >= state.target:
        winners: tuple[int, ...] = (winner,)
        reason = "Manche unique terminée."
        if not state.single_round:
            best = max(scores)
            winners = tuple(s for s, p in enumerate(scores) if p == best)
            reason = f"Score de {state.target} points atteint."
        # Places: the winners, then by score (in a single round only its winner scores: the
        # others share second place).
        places = places_by([(s in winners, p) for s, p in enumerate(scores)])
        state.result = Outcome(scores, winners, state.round, reason, places)
        state.phase = OVER
        events.append(Event("game_end", None, (scores, winners)))
        return
    state.round += 1
    state.dealer = (state.dealer + 1) % state.seats
    events += _start_round(state)


def outcome(state: State) -> Outcome | None:
    return state.result
