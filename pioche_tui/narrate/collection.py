"""Collection's events as sentences: "Alice pioche en A : 3 rouge — deux 3 de suite : pile
perdue (4 cartes)".

An action starts a line (a draw, a lock, a stop, a card played or reserved, a Shadow's choice, a
validation...); what it causes (a pile lost to a STOP condition, what a Flip shows, the cards a
Quantique takes) joins that line. What a Flip or a Quantique showed is named in its player's own
copy of the events, and only there.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine.base import Event
from ..engine.collection import cards
from ..engine.collection.cards import (
    CLASSIC,
    COLOUR,
    DOUBLE,
    FLIP,
    KIND,
    PASSE,
    QUANTIQUE,
    SWIPE,
    VALUE,
)
from ..i18n import Catalogue
from . import lines_of

JOINS = {"bust", "flip", "quantique"}
"""Events that complete the line before them; every other event begins a line."""
PILES = "AB"


def card_name(t: Catalogue, card: int) -> str:
    """"3 rouge", "Rainbow", "Passe Ton Tour" (English: "red 3"): classic cards in the player's
    language, the others by their names, the same in both."""
    if KIND[card] == CLASSIC:
        return t("col.card", value=VALUE[card], colour=t(f"colour.{COLOUR[card]}"))
    return cards.card_name(card)


def card_list(t: Catalogue, cards: Sequence[int]) -> str:
    return ", ".join(card_name(t, card) for card in cards)


def narrate(events: Sequence[Event], names: Sequence[str], t: Catalogue) -> list[str]:
    return lines_of(events, lambda event: _clause(event, names, t),
                    lambda kind: kind not in JOINS)


def _clause(event: Event, names: Sequence[str], t: Catalogue) -> str | None:
    def name(seat: int | None) -> str:
        return names[seat] if seat is not None and 0 <= seat < len(names) else "?"

    kind, args = event.kind, event.args
    who = name(event.seat)
    if kind == "round":
        return t("cev.round", n=args[0], name=who)
    if kind in ("draw", "special", "shadow"):
        pile, card = args
        return t("cev.draw", name=who, pile=PILES[pile], card=card_name(t, card))
    if kind == "rainbow":
        return t("cev.rainbow", name=who, pile=PILES[args[0]])
    if kind == "bust":
        pile, reason = args
        last = pile[-1]
        cards = t.count("n.cards", len(pile))
        if reason == "valeur":
            return t("cev.bust_value", value=VALUE[last], cards=cards)
        return t("cev.bust_colour", colour=t(f"colour.{COLOUR[last]}"), cards=cards)
    if kind == "stop":
        return t("cev.stop", name=who)
    if kind == "lock":
        return t("cev.lock", name=who, cards=card_list(t, args[0]))
    if kind == "reserve":
        return t("cev.reserve", name=who, card=card_name(t, args[0]))
    if kind == "shadow_discard":
        return t("cev.shadow_discard", name=who)
    if kind == "shadow_new_pile":
        lost = args[0]
        if not lost:
            return t("cev.shadow_starts", name=who)
        return t("cev.shadow_new_pile", name=who, cards=t.count("n.cards", len(lost)))
    if kind == "joker":
        return t("cev.joker", name=who)
    if kind == "keep":
        card = args[0]
        return t("cev.keep_none", name=who) if card is None else t(
            "cev.keep", name=who, card=card_name(t, card))
    if kind == "activate":
        return _activation(t, who, args[0], name(args[1]) if args[1] is not None else None,
                           args[2])
    if kind == "flip":
        if not event.secret:
            return t("cev.flip", name=who)
        a, b = (card_name(t, c) if c >= 0 else t("cev.empty") for c in event.secret)
        return t("cev.flip_seen", a=a, b=b)
    if kind == "quantique":
        if event.secret:
            return t.count("cev.quantique_seen", args[1], which=card_list(t, event.secret))
        return t.count("cev.quantique", args[1])
    if kind == "skip":
        return t("ev.skip", name=who)
    if kind == "lost":
        return t("cev.lost", name=who, cards=t.count("n.cards", len(args[0])))
    if kind == "round_end":
        return t("cev.round_end", n=args[0])
    if kind == "validated":
        return t("cev.validated", name=who)
    if kind == "validate":
        if not args:
            return t("cev.validate_none", name=who)
        what = ", ".join(f"{t(f'obj.{objective}')} ({points})" for objective, _, points in args)
        return t("cev.validate", name=who, what=what)
    if kind == "game_end":
        return t.count("cev.game_end", len(args), names=t.names([name(w) for w in args]))
    return None


def _activation(t: Catalogue, who: str, card: int, target: str | None, pile: int | None
                ) -> str:
    """A special card played: on whom, on which draw pile, or for nothing (a Joker away from
    a Shadow; a card with nothing to act on)."""
    title = card_name(t, card)
    if card in (DOUBLE, PASSE) and target is not None:
        return t("cev.activate_target", name=who, card=title, target=target)
    if card == SWIPE and target is not None:
        return t("cev.swipe", name=who, target=target)
    if card == QUANTIQUE and pile is not None:
        return t("cev.activate_quantique", name=who, pile=PILES[pile])
    if card == FLIP:
        return t("cev.activate", name=who, card=title)  # what it shows joins the line
    return t("cev.no_effect", name=who, card=title)
