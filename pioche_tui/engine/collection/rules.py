"""Collection's rules: the state, what each seat may do, and what an action changes.

The state is one mutable object (speed: bots play thousands of games a second). ``apply``
checks an action, then changes the state and returns the events; an illegal action raises
:class:`IllegalAction` before anything changes. docs/rules/collection.md is the reference; its
**[decision]** points are marked here too where the code settles them.

Where every card is, always exactly one place: the two draw piles, the players' piles,
collections and reserves, ``held`` (the Shadow or special card just drawn, or a Quantique's
cards, while their player decides), the discard, and ``scored`` (cards of the objectives
validated this round). A new round gathers them all and deals again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..base import Event, IllegalAction, Outcome, new_rng, places_by
from .actions import (
    DRAWS,
    KEEP_PILE,
    LOCK,
    MAX_SEATS,
    NEW_PILE,
    PLAY_JOKER,
    RESERVE,
    STOP,
    VALIDATE_NOTHING,
    Action,
    Activate,
    Draw,
    Keep,
    Lock,
    PlayJoker,
    Reserve,
    ShadowChoice,
    Stop,
    Validate,
)
from .cards import (
    CARD_COUNT,
    CLASSIC,
    COLOUR,
    DECKS,
    DOUBLE,
    DOUBLE_DRAWS,
    FLIP,
    JOKER,
    KIND,
    MODES,
    OBJECTIVES,
    PASSE,
    QUANTIQUE,
    QUANTIQUE_CARDS,
    RAINBOW,
    RESERVE_SLOTS,
    SHADOW,
    SPECIAL,
    SWIPE,
    VALUE,
    card_name,
    objective_name,
)
from .objectives import Combination, combinations, points_of

TURN = "turn"  # the current seat locks or draws, activates reserve cards, draws again, stops
SKIP = "skip"  # a skipped turn (Passe Ton Tour): Double, Passe or Swipe from the reserve, or Stop
SHADOW_CHOICE = "shadow"  # a Shadow was drawn: keep the pile, start a new one with it, or Joker
SPECIAL_CHOICE = "special"  # a special card was drawn: activate it or reserve it
QUANTIQUE_CHOICE = "quantique"  # keep one of the Quantique's cards, or none
VALIDATION = "validation"  # everybody picks the objectives to validate, at the same time
OVER = "over"

OBJECTIVE_COUNT = len(OBJECTIVES)
_SEAT_TUPLES = tuple((s,) for s in range(MAX_SEATS))


class State:
    """Everything about one game. Read it freely; change it only through :func:`apply`."""

    __slots__ = (
        "busts", "collections", "current", "deck", "discard", "doubles", "draw", "drawn",
        "flipped", "from_quantique", "held", "last_results", "max_rounds", "mode", "offers",
        "opening", "outcome", "owed", "peeks", "phase", "piles", "private_discards", "rainbow",
        "reserves", "rng", "round", "scorecards", "scored", "seats", "skips",
        "starter", "turns", "validations",
    )

    def __init__(self, seats: int, mode: str, single_round: bool, seed: int) -> None:
        self.seats = seats
        self.mode = mode
        self.max_rounds = 1 if single_round else MODES[mode].max_rounds
        self.rng = new_rng(seed)
        self.deck = DECKS[mode]
        self.round = 0
        self.starter = seats - 1  # the first round moves it to seat 0
        self.current = 0
        self.phase = TURN
        self.draw: list[list[int]] = [[], []]  # the top card is the last one
        self.discard: list[int] = []
        self.scored: list[int] = []
        self.piles: list[list[int]] = [[] for _ in range(seats)]
        self.collections: list[list[int]] = [[] for _ in range(seats)]
        self.reserves: list[list[int]] = [[] for _ in range(seats)]
        self.held: list[int] = []
        self.scorecards: list[list[int]] = [[0] * OBJECTIVE_COUNT for _ in range(seats)]
        """Points of each validated objective, by seat; 0: still open."""
        self.doubles = [0] * seats  # Doubles waiting for each seat's next played turn
        self.skips = [0] * seats  # turns each seat will skip
        self.owed = 0  # draws the current seat still owes this turn (Doubles)
        self.rainbow = False  # a Rainbow was just drawn: the only move is to draw again
        self.drawn = False  # the current seat drew this turn (so may stop, may not lock)
        self.flipped = False  # a Flip was just played: draw or stop, nothing else
        self.from_quantique = False  # the Shadow to resolve was kept from a Quantique
        self.peeks: list[tuple[int, int]] = [(-1, -1)] * seats
        """The top card of each draw pile as each seat's last Flip showed it (-1: none). Still
        known to them while it is still on top."""
        self.private_discards: list[list[int]] = [[] for _ in range(seats)]
        """Cards each seat saw in its Quantique and discarded face down (others never saw)."""
        self.validations: list[tuple[Combination, ...] | None] = [None] * seats
        """In validation: what each seat chose (None: not yet). Hidden until all have chosen."""
        self.offers: list[tuple[Combination, ...]] = [() for _ in range(seats)]
        """In validation: what each seat's collection can fill (the matcher's list)."""
        self.last_results: tuple[tuple[Combination, ...], ...] = ()
        """What each seat validated at the end of the last round."""
        self.opening: tuple[Event, ...] = ()
        """What the deal of the first round said (``new_game`` has no caller to tell it to)."""
        self.outcome: Outcome | None = None
        self.turns = 0  # played turns in the whole game (statistics)
        self.busts = 0  # piles lost to a STOP condition in the whole game (statistics)

    def open_objectives(self, seat: int) -> tuple[int, ...]:
        card = self.scorecards[seat]
        return tuple(i + 1 for i in range(OBJECTIVE_COUNT) if not card[i])

    def neighbours(self, seat: int) -> tuple[int, ...]:
        """The seats before and after ``seat`` (with two players, the one opponent)."""
        return tuple(sorted({(seat - 1) % self.seats, (seat + 1) % self.seats}))

    def totals(self) -> tuple[int, ...]:
        return tuple(sum(card) for card in self.scorecards)

    def objectives_done(self) -> tuple[int, ...]:
        return tuple(sum(1 for p in card if p) for card in self.scorecards)


def new_game(seats: int, mode: str, single_round: bool, seed: int) -> State:
    state = State(seats, mode, single_round, seed)
    events: list[Event] = []
    _new_round(state, events)
    state.opening = tuple(events)
    return state


# --- What a seat may do -------------------------------------------------------------------------


def to_act(state: State) -> tuple[int, ...]:
    if state.phase is VALIDATION:
        return tuple(s for s, v in enumerate(state.validations) if v is None)
    if state.phase is OVER:
        return ()
    return _SEAT_TUPLES[state.current]


def _turn_choices() -> list[tuple[Action, ...]]:
    """The plain turn choices, built once, by a + 2·b + 4·lock + 8·stop (A has cards, B has
    cards, may lock, may stop): Lock, the draws, Stop. Listing legal actions is the hottest
    path of every bot game."""
    found = []
    for index in range(16):
        a, b, lock, stop = (index >> bit & 1 for bit in range(4))
        draws = tuple(d for d, ok in zip(DRAWS, (a, b), strict=True) if ok)
        found.append((*((LOCK,) if lock else ()), *draws, *((STOP,) if stop else ())))
    return found


_TURN_CHOICES = _turn_choices()


def _seat_ok(state: State, seat: object) -> bool:
    return type(seat) is int and 0 <= seat < state.seats


def legal_actions(state: State, seat: int) -> Sequence[Action]:
    """What ``seat`` may do now: exactly what :func:`apply` accepts, but in validation, where
    any disjoint selection is legal and this lists a representative set. Nothing for a seat
    number that is not at the table."""
    phase = state.phase
    if not _seat_ok(state, seat):
        return ()
    if phase is VALIDATION:
        return _validation_offer(state, seat) if state.validations[seat] is None else ()
    if phase is OVER or seat != state.current:
        return ()
    if phase is TURN:
        a, b = state.draw
        index = (1 if a else 0) + (2 if b else 0)
        if not state.rainbow:
            if state.drawn or state.flipped:
                index += 0 if state.owed else 8  # may stop
            elif not state.owed and state.piles[seat]:
                index += 4  # may lock
        plain = _TURN_CHOICES[index]
        if state.rainbow:
            return plain
        reserve = state.reserves[seat]
        if state.flipped or not reserve:
            return plain
        return [*plain, *_activations(state, seat, reserve, TURN)]
    if phase is SHADOW_CHOICE:
        if _joker_may_answer(state, seat):
            return (KEEP_PILE, NEW_PILE, PLAY_JOKER)
        return (KEEP_PILE, NEW_PILE)
    if phase is SPECIAL_CHOICE:
        reserve = state.reserves[seat]
        # A card with nothing to act on is played for nothing (see _activate).
        found = _activations(state, seat, state.held, TURN) or [Activate(state.held[0])]
        if len(reserve) < RESERVE_SLOTS:
            found.append(RESERVE)
        else:  # a full reserve: activate one of its cards to make room
            found += _activations(state, seat, reserve, TURN)
        return found
    if phase is QUANTIQUE_CHOICE:
        return [Keep(c) for c in state.held if _may_keep(state, seat, c)] + [Keep(None)]
    return [*_activations(state, seat, state.reserves[seat], SKIP), STOP]  # SKIP


def _joker_may_answer(state: State, seat: int) -> bool:
    """A Joker answers a Shadow just drawn, not one kept from a Quantique (**[decision]**: the
    Quantique ends the turn anyway, so the Joker would only discard it)."""
    return JOKER in state.reserves[seat] and not state.from_quantique


def _activations(state: State, seat: int, cards: Sequence[int], context: str) -> list[Action]:
    """Every legal Activate of ``cards`` by ``seat``: in its turn (TURN) or a skipped turn."""
    found: list[Action] = []
    for card in cards:
        if card in (DOUBLE, PASSE):
            found += [Activate(card, t) for t in range(state.seats) if t != seat]
        elif card == SWIPE:
            found += [
                Activate(card, t) for t in state.neighbours(seat)
                if state.piles[seat] or state.piles[t]
            ]
        elif context is SKIP:
            continue  # Joker, Flip and Quantique need a turn where the player draws
        elif card == JOKER or (card == FLIP and (state.draw[0] or state.draw[1])):
            found.append(Activate(card))
        elif card == QUANTIQUE:
            found += [Activate(card, None, p) for p in (0, 1) if state.draw[p]]
    return found


def _may_keep(state: State, seat: int, card: int) -> bool:
    """Any Quantique card may be kept, a special one only into a free reserve slot."""
    return KIND[card] != SPECIAL or len(state.reserves[seat]) < RESERVE_SLOTS


def _validation_offer(state: State, seat: int) -> tuple[Validate, ...]:
    """The representative set listed in validation (any disjoint selection is legal): nothing,
    each of the matcher's combinations alone, and as many of them as fit together, taken in
    their order. The best selection is the solver's business: the view gives it to the screen
    (and the turn timer), the basic bot asks for it."""
    offers = state.offers[seat]
    found = [VALIDATE_NOTHING, *(Validate((c,)) for c in offers)]
    together: list[Combination] = []
    used: set[int] = set()
    for combo in offers:
        if all(c.objective != combo.objective for c in together) and used.isdisjoint(combo.cards):
            together.append(combo)
            used.update(combo.cards)
    if len(together) > 1:
        found.append(Validate(tuple(together)))
    return tuple(found)


# --- Applying an action ---------------------------------------------------------------------------


def apply(state: State, seat: int, action: Action) -> list[Event]:
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise IllegalAction("Action inconnue.")
    if not _seat_ok(state, seat):
        raise IllegalAction("Siège inconnu.")
    phase = state.phase
    if phase is VALIDATION:
        if type(action) is not Validate:
            raise IllegalAction("C'est le moment de valider vos objectifs.")
    elif phase is OVER:
        raise IllegalAction("La partie est terminée.")
    elif seat != state.current:
        raise IllegalAction("Ce n'est pas votre tour.")
    events: list[Event] = []
    handler(state, seat, action, events)
    return events


def _lock(state: State, seat: int, action: Lock, events: list[Event]) -> None:
    _expect(state, TURN, "Vous ne pouvez pas verrouiller maintenant.")
    pile = state.piles[seat]
    if state.drawn or state.flipped:
        raise IllegalAction("On verrouille au début du tour, avant de piocher.")
    if state.owed:
        raise IllegalAction("Un Double vous oblige à piocher : pas de verrouillage ce tour-ci.")
    if not pile:
        raise IllegalAction("Votre pile est vide : rien à verrouiller.")
    state.collections[seat] += pile
    events.append(Event("lock", seat, (tuple(pile),)))
    pile.clear()
    _end_turn(state, events)


def _draw_events() -> tuple[tuple[tuple[Event, ...], ...], ...]:
    """Every possible draw event, built once (events are immutable), by seat, pile and card;
    named after the card's kind."""
    names = {CLASSIC: "draw", RAINBOW: "rainbow", SHADOW: "shadow", SPECIAL: "special"}
    return tuple(
        tuple(
            tuple(Event(names[KIND[card]], seat, (pile, card)) for card in range(CARD_COUNT))
            for pile in (0, 1)
        )
        for seat in range(MAX_SEATS)
    )


