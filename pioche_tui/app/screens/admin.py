"""The Admin screen (« Admin »): who is online, the tables, the bans, and the operator's actions.

Shown only to admins (the lobby's key appears when the coordinator says the player is one:
``PiocheApp.admin``); every request is checked again by the coordinator
(``coordinator/admin.py``), so a client that shows it anyway is refused.
"""

from __future__ import annotations

import contextlib
import time
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Input, Static
from textual.widgets.data_table import CellDoesNotExist, RowDoesNotExist

from widgets.keybar import KeyBar

from ...coordinator.client import CoordinatorClient
from ...coordinator.model import AdminView, Refused
from ...coordinator.text import duration, idle_text
from ..games import game_title
from .base import PiocheScreen

REFRESH = 5.0  # seconds between two looks at the server while the screen is shown
KEY_SHOWN = 19  # characters of a key's fingerprint shown (« SHA256: » and 12 more)
# What the line at the bottom asks for, by the action that needs text.
ASKS = {"ban": "admin.ask_duration", "broadcast": "admin.ask_broadcast",
        "motd": "admin.ask_motd"}


class AdminScreen(PiocheScreen[None]):
    CSS_PATH = "admin.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "switch", "key.admin_switch", show=False),
        Binding("k", "kick", "key.admin_kick"),
        Binding("b", "ask('ban')", "key.admin_ban"),
        Binding("x", "close_table", "key.admin_close"),
        Binding("r", "ask('broadcast')", "key.admin_broadcast"),
        Binding("m", "ask('motd')", "key.admin_motd"),
        Binding("escape", "back", "key.back"),
    ]

    def __init__(self, client: CoordinatorClient) -> None:
        super().__init__()
        self.client = client
        self.view: AdminView | None = None
        self.asking: str | None = None  # the action the input line is for
        self.target = ""  # the ban's target while its duration is asked

    def compose(self) -> ComposeResult:
        t = self.t
        yield Static(id="admin-header", markup=False)
        sessions: DataTable[Text] = DataTable(id="admin-sessions", cursor_type="row",
                                              zebra_stripes=True)
        sessions.border_title = t("admin.online")
        yield sessions
        tables: DataTable[Text] = DataTable(id="admin-tables", cursor_type="row",
                                            zebra_stripes=True)
        tables.border_title = t("admin.tables")
        yield tables
        yield Static(id="admin-status", markup=False)
        yield Input(id="admin-input")
        yield KeyBar()

    def on_mount(self) -> None:
        t = self.t
        sessions = self.query_one("#admin-sessions", DataTable)
        for key in ("name", "key", "address", "table", "idle"):
            sessions.add_column(t(f"admin.col.{key}"), key=key)
        tables = self.query_one("#admin-tables", DataTable)
        for key in ("id", "game", "status", "step", "spectators", "seats"):
            tables.add_column(t(f"admin.col.{key}"), key=key)
        self.query_one("#admin-input", Input).display = False
        self.set_interval(REFRESH, self.refresh_view)

    async def on_screen_resume(self) -> None:
        await self.refresh_view()

    async def refresh_view(self) -> None:
        """Ask the coordinator again; a refusal (no longer an admin) closes the screen."""
        try:
            view = await self.client.admin_view()
        except Refused as refusal:
            self.pioche.warn(self.t.refusal(refusal))
            self.dismiss(None)
            return
        self.show(view)

    def show(self, view: AdminView) -> None:
        self.view = view
        t = self.t
        self.query_one("#admin-header", Static).update(Text(t(
            "admin.header", n=len(view.sessions), tables=len(view.tables)), "bold"))
        sessions = self.query_one("#admin-sessions", DataTable)
        selected = self._selected(sessions)
        sessions.clear()
        for s in view.sessions:
            key = s.identity if s.identity.startswith("SHA256:") else t("admin.guest")
            if len(key) > KEY_SHOWN:
                key = key[:KEY_SHOWN] + "…"
            sessions.add_row(Text(s.name + (t("admin.watcher") if s.watch_only else "")), Text(key),
                             Text(s.address), Text(s.table or ""), Text(idle_text(s.idle)),
                             key=s.name)
        self._reselect(sessions, selected)
        tables = self.query_one("#admin-tables", DataTable)
        selected = self._selected(tables)
        tables.clear()
        for table in view.tables:
            tables.add_row(Text(table.id, "bold"), Text(game_title(t, table.game)),
                           Text(t(f"status.{table.status}")), Text(str(table.step)),
                           Text(str(table.spectators) if table.spectators else ""),
                           Text(", ".join(table.seats)), key=table.id)
        self._reselect(tables, selected)
        status = Text()
        status.append(t("admin.motd"), "bold")
        status.append(view.motd or t("admin.no_motd"), "" if view.motd else "dim")
        status.append("\n")
        status.append(t("admin.bans"), "bold")
        if view.bans:
            status.append(" · ".join(
                f"{ban.value[:KEY_SHOWN]} ({self._until(ban.until)})" for ban in view.bans))
        else:
            status.append(t("admin.no_bans"), "dim")
        self.query_one("#admin-status", Static).update(status)

    def _until(self, until: float | None) -> str:
        if until is None:
            return self.t("admin.forever")
        return time.strftime("%d/%m %H:%M", time.gmtime(until))

    @staticmethod
    def _selected(table: DataTable[Text]) -> str | None:
        if not table.row_count:
            return None
        try:
            return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        except CellDoesNotExist:  # (no row under the cursor)
            return None

    @staticmethod
    def _reselect(table: DataTable[Text], key: str | None) -> None:
        if key is None:
            return
        with contextlib.suppress(RowDoesNotExist):  # (that row is gone)
            table.move_cursor(row=table.get_row_index(key))

    def _session(self) -> str | None:
        name = self._selected(self.query_one("#admin-sessions", DataTable))
        if name is None:
            self.pioche.warn(self.t("admin.pick_session"))
        return name

    # --- keys -------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # (typing: only the input's own keys act, and Escape)
        return self.asking is None or action == "back"

    def action_switch(self) -> None:
        sessions = self.query_one("#admin-sessions", DataTable)
        tables = self.query_one("#admin-tables", DataTable)
        (tables if sessions.has_focus else sessions).focus()

    async def act(self, action: str, target: str = "", seconds: float | None = None) -> None:
        try:
            done = await self.client.admin_act(action, target, seconds)
        except Refused as refusal:
            self.pioche.warn(self.t.refusal(refusal))
        else:
            self.notify(done, markup=False)
        await self.refresh_view()

    async def action_kick(self) -> None:
        name = self._session()
        if name is not None:
            await self.act("kick", name)

    async def action_close_table(self) -> None:
        table_id = self._selected(self.query_one("#admin-tables", DataTable))
        if table_id is None:
            self.pioche.warn(self.t("admin.pick_table"))
            return
        await self.act("close", table_id)

    def action_ask(self, action: str) -> None:
        if action == "ban":
            name = self._session()
            if name is None:
                return
            self.target = name
        field = self.query_one("#admin-input", Input)
        field.placeholder = self.t(ASKS[action], name=self.target)
        field.value = self.view.motd if action == "motd" and self.view is not None else ""
        field.display = True
        self.asking = action
        field.focus()
        self.refresh_bindings()

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        action, text = self.asking, event.value
        self._stop_asking()
        if action == "ban":
            try:
                seconds = duration(text)
            except ValueError:
                self.pioche.warn(self.t("admin.bad_duration"))
                return
            await self.act("ban", self.target, seconds)
        elif action is not None:
            await self.act(action, text)

    def _stop_asking(self) -> None:
        field = self.query_one("#admin-input", Input)
        field.display = False
        self.asking = None
        self.query_one("#admin-sessions", DataTable).focus()
        self.refresh_bindings()

    def action_back(self) -> None:
        if self.asking is not None:
            self._stop_asking()
        else:
            self.dismiss(None)
