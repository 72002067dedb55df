"""Reference cycles in what a session drops (Textual 8.2.8's, and one each of asyncssh's and
asyncio's), broken where they are made.

The server freezes what survives a full collection (``server/collector.py``): a frozen object is
still freed as soon as nothing refers to it, but never by the cycle collector. So whatever a
session drops — a closed window, a toast, a removed widget, a whole app when the player
leaves, a line rendered again — must be freed by reference counting alone, and a reference
cycle prevents that. Textual makes many; each help opened and closed left some 5,000 objects
(1 MiB) frozen for good, and an ended session some 13,000 (issue 12, item 4). ``install()``
breaks them:

- **A widget removed** (its message loop over, out of the DOM): its two ``Styles`` hold it
  (``Styles.node``); so do the "virtual" nodes Textual makes for its component classes (a
  ``DataTable``'s cursor, an ``Input``'s placeholder), its rendered visual (``RichVisual``), its
  timers' callbacks and the callbacks it was to call later (bound methods), its animator's
  binding (once it was animated: the underline of ``Tabs``); a screen's
  compositor and its result callbacks too.
- **A widget restyled**: Textual makes new virtual nodes for its component classes at each
  restyle (focus, hover, a class added), and the old ones are cycles.
- **An app ended**: helpers built around it point back at it (its log, its animator, its
  workers, its stdout captures, its driver). A worker's finished task keeps the context in
  which it is the active worker, and a cancelled one its traceback, whose frames hold it.
- **Caches**: ``LRUCache`` keeps its entries in a ring, so a cache cleared or dropped is a
  cycle holding every entry; ``Strip.divide`` keeps ``[self]`` in the strip's own cache;
  ``StylesCache.get_inner_outer`` is an ``lru_cache`` on a method, which kept the last 1,024
  widgets' rendered lines alive whatever became of the widgets.
- **Keys**: Textual caches the parsing of each key sequence by parser and sequence, and the
  events it made name the app they were made for: the cache kept ended sessions' parsers and
  apps.
- **A connection closed**: asyncssh's connection keeps its packet reader, a bound method of
  itself (its ciphers, buffers and options with it); asyncio's socket transport keeps its read
  callback, a bound method of itself.
- **Each layout**: ``Compositor._arrange_root`` builds a recursive closure (a cycle) that holds
  the map of widgets it returns, so an old layout's widgets outlived it.

Each fix keeps Textual's behaviour: only references that can no longer be used are cut.
``tests/hostile/test_screen_memory.py`` proves, screen by screen, that nothing is left for the
cycle collector; a Textual upgrade that brings a new cycle fails it.
"""

from __future__ import annotations

import asyncio
import contextvars
from asyncio import selector_events
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from asyncssh.connection import SSHConnection
from textual._compositor import Compositor  # private modules: only server/ touches them
from textual._styles_cache import StylesCache
from textual._xterm_parser import XTermParser
from textual.app import App
from textual.cache import LRUCache
from textual.color import Color
from textual.css.styles import RenderStyles
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.events import Key
from textual.screen import Screen
from textual.strip import Strip
from textual.style import Style
from textual.timer import Timer
from textual.visual import RichVisual
from textual.widget import Widget
from textual.worker import Worker

_installed = False


def install() -> None:
    """Break these cycles from now on, for every app and connection of the process (once)."""
    global _installed
    if _installed:
        return
    _installed = True
    _wrap_widget_exit()
    _wrap_component_classes()
    _wrap_app_run()
    _wrap_worker_run()
    LRUCache.clear = _clear_lru  # type: ignore[method-assign]
    LRUCache.__del__ = _clear_lru  # type: ignore[attr-defined]
    Strip.divide = _divide  # type: ignore[method-assign]
    StylesCache.get_inner_outer = _inner_outer  # type: ignore[method-assign,assignment]
    XTermParser._parse_extended_key = _parse_key  # type: ignore[method-assign,assignment]
    _wrap_arrange_root()
    _wrap_connection_cleanup()
    _wrap_transport_lost()


# --- removed widgets and screens ------------------------------------------------------------


def _cut_styles(node: DOMNode | None) -> None:
    """The node's own styles no longer hold it (``RenderStyles`` holds it weakly already)."""
    if node is not None:
        node._css_styles.node = None
        node._inline_styles.node = None


def release_node(node: Widget, component_styles: Iterable[RenderStyles] = ()) -> None:
    """Cut what points back at ``node`` once it is out of the DOM and its loop is over."""
    for styles in component_styles:
        _cut_styles(styles.node)  # the virtual node of a component class
    _cut_styles(node)
    node._layout_cache.clear()  # its rendered visual
    node._next_callbacks.clear()  # call_next callbacks it will never run (bound methods)
    node._animate = None  # made at its first animation, it holds the node (a tab's underline)
    for value in vars(node).values():
        if isinstance(value, Timer):
            value._callback = None  # a stopped timer's bound method (the blink of an Input)
        elif isinstance(value, LRUCache):
            value.clear()
        elif isinstance(value, RichVisual):
            value._widget = None  # type: ignore[assignment]  # a Static's visual
    if isinstance(node, Screen):
        node._compositor.root = None
        node._result_callbacks.clear()
        node._callbacks.clear()  # call_after_refresh callbacks, if it closed before a refresh
        node._layout_widgets.clear()  # widgets waiting for a layout, the screen among them


def _wrap_widget_exit() -> None:
    message_loop_exit = Widget._message_loop_exit

    async def exit_and_release(self: Widget) -> None:
        component_styles = list(self._component_styles.values())  # Textual clears them
        await message_loop_exit(self)
        release_node(self, component_styles)

    Widget._message_loop_exit = exit_and_release  # type: ignore[method-assign]