_DRAW_EVENTS = _draw_events()
_STOP_EVENTS = tuple(Event("stop", seat) for seat in range(MAX_SEATS))


def _draw(state: State, seat: int, action: Draw, events: list[Event]) -> None:
    if state.phase is not TURN:
        raise IllegalAction("Vous ne pouvez pas piocher maintenant.")
    pile = action.pile
    if pile != 0 and pile != 1:
        raise IllegalAction("Il n'y a que deux pioches, A et B.")
    source = state.draw[pile]
    if not source:
        raise IllegalAction(f"La pioche {'AB'[pile]} est vide.")
    card = source.pop()
    state.drawn = True
    state.flipped = state.rainbow = False
    if state.owed:
        state.owed -= 1
    events.append(_DRAW_EVENTS[seat][pile][card])
    kind = KIND[card]
    if kind == CLASSIC:  # the common case, kept short: the phase stays TURN
        if _add_classic(state, seat, card, events) or not (state.draw[0] or state.draw[1]):
            _end_turn(state, events)
    elif kind == RAINBOW:
        state.piles[seat].append(card)
        state.rainbow = True  # seed: draw again at once
        _resolved(state, events)
    else:  # a Shadow or a special card: its player decides
        state.held.append(card)
        state.phase = SHADOW_CHOICE if kind == SHADOW else SPECIAL_CHOICE


