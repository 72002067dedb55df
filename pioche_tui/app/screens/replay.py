"""A finished game's replay, step by step, on the game's own table screen.

The coordinator plays the game's log again (``CoordinatorClient.replay``, the engine of
``pioche replay``) and sends each step's view and events, a page at a time; this screen shows
them as the table screen showed the game, at the player's own screen size: as a spectator saw
it (no hidden card), or as the player saw it from their own seat. → and ← go one move,
PageDown and PageUp one round, Home and End to the deal and to the end; Escape closes.

Going forward, each step's events are added to the log as they came; going back (or jumping),
the log is told again from the start of the step's round (at most ``LOG_BACK`` steps).
The game's keys do nothing here, and nothing is asked (a Joker's colour, a Quantique's card):
``replay_screen`` puts this class before the game's own screen class.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Static

from ...coordinator.client import CoordinatorClient
from ...coordinator.model import REPLAY_PAGE, Refused, Replay, ReplayFrame, TableUpdate
from ...engine.base import Event, Outcome
from ..games import table_screen_class
from .table import TableScreen

LOG_BACK = 60  # steps told again at most when going back (the round's start, if nearer)
REPLAY_ACTIONS = {"step", "round", "jump", "close_replay", "help"}


class ReplayScreen(TableScreen):
    """Mixed in before a game's table screen (``replay_screen``); alone, the generic one."""

    AUTO_FOCUS = ""  # nothing: the hand's arrows would take → and ←
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right", "step(1)", "key.replay_next", tooltip="help.replay_next"),
        Binding("left", "step(-1)", "key.replay_back", tooltip="help.replay_back"),
        Binding("pagedown", "round(1)", "key.replay_round", tooltip="help.replay_round_next"),
        Binding("pageup", "round(-1)", "key.replay_round", tooltip="help.replay_round_back"),
        Binding("home", "jump(0)", "key.replay_start", tooltip="help.replay_start",
                show=False),
        Binding("end", "jump(-1)", "key.replay_end", tooltip="help.replay_end", show=False),
        Binding("escape,q", "close_replay", "key.close", tooltip="help.replay_close"),
    ]

    def __init__(self, client: CoordinatorClient, replay: Replay) -> None:
        self.replay = replay
        self.frames: dict[int, ReplayFrame] = {f.step: f for f in replay.frames}
        self.total = replay.total
        self.rounds = replay.rounds or (0,)
        self.at = replay.first
        super().__init__(client, self.update_at(self.at, self.frames[self.at].events))

    def update_at(self, step: int, events: tuple[Event, ...]) -> TableUpdate:
        frame = self.frames[step]
        return TableUpdate(self.replay.table, self.replay.seat, step, frame.view, events,
                           frame.to_act)

    def on_mount(self) -> None:
        self.banner = self.query_one("#banner", Static)
        self.banner.display = True  # (a table shows it to spectators alone)

    def _show(self, update: TableUpdate) -> None:
        super()._show(update)
        if self.ready:  # (the first update is shown by TableScreen.on_mount, after ours)
            key = "replay.banner_seat" if self.replay.seat is not None else "replay.banner"
            self.banner.update(self.t(key, n=update.step, total=self.total - 1))

    # --- moving through the game ----------------------------------------------------------

    async def load(self, steps: range) -> bool:
        """The pages holding ``steps``, asked for when not here yet; False (and a warning)
        when the coordinator refuses (the log went meanwhile)."""
        for first in sorted({s // REPLAY_PAGE * REPLAY_PAGE for s in steps
                             if s not in self.frames}):
            try:
                page = await self.client.replay(self.replay.table.id, self.replay.seat, first)
            except Refused as e:
                self.pioche.warn(self.t.refusal(e))
                return False
            self.frames.update((f.step, f) for f in page.frames)
        return True

    async def go(self, step: int) -> None:
        step = max(0, min(self.total - 1, step))
        if step == self.at:
            return
        if step == self.at + 1:  # one move on: its events follow the log's
            if await self.load(range(step, step + 1)):
                self.at = step
                self._show(self.update_at(step, self.frames[step].events))
            return
        start = max(self.rounds[bisect_right(self.rounds, step) - 1], step - LOG_BACK)
        if not await self.load(range(start, step + 1)):
            return
        self.at = step
        self.log_widget.clear()
        self._podium_shown = False
        events = tuple(e for s in range(start, step + 1) for e in self.frames[s].events)
        self._show(self.update_at(step, events))

    async def action_step(self, moves: int) -> None:
        await self.go(self.at + moves)

    async def action_round(self, rounds: int) -> None:
        """The start of the next round, or of this one (of the one before, when at its
        start)."""
        index = bisect_right(self.rounds, self.at) - 1
        if rounds > 0:
            target = self.rounds[index + 1] if index + 1 < len(self.rounds) else self.total - 1
        else:
            at_start = self.rounds[index] == self.at
            target = self.rounds[max(0, index - 1)] if at_start else self.rounds[index]
        await self.go(target)

    async def action_jump(self, step: int) -> None:
        await self.go(self.total - 1 if step < 0 else step)

    def action_close_replay(self) -> None:
        self.dismiss(None)

    # --- what a replay shows, and what it never does --------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action in REPLAY_ACTIONS

    def act(self, action: Any) -> None:
        """A replay plays nothing."""

    def show_podium(self, outcome: Outcome, reason: str = "", unrated: str | None = None
                    ) -> None:
        """No window: the log says who won, the last step shows the scores."""

    def show_resume_command(self, update: TableUpdate) -> None:
        """No seat to resume."""

    def focus_game(self) -> None:
        self.set_focus(None)

    # (the games' questions: a replay asks nothing)
    def ask_colour(self, *args: Any) -> None: ...

    def ask_quantique(self, *args: Any) -> None: ...

    def ask_validation(self, *args: Any) -> None: ...


_CLASSES: dict[str, type[ReplayScreen]] = {}


def replay_screen(client: CoordinatorClient, replay: Replay) -> ReplayScreen:
    """A replay on the screen of its game's tables."""
    game = replay.table.game
    cls = _CLASSES.get(game)
    if cls is None:
        base = table_screen_class(game)
        # (its module: the game screen's CSS_PATH is read beside this file, as beside theirs)
        cls = ReplayScreen if base is TableScreen else type(
            f"Replay{base.__name__}", (ReplayScreen, base), {"__module__": __name__})
        _CLASSES[game] = cls
    return cls(client, replay)
