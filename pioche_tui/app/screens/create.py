"""The create-table dialog: the game, the seats (free, or which bot), the timer, privacy and
every option of the chosen game."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.validation import Number
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Select, Static

from widgets.keybar import KeyBar
from widgets.toggle import Toggle

from ...coordinator.model import ServerInfo
from ...i18n import MESSAGES
from ..games import OptionSpec, game_title, game_ui
from .base import Dialog

TIMERS = (30.0, 60.0, 90.0, 120.0, 300.0)  # seconds offered, with the server's default
NO_TIMER = 0.0
FREE = "free"  # a seat left for a player


@dataclass(frozen=True)
class TableRequest:
    """What the player asked for, ready for ``CoordinatorClient.create_table``."""

    game: str
    seats: int
    timer: float | None
    private: bool
    options: dict[str, Any] = field(default_factory=dict)
    bots: dict[int, str] = field(default_factory=dict)


class CreateTableScreen(Dialog[TableRequest | None]):
    """Built once per app (``PiocheApp.reusable``): opened again, it shows the choices made
    last time. ``attempt`` makes the table asked for: None when it is made (the dialog closes
    with the request), else why not, shown in the dialog, which stays open with every choice
    as it was."""

    CSS_PATH = "create.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "app.focus_next", "key.next_field", show=True),
        Binding("ctrl+s", "create", "key.create"),
    ]

    def __init__(self, server: ServerInfo,
                 attempt: Callable[[TableRequest], Awaitable[str | None]]) -> None:
        super().__init__()
        self.attempt = attempt
        self.games = {game.name: game for game in server.games}
        # The server's default comes first and as it is (``--turn-timer`` may be 5 s, or 7.5):
        # the coordinator always accepts it. The others are offered only if it accepts them.
        self.default_timer = server.turn_timer or NO_TIMER
        self.timers = sorted({self.default_timer, *(
            n for n in TIMERS if server.timer_allowed(n))} - {NO_TIMER})
        self.game = "defausse" if "defausse" in self.games else next(iter(self.games))
        self.seat_choices: dict[int, str] = {}  # seat → FREE or a bot's name, kept across changes
        self.option_widgets: dict[str, Widget] = {}  # the game's options, by name

    def compose(self) -> ComposeResult:
        t = self.t
        with Vertical(id="create-box") as box:
            box.border_title = t("create.title")
            with VerticalScroll(id="create-form"):
                with Horizontal(classes="pair"):
                    yield self._row("create.game", Select(
                        [(game_title(t, name), name) for name in self.games], value=self.game,
                        allow_blank=False, compact=True, id="game"))
                    yield self._row("create.timer", Select(
                        [(t("create.no_timer"), NO_TIMER)]
                        + [(t("create.seconds", n=f"{n:g}"), n) for n in self.timers],
                        value=self.default_timer, allow_blank=False, compact=True, id="timer"))
                with Horizontal(classes="pair"):
                    yield self._row("create.seats", Select(
                        [], prompt=t("create.select"), allow_blank=True, compact=True,
                        id="seat-count"))
                    yield Toggle(t("create.private"), id="private")
                yield Static(t("create.seats_hint"), classes="muted hint", markup=False)
                yield Grid(id="seats")
                yield Static(t("create.options"), id="options-title", classes="title",
                             markup=False)
                yield Vertical(id="game-options")
            yield Static(id="create-error", classes="error", markup=False)
            with Horizontal(id="create-buttons"):
                yield Button(t("key.create").capitalize(), variant="primary", id="create",
                             compact=True)
                yield Button(t("key.cancel").capitalize(), id="cancel", compact=True)
            yield KeyBar()

    def _row(self, label: str, widget: Widget) -> Horizontal:
        return Horizontal(Label(self.t(label), markup=False), widget, classes="row")

    async def on_mount(self) -> None:
        await self._game_changed()

    def on_screen_resume(self) -> None:
        self.query_one("#create-error", Static).update("")
        self.query_one("#game", Select).focus()

    async def _game_changed(self) -> None:
        engine = self.games[self.game]
        count = self.query_one("#seat-count", Select)
        seats = min(max(4, engine.min_seats), engine.max_seats)
        with self.prevent(Select.Changed):
            count.set_options([(str(n), n) for n in range(engine.min_seats,
                                                          engine.max_seats + 1)])
            count.value = seats
        await self._fill_seats(seats)
        await self._fill_options()

    def _seat_count(self) -> int:
        count = self.query_one("#seat-count", Select).value
        return count if isinstance(count, int) else self.games[self.game].min_seats

    async def _fill_seats(self, n: int) -> None:
        t = self.t
        box = self.query_one("#seats", Grid)
        await box.remove_children()
        choices = [(t("create.human"), FREE)] + [
            (t("create.bot", bot=self._bot_label(bot)), bot)
            for bot in self.games[self.game].bots
        ]
        rows: list[Widget] = [Horizontal(Label(t("create.seat", n=1), markup=False),
                                         Label(t("create.you"), markup=False), classes="row")]
        for seat in range(1, n):
            value = self.seat_choices.get(seat, FREE)
            rows.append(self._row_for_seat(seat, Select(
                choices, value=value, allow_blank=False, compact=True, name=f"seat-{seat}")))
        await box.mount_all(rows)

    def _row_for_seat(self, seat: int, widget: Widget) -> Horizontal:
        return Horizontal(Label(self.t("create.seat", n=seat + 1), markup=False), widget,
                          classes="row")

    def _bot_label(self, bot: str) -> str:
        key = f"bot.{bot}"
        return self.t(key) if key in MESSAGES else bot

    async def _fill_options(self) -> None:
        box = self.query_one("#game-options", Vertical)
        await box.remove_children()
        self.option_widgets = {}
        rows = [self._option_row(spec) for spec in game_ui(self.game).options]
        self.query_one("#options-title").display = bool(rows)
        await box.mount_all(rows)

    def _option_row(self, spec: OptionSpec) -> Widget:
        """The option's widget (kept in ``option_widgets``), in a labelled row if it needs one."""
        t = self.t
        widget: Widget
        if spec.kind == "bool":
            widget = Toggle(t(f"opt.{spec.name}"), spec.default)
        elif spec.kind == "int":
            widget = Input(str(spec.default), type="integer", max_length=6, compact=True,
                           validators=[Number(spec.low, spec.high)])
        else:
            widget = Select([(t(f"opt.{spec.name}.{c}"), c) for c in spec.choices],
                            value=spec.default, allow_blank=False, compact=True)
        self.option_widgets[spec.name] = widget
        return widget if spec.kind == "bool" else self._row(f"opt.{spec.name}", widget)

    async def on_select_changed(self, event: Select.Changed) -> None:
        select = event.select
        if select.id == "game" and isinstance(event.value, str) and event.value != self.game:
            self.game = event.value
            self.seat_choices.clear()
            await self._game_changed()
        elif select.id == "seat-count":
            await self._fill_seats(self._seat_count())
        elif (select.name or "").startswith("seat-") and isinstance(event.value, str):
            self.seat_choices[int((select.name or "").removeprefix("seat-"))] = event.value

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "create":
            await self.action_create()
        else:
            self.dismiss(None)

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        await self.action_create()

    async def action_create(self) -> None:
        """Check the form; dismiss with the request, or say what is wrong."""
        t = self.t
        options: dict[str, Any] = {}
        for spec in game_ui(self.game).options:
            widget = self.option_widgets[spec.name]
            if isinstance(widget, Toggle):
                options[spec.name] = widget.value
            elif isinstance(widget, Input):
                text = widget.value.strip()
                if not text.lstrip("-").isdigit() or not spec.low <= int(text) <= spec.high:
                    self.query_one("#create-error", Static).update(t(
                        "create.bad_number", label=t(f"opt.{spec.name}"), low=spec.low,
                        high=spec.high))
                    widget.focus()
                    return
                options[spec.name] = int(text)
            elif isinstance(widget, Select):
                options[spec.name] = widget.value
        seats = self._seat_count()
        bots = {s: self.seat_choices[s] for s in range(1, seats)
                if self.seat_choices.get(s, FREE) != FREE}
        timer = self.query_one("#timer", Select).value
        request = TableRequest(
            game=self.game, seats=seats, timer=timer if isinstance(timer, float) and timer
            else None, private=self.query_one("#private", Toggle).value, options=options,
            bots=bots)
        refusal = await self.attempt(request)
        if refusal is None:
            self.dismiss(request)
        else:
            self.query_one("#create-error", Static).update(refusal)