def stop_reason(pile: Sequence[int], card: int) -> str | None:
    """The STOP condition a classic ``card`` would meet on top of ``pile``: "valeur" (the last
    two cards of one value) or "couleur" (the last three of one colour), else None. Rainbows
    and Shadows have neither value nor colour (0 and -1), so they break a run (**[decision]**);
    the pile carries over turns, and so does the check."""
    if pile and VALUE[pile[-1]] == VALUE[card]:
        return "valeur"
    if len(pile) >= 2 and COLOUR[pile[-2]] == COLOUR[pile[-1]] == COLOUR[card]:
        return "couleur"
    return None


def _add_classic(state: State, seat: int, card: int, events: list[Event]) -> bool:
    """A classic card joins the pile, then the STOP conditions (:func:`stop_reason`): met, the
    pile is lost (True)."""
    pile = state.piles[seat]
    reason = stop_reason(pile, card)
    pile.append(card)
    if reason:
        state.busts += 1
        events.append(Event("bust", seat, (tuple(pile), reason)))
        state.discard += pile
        pile.clear()
    return bool(reason)


def _stop(state: State, seat: int, action: Stop, events: list[Event]) -> None:
    if state.phase is SKIP:
        events.append(_STOP_EVENTS[seat])
        _end_turn(state, events)
        return
    if state.phase is not TURN:
        raise IllegalAction("Vous ne pouvez pas vous arrêter maintenant.")
    if state.rainbow:
        raise IllegalAction("Après un Rainbow, il faut piocher une nouvelle carte.")
    if not (state.drawn or state.flipped):
        raise IllegalAction("En début de tour, on verrouille ou on pioche.")
    if state.owed:
        raise IllegalAction(f"Le Double vous oblige encore à piocher {state.owed} carte(s).")
    events.append(_STOP_EVENTS[seat])
    _end_turn(state, events)


