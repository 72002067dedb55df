"""A table, for any game: the header, the spectator banner, the waiting room, the log, the
table chat, the turn timer, leaving, help and the final podium.

A game's screen subclasses :class:`TableScreen`: it composes its widgets above and below the log
(``compose_board``, ``compose_controls``), shows each new view (``show_view``), says which of its
keys act now (``check_game_action``, and what they depend on: ``key_state``). A view with an
``outcome`` field gets the podium. Without a subclass this screen still shows any game's seats
and log. docs/screens.md says more.

Updates arrive latest-wins; each widget is given only its slice of the view and repaints only
the rows that changed. An update that comes while a window covers the screen (help, a question)
is held, with its events, until the screen is on top again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult, CSSPathType
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from widgets.chat import ChatInput
from widgets.keybar import KeyBar
from widgets.lines import TextLines
from widgets.log import GameLog
from widgets.timer import TitleBar

from ...coordinator.client import CoordinatorClient
from ...coordinator.model import Refused, SeatInfo, TableUpdate
from ...coordinator.text import CHAT_MAX
from ...engine.base import Event, Outcome
from ...narrate import narrator, tell
from ..chat import Part
from ..games import game_title
from .base import PiocheScreen

if TYPE_CHECKING:
    from .podium import PodiumScreen

# Keys every table screen has:
TABLE_ACTIONS = {"start", "chat", "leave", "help", "log_page", "profiles"}
LEARN_ID = "learn-hint"  # a learn table's line of explanation (app/learn.py)
PANEL_SECONDS = 15.0  # how long a panel stays in the log's place, unless told otherwise
RESUME_NOTICE_SECONDS = 10.0  # a guest's resume command in a notice (it covers the hand's end)
SAME_DEADLINE = 0.05  # seconds: two deadlines closer than this are one turn's (``show_update``)


class TableScreen(PiocheScreen[None]):
    CSS_PATH: ClassVar[CSSPathType | None] = "table.tcss"
    AUTO_FOCUS = ""  # nothing: a game's screen names its main widget
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "start", "key.start", tooltip="help.start"),
        Binding("I", "invite", "key.invite", tooltip="help.invite"),
        Binding("c", "chat", "key.chat", tooltip="help.chat"),
        Binding("l", "leave", "key.leave", tooltip="help.leave"),
        Binding("question_mark", "help", "key.help"),
        Binding("escape", "hide_panel", "key.close", tooltip="help.close_panel"),
        # Not in the key bar (it is full): the help lists them.
        Binding("pageup", "log_page(-1)", "key.log_back", tooltip="help.log_back", show=False),
        Binding("pagedown", "log_page(1)", "key.log_forward", tooltip="help.log_forward",
                show=False),
        Binding("h", "hints", "key.hints", tooltip="help.hints"),
        # (not a letter: a spectator typing without opening the chat opens nothing)
        Binding("ctrl+p", "profiles", "key.profile", tooltip="help.profile", show=False),
        # A spectator's way out is not a letter: a spectator who types, not knowing c opens
        # the chat, must not be sent away by the « l » of « hello ». (Escape closes the
        # round's summary first, when it is shown: check_action.)
        Binding("escape", "leave_watching", "key.leave", tooltip="help.leave_watching"),
    ]

    def __init__(self, client: CoordinatorClient, update: TableUpdate) -> None:
        super().__init__()
        self.client = client
        self.update = update
        self.deadline = self.local_deadline(update)
        self.table_id = update.table.id
        self.names: tuple[str, ...] = ()
        self._keys: tuple[Any, ...] = ()
        self._podium_shown = False
        self._podium: PodiumScreen | None = None  # (it shows the rematch as it goes)
        self._panel_timer: Timer | None = None
        self._acting: int | None = None  # the step of the move on its way (``act``)
        self._question: tuple[Screen[Any], int] | None = None  # ``ask_for_turn``'s, its step
        self._chat: list[tuple[Part, ...]] = []  # lines that came before the screen was up
        self.ready = False  # the widgets exist (is_mounted turns True only after on_mount)
        # Events not shown yet: what happened before we came (once), then the news.
        self._history: tuple[Event, ...] = update.history
        self._backlog: list[Event] = list(update.events)
        self._narrate = narrator(update.table.game)
        self._resume_shown: str | None = None  # the resume command on the log's edge
        self.hint: str | None = None  # the learn table's explanation shown (a situation's id)

    @property
    def seat(self) -> int | None:
        return self.update.seat

    def name_of(self, seat: int | None) -> str:
        """A seat's name ("?" for none)."""
        names = self.names
        return names[seat] if seat is not None and 0 <= seat < len(names) else "?"

    @property
    def started(self) -> bool:
        return self.update.view is not None

    @property
    def chatting(self) -> bool:
        return self.focused is not None and isinstance(self.focused, ChatInput)

    # --- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # No containers around the game's widgets: every widget between the highest and the
        # lowest row an update repaints is drawn again, so fewer widgets cost less.
        t = self.t
        yield TitleBar(t("table.timer"), id="title")
        yield Static(t("table.spectator"), id="banner", markup=False)
        with Vertical(id="waiting"):
            yield Static(id="waiting-title", classes="title", markup=False)
            yield TextLines(id="waiting-seats")
            yield Static(id="waiting-hint", markup=False)
        for widget in self.compose_board():
            widget.add_class("game")
            yield widget
        yield GameLog(lambda n: t.count("log.below", n), id="log")
        yield Static(id="panel")
        yield Static(id=LEARN_ID, markup=False)
        for widget in self.compose_controls():
            widget.add_class("game")
            yield widget
        yield ChatInput(placeholder=t("chat.placeholder"), max_length=CHAT_MAX, id="chat-input")
        yield KeyBar()

    def compose_board(self) -> Iterable[Widget]:
        """The game's widgets above the log (the waiting room takes their place before the
        game starts)."""
        yield TextLines(id="seats")

    def compose_controls(self) -> Iterable[Widget]:
        """The game's widgets below the log (hidden before the game starts)."""
        yield from ()

    @property
    def covered(self) -> bool:
        """Another screen is on top of this one."""
        stack = self.app.screen_stack
        return self in stack and stack[-1] is not self

    def on_mount(self) -> None:
        self.ready = True
        self.title_bar = self.query_one(TitleBar)
        self.log_widget = self.query_one("#log", GameLog)
        self.panel = self.query_one("#panel", Static)
        self.panel.display = False
        self.learn_line = self.query_one(f"#{LEARN_ID}", Static)
        self.learn_line.display = False
        self._catch_up()
        for parts in self._chat:
            self.show_chat(parts)
        self._chat.clear()

    def on_screen_resume(self) -> None:
        if self.ready:
            self._catch_up()

    def _catch_up(self) -> None:
        """Show the newest update with every event held back meanwhile."""
        backlog, self._backlog = tuple(self._backlog), []
        self._show(replace(self.update, events=backlog))

    # --- updates --------------------------------------------------------------------------

    @staticmethod
    def local_deadline(update: TableUpdate) -> float | None:
        """The update's turn timer as a deadline on this loop's clock: the time left crossed
        the seam as a duration (``TableUpdate.time_left``), good at the moment the mailbox was
        read, which is now."""
        if update.time_left is None:
            return None
        return asyncio.get_running_loop().time() + update.time_left

    def ask_for_turn(self, question: Screen[Any], answered: Callable[[Any], None]) -> None:
        """Open ``question`` (a dialog) about the turn at hand: once the game has left this
        step (the turn timer ran out: its stand-in chose or played, or another player moved)
        it is asked no more, closed as unanswered (``answered(None)``). Left open, it would
        cover this screen, which keeps every update back meanwhile: the game would go on
        unseen, to its end."""
        self._question = (question, self.update.step)
        self.pioche.open(question, answered)

    def _drop_stale_question(self, update: TableUpdate) -> None:
        if self._question is None:
            return
        question, step = self._question
        stack = self.app.screen_stack
        if question not in stack:  # (answered)
            self._question = None
        elif update.step != step and stack[-1] is question:  # (not under the too-small one)
            self._question = None
            question.dismiss(None)

    def show_update(self, update: TableUpdate) -> None:
        """Show an update just taken from the mailbox. Within a turn, each update's deadline
        differs from the last by a float's noise (each is now plus the time left, both read
        anew): the last is kept, so that the title bar's timer is not set again at every
        update (its watcher would repaint it and plan its next wake-up each time)."""
        deadline = self.local_deadline(update)
        if (deadline is not None and self.deadline is not None
                and abs(deadline - self.deadline) < SAME_DEADLINE):
            deadline = self.deadline
        self.deadline = deadline
        self._show(update)

    def _show(self, update: TableUpdate) -> None:
        self.update = update
        podium = self._podium
        if podium is not None and podium in self.app.screen_stack:
            podium.show_rematch(update)
        if self.ready and self.covered:
            self._drop_stale_question(update)
        if not self.ready or self.covered:
            # Not shown yet, or under a window (help, a question): a change to a screen under
            # another costs a repaint of the whole stack, many times a normal update's. Keep
            # the newest view and the events; they are shown when this screen is back on top.
            self._backlog.extend(update.events)
            return
        self.names = tuple(seat.name for seat in update.table.seats)
        self.show_resume_command(update)
        started = self.started
        self.set_class(not started, "-waiting")
        self.set_class(update.seat is None, "-spectator")
        self.title_bar.title = self.header_text(update)
        self.title_bar.deadline = self.deadline
        if self._history:  # what happened before we came, once, before the news
            history, self._history = self._history, ()
            self.log_widget.add_lines(self.narrate(history))
        if started:
            self.show_view(update)
            if update.events:
                self.log_widget.add_lines(self.log_lines(update))
            self.show_hint(update)
            outcome = self.outcome(update)
            if outcome is not None and not self._podium_shown:
                self._podium_shown = True
                why = self.end_reason(update)
                self.show_podium(outcome, self.t("tev.end", why=why) if why else "",
                                 None if update.table.learn else update.table.unrated)
        else:
            self.show_waiting(update)
        self.sync_keys()

    # --- a learn table's explanations (app/learn.py) ----------------------------------------

    @property
    def learning(self) -> bool:
        """Explanations are shown here: a learn table, its player (not a spectator), on."""
        return (self.update.table.learn and self.seat is not None
                and self.pioche.learning.on)

    def show_hint(self, update: TableUpdate) -> None:
        """The first situation not yet explained to this player, if any, on the line above
        the game's controls (the situations come most pressing first). A line shown stays
        until the player acts, unless the player has something to decide (or the game
        ends) and a more pressing explanation, or its own situation is over: while the bots
        play, their moves follow each other faster than a line is read."""
        if not self.learning or self.seat is None:
            return
        if (self.hint is not None and self.seat not in update.to_act
                and self.outcome(update) is None):
            return  # (the bots play: the line shown stays)
        from ..learn import first_unseen, situations

        holding = situations(update.table.game, update.view, self.seat, update.events)
        memory = self.pioche.learning
        found = first_unseen(holding, memory.seen)
        if self.hint is not None:
            ids = [s.id for s in holding]
            if self.hint in ids and (found is None or ids.index(found.id) > ids.index(
                    self.hint)):
                return
        if found is None:
            self.clear_hint()  # (what it said is over)
            return
        memory.note(found.id)
        self.hint = found.id
        self.learn_line.update(self.t(found.key, **dict(found.params)))
        self.learn_line.display = True

    def clear_hint(self) -> None:
        """The player acted: the explanation of what they were deciding has served."""
        if self.hint is not None and self.ready:
            self.hint = None
            self.learn_line.display = False

    def action_hints(self) -> None:
        """Explanations off (the line goes), or on again (the next new situation shows)."""
        memory = self.pioche.learning
        memory.on = not memory.on
        if not memory.on:
            self.clear_hint()
        elif self.started:  # the situation at hand, explained now if it is new
            self.show_hint(replace(self.update, events=()))
        self.pioche.notify(self.t("learn.table_on" if memory.on else "learn.table_off"),
                           markup=False)

    def show_resume_command(self, update: TableUpdate) -> None:
        """A guest's way back to their seat while they play, on the log's top edge (and the
        panel's, which takes the log's place), and in a notice when it first shows: the one
        thing that gives the seat back after a drop (``PiocheApp.resume_command``). Not in a
        waiting room, where a player who drops leaves the seat. The notice covers the hand's
        right end: it is short, and not shown to a guest who came back with the command."""
        playing = update.seat is not None and update.view is not None
        command = self.pioche.resume_command() if playing else None
        if self._resume_shown == command:
            return
        self._resume_shown = command
        title = Text(self.t("resume.title", command=command)) if command else None
        self.log_widget.border_title = title
        self.panel.border_title = title
        if command and self.pioche.resume_token is None:  # (back with it: they have it)
            self.pioche.notify(self.t("resume.notice", command=command), markup=False,
                               timeout=RESUME_NOTICE_SECONDS)

    def header_text(self, update: TableUpdate) -> Text:
        summary = update.table
        text = Text(self.t("table.header", game=game_title(self.t, summary.game),
                           id=summary.id), "bold")
        if update.view is not None:  # the move number, as pioche replay numbers moves
            text.append("  ·  " + self.t("table.move", n=update.step))
        extra = self.header_extra(update)
        if extra:
            text.append("  ·  " + extra)
        if summary.paused:  # the log cannot be written: no move until it can (a notice says so)
            text.append("  ·  ")
            text.append(self.t("table.paused"), "bold reverse")
        return text

    def header_extra(self, update: TableUpdate) -> str:
        """Game details for the header (a round, a target)."""
        return ""

    def show_view(self, update: TableUpdate) -> None:
        """Show a started game's view. The generic screen lists the seats."""
        self.query_one("#seats", TextLines).lines = tuple(
            self.seat_label(i, seat) for i, seat in enumerate(update.table.seats))

    def narrate(self, events: Iterable[Event]) -> list[str]:
        """The game's and the table's events as lines of the log, for this screen's eyes."""
        return tell(tuple(events), self.names, self.t, self.seat, self._narrate)

    def log_lines(self, update: TableUpdate) -> list[str | Text]:
        """The lines an update adds to the log: its events told, the round's summary after the
        event that ends a round (``round_summary_at``), why the game ended after its end."""
        events = update.events
        summary = self.round_summary_at(update)
        if summary is None:
            lines: list[str | Text] = [*self.narrate(events)]
        else:
            start, end, rows = summary
            lines = [*self.narrate(events[:start]), *rows, *self.narrate(events[end:])]
        why = self.end_reason(update) if any(e.kind == "game_end" for e in events) else ""
        if why:
            lines.append(self.t("tev.end", why=why))
        return lines

    def round_summary_at(self, update: TableUpdate) -> tuple[int, int, list[Text]] | None:
        """The summary of a round that just ended, in the log: it takes the place of
        ``update.events[start:end]`` (often none: ``start == end``), as ``(start, end,
        lines)``; None when no round ended. The next round's lines follow it: it hides nothing
        while the next round's clock runs (docs/screens.md)."""
        return None

    def end_reason(self, update: TableUpdate) -> str:
        """Why the game ended (« alice a rempli sa feuille »), from the final view; "" when
        the game does not say."""
        return ""

    def outcome(self, update: TableUpdate) -> Outcome | None:
        """The game's result once it is over: the view's ``outcome`` field, when it has one."""
        outcome = getattr(update.view, "outcome", None)
        return outcome if isinstance(outcome, Outcome) else None

    def seat_marks(self, index: int, seat: SeatInfo) -> list[str]:
        """What to say beside a seat's name: you, bot, away."""
        t = self.t
        marks = []
        if index == self.seat:
            marks.append(t("table.you"))
        if seat.kind == "bot":
            marks.append(t("table.bot"))
        if seat.away:
            marks.append(t("table.away"))
        return marks

    def seat_label(self, index: int, seat: SeatInfo) -> Text:
        """A seat's name with its marks: you, bot, away. Names are user text: Text only."""
        t = self.t
        if seat.kind == "free":
            return Text(t("table.seat_free"), "dim")
        text = Text(seat.name, "bold" if index == self.seat else "")
        marks = self.seat_marks(index, seat)
        if marks:
            text.append(f" ({', '.join(marks)})", "dim")
        return text

    def show_waiting(self, update: TableUpdate) -> None:
        t = self.t
        summary = update.table
        free = summary.free_seats
        self.query_one("#waiting-title", Static).update(
            f"{t('table.waiting')} — {t.count('table.free_seats', free)}")
        self.query_one("#waiting-seats", TextLines).lines = tuple(
            Text(f"{i + 1}. ").append_text(self.seat_label(i, seat))
            for i, seat in enumerate(summary.seats))
        hints: list[str] = []
        if update.seat is not None:
            if self.is_creator:
                hints.append(t("table.can_start"))
            else:
                hints.append(t("table.wait_creator", name=summary.creator))
            if update.code:
                hints.append(t("table.code", code=update.code))
        self.query_one("#waiting-hint", Static).update("\n".join(hints))

    @property
    def is_creator(self) -> bool:
        return self.seat is not None and self.update.creator

    def show_chat(self, parts: tuple[Part, ...]) -> None:
        """A chat line, as its parts (``app.chat``)."""
        if not self.ready:
            self._chat.append(parts)
            return
        self.log_widget.add_chat(parts)

    def show_panel(self, content: RenderableType, seconds: float = PANEL_SECONDS) -> None:
        """Show ``content`` where the log is, for ``seconds`` or until Escape; the game's
        keys keep working meanwhile (a window on top would hold them)."""
        self.panel.update(content)
        self.panel.display = True
        self.log_widget.display = False
        if self._panel_timer is not None:
            self._panel_timer.stop()
        self._panel_timer = self.set_timer(seconds, self.action_hide_panel)
        self.sync_keys()

    def action_hide_panel(self) -> None:
        if self._panel_timer is not None:
            self._panel_timer.stop()
            self._panel_timer = None
        self.panel.display = False
        self.log_widget.display = True
        self.sync_keys()

    def show_podium(self, outcome: Outcome, reason: str = "", unrated: str | None = None
                    ) -> None:
        from .podium import PodiumScreen

        async def closed(leave: bool | None) -> None:
            self._podium = None
            if leave:
                await self.action_leave()

        self._podium = PodiumScreen(self.names, outcome, reason, unrated, self.update)
        self.pioche.open(self._podium, closed)

    # --- keys -----------------------------------------------------------------------------

    def sync_keys(self) -> None:
        """Refresh the key bar only when what decides the keys has changed (working out the
        active keys themselves costs more than a whole update)."""
        if not self.ready:  # not mounted (or closed before it was shown)
            return
        keys = self.key_state()
        if keys != self._keys:
            self._keys = keys
            self.refresh_bindings()

    def key_state(self) -> tuple[Any, ...]:
        """Everything ``check_action`` reads: a game's screen adds its own."""
        return (self.started, self.is_creator, self.chatting, self.seat,
                self._panel_timer is not None)

    def on_descendant_focus(self) -> None:
        self.sync_keys()

    def on_descendant_blur(self) -> None:
        self.sync_keys()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.chatting:
            return False
        if action == "start":
            return not self.started and self.is_creator
        if action == "invite":  # a waiting room's player (a local game has no server to name)
            return (not self.started and self.seat is not None
                    and self.pioche.server_address is not None)
        if action == "chat":
            return not self.pioche.watch_only
        if action == "leave":
            return self.seat is not None
        if action == "leave_watching":
            return self.seat is None and self._panel_timer is None
        if action in TABLE_ACTIONS:
            return True
        if action == "hide_panel":
            return self._panel_timer is not None
        if action == "hints":
            return self.update.table.learn and self.seat is not None
        if self.seat is None or not self.started:
            return False  # spectators and waiting rooms: no game key acts
        return self.check_game_action(action, parameters)

    def check_game_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Whether the game's own key ``action`` acts now (the player is seated, the game on)."""
        return False

    def action_invite(self) -> None:
        table = self.update.table
        self.pioche.copy_join_command(table.id, self.update.code, table.private)

    def act(self, action: Any) -> None:
        """Send an action for this view's step, and go on. A key pressed again while the
        move for this step is on its way sends nothing (it would be refused: the step moves
        on with the first); one pressed once it was answered, before the new view came, is
        refused as « stale » by the coordinator, and not shown: a newer view is on its way."""
        step = self.update.step
        if self._acting == step:
            return
        self._acting = step
        self.pioche.send(self._act(action, step))

    async def _act(self, action: Any, step: int) -> None:
        try:
            await self.client.act(action, step)
        except Refused as e:
            if e.code != "stale":
                self.pioche.warn(self.t.refusal(e))
            return
        finally:
            if self._acting == step:
                self._acting = None
        self.clear_hint()

    async def action_start(self) -> None:
        await self.pioche.call(self.client.start)

    async def action_leave(self) -> None:
        """Back to the lobby. A player in a game in progress is asked first, and told that
        the stand-in plays their seat to the end; a waiting room, a finished game and a
        spectator's table are left at once (nothing is lost)."""
        playing = self.seat is not None and self.update.table.status == "playing"
        if not playing:
            await self.pioche.call(self.client.leave)
            return
        from .dialogs import Confirm

        async def answered(yes: bool | None) -> None:
            if yes:
                await self.pioche.call(self.client.leave)

        self.app.push_screen(Confirm(self.t("confirm.leave"), self.t("confirm.leave_seat")),
                             answered)

    async def action_leave_watching(self) -> None:
        await self.pioche.call(self.client.leave)

    def action_log_page(self, pages: int) -> None:
        """PageUp/PageDown: back and forth through the log (when it is shown)."""
        if self.log_widget.display:
            self.log_widget.page(pages)

    def action_help(self) -> None:
        self.pioche.show_help(self, (self.update.table.game,))

    def action_profiles(self) -> None:
        """A profile: of one of the table's players (its bots have none)."""
        self.pioche.pick_profile(tuple(
            seat.name for seat in self.update.table.seats if seat.kind == "player"))

    def action_chat(self) -> None:
        # The input's own display, not a class on the screen: a screen's class restyles every
        # widget on it (most of the cost of this key).
        chat = self.query_one(ChatInput)
        chat.display = True
        chat.focus()

    async def on_chat_input_send(self, event: ChatInput.Send) -> None:
        await self.pioche.say(event.text)

    def on_chat_input_done(self) -> None:
        self.query_one(ChatInput).display = False
        self.focus_game()

    def focus_game(self) -> None:
        """Give the keys back to the game's main widget (none in the generic screen)."""
        self.set_focus(None)
