"""Helpers for Défausse tests: name cards, set up a table exactly, check the invariants."""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from pioche_tui.engine.base import Event
from pioche_tui.engine.defausse import GAME
from pioche_tui.engine.defausse.cards import CARDS, COLOUR, COLOURS, RANK, WILD, card_name, mask_of
from pioche_tui.engine.defausse.rules import HAND_SIZE, PLAY, State, deal

ALL = sum(1 << card for card in CARDS)  # (a hand's bit mask holding every card)


class Pool:
    """Hands out distinct card ids by French name: ``pool("7 rouge")`` gives one of the two red
    sevens, the next call the other one; ``pool("Joker +4")`` one of the four."""

    def __init__(self) -> None:
        self.free: dict[str, list[int]] = {}
        for card in CARDS:
            self.free.setdefault(card_name(card), []).append(card)

    def __call__(self, name: str) -> int:
        return self.free[name].pop(0)

    def many(self, *names: str) -> list[int]:
        return [self(n) for n in names]


def rig(
    seats: int,
    hands: Sequence[Iterable[int]],
    top: int,
    *,
    draw: Sequence[int] = (),
    rest: str = "draw",
    colour: int | None = None,
    current: int = 0,
    direction: int = 1,
    options: dict[str, Any] | None = None,
    seed: int = 0,
) -> State:
    """A state in phase PLAY with exactly these hands and top card. ``draw`` lists the next
    cards drawn, in order; every other card goes to the bottom of the draw pile
    (``rest="draw"``) or under the top of the discard (``rest="discard"``)."""
    state = GAME.new_game(seats, options or {}, seed)
    placed = [c for h in hands for c in h] + [top, *draw]
    assert len(placed) == len(set(placed)), "a card is placed twice"
    others = [c for c in CARDS if c not in set(placed)]
    state.hands = [mask_of(h) for h in hands]
    if rest == "draw":
        state.draw, state.discard = others + list(reversed(draw)), [top]
    else:
        assert rest == "discard"
        state.draw, state.discard = list(reversed(draw)), [*others, top]
    state.colour = COLOUR[top] if colour is None else colour
    state.rank = RANK[top]
    state.current, state.direction = current, direction
    state.phase, state.drawn, state.pending, state.culprit = PLAY, -1, 0, -1
    state.announced = [False] * seats
    check_cards(state)
    return state


def rigged_deal(seats: int, flip: Sequence[int], options: dict[str, Any] | None = None) -> State:
    """A fresh game whose round is dealt again so that the first card turned is ``flip[0]``
    (then ``flip[1]``... if a Joker +4 is sent back: the reshuffle may change what follows)."""
    state = GAME.new_game(seats, options or {}, 0)
    dealt = [c for c in CARDS if c not in flip][: HAND_SIZE * seats]
    rest = [c for c in CARDS if c not in flip and c not in dealt]
    deck = rest + list(reversed(flip)) + list(reversed(dealt))
    deal(state, deck)
    check_cards(state)
    return state


def card_places(state: State) -> Counter[int]:
    places: Counter[int] = Counter()
    for seat in range(state.seats):
        places.update(state.hand(seat))
    places.update(state.draw)
    places.update(state.discard)
    return places


def check_cards(state: State) -> None:
    """All 108 cards are in exactly one place (a hand, the draw pile, the discard)."""
    assert state.discard, "the discard is never empty"
    # The sweeps check this after every action: first on the hands' bit masks (108 places in
    # all, and together they hold every card: each card is then in exactly one), and only when
    # that fails, place by place, to say which card is where.
    held = 0
    for hand in state.hands:
        held |= hand
    for card in (*state.draw, *state.discard):
        held |= 1 << card  # (an unknown id: a bit outside ALL, or an error)
    count = sum(hand.bit_count() for hand in state.hands) + len(state.draw) + len(state.discard)
    if count == len(CARDS) and held == ALL:
        return
    places = card_places(state)
    assert sorted(places) == list(CARDS), "a card is missing or unknown"
    assert set(places.values()) == {1}, f"cards in two places: {places.most_common(3)}"


def check_view_hides(state: State, seat: int | None, rng: random.Random) -> None:
    """What ``seat`` sees holds its own hand and nothing of the other hands or the draw pile: the
    view stays the same when those hidden cards are dealt out again at random."""
    view = GAME.view(state, seat)
    own = set(state.hand(seat)) if seat is not None else set()
    assert list(view.hand) == sorted(own)
    assert {getattr(a, "card", None) for a in view.legal} <= own | {None}
    assert view.drawn is None or view.drawn in own
    if seat is None:
        assert view.legal == () and view.seat is None
    other = copy.deepcopy(state)
    hidden = [c for s in range(other.seats) if s != seat for c in other.hand(s)] + other.draw
    rng.shuffle(hidden)
    for s in range(other.seats):
        if s != seat:
            size = other.hand_size(s)
            other.hands[s], hidden = mask_of(hidden[:size]), hidden[size:]
    other.draw = hidden
    assert GAME.view(other, seat) == view


def check_events_hide(events: Sequence[Event], seats: int) -> None:
    """Secrets (drawn cards) are only ever kept for the seat they belong to."""
    for viewer in [None, *range(seats)]:
        for event in events:
            seen = event.seen_by(viewer)
            if viewer != event.seat:
                assert seen.secret == ()
            else:
                assert seen.secret == event.secret


def colour_index(name: str) -> int:
    return COLOURS.index(name)


def is_wild(card: int) -> bool:
    return COLOUR[card] == WILD