def _reserve(state: State, seat: int, action: Reserve, events: list[Event]) -> None:
    _expect(state, SPECIAL_CHOICE, "Il n'y a pas de carte à mettre en réserve.")
    if len(state.reserves[seat]) >= RESERVE_SLOTS:
        raise IllegalAction(
            "Votre réserve est pleine : activez la nouvelle carte ou une carte de la réserve."
        )
    card = state.held.pop()
    state.reserves[seat].append(card)
    events.append(Event("reserve", seat, (card,)))
    _resolved(state, events)


def _shadow_choice(state: State, seat: int, action: ShadowChoice, events: list[Event]) -> None:
    _expect(state, SHADOW_CHOICE, "Il n'y a pas de Shadow à résoudre.")
    shadow = state.held.pop()
    pile = state.piles[seat]
    if action.keep_pile:
        state.discard.append(shadow)
        events.append(Event("shadow_discard", seat, (shadow,)))
    else:
        events.append(Event("shadow_new_pile", seat, (tuple(pile), shadow)))
        state.discard += pile
        pile[:] = [shadow]
    _end_turn(state, events)


def _play_joker(state: State, seat: int, action: PlayJoker, events: list[Event]) -> None:
    _expect(state, SHADOW_CHOICE, "Le Joker ne répond qu'à une Shadow que vous venez de piocher.")
    if JOKER not in state.reserves[seat]:
        raise IllegalAction("Vous n'avez pas de Joker en réserve.")
    if state.from_quantique:
        raise IllegalAction("Le Quantique finit le tour : le Joker n'y change rien.")
    state.reserves[seat].remove(JOKER)
    shadow = state.held.pop()
    state.discard += (shadow, JOKER)
    events.append(Event("joker", seat, (shadow,)))
    _resolved(state, events)


