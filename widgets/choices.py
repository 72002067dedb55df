"""A list to choose from, shown where the log is (no window over the table: a window would
make every update repaint the whole stack of screens).

One option (↑ ↓ and Enter, or its number), or with ``multi`` several: Space ticks an option,
Enter confirms the ticked set. Options that clash with a ticked one (``clashes``) are dimmed
and cannot be ticked; the total of the ticked options' ``points`` is shown under the list. The
list scrolls when it is taller than the widget (▲ ▼ say more options are hidden).

With the mouse: a click puts the cursor on an option, a second click on it chooses it (ticks or
unticks it, with ``multi``); the wheel moves the cursor.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message

from .lines import CursorLines


class ChoiceList(CursorLines):
    """Call :meth:`ask`; the answer comes back as a :class:`Chosen`, :class:`Confirmed` or
    :class:`Cancelled` message carrying the question's ``key``."""

    DEFAULT_CSS = """
    ChoiceList {
        height: 1fr;
        min-height: 3;
        border-top: solid $accent;
        padding: 0 1;
    }
    ChoiceList > .choicelist--cursor { background: $accent 40%; text-style: bold; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"choicelist--cursor"}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "key.choose"),
        Binding("down", "move(1)", "key.choose"),
        *(Binding(str(n), f"pick({n - 1})", "key.option_number", show=False)
          for n in range(1, 10)),
        Binding("space", "tick", "key.tick", tooltip="help.tick"),
        Binding("enter", "confirm", "key.ok", tooltip="help.confirm_choice"),
        Binding("m", "preset", "key.best", tooltip="help.best"),
        Binding("x", "refuse", "key.refuse_all", tooltip="help.refuse_all"),
        Binding("escape", "cancel", "key.cancel", tooltip="help.cancel_choice"),
    ]

    class Chosen(Message):
        """One option was chosen: its ``index``."""

        def __init__(self, key: str, index: int) -> None:
            super().__init__()
            self.key = key
            self.index = index

    class Confirmed(Message):
        """(``multi``) The ticked options, in list order (maybe none)."""

        def __init__(self, key: str, indexes: tuple[int, ...]) -> None:
            super().__init__()
            self.key = key
            self.indexes = indexes

    class Cancelled(Message):
        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.key = ""
        self.title = Text()
        self.options: tuple[Text, ...] = ()
        self.enabled: tuple[bool, ...] = ()
        self.multi = False
        self.clashes: tuple[frozenset[int], ...] = ()
        self.points: tuple[int, ...] = ()
        self.preset: tuple[int, ...] = ()
        self.ticked: set[int] = set()
        self.cancellable = True
        self.total_label = ""
        self._first = 0  # the first option shown when the list is taller than the widget
        self._shown = range(0)  # the options shown, one a row under the title
        self._clicked: int | None = None  # the option a click chose (a second click takes it)

    def ask(self, key: str, title: Text, options: Sequence[Text],
            enabled: Sequence[bool] | None = None, *, cancellable: bool = True,
            multi: bool = False, clashes: Sequence[frozenset[int]] = (),
            points: Sequence[int] = (), preset: Sequence[int] = (),
            total_label: str = "", ticked: Sequence[int] | None = None) -> None:
        """Ask ``title`` with ``options``. With ``multi``: ``clashes[i]`` are the options that
        cannot be ticked with option i, ``points[i]`` its points, ``preset`` the options
        ticked by m, ``ticked`` those ticked at first (default: ``preset``), ``total_label`` a
        template with ``{points}``."""
        self.key = key
        self.title = title
        self.options = tuple(options)
        self.enabled = tuple(enabled) if enabled is not None else (True,) * len(self.options)
        self.cancellable = cancellable
        self.multi = multi
        self.clashes = tuple(clashes)
        self.points = tuple(points)
        self.preset = tuple(preset)
        self.ticked = set(self.preset if ticked is None else ticked)
        self.total_label = total_label
        self._first = 0
        self._clicked = None
        first = next((i for i, ok in enumerate(self.enabled) if ok), 0)
        if self.cursor == first:
            self._draw()
        else:
            self.cursor = first  # draws
        self.refresh_bindings()

    @property
    def total(self) -> int:
        return sum(self.points[i] for i in self.ticked if i < len(self.points))

    def blocked(self, index: int) -> bool:
        """Option ``index`` cannot be taken now (disabled, or clashing with a ticked one)."""
        if not self.enabled[index]:
            return True
        return self.multi and index not in self.ticked and any(
            index in self.clashes[i] for i in self.ticked if i < len(self.clashes))

    # --- keys -----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("tick", "refuse"):
            return self.multi
        if action == "preset":
            return self.multi and bool(self.preset)
        if action == "cancel":
            return self.cancellable
        if action == "pick":
            index = parameters[0] if parameters else -1
            return isinstance(index, int) and index < len(self.options)
        if action == "confirm":
            return self.multi or (bool(self.options) and not self.blocked(self.cursor))
        return bool(self.options)

    def action_move(self, step: int) -> None:
        self._clicked = None  # (as the hand: a click after keys is a first click)
        if self.options:
            self.cursor = (self.cursor + step) % len(self.options)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or not 0 <= offset.y - 1 < len(self._shown):
            return
        index = self._shown[offset.y - 1]
        if self._clicked == index and self.cursor == index:
            if self.multi:
                self.action_tick()
            else:
                self.action_confirm()
        else:
            self.cursor = index
            self._clicked = index

    def action_pick(self, index: int) -> None:
        """A number: chooses that option (ticks or unticks it, with ``multi``)."""
        if index >= len(self.options):
            return
        self.cursor = index
        if self.multi:
            self.action_tick()
        elif not self.blocked(index):
            self.post_message(self.Chosen(self.key, index))

    def action_tick(self) -> None:
        index = self.cursor
        if not self.multi or not self.options:
            return
        if index in self.ticked:
            self.ticked.discard(index)
        elif not self.blocked(index):
            self.ticked.add(index)
        self._draw()

    def action_preset(self) -> None:
        self.ticked = set(self.preset)
        self._draw()

    def action_confirm(self) -> None:
        if self.multi:
            self.post_message(self.Confirmed(self.key, tuple(sorted(self.ticked))))
        elif self.options and not self.blocked(self.cursor):
            self.post_message(self.Chosen(self.key, self.cursor))

    def action_refuse(self) -> None:
        if self.multi:
            self.post_message(self.Confirmed(self.key, ()))

    def action_cancel(self) -> None:
        if self.cancellable:
            self.post_message(self.Cancelled(self.key))

    # --- drawing --------------------------------------------------------------------------

    def _draw(self) -> None:
        height = self.content_size.height
        if height <= 0:
            return  # not laid out yet: on_resize draws
        footer = self.multi and bool(self.total_label)
        room = max(1, height - 1 - int(footer))
        if self.cursor < self._first:
            self._first = self.cursor
        elif self.cursor >= self._first + room:
            self._first = self.cursor - room + 1
        self._first = max(0, min(self._first, max(0, len(self.options) - room)))
        last = min(len(self.options), self._first + room)
        self._shown = range(self._first, last)
        title = self.title.copy()
        if self._first > 0:
            title.append("  ▲", "bold")
        lines = [title]
        cursor_style = self.get_component_rich_style("choicelist--cursor")
        for index in range(self._first, last):
            cursor = index == self.cursor and self.has_focus
            line = Text("›" if cursor else " ", "bold")  # the cursor, colour or not
            line.append(f"{index + 1}. " if index < 9 else "   ")
            if self.multi:
                line.append("[x] " if index in self.ticked else
                            " -  " if self.blocked(index) else "[ ] ")
            line.append_text(self.options[index])
            if self.blocked(index) and index not in self.ticked:
                line.stylize("dim")
            if cursor:
                line.stylize(cursor_style)
                line.pad_right(max(0, self.content_size.width - line.cell_len))
            lines.append(line)
        if footer:
            line = Text(self.total_label.format(points=self.total), "bold")
            if last < len(self.options):
                line.append("  ▼", "bold")
            lines.append(line)
        elif last < len(self.options):
            lines[-1] = lines[-1].copy().append("  ▼", "bold")
        self.lines = (*lines, *(Text() for _ in range(height - len(lines))))
