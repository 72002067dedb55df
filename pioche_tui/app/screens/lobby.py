"""The lobby: the tables, who is online, the lobby chat; create, join, watch, quick play."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import DataTable, Static

from widgets.chat import ChatInput
from widgets.keybar import KeyBar
from widgets.lines import TextLines
from widgets.log import GameLog
from widgets.tables import TableRow, TablesList

from ...coordinator.client import CoordinatorClient
from ...coordinator.model import LobbySnapshot, TableSummary
from ...coordinator.text import CHAT_MAX
from ..chat import Part
from ..games import game_title, summarise_options
from .base import PiocheScreen

if TYPE_CHECKING:
    from .create import TableRequest

# Lobby table columns: (catalogue key, width); width 0 takes what the others leave.
COLUMNS = (
    ("lobby.col.id", 5),
    ("lobby.col.game", 10),
    ("lobby.col.seats", 6),
    ("lobby.col.status", 10),
    ("lobby.col.spectators", 6),
    ("lobby.col.players", 0),
)
"""The options do not fit beside these at 80 columns: the line under the list gives them in
full for the table under the cursor."""
PLAYER_ACTIONS = {"new_table", "join", "quick", "chat", "learn"}  # not for watch-only sessions


class LobbyScreen(PiocheScreen[None]):
    CSS_PATH = "lobby.tcss"
    AUTO_FOCUS = ""  # the list of tables when there are tables; never the chat unasked
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new_table", "key.new_table", tooltip="help.new_table"),
        Binding("j", "join", "key.join", tooltip="help.join"),
        Binding("w", "watch", "key.watch", tooltip="help.watch"),
        Binding("I", "invite", "key.invite", tooltip="help.invite"),
        Binding("p", "quick('defausse')", "key.quick", tooltip="help.quick_defausse"),
        Binding("P", "quick('collection')", "key.quick", tooltip="help.quick_collection"),
        Binding("a", "learn", "key.learn", tooltip="help.learn"),
        Binding("s", "scores", "key.scores", tooltip="help.scores"),
        # (not in the key bar, full at 80 columns: the list of players online says it)
        Binding("i", "profiles", "key.profile", tooltip="help.profile", show=False),
        Binding("o", "settings", "key.settings", tooltip="help.settings"),
        Binding("c", "chat", "key.chat", tooltip="help.chat"),
        Binding("A", "admin", "key.admin", tooltip="help.admin"),
        Binding("question_mark", "help", "key.help"),
        Binding("q", "app.quit", "key.quit", tooltip="help.quit"),
    ]

    RESTRICTED = frozenset({"admin"})
    """Keys only some players have (the Admin screen's: admins): the help lists them only to
    those (``HelpScreen.keys_table``), as the key bar shows them only to them."""

    def __init__(self, client: CoordinatorClient) -> None:
        super().__init__()
        self.client = client
        self.tables: dict[str, TableSummary] = {}
        self.snapshot: LobbySnapshot | None = None
        self._chat: list[tuple[Part, ...]] = []  # lines that came before the screen was up
        self._online_count = -1
        self._hello = ""  # the name the header greets (a watcher's may change: a number)
        # What the last snapshot showed where showing it again costs a layout of the whole
        # screen (a Static's update) or a look at every binding: a lobby gets a snapshot up to
        # twice a second, and most change only a row or a name.
        self._motd: str | None = None
        self._detail: Text | None = None
        self._bindings_from: tuple[bool, bool] | None = None
        self.ready = False  # the widgets exist (is_mounted turns True only after on_mount)

    def compose(self) -> ComposeResult:
        t = self.t
        yield Static(id="lobby-header", markup=False)
        yield Static(id="motd", markup=False)
        yield TablesList([(t(key), width) for key, width in COLUMNS], id="tables")
        yield Static(id="table-detail", markup=False)
        yield Static(self.welcome(), id="no-tables", markup=False)
        with Horizontal(id="lobby-bottom"):
            chat = GameLog(id="lobby-chat")
            chat.border_title = t("lobby.chat")
            yield chat
            yield TextLines(id="online")
        yield ChatInput(placeholder=t("chat.placeholder"), invite=t("chat.invite"),
                        max_length=CHAT_MAX, id="chat-input")
        yield KeyBar()

    def welcome(self) -> Text:
        """What an empty lobby says: the keys that start something."""
        t = self.t
        text = Text(t("lobby.welcome"), "bold")
        text.append("\n")
        games = self.pioche.games
        hints = [] if self.pioche.watch_only else [
            *((key, t("lobby.hint_quick", game=game_title(t, game)))
              for key, game in (("p", "defausse"), ("P", "collection")) if game in games),
            ("a", t("lobby.hint_learn")),
            ("n", t("lobby.hint_new")),
        ]
        for key, hint in [*hints, ("?", t("lobby.hint_help"))]:
            text.append(f"\n  {key}", "bold")
            text.append(f"   {hint}")
        return text

    def on_mount(self) -> None:
        self.ready = True
        watch_only = self.pioche.watch_only
        self._greet()
        self.query_one("#motd").display = False
        self.query_one(ChatInput).display = not watch_only
        if self.snapshot is not None:
            self.show_snapshot(self.snapshot)
        for parts in self._chat:
            self.show_chat(parts)
        self._chat.clear()

    # --- news from the coordinator --------------------------------------------------------

    def _greet(self) -> None:
        """The header: hello, under the name the player is shown online."""
        player = self.client.player
        assert player is not None  # (the lobby comes once connected)
        self._hello = player.name
        header = Text(self.t("lobby.hello", name=player.name), "bold")
        if player.watch_only:
            header.append("  " + self.t("lobby.watch_only"), "italic")
        self.query_one("#lobby-header", Static).update(header)

    def show_snapshot(self, snapshot: LobbySnapshot) -> None:
        self.snapshot = snapshot
        if not self.ready:
            return  # on_mount shows the newest one
        player = self.client.player
        if player is not None and player.name != self._hello:
            self._greet()
        t = self.t
        if snapshot.motd != self._motd:
            self._motd = snapshot.motd
            motd = self.query_one("#motd", Static)
            motd.display = bool(snapshot.motd)
            motd.update(snapshot.motd)
        self.tables = {s.id: s for s in snapshot.tables}
        rows = [self._row(s) for s in snapshot.tables]
        tables = self.query_one(TablesList)
        tables.set_rows(rows)
        tables.display = bool(rows)
        self._focus_tables()
        self.query_one("#table-detail").display = bool(rows)
        self.query_one("#no-tables").display = not rows
        self.show_detail()
        lines = []
        for entry in snapshot.online:
            line = Text(entry.name)
            if entry.table is not None:
                where = t("lobby.watching") if entry.watch_only else t(
                    "lobby.at_table", id=entry.table)
                line.append(f" · {where}", "dim")
            lines.append(line)
        online = self.query_one("#online", TextLines)
        online.lines = tuple(lines)
        if len(lines) != self._online_count:
            self._online_count = len(lines)
            online.border_title = t("lobby.online", n=len(lines))
            online.border_subtitle = t("lobby.profiles")
        bindings_from = (bool(self.tables), self._any_waiting())  # (what check_action reads)
        if bindings_from != self._bindings_from:
            self._bindings_from = bindings_from
            self.refresh_bindings()

    def _row(self, s: TableSummary) -> TableRow:
        t = self.t
        taken = sum(1 for seat in s.seats if seat.kind != "free")
        humans = [seat.name for seat in s.seats if seat.kind == "player"]
        bots = sum(1 for seat in s.seats if seat.kind == "bot")
        players = Text(", ".join(humans))
        if bots:
            players.append(f"{' + ' if humans else ''}{t.count('n.bots', bots)}", "dim")
        return TableRow(s.id, (
            Text(s.id, "bold"),
            Text(game_title(t, s.game)),
            Text(f"{taken}/{len(s.seats)}"),
            Text(t("status.paused") if s.paused else t("status.learning")
                 if s.learn and s.status == "playing" else t(f"status.{s.status}")),
            Text(str(s.spectators) if s.spectators else ""),
            players,
        ))

    def show_detail(self) -> None:
        """The options of the table under the cursor, in full."""
        key = self.query_one(TablesList).selected_key()
        summary = self.tables.get(key) if key is not None else None
        text = Text()
        if summary is not None:
            text.append(f"{summary.id} · {game_title(self.t, summary.game)} : ", "bold")
            text.append(summarise_options(self.t, summary.game, dict(summary.options),
                                          summary.timer, summary.private))
        if text != self._detail:  # (one line: its size never changes)
            self._detail = text
            self.query_one("#table-detail", Static).update(text, layout=False)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self.show_detail()

    def show_chat(self, parts: tuple[Part, ...]) -> None:
        """A chat line, as its parts (``app.chat``)."""
        if not self.ready:
            self._chat.append(parts)
            return
        self.query_one("#lobby-chat", GameLog).add_chat(parts)

    # --- keys -----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.focused is self.query_one(ChatInput):
            return False  # typing: only the input's own keys act
        if action in PLAYER_ACTIONS and self.pioche.watch_only:
            return False
        if action == "quick":
            return parameters[0] in self.pioche.games
        if action in ("join", "watch"):
            return bool(self.tables)
        if action == "admin":
            return self.pioche.admin  # (hidden from everyone else)
        if action == "invite":  # (a local game has no server to name)
            return self.pioche.server_address is not None and self._any_waiting()
        return True

    def _any_waiting(self) -> bool:
        return any(t.status == "waiting" for t in self.tables.values())

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()

    def on_descendant_blur(self) -> None:
        self.refresh_bindings()

    def _selected(self) -> TableSummary | None:
        key = self.query_one(TablesList).selected_key()
        summary = self.tables.get(key) if key is not None else None
        if summary is None:
            self.pioche.warn(self.t("lobby.no_selection"))
        return summary

    async def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a table: sit if a seat is free, else watch."""
        event.stop()
        summary = self._selected()
        if summary is None:
            return
        if summary.status == "waiting" and summary.free_seats and not self.pioche.watch_only:
            await self.action_join()
        else:
            await self.action_watch()

    async def action_join(self) -> None:
        summary = self._selected()
        if summary is not None:
            await self._with_code(summary, lambda code: self.client.join(summary.id, code=code))

    def action_invite(self) -> None:
        summary = self._selected()
        if summary is None:
            return
        if summary.status != "waiting":  # (the command would only be refused)
            self.pioche.warn(self.t("refused.started"))
            return
        self.pioche.copy_join_command(summary.id, None, summary.private)

    async def action_watch(self) -> None:
        summary = self._selected()
        if summary is not None:
            await self._with_code(summary, lambda code: self.client.watch(summary.id, code))

    async def _with_code(self, summary: TableSummary,
                         request: Callable[[str | None], Awaitable[None]]) -> None:
        """Make ``request`` (with the code of a private table, asked first: the window tries
        each code typed and stays open, saying why, until one is taken or the player gives
        up)."""
        if not summary.private:
            await self.pioche.call(request, None)
            return
        from .dialogs import CodePrompt

        self.app.push_screen(CodePrompt(summary.id, lambda code: self.pioche.attempt(
            request, code)))

    async def action_quick(self, game: str) -> None:
        await self.pioche.call(self.client.quick_play, game)

    async def action_learn(self) -> None:
        """« Apprendre »: the game to learn, then a learn table (``Coordinator.learn``)."""
        from .learn import LearnDialog

        async def chosen(game: str | None) -> None:
            if game is not None:
                await self.pioche.call(self.client.learn, game)

        await self.pioche.load_learning()  # (the window says how many were explained)
        self.app.push_screen(LearnDialog(), chosen)

    def action_new_table(self) -> None:
        from .create import CreateTableScreen

        self.app.push_screen(self.pioche.reusable(
            "create", lambda: CreateTableScreen(self.pioche.server_info, self._create)))

    async def _create(self, request: TableRequest) -> str | None:
        """The create dialog's request: None when the table is made, else why not (the
        dialog shows it and stays open)."""
        return await self.pioche.attempt(
            self.client.create_table, request.game, seats=request.seats,
            options=request.options, bots=request.bots, timer=request.timer,
            private=request.private,
        )

    def action_admin(self) -> None:
        from .admin import AdminScreen

        self.app.push_screen(AdminScreen(self.client))

    def action_scores(self) -> None:
        from .scores import ScoresScreen

        self.app.push_screen(self.pioche.reusable(
            "scores", lambda: ScoresScreen(self.client, self.pioche.games)))

    def action_profiles(self) -> None:
        """A profile: of one of the players online (the list beside the tables)."""
        snapshot = self.snapshot
        names = tuple(entry.name for entry in snapshot.online) if snapshot is not None else ()
        self.pioche.pick_profile(names)

    def action_settings(self) -> None:
        from .settings import SettingsScreen

        before = self.pioche.prefs

        async def closed(_: None) -> None:
            if self.pioche.prefs != before:
                await self.pioche.save_prefs()
            self.pioche.follow_language()

        self.app.push_screen(SettingsScreen(), closed)

    def action_help(self) -> None:
        self.pioche.show_help(self, self.pioche.games)

    def action_chat(self) -> None:
        self.query_one(ChatInput).focus()

    async def on_chat_input_send(self, event: ChatInput.Send) -> None:
        await self.pioche.say(event.text)

    def on_chat_input_done(self) -> None:
        self.set_focus(None)
        self._focus_tables()

    def on_screen_resume(self) -> None:
        if self.ready and not isinstance(self.focused, ChatInput):
            self._focus_tables()

    def _focus_tables(self) -> None:
        """The list of tables takes the keys (arrows, Enter) when there is one, unless the
        player is typing."""
        tables = self.query_one(TablesList)
        if tables.display and not isinstance(self.focused, ChatInput):
            # At once, not as widget.focus() does (later): the list may be hidden before then,
            # and a focused widget that is hidden hands the focus on to the chat.
            self.set_focus(tables)
        elif not tables.display and self.focused is tables:
            self.set_focus(None)