def _keep(state: State, seat: int, action: Keep, events: list[Event]) -> None:
    _expect(state, QUANTIQUE_CHOICE, "Il n'y a pas de cartes du Quantique à choisir.")
    card = action.card
    held = state.held
    if card is not None and card not in held:
        raise IllegalAction("Cette carte ne fait pas partie de celles du Quantique.")
    if card is not None and not _may_keep(state, seat, card):
        raise IllegalAction("Votre réserve est pleine : vous ne pouvez pas garder cette carte.")
    others = [c for c in held if c != card]
    state.discard += others
    state.private_discards[seat] += others
    held.clear()
    events.append(Event("keep", seat, (card,)))
    if card is None:
        _end_turn(state, events)
        return
    kind = KIND[card]
    if kind == SHADOW:
        held.append(card)  # the Shadow rule; the turn ends after the choice
        state.from_quantique = True
        state.phase = SHADOW_CHOICE
        return
    if kind == CLASSIC:
        _add_classic(state, seat, card, events)
    elif kind == RAINBOW:
        state.piles[seat].append(card)  # no extra draw: the Quantique ended the turn
    else:
        state.reserves[seat].append(card)
    _end_turn(state, events)


def _activate(state: State, seat: int, action: Activate, events: list[Event]) -> None:
    card = action.card
    phase = state.phase
    reserve = state.reserves[seat]
    from_reserve = card in reserve
    if phase is TURN:
        if not from_reserve:
            raise IllegalAction("Cette carte n'est pas dans votre réserve.")
        if state.rainbow:
            raise IllegalAction("Après un Rainbow, il faut piocher une nouvelle carte.")
        if state.flipped:
            raise IllegalAction("Après un Flip, on pioche une carte ou on s'arrête.")
    elif phase is SPECIAL_CHOICE:
        if card not in state.held and not (from_reserve and len(reserve) >= RESERVE_SLOTS):
            raise IllegalAction(
                "Activez la carte que vous venez de piocher, ou mettez-la en réserve."
            )
    elif phase is SKIP:
        if not from_reserve:
            raise IllegalAction("Cette carte n'est pas dans votre réserve.")
        if card not in (DOUBLE, PASSE, SWIPE):
            raise IllegalAction(
                f"Pendant un tour passé, seuls Double, Passe Ton Tour et Swipe servent."
                f" {card_name(card)} attend votre prochain tour."
            )
    else:
        raise IllegalAction("Vous ne pouvez pas activer de carte maintenant.")
    # A card just drawn that has nothing to act on (a Flip or a Quantique when the draw piles are
    # empty, a Swipe when the piles are) is played for nothing (**[decision]**): else its player
    # could be left with no move at all, the reserve full.
    idle = phase is SPECIAL_CHOICE and not from_reserve and not _activations(
        state, seat, (card,), TURN
    )
    if idle and (action.target is not None or action.pile is not None):
        raise IllegalAction(f"{card_name(card)} n'a rien sur quoi agir : elle se joue sans effet.")
    if not idle:
        _check_activation(state, seat, action)
    # Legal: now change the state.
    if from_reserve:
        reserve.remove(card)
        if phase is SPECIAL_CHOICE:  # the card just drawn takes the freed slot
            reserve.append(state.held.pop())
            events.append(Event("reserve", seat, (reserve[-1],)))
    else:
        state.held.remove(card)
    events.append(Event("activate", seat, (card, action.target, action.pile)))
    if idle:
        state.discard.append(card)
        _resolved(state, events)
        return
    if card == QUANTIQUE:
        _quantique(state, seat, action.pile or 0, events)
        return
    state.discard.append(card)
    if card == DOUBLE:
        state.doubles[action.target or 0] += 1
    elif card == PASSE:
        state.skips[action.target or 0] += 1
    elif card == SWIPE:
        target = action.target or 0
        state.piles[seat], state.piles[target] = state.piles[target], state.piles[seat]
    elif card == FLIP:
        tops = tuple(pile[-1] if pile else -1 for pile in state.draw)
        state.peeks[seat] = (tops[0], tops[1])
        state.flipped = True
        events.append(Event("flip", seat, (), tops))
    # A Joker played outside a Shadow does nothing (**[decision]**).
    if phase is SKIP:
        if not _activations(state, seat, reserve, SKIP):
            _end_turn(state, events)
    elif phase is SPECIAL_CHOICE:
        _resolved(state, events)


