"""« Apprendre » (Learn by playing): which explanation a learn table shows, and when.

A learn table is a table against bots where, the first time each situation comes up, one line
explains what is happening and what the player's choices mean (docs/screens.md, « The learn
table »). This module decides which situations hold, from what the table screen already
receives — the player's own view and the events of their eyes — never from hidden
information, and never acting: it returns words to show, nothing else. No Textual here.

A situation is named by an ``id`` (remembered once its line has been shown: per key fingerprint
in the database, per session for a guest) and says which catalogue line explains it
(``learn.<message>`` in ``pioche_tui/i18n.py``), with the line's parameters. Several may hold at
once; they are listed most pressing first (a decision waiting, then what just happened, then
what is always true), and the screen shows the first one not yet seen.

Every line is checked against the rules and the engine (tests/app/test_learn.py for the
conditions; docs/rules/ and the engines for the words).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..engine.base import Event
from ..engine.collection.actions import LOCK, PLAY_JOKER, STOP, Draw, Validate
from ..engine.collection.cards import (
    DOUBLE,
    FLIP,
    JOKER,
    KIND,
    PASSE,
    QUANTIQUE,
    RAINBOW,
    RESERVE_SLOTS,
    SPECIAL,
    SWIPE,
)
from ..engine.collection.views import CollectionView
from ..engine.defausse import DefausseView
from ..engine.defausse.cards import INVERSE, JOKER4, PLUS2, RANK
from ..engine.defausse.cards import JOKER as DF_JOKER
from ..engine.defausse.cards import PASSE as DF_PASSE
from ..engine.defausse.rules import Draw as DfDraw
from ..engine.defausse.rules import Play

if TYPE_CHECKING:
    from .app import PiocheApp

LEARN_GAMES = ("collection", "defausse")
"""The games a learn table can be opened for, in the order the lobby offers them."""

COLLECTION_SPECIALS = {JOKER: "joker", DOUBLE: "double", PASSE: "passe", FLIP: "flip",
                       SWIPE: "swipe", QUANTIQUE: "quantique"}
DEFAUSSE_SPECIALS = {DF_PASSE: "passe", INVERSE: "inverse", PLUS2: "plus2", DF_JOKER: "joker",
                     JOKER4: "joker4"}


@dataclass(frozen=True, slots=True)
class Situation:
    """One situation that holds now: ``id`` is what is remembered once shown; ``message`` the
    catalogue key (``learn.<message>``) of its line, ``params`` the line's fields."""

    id: str
    message: str
    params: tuple[tuple[str, Any], ...] = field(default=())

    @property
    def key(self) -> str:
        return f"learn.{self.message}"


def _s(ident: str, message: str | None = None, **params: Any) -> Situation:
    return Situation(ident, message or ident, tuple(sorted(params.items())))


def situations(game: str, view: Any, seat: int, events: Sequence[Event]) -> list[Situation]:
    """Every situation that holds for ``seat`` in ``view`` after ``events``, most pressing
    first. Nothing for a game without explanations, nor once the view is missing."""
    if view is None:
        return []
    if game == "collection":
        return collection_situations(view, seat, events)
    if game == "defausse":
        return defausse_situations(view, seat, events)
    return []


def first_unseen(found: Iterable[Situation], seen: set[str] | frozenset[str]
                 ) -> Situation | None:
    return next((s for s in found if s.id not in seen), None)


class LearnMemory:
    """One session's explanations: whether they are shown (``on``: the lobby's dialog and the
    table's key switch it), and which were shown already (``seen``, read once when the player
    first learns: ``PiocheApp.load_learning``) — a key's kept by the coordinator, so each is
    shown once per player; a guest's for this session only."""

    def __init__(self, app: PiocheApp, seen: Iterable[str]) -> None:
        self.app = app
        self.on = True
        self.seen = set(seen)

    def note(self, situation: str) -> None:
        if situation not in self.seen:
            self.seen.add(situation)
            self.app.send(self.app.client.note_learned(situation))

    def forget(self) -> None:
        """Show every explanation again."""
        self.seen = set()
        self.app.send(self.app.client.forget_learned())


# --- Collection ---------------------------------------------------------------------------


