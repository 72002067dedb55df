"""A tiny game for testing the app's shell without a real engine: players add 1 or 2 to a
running total in turn; who brings it to ``goal`` wins."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pioche_tui.engine.base import BadOptions, Event, IllegalAction, Outcome, RandomBot


@dataclass
class ToyState:
    seats: int
    goal: int
    total: int = 0
    current: int = 0
    winner: int | None = None


@dataclass(frozen=True)
class ToyView:
    total: int
    current: int | None
    outcome: Outcome | None


class Toy:
    name = "toy"
    title = "Toy"
    min_seats = 2
    max_seats = 4

    def options(self, raw: Mapping[str, Any]) -> Mapping[str, Any]:
        unknown = set(raw) - {"goal"}
        if unknown:
            raise BadOptions(f"option inconnue {sorted(unknown)[0]!r}")
        return {"goal": int(raw.get("goal", 10))}

    def new_game(self, seats: int, options: Mapping[str, Any], seed: int) -> ToyState:
        return ToyState(seats, int(options["goal"]))

    def to_act(self, state: ToyState) -> tuple[int, ...]:
        return () if state.winner is not None else (state.current,)

    def interjectors(self, state: ToyState) -> tuple[int, ...]:
        return ()

    def stand_in_action(self, state: ToyState, seat: int) -> int | None:
        return None

    def legal_actions(self, state: ToyState, seat: int) -> Sequence[int]:
        if state.winner is not None or seat != state.current:
            return []
        return [n for n in (1, 2) if state.total + n <= state.goal]

    def apply(self, state: ToyState, seat: int, action: int) -> list[Event]:
        if action not in self.legal_actions(state, seat):
            raise IllegalAction("Coup impossible.")
        state.total += action
        events = [Event("add", seat, (action, state.total))]
        if state.total == state.goal:
            state.winner = seat
            events.append(Event("win", seat))
        else:
            state.current = (seat + 1) % state.seats
        return events

    def view(self, state: ToyState, seat: int | None) -> ToyView:
        return ToyView(state.total, None if state.winner is not None else state.current,
                       self.outcome(state))

    def outcome(self, state: ToyState) -> Outcome | None:
        if state.winner is None:
            return None
        scores = tuple(1 if s == state.winner else 0 for s in range(state.seats))
        return Outcome(scores, (state.winner,))

    def action_to_wire(self, action: int) -> Any:
        return action

    def action_from_wire(self, data: Any) -> int:
        if data not in (1, 2):
            raise ValueError(f"bad action {data!r}")
        return int(data)

    def bot(self, name: str) -> RandomBot:
        if name not in self.bot_names():
            raise KeyError(name)
        return RandomBot()

    def bot_names(self) -> tuple[str, ...]:
        return ("basic", "random")


TOY = Toy()