def _check_activation(state: State, seat: int, action: Activate) -> None:
    """The card's own conditions: its target or its pile."""
    card, target, pile = action.card, action.target, action.pile
    name = card_name(card)
    if KIND[card] != SPECIAL:
        raise IllegalAction("Seules les cartes spéciales s'activent.")
    if card in (DOUBLE, PASSE, SWIPE):
        if target is None or not 0 <= target < state.seats or target == seat:
            raise IllegalAction(f"{name} vise un autre joueur.")
        if card == SWIPE:
            if target not in state.neighbours(seat):
                raise IllegalAction("Swipe s'échange avec un voisin seulement.")
            if not state.piles[seat] and not state.piles[target]:
                raise IllegalAction("Les deux piles sont vides : rien à échanger.")
    elif target is not None:
        raise IllegalAction(f"{name} ne vise personne.")
    if card == QUANTIQUE:
        if pile not in (0, 1) or not state.draw[pile]:
            raise IllegalAction("Choisissez une pioche qui n'est pas vide pour le Quantique.")
    elif pile is not None:
        raise IllegalAction(f"{name} ne prend pas de pioche.")
    if card == FLIP and not (state.draw[0] or state.draw[1]):
        raise IllegalAction("Les pioches sont vides : rien à regarder.")


def _quantique(state: State, seat: int, pile: int, events: list[Event]) -> None:
    """Take up to three cards, from ``pile`` then from the other one if it runs out. Taking them
    counts as drawing: a Double's draws still owed are met (**[decision]**)."""
    taken: list[int] = []
    for source in (state.draw[pile], state.draw[1 - pile]):
        while source and len(taken) < QUANTIQUE_CARDS:
            taken.append(source.pop())
    state.held += taken
    state.discard.append(QUANTIQUE)
    state.owed = 0
    state.drawn = True
    state.phase = QUANTIQUE_CHOICE
    events.append(Event("quantique", seat, (pile, len(taken)), tuple(taken)))


def _validate(state: State, seat: int, action: Validate, events: list[Event]) -> None:
    _expect(state, VALIDATION, "On valide ses objectifs à la fin de la manche.")
    if state.validations[seat] is not None:
        raise IllegalAction("Vous avez déjà validé pour cette manche.")
    _check_selection(state, seat, action.combos)
    state.validations[seat] = tuple(sorted(action.combos, key=lambda c: c.objective))
    events.append(Event("validated", seat))
    if all(v is not None for v in state.validations):
        _score_round(state, events)


