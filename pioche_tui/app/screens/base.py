"""What every Pioche screen shares: the catalogue and the key bar.

Bindings carry a catalogue key as their description ("key.play"); the key bar shows, in the
player's language, the bindings that act now (``check_action`` hides the others) and is rebuilt
only when the screen's bindings change, not on every update.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar, cast

from textual import events
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen, Screen

from widgets.keybar import KeyBar

from ...i18n import MESSAGES, Catalogue

if TYPE_CHECKING:
    from ..app import PiocheApp

ResultT = TypeVar("ResultT")
TRAILING_ACTIONS = {"chat", "leave", "leave_watching", "help", "app.quit", "close", "hide_panel",
                    "hints"}
"""Shown last in the key bar: what acts now in the game comes first."""


class HasCatalogue(Protocol):
    t: Catalogue


def describe(t: Catalogue, binding: Binding, long: bool = False) -> str:
    """A binding's description in the player's language: short for the key bar, or the longer
    one in its tooltip (a catalogue key too) for the help."""
    key = binding.tooltip if long and binding.tooltip else binding.description
    return t(key) if key in MESSAGES else key


class KeyBarMixin:
    """For screens that compose a KeyBar: keeps it in step with the active bindings."""

    @cached_property
    def t(self) -> Catalogue:
        return cast(HasCatalogue, cast(Screen[Any], self).app).t

    @property
    def pioche(self) -> PiocheApp:
        """The app, as Pioche's own."""
        return cast("PiocheApp", cast(Screen[Any], self).app)

    @property
    def closed_unseen(self) -> bool:
        """Closed before it was shown: popped as soon as pushed (a table closing while a Joker's
        colour is asked), or the session ending while it was built (the client left). Textual
        8.2.8 still sends such a screen Mount, its widgets gone: a query there raises NoMatches,
        which ended the player's whole session (bench/soak.py found it). Such a screen gets no
        Mount nor ScreenResume handler at all (``on_event`` below), so no screen's ``on_mount``
        or ``on_screen_resume`` needs to ask."""
        screen = cast(Screen[Any], self)
        app = screen.app
        leaving = app.return_code is not None or not app.is_running  # exit() was called
        return leaving or screen not in app.screen_stack

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Mount, events.ScreenResume)) and self.closed_unseen:
            return  # nobody will see it: its handlers would query widgets that are gone
        await super().on_event(event)  # type: ignore[misc]

    def _on_mount(self, event: events.Mount) -> None:
        # Textual calls every class's _on_mount and on_mount: screens keep their on_mount.
        screen = cast(Screen[Any], self)
        screen.bindings_updated_signal.subscribe(screen, self._bindings_changed)
        # Once the screen is up: its bindings do not resolve before it is the active screen.
        screen.call_after_refresh(self._bindings_changed, screen)

    def _on_unmount(self) -> None:
        # The signal is the screen's and holds our bound method: a cycle that would keep a
        # closed screen alive for the garbage collector to find (server/collector.py).
        screen = cast(Screen[Any], self)
        screen.bindings_updated_signal.unsubscribe(screen)

    @cached_property
    def key_bar(self) -> KeyBar | None:
        """The screen's key bar (composed with it), found once: a query walks the whole
        screen, and a player's keys change at nearly every turn of a game."""
        bars = cast(Screen[Any], self).query(KeyBar)
        return bars.first() if bars else None

    def _bindings_changed(self, screen: Screen[Any]) -> None:
        bar = self.key_bar
        if bar is None:
            return
        shown: dict[str, list[str]] = {}  # description → keys, in binding order
        presses: dict[str, str] = {}  # description → the key a click on it presses
        actives = sorted(screen.active_bindings.values(),
                         key=lambda active: active.binding.action in TRAILING_ACTIONS)
        for active in actives:
            binding = active.binding
            # Textual's own widgets bind keys too, described in English: only ours are shown.
            if binding.show and active.enabled and binding.description in MESSAGES:
                text = describe(self.t, binding)
                keys = shown.setdefault(text, [])
                presses.setdefault(text, binding.key.split(",")[0])
                display = screen.app.get_key_display(binding)
                if display not in keys:
                    keys.append(display)
        bar.presses = tuple(presses[text] for text in shown)
        bar.keys = tuple(("/".join(keys), text) for text, keys in shown.items())


class PiocheScreen(KeyBarMixin, Screen[ResultT]):
    """A full screen."""


class Dialog(KeyBarMixin, ModalScreen[ResultT]):
    """A window over the current screen; Escape closes it (result None)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "key.close")]

    def action_close(self) -> None:
        self.dismiss(None)
