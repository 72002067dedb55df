"""The Collection engine as the rest of Pioche sees it: one object satisfying ``base.Game``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base import BadOptions, Bot, Outcome, Wire
from . import actions, rules
from .actions import Action, Validate
from .bots import BOTS
from .cards import MODES
from .objectives import best_selection
from .rules import State
from .views import CollectionView, view

OPTION_DEFAULTS: dict[str, Any] = {"mode": "classique", "single_round": False}


class CollectionGame:
    name = "collection"
    title = "Collection"
    min_seats = 2
    max_seats = actions.MAX_SEATS

    def options(self, raw: Mapping[str, Any]) -> Mapping[str, Any]:
        """``mode``: "classique" (default) or "decouverte"; ``single_round``: stop after the
        first round (for the simulator and benchmarks)."""
        unknown = sorted(set(raw) - set(OPTION_DEFAULTS))
        if unknown:
            raise BadOptions(
                f"unknown option {unknown[0]!r} for Collection (known: mode, single_round)"
            )
        options = {**OPTION_DEFAULTS, **raw}
        if options["mode"] not in MODES:
            raise BadOptions(
                f"mode {options['mode']!r}: expected one of {', '.join(sorted(MODES))}"
            )
        if type(options["single_round"]) is not bool:
            raise BadOptions(f"single_round {options['single_round']!r}: expected true or false")
        return {"mode": str(options["mode"]), "single_round": bool(options["single_round"])}

    def new_game(self, seats: int, options: Mapping[str, Any], seed: int) -> State:
        if not self.min_seats <= seats <= self.max_seats:
            raise BadOptions(f"Collection is for {self.min_seats} to {self.max_seats} players")
        checked = self.options(options)
        return rules.new_game(seats, checked["mode"], checked["single_round"], seed)

    # The hot paths are the rules' own functions, not wrappers: bots call them per action.
    to_act = staticmethod(rules.to_act)
    legal_actions = staticmethod(rules.legal_actions)
    apply = staticmethod(rules.apply)

    def interjectors(self, state: State) -> tuple[int, ...]:
        return ()

    def view(self, state: State, seat: int | None) -> CollectionView:
        return view(state, seat)

    def outcome(self, state: State) -> Outcome | None:
        return state.outcome

    def action_to_wire(self, action: Action) -> Wire:
        return actions.to_wire(action)

    def action_from_wire(self, data: Wire) -> Action:
        return actions.from_wire(data)

    def bot(self, name: str) -> Bot:
        return BOTS[name]()

    def stand_in_action(self, state: State, seat: int) -> Action | None:
        """In validation, the best-scoring selection (the rules: a player whose timer runs out
        gets it), not the basic bot's own choice, which may keep an objective open for later."""
        if state.phase is rules.VALIDATION and seat in rules.to_act(state):
            return Validate(best_selection(state.collections[seat], state.open_objectives(seat)))
        return None

    def bot_names(self) -> tuple[str, ...]:
        return tuple(BOTS)


GAME = CollectionGame()
