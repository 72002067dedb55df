"""Scores: the leaderboard of each game by rating (or of all games by wins) and the player's
own statistics, with their rating in each game."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from widgets.keybar import KeyBar

from ...coordinator.client import CoordinatorClient
from ...coordinator.model import MIN_RATED_GAMES, LeaderboardRow, conservative
from ...i18n import Catalogue
from ..games import game_title
from .base import Dialog

BOARD_SIZE = 20
RATED_COLUMNS = ("rank", "name", "rating", "rated", "games", "wins")
ALL_COLUMNS = ("rank", "name", "games", "wins", "points")


def results_by_game(t: Catalogue, by_game: Iterable[tuple[str, int, int]],
                    ratings: Iterable[tuple[str, int, float, float]]) -> list[str]:
    """One line per game: games and wins, and the rating where the player has one (« Défausse :
    5 parties, 3 victoires · cote 4.4 (3 classées) »): the scores' own statistics, a profile."""
    rated = {g: (n, mu, sigma) for g, n, mu, sigma in ratings}
    lines = []
    for g, n, w in by_game:
        line = t("scores.by_game", game=game_title(t, g), games=t.count("n.games", n),
                 wins=t.count("n.wins", w))
        if g in rated:
            r, mu, sigma = rated[g]
            line += t("scores.rating", rating=f"{conservative(mu, sigma):.1f}",
                      rated=t.count("n.rated", r))
        lines.append(line)
    return lines


class ScoresScreen(Dialog[None]):
    """Built once per app (``PiocheApp.reusable``); read again each time it is shown."""

    CSS_PATH = "scores.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("g", "next_game", "key.game_filter"),
        Binding("enter", "profile", "key.profile_open", tooltip="help.profile_board",
                priority=True),  # (before the board's own Enter: the key bar shows it)
        Binding("s,q", "close", "key.close", show=False),
    ]

    def __init__(self, client: CoordinatorClient, games: tuple[str, ...]) -> None:
        super().__init__()
        self.client = client
        # Each game's board by rating first, then every game's by wins (a rating is per game).
        self.filters: tuple[str | None, ...] = (*games, None)
        self.filter = 0
        self.rows: tuple[LeaderboardRow, ...] = ()  # the board shown

    def compose(self) -> ComposeResult:
        with Vertical(id="scores-box"):
            yield Static(id="board-title", classes="title", markup=False)
            yield DataTable(id="board", cursor_type="row", zebra_stripes=True)
            yield Static(id="board-empty", classes="muted", markup=False)
            yield Static(id="board-note", classes="muted", markup=False)
            yield Static(self.t("scores.mine"), classes="title", markup=False)
            yield Static(id="mine", markup=False)
            yield KeyBar()

    def on_mount(self) -> None:
        self.set_columns(RATED_COLUMNS if self.filters[0] else ALL_COLUMNS)

    def set_columns(self, keys: tuple[str, ...]) -> None:
        """Empty the board, with these columns (a game's board has its own)."""
        board = self.query_one("#board", DataTable)
        if tuple(key.value for key in board.columns) == keys:
            board.clear()
            return
        board.clear(columns=True)
        for key in keys:
            board.add_column(Text(self.t(f"scores.col.{key}")), key=key)

    async def on_screen_resume(self) -> None:
        await self.show_board()
        await self.show_mine()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return bool(self.rows) if action == "profile" else True

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_profile()

    def action_profile(self) -> None:
        """The profile of the player on the board's highlighted row."""
        row = self.query_one("#board", DataTable).cursor_row
        if 0 <= row < len(self.rows):
            self.pioche.show_profile(self.rows[row].name)

    async def action_next_game(self) -> None:
        self.filter = (self.filter + 1) % len(self.filters)
        await self.show_board()

    async def show_board(self) -> None:
        t = self.t
        game = self.filters[self.filter]
        self.query_one("#board-title", Static).update(
            t("scores.board", game=game_title(t, game) if game else t("scores.all")))
        rows = self.rows = await self.client.leaderboard(game, BOARD_SIZE)
        player = self.client.player
        board = self.query_one("#board", DataTable)
        self.set_columns(RATED_COLUMNS if game else ALL_COLUMNS)
        for rank, row in enumerate(rows, 1):
            style = "bold" if player is not None and row.identity == player.identity else ""
            values = ((rank, row.name, f"{row.rating:.1f}", row.rated, row.games, row.wins)
                      if game else (rank, row.name, row.games, row.wins, row.points))
            board.add_row(*(Text(str(v), style) for v in values))
        empty = self.query_one("#board-empty", Static)
        empty.update(t("scores.empty_rated" if game else "scores.empty") if not rows else "")
        empty.display = not rows
        board.display = bool(rows)
        if rows:
            board.focus()
        self.refresh_bindings()
        self.query_one("#board-note", Static).update(
            t("scores.rated_note", n=MIN_RATED_GAMES) if game else t("scores.all_note"))

    async def show_mine(self) -> None:
        t = self.t
        stats = await self.client.player_stats()
        if stats is None or not stats.games:
            text = t("scores.none_mine")
        else:
            lines = [t("scores.stats", games=t.count("n.games", stats.games),
                       wins=t.count("n.wins", stats.wins),
                       points=t.count("n.points", stats.points), best=stats.best_score)]
            lines += results_by_game(t, stats.by_game, stats.ratings)
            text = "\n".join(lines)
        if self.client.player is not None and self.client.player.guest:
            text += "\n" + t("scores.guest")
        self.query_one("#mine", Static).update(text)