def _wrap_component_classes() -> None:
    process = Stylesheet._process_component_classes

    def restyle(self: Stylesheet, node: DOMNode) -> None:
        old = list(node._component_styles.values())
        process(self, node)
        kept = {id(styles) for styles in node._component_styles.values()}
        for styles in old:
            if id(styles) not in kept:
                _cut_styles(styles.node)

    Stylesheet._process_component_classes = restyle  # type: ignore[method-assign]


# --- ended apps -----------------------------------------------------------------------------


def release_app(app: App[Any]) -> None:
    """Cut what points back at ``app`` once it has ended (it stays readable: return code,
    ``farewell``, the session it had)."""
    _cut_styles(app)
    app._capture_stdout.app = None  # type: ignore[assignment]
    app._capture_stderr.app = None  # type: ignore[assignment]
    app._logger._log = None  # the bound method app._log
    app._animator.app = None  # type: ignore[assignment]
    app._animator._timer._callback = None
    app._animate = None  # type: ignore[assignment]  # bound to the app and its animator
    app._workers._app = None  # type: ignore[assignment]
    if app._driver is not None:
        app._driver._app = None  # type: ignore[assignment]
        app._driver = None


def _wrap_app_run() -> None:
    # Both run_async (the server) and run_test (Pilot) run the app through _process_messages.
    process_messages = App._process_messages

    async def run_and_release(self: App[Any], *args: Any, **kwargs: Any) -> None:
        try:
            await process_messages(self, *args, **kwargs)
        finally:
            release_app(self)

    App._process_messages = run_and_release  # type: ignore[method-assign]


def _wrap_worker_run() -> None:
    run = Worker._run

    async def run_and_let_go(self: Worker[Any], app: App[Any]) -> None:
        await run(self, app)
        # The worker's task holds the context in which this worker is the active one (worker
        # → task → context → worker); it is done now.
        self._task = None
        # A cancelled worker (every app's workers, when it exits) keeps its CancelledError:
        # its traceback's frames hold the worker and what it worked on. Nobody reads it.
        if isinstance(self._error, asyncio.CancelledError):
            self._error.__traceback__ = None

    Worker._run = run_and_let_go  # type: ignore[method-assign]


# --- caches ---------------------------------------------------------------------------------


def _clear_lru(self: LRUCache[Any, Any]) -> None:
    """``LRUCache.clear``, unlinking its ring of ``[prev, next, key, value]`` entries."""
    for link in self._cache.values():
        link.clear()
    self._cache.clear()
    self._full = False
    self._head = []


_strip_divide = Strip.divide


def _divide(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
    """``Strip.divide``, without caching ``[self]`` in the strip itself when the only cut is
    its end (the compositor asks that of nearly every line it draws)."""
    cuts = [cut for cut in cuts if cut <= self.cell_length]
    if cuts == [self.cell_length]:
        return [self]
    return _strip_divide(self, cuts)


@lru_cache(1024)
def _inner_outer_styles(base_background: Color, background: Color) -> tuple[Style, Style]:
    return Style(background=base_background + background), Style(background=base_background)


def _inner_outer(self: StylesCache, base_background: Color, background: Color
                 ) -> tuple[Style, Style]:
    """``StylesCache.get_inner_outer``, cached by colours only, not by widget."""
    return _inner_outer_styles(base_background, background)


_parse_extended_key = XTermParser._parse_extended_key.__wrapped__  # under its lru_cache


@lru_cache(1024)
def _key_events(sequence: str) -> list[Key] | None:
    # Made in an empty context: a message made in an app's context names that app as its
    # sender, and these are kept for the process.
    return contextvars.Context().run(_parse_extended_key, XTermParser, sequence)


def _parse_key(self: XTermParser, sequence: str) -> list[Key] | None:
    """``XTermParser._parse_extended_key`` (every key typed goes through it), cached by the
    sequence alone: Textual's cache was keyed by the parser too, so it kept the last 1,024
    sessions' parsers — and, through the keys they had made, whole apps."""
    return _key_events(sequence)


def _wrap_arrange_root() -> None:
    arrange_root = Compositor._arrange_root

    def arrange(self: Compositor, root: Widget, size: Any, visible_only: bool = True
                ) -> tuple[dict[Widget, Any], set[Widget]]:
        # The map and the set returned are also held by a recursive closure inside
        # _arrange_root (a cycle): hand back copies and empty the ones the closure keeps.
        layout, widgets = arrange_root(self, root, size, visible_only)
        kept = dict(layout), set(widgets)
        layout.clear()
        widgets.clear()
        return kept

    Compositor._arrange_root = arrange  # type: ignore[method-assign]


# --- SSH connections ------------------------------------------------------------------------


def _nothing_more() -> bool:
    return False  # (as asyncssh's own reader after a fatal error: reads nothing more)


def _wrap_connection_cleanup() -> None:
    cleanup = SSHConnection._cleanup

    def clean_up_and_let_go(self: SSHConnection, exc: Exception | None) -> None:
        cleanup(self, exc)
        self._recv_handler = _nothing_more  # was a bound method of the connection

    SSHConnection._cleanup = clean_up_and_let_go  # type: ignore[method-assign]


def _wrap_transport_lost() -> None:
    transport: Any = selector_events._SelectorSocketTransport  # type: ignore[attr-defined]
    connection_lost = transport._call_connection_lost

    def lost_and_let_go(self: Any, exc: BaseException | None) -> None:
        connection_lost(self, exc)
        self._read_ready_cb = None  # was a bound method of the transport; it reads no more

    transport._call_connection_lost = lost_and_let_go
