"""Défausse's events as sentences: "Alice joue +2 rouge — Bob pioche 2 cartes".

An action starts a line (a card laid, a draw, a colour chosen, a catch...); what it causes
(a turn lost, the direction changing, cards to draw, the discard reshuffled) joins that line.
Cards a viewer drew themselves are named in their own copy of the events, and only there.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine.base import Event
from ..engine.defausse.cards import COLOUR, INVERSE, JOKER, JOKER4, PASSE, PLUS2, RANK, WILD
from ..i18n import Catalogue
from . import lines_of

KIND_KEYS = {PASSE: "kind.passe", INVERSE: "kind.inverse", PLUS2: "kind.plus2",
             JOKER: "kind.joker", JOKER4: "kind.joker4"}
STARTS = {"round", "flip", "play", "draw", "keep", "colour", "catch", "pass", "round_end",
          "game_end"}
"""Events that begin a new line; the others complete the line before them."""


def card_name(t: Catalogue, card: int) -> str:
    """"7 rouge", "Passe bleu", "Joker +4" (English: "red 7", "blue Skip")."""
    key = KIND_KEYS.get(RANK[card])
    kind = t(key) if key else str(RANK[card])
    colour = COLOUR[card]
    if colour == WILD:
        return kind
    return t("card.coloured", kind=kind, colour=t(f"colour.{colour}"))


def narrate(events: Sequence[Event], names: Sequence[str], t: Catalogue) -> list[str]:
    return lines_of(events, lambda event: _clause(event, names, t), STARTS.__contains__)


def _clause(event: Event, names: Sequence[str], t: Catalogue) -> str | None:
    def name(seat: int | None) -> str:
        return names[seat] if seat is not None and 0 <= seat < len(names) else "?"

    kind, seat, args = event.kind, event.seat, event.args
    if kind == "round":
        return t("ev.round", n=args[0], dealer=name(args[1]))
    if kind == "flip":
        return t("ev.flip", card=card_name(t, args[0]))
    if kind == "reshuffle":
        return t("ev.reshuffle", n=args[0])
    if kind == "skip":
        return t("ev.skip", name=name(seat))
    if kind == "reverse":
        return t("ev.reverse", arrow="↻" if args[0] == 1 else "↺")
    if kind == "play":
        card, colour = args
        if COLOUR[card] == WILD:
            return t("ev.play_wild", name=name(seat), card=card_name(t, card),
                     colour=t(f"colour.{colour}"))
        return t("ev.play", name=name(seat), card=card_name(t, card))
    if kind == "announce":
        return t("ev.announce", name=name(seat))
    if kind == "pass":
        return t("ev.pass", name=name(seat))
    if kind in ("draw", "penalty"):
        cards = t.count("n.cards", args[0])
        if event.secret:
            which = ", ".join(card_name(t, c) for c in event.secret)
            return t("ev.drew", name=name(seat), cards=cards, which=which)
        return t("ev.draw", name=name(seat), cards=cards)
    if kind == "keep":
        return t("ev.keep", name=name(seat))
    if kind == "colour":
        return t("ev.colour", name=name(seat), colour=t(f"colour.{args[0]}"))
    if kind == "catch":
        return t("ev.catch", catcher=name(args[0]), name=name(seat))
    if kind == "round_end":
        return t("ev.round_end", name=name(seat), gained=args[1])
    if kind == "game_end":
        scores, winners = args
        return t("ev.game_end", names=t.names([name(w) for w in winners]),
                 score=scores[winners[0]] if winners else 0)
    return None  # "deal": the hand on screen says it better