def collection_situations(view: CollectionView, me: int, events: Sequence[Event]
                          ) -> list[Situation]:
    found: list[Situation] = []
    if view.outcome is not None:
        return [_s("col.over")]
    if not 0 <= me < len(view.seats):
        return found
    mine = view.seats[me]
    legal = view.legal
    my_turn = view.current == me
    # A decision waits for the player.
    if view.phase == "validation" and any(isinstance(a, Validate) for a in legal):
        found.append(_s("col.validation"))
    if my_turn and view.phase == "shadow":
        found.append(_s("col.shadow", "col.shadow_joker" if PLAY_JOKER in legal
                        else "col.shadow"))
    if my_turn and view.phase == "quantique" and view.quantique:
        found.append(_s("col.quantique_keep"))
    if my_turn and view.phase == "special" and view.held:
        card = view.held[0]
        if KIND[card] == SPECIAL:
            found.append(_s(f"col.{COLLECTION_SPECIALS[card]}"))
            if len(mine.reserve) >= RESERVE_SLOTS:
                found.append(_s("col.reserve_full"))
    if my_turn and view.phase == "skip":
        found.append(_s("col.skipped"))
    # What just happened to the player.
    for event in events:
        if event.kind == "bust" and event.seat == me:
            found.append(_s("col.bust"))
        elif event.kind == "lost" and event.seat == me:
            found.append(_s("col.lost"))
        elif (event.kind == "activate" and event.args and event.args[0] == SWIPE
              and len(event.args) > 1 and event.args[1] == me and event.seat != me):
            found.append(_s("col.swiped"))
    if mine.doubles:
        found.append(_s("col.doubled"))
    if mine.skips:
        found.append(_s("col.skip_waits"))
    # The player's turn, as it stands.
    if my_turn and view.phase == "turn":
        drawing = any(isinstance(a, Draw) for a in legal)
        last = mine.pile[-1] if mine.pile else None
        rainbow = last is not None and KIND[last] == RAINBOW and view.must_draw > 0
        if rainbow:
            found.append(_s("col.rainbow"))
        elif view.must_draw and LOCK not in legal and STOP not in legal:
            found.append(_s("col.must_draw"))
        if LOCK in legal:
            found.append(_s("col.lock"))
        if drawing and STOP not in legal and not view.must_draw:
            found.append(_s("col.first_draw"))
        if view.risk is not None and mine.pile and any(r for r in view.risk if r):
            found.append(_s("col.risk"))
        if drawing and STOP in legal:
            found.append(_s("col.draw_again"))
    # What the player holds, for their later turns.
    for card in mine.reserve:
        found.append(_s(f"col.{COLLECTION_SPECIALS[card]}"))
    if mine.reserve:
        found.append(_s("col.reserve"))
    if mine.collection:
        found.append(_s("col.collection"))
    if not my_turn and view.current is not None:
        found.append(_s("col.others"))
    return found


# --- Défausse -------------------------------------------------------------------------------


def defausse_situations(view: DefausseView, me: int, events: Sequence[Event]
                        ) -> list[Situation]:
    if view.outcome is not None:
        return [_s("df.over", target=view.target)]
    found: list[Situation] = []
    legal = view.legal
    my_turn = view.current == me
    playable = {a.card for a in legal if isinstance(a, Play)}
    if my_turn and view.phase == "choose_colour":
        found.append(_s("df.opening_joker"))
    if my_turn and view.phase == "after_draw" and view.drawn is not None:
        found.append(_s("df.drawn"))
    if my_turn and view.phase == "play":
        if playable:
            found.append(_s("df.first_turn"))
            if any(card not in playable for card in view.hand):
                found.append(_s("df.unplayable"))
        elif any(isinstance(a, DfDraw) for a in legal):
            found.append(_s("df.no_play"))
    for event in events:
        if event.kind == "round_end":
            found.append(_s("df.round_end", target=view.target))
    top = RANK[view.top]
    if top in DEFAUSSE_SPECIALS:  # what the card on top just did (or, first, will do)
        found.append(_s(f"df.{DEFAUSSE_SPECIALS[top]}"))
    for card in view.hand:
        if RANK[card] in DEFAUSSE_SPECIALS:
            found.append(_s(f"df.{DEFAUSSE_SPECIALS[RANK[card]]}"))
    if len(view.hand) == 1:
        found.append(_s("df.last_card"))
    if not my_turn and view.current is not None:
        found.append(_s("df.others"))
    return found
