"""A player's profile: games played and won per game, the rating in each game with its recent
history as a small chart (Textual's ``Sparkline``), the last games, each one's replay.

Opened from the lobby (« i »: the players online), a table (« i »: its players) and the
scores (Enter on a row). A guest has no profile: their identity lasts one session and owns
no name, so nothing of theirs is kept to show (the window says so).
"""

from __future__ import annotations

import time
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, OptionList, Sparkline, Static
from textual.widgets.option_list import Option

from widgets.keybar import KeyBar

from ...coordinator.client import CoordinatorClient
from ...coordinator.model import GamePlayed, Profile, Refused
from ..games import game_title
from .base import Dialog
from .scores import results_by_game

COLUMNS = ("when", "game", "place", "rated")


class PlayerPicker(Dialog[str | None]):
    """Whose profile to open: one of ``names`` (the result), None when closed."""

    CSS_PATH = "profile.tcss"
    # (priority: before the list's own Enter, so that the key bar shows it)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "pick", "key.profile_open", priority=True)]

    def __init__(self, names: tuple[str, ...]) -> None:
        super().__init__()
        self.names = names

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.t("profile.pick"), classes="title", markup=False)
            if self.names:
                yield OptionList(*(Option(Text(name)) for name in self.names), id="names")
            else:
                yield Static(self.t("profile.nobody"), markup=False)
            yield KeyBar()

    def on_mount(self) -> None:
        if self.names:
            self.query_one(OptionList).highlighted = 0

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return bool(self.names) if action == "pick" else True

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()  # (a click: the list's own choice)
        self.dismiss(self.names[event.option_index])

    def action_pick(self) -> None:
        index = self.query_one(OptionList).highlighted
        if index is not None:
            self.dismiss(self.names[index])


class ProfileScreen(Dialog[None]):
    CSS_PATH = "profile.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        # (priority: before the list's own Enter, so that the key bar shows it)
        Binding("enter", "replay", "key.replay", tooltip="help.replay", priority=True),
        Binding("v", "replay_mine", "key.replay_mine", tooltip="help.replay_mine"),
    ]

    def __init__(self, client: CoordinatorClient, name: str) -> None:
        super().__init__()
        self.client = client
        self.name_asked = name
        self.profile: Profile | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="profile-box"):
            yield Static(Text(self.name_asked, "bold"), id="profile-title", classes="title")
            yield Static(id="profile-games", markup=False)
            yield Vertical(id="profile-charts")
            yield Static(self.t("profile.last"), id="profile-last-title", classes="title",
                         markup=False)
            yield DataTable(id="profile-last", cursor_type="row", zebra_stripes=True)
            yield Static(id="profile-note", classes="muted", markup=False)
            yield KeyBar()

    async def on_mount(self) -> None:
        self.profile = await self.client.profile(self.name_asked)
        self.show()
        self.refresh_bindings()

    @property
    def mine(self) -> bool:
        """The profile is the viewer's own: their seat's view of each game may be replayed."""
        player = self.client.player
        return (self.profile is not None and player is not None
                and player.identity == self.profile.identity)

    def show(self) -> None:
        t = self.t
        profile = self.profile
        table = self.query_one("#profile-last", DataTable)
        if profile is None:
            self.query_one("#profile-games", Static).update(
                t("profile.none", name=self.name_asked))
            for widget in ("#profile-last-title", "#profile-last", "#profile-note"):
                self.query_one(widget).display = False
            return
        self.query_one("#profile-title", Static).update(Text(profile.name, "bold"))
        lines = results_by_game(t, profile.by_game, profile.ratings)
        self.query_one("#profile-games", Static).update(
            "\n".join(lines) or t("profile.no_games", name=profile.name))
        charts = self.query_one("#profile-charts", Vertical)
        for game, points in profile.history:
            if len(points) < 2:
                continue
            label = t("profile.chart", game=game_title(t, game), low=f"{min(points):.1f}",
                      high=f"{max(points):.1f}")
            charts.mount(Horizontal(Static(label, classes="chart-label", markup=False),
                                    Sparkline(list(points), classes="chart"),
                                    classes="chart-row"))
        for key in COLUMNS:
            table.add_column(Text(t(f"profile.col.{key}")), key=key)
        for played in profile.last:
            table.add_row(*(Text(cell) for cell in self.row(played)))
        has_games = bool(profile.last)
        self.query_one("#profile-last-title").display = has_games
        table.display = has_games
        self.query_one("#profile-note", Static).update(
            t("profile.note_mine" if self.mine else "profile.note") if has_games else "")
        if has_games:
            table.focus()

    def row(self, played: GamePlayed) -> tuple[str, ...]:
        t = self.t
        place = (t("profile.place", place=played.place, seats=played.seats) if played.place
                 else "—")
        rated = t("profile.rated") if not played.unrated else t("profile.unrated")
        if not played.replay:
            rated += " · " + t("profile.log_gone")
        when = time.strftime("%d/%m %H:%M", time.localtime(played.finished))
        return when, game_title(t, played.game), place, rated

    def selected(self) -> GamePlayed | None:
        if self.profile is None or not self.profile.last:
            return None
        row = self.query_one("#profile-last", DataTable).cursor_row
        return self.profile.last[row] if 0 <= row < len(self.profile.last) else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "replay":
            return self.profile is not None and bool(self.profile.last)
        if action == "replay_mine":
            return self.mine and bool(self.profile and self.profile.last)
        return True

    async def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        await self.action_replay()

    async def action_replay(self) -> None:
        await self.open_replay(None)

    async def action_replay_mine(self) -> None:
        played = self.selected()
        if played is not None and self.mine:
            await self.open_replay(played.seat)

    async def open_replay(self, seat: int | None) -> None:
        """The selected game's replay (as a spectator saw it, or from ``seat``)."""
        from .replay import replay_screen

        played = self.selected()
        if played is None:
            return
        if not played.replay:
            self.pioche.warn(self.t("refused.replay_gone"))
            return
        try:
            replay = await self.client.replay(played.table_id, seat, 0)
        except Refused as e:
            self.pioche.warn(self.t.refusal(e))
            return
        self.pioche.open(replay_screen(self.client, replay))