def _check_selection(state: State, seat: int, combos: Sequence[Combination]) -> None:
    collection = set(state.collections[seat])
    used: set[int] = set()
    objectives: set[int] = set()
    for combo in combos:
        name = objective_name(combo.objective) if 1 <= combo.objective <= OBJECTIVE_COUNT else "?"
        if combo.objective in objectives:
            raise IllegalAction(f"{name} : un objectif ne se valide qu'une fois.")
        if not 1 <= combo.objective <= OBJECTIVE_COUNT or state.scorecards[seat][
            combo.objective - 1
        ]:
            raise IllegalAction(f"{name} : cet objectif n'est pas ouvert sur votre scorecard.")
        if not collection.issuperset(combo.cards):
            raise IllegalAction(f"{name} : ces cartes ne sont pas toutes dans votre collection.")
        if used.intersection(combo.cards):
            raise IllegalAction(f"{name} : une carte ne sert qu'à un seul objectif.")
        points = points_of(combo.objective, combo.cards)
        if points is None:
            raise IllegalAction(f"{name} : ces cartes ne remplissent pas l'objectif.")
        if points != combo.points:
            raise IllegalAction(f"{name} : cette combinaison vaut {points} points.")
        used.update(combo.cards)
        objectives.add(combo.objective)


def _expect(state: State, phase: str, message: str) -> None:
    if state.phase is not phase:
        raise IllegalAction(message)


_HANDLERS: dict[type, Callable[[State, int, Any, list[Event]], None]] = {
    Lock: _lock, Draw: _draw, Stop: _stop, Activate: _activate, Reserve: _reserve,
    ShadowChoice: _shadow_choice, PlayJoker: _play_joker, Keep: _keep, Validate: _validate,
}


# --- Turns and rounds ------------------------------------------------------------------------


def _resolved(state: State, events: list[Event]) -> None:
    """The card just drawn is dealt with. The round ends right after the card that emptied both
    draw piles; otherwise the turn goes on."""
    if state.draw[0] or state.draw[1]:
        state.phase = TURN
    else:
        _end_turn(state, events)


def _end_turn(state: State, events: list[Event]) -> None:
    state.owed = 0
    state.rainbow = state.drawn = state.flipped = state.from_quantique = False
    if not (state.draw[0] or state.draw[1]):
        _end_round(state, events)
        return
    _begin_turn(state, (state.current + 1) % state.seats, events)


def _begin_turn(state: State, seat: int, events: list[Event]) -> None:
    """Seat ``seat`` starts a turn, unless a Passe Ton Tour skips it: then it may still play
    Double, Passe or Swipe from its reserve (it is asked only if it holds one it can use), and
    a Double waiting for it waits for its next played turn (**[decision]**)."""
    while state.skips[seat]:
        state.skips[seat] -= 1
        state.current = seat
        events.append(Event("skip", seat))
        if _activations(state, seat, state.reserves[seat], SKIP):
            state.phase = SKIP
            return
        seat = (seat + 1) % state.seats
    state.current = seat
    state.phase = TURN
    state.turns += 1
    if state.doubles[seat]:
        state.owed = DOUBLE_DRAWS * state.doubles[seat]
        state.doubles[seat] = 0


def _new_round(state: State, events: list[Event]) -> None:
    """Shuffle every card and deal them alternately into two draw piles; everybody's pile,
    collection and reserve start empty, and waiting Doubles and Passes lapse (**[decision]**:
    a round starts afresh). Each pile dealt from a well-shuffled deck is itself in random
    order, so shuffling it again, as the seed does at a table, would change nothing."""
    state.round += 1
    state.starter = (state.starter + 1) % state.seats
    cards = list(state.deck)
    state.rng.shuffle(cards)
    state.draw = [cards[0::2], cards[1::2]]
    for lists in (state.piles, state.collections, state.reserves, state.private_discards):
        for cs in lists:
            cs.clear()
    state.held.clear()
    state.discard.clear()
    state.scored.clear()
    n = state.seats
    state.peeks = [(-1, -1)] * n
    state.doubles = [0] * n
    state.skips = [0] * n
    state.validations = [None] * n
    state.offers = [() for _ in range(n)]
    events.append(Event("round", state.starter, (state.round,)))
    _begin_turn(state, state.starter, events)


