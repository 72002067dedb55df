"""The one-line chat input: Enter sends, Escape gives the keys back to the screen."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Input


class ChatInput(Input):
    """Posts :class:`Send` with the text (then clears itself) and :class:`Done` on Escape.

    An input always shown (the lobby's) reads as an invitation while it does not have the
    keys: ``invite`` (« c : discuter ») on the screen's own background, not a field that
    seems to wait for text; the field and ``placeholder`` (how to send) once it has them."""

    DEFAULT_CSS = """
    ChatInput { dock: bottom; margin-bottom: 1; }
    ChatInput:blur { background: transparent; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "send", "key.send"),
        Binding("escape", "done", "key.back"),
    ]

    class Send(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Done(Message):
        pass

    def __init__(self, *, placeholder: str = "", invite: str = "", max_length: int = 0,
                 id: str | None = None) -> None:
        super().__init__(placeholder=invite or placeholder, max_length=max_length, id=id,
                         compact=True)
        self._typing_placeholder = placeholder
        self._invite = invite or placeholder

    def on_focus(self) -> None:
        self.placeholder = self._typing_placeholder

    def on_blur(self) -> None:
        self.placeholder = self._invite

    def on_paste(self, event: events.Paste) -> None:
        # Input refuses an insertion that would pass max_length whole, so a long paste would
        # vanish: keep its first line, cut to the room left.
        event.prevent_default()
        event.stop()
        lines = event.text.splitlines()
        if not lines:
            return
        start, end = sorted(self.selection)
        room = self.max_length - len(self.value) + (end - start) if self.max_length else None
        self.replace(lines[0][:room], start, end)

    def action_send(self) -> None:
        text = self.value.strip()
        if text:
            self.post_message(self.Send(text))
            self.value = ""

    def action_done(self) -> None:
        self.post_message(self.Done())