def _end_round(state: State, events: list[Event]) -> None:
    """Both draw piles are empty: unlocked piles are lost, then everybody validates. A seat
    whose collection fills no open objective has nothing to choose and is done at once."""
    for seat, pile in enumerate(state.piles):
        if pile:
            events.append(Event("lost", seat, (tuple(pile),)))
            state.discard += pile
            pile.clear()
    events.append(Event("round_end", None, (state.round,)))
    state.phase = VALIDATION
    for seat in range(state.seats):
        offers = combinations(state.collections[seat], state.open_objectives(seat))
        state.offers[seat] = offers
        state.validations[seat] = None if offers else ()
    if all(v is not None for v in state.validations):
        _score_round(state, events)


def _score_round(state: State, events: list[Event]) -> None:
    """Everybody has chosen: score, discard what was not used, then end the game or deal."""
    results: list[tuple[Combination, ...]] = []
    for seat, chosen in enumerate(state.validations):
        assert chosen is not None
        used: set[int] = set()
        for combo in chosen:
            state.scorecards[seat][combo.objective - 1] = combo.points
            used.update(combo.cards)
        state.scored += [c for c in state.collections[seat] if c in used]
        state.discard += [c for c in state.collections[seat] if c not in used]
        state.collections[seat].clear()
        results.append(chosen)
        events.append(Event(
            "validate", seat, tuple((c.objective, c.cards, c.points) for c in chosen)
        ))
    state.last_results = tuple(results)
    complete = [s for s in range(state.seats) if all(state.scorecards[s])]
    if complete or state.round >= state.max_rounds:
        _end_game(state, events, complete)
    else:
        _new_round(state, events)


def _end_game(state: State, events: list[Event], complete: list[int]) -> None:
    state.phase = OVER
    totals = state.totals()
    done = state.objectives_done()
    if MODES[state.mode].ranking == "points":
        keys = [(totals[s], done[s]) for s in range(state.seats)]
    else:
        keys = [(done[s], totals[s]) for s in range(state.seats)]
    top = max(keys)
    winners = tuple(s for s in range(state.seats) if keys[s] == top)
    if complete:
        reason = f"Scorecard complet à la manche {state.round}"
    else:
        reason = f"Fin de la dernière manche ({state.round}/{state.max_rounds})"
    state.outcome = Outcome(totals, winners, state.round, reason, places_by(keys))
    events.append(Event("game_end", None, winners))


# --- What a seat knows ------------------------------------------------------------------------


def known_tops(state: State, seat: int) -> tuple[int, int]:
    """The top card of each draw pile if ``seat``'s Flip showed it and it is still there."""
    a, b = state.peeks[seat]
    return (
        a if a >= 0 and state.draw[0] and state.draw[0][-1] == a else -1,
        b if b >= 0 and state.draw[1] and state.draw[1][-1] == b else -1,
    )


def bust_odds(state: State, seat: int) -> tuple[float | None, float | None]:
    """For each draw pile, the chance that its next card makes ``seat`` lose its pile (a STOP
    condition), from the cards ``seat`` has not seen: both draw piles and what the others
    discarded unseen from a Quantique, less every card its Flip showed. A card it saw still on
    top is known exactly; one no longer there has left the draw piles (they only shrink), so
    even when another seat's Quantique took it face down, ``seat`` knows it is not to come.
    None for an empty draw pile."""
    pile = state.piles[seat]
    value = VALUE[pile[-1]] if pile else -1  # 0 (no value) matches no classic card either
    colour = -1
    if len(pile) >= 2 and KIND[pile[-1]] == CLASSIC and COLOUR[pile[-1]] == COLOUR[pile[-2]]:
        colour = COLOUR[pile[-1]]

    def busts(card: int) -> bool:
        return KIND[card] == CLASSIC and (VALUE[card] == value or COLOUR[card] == colour)

    known = known_tops(state, seat)
    unseen = [*state.draw[0], *state.draw[1]]
    for other, cards in enumerate(state.private_discards):
        if other != seat:
            unseen += cards
    for card in state.peeks[seat]:
        if card >= 0 and card in unseen:
            unseen.remove(card)
    risky = sum(1 for c in unseen if busts(c))
    odds: list[float | None] = []
    for p in (0, 1):
        if not state.draw[p]:
            odds.append(None)
        elif known[p] >= 0:
            odds.append(1.0 if busts(known[p]) else 0.0)
        else:
            odds.append(risky / len(unseen))
    return odds[0], odds[1]
