"""The Textual driver over an SSH channel, and the Textual settings a process of many apps needs.

This is the only module of Pioche that touches Textual's private parts, which is why Textual is
pinned to one version (8.2.8). What it uses, and why:

- ``textual._xterm_parser.XTermParser``: the parser Textual's own drivers feed terminal input to;
  its ``_timeout_time`` (from ``textual._parser.Parser``) tells when a lone Esc must be resolved.
- ``Driver._size``, ``Driver._app`` and ``Driver.process_message``: the base class's own state.
- ``textual.app.redirect_stdout``/``redirect_stderr``: replaced, see ``configure_textual``.
- ``Stylesheet._parse_rules``: its cache made process-wide, see ``configure_textual``.

Textual's ``LinuxDriver`` is not usable here: it reads stdin in a thread, installs signal handlers
for the whole process and writes to the process's stderr. This driver runs on the event loop the
SSH server and every other app share: input bytes come from the SSH session (``Terminal.feed``),
output goes to the channel, coalesced per loop turn.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import functools
import logging
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, Literal, Protocol, TextIO, cast

import textual.app
from textual import constants, events
from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.app import App, SystemCommand
from textual.cache import LRUCache
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.driver import Driver
from textual.message import Message
from textual.messages import InBandWindowResize
from textual.screen import Screen

log = logging.getLogger("pioche.server")

# Terminal modes, as Textual's LinuxDriver sets them (minus in-band resize: over SSH the size comes
# from window-change requests, never from what the client types).
_ENTER = (
    "\x1b[?1049h"  # alternate screen
    "\x1b[?25l"  # hide the cursor
    "\x1b[?1004h"  # focus in/out reports
    "\x1b[?2004h"  # bracketed paste
    "\x1b[?7l"  # no line wrap
    "\x1b[?2026$p"  # does the terminal do synchronized output? (the parser reads the answer)
)
_KITTY_KEYS_ON = "\x1b[>25u"  # kitty keyboard: disambiguate (1) | all keys (8) | text (16)
_KITTY_KEYS_OFF = "\x1b[<u"
_MOUSE_ON = "\x1b[?1000h\x1b[?1003h\x1b[?1015h\x1b[?1006h"
_MOUSE_OFF = "\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l"
_LEAVE = "\x1b[?2004l\x1b[?7h\x1b[?1004l\x1b[?1049l\x1b[?25h"

PASTE_END = "\x1b[201~"
_PARSE_SLICE = 4096  # input is parsed in slices this long, to notice an endless paste early


class Channel(Protocol):
    """The part of an asyncssh channel the terminal writes to."""

    def write(self, data: bytes) -> None: ...

    def is_closing(self) -> bool: ...


class Terminal:
    """One SSH session's terminal as its app sees it.

    The SSH session calls ``feed`` (input bytes), ``resize``, ``pause_output``/``resume_output``
    (the channel's flow control) and ``hang_up``; ``run`` runs the app on it. Output is coalesced
    per loop turn. While the client does not read, output is dropped instead of queued, and the app
    repaints the whole screen once the client reads again: a slow client gets only the newest frame.
    Resizes reach the app at most once per ``resize_interval`` seconds, the latest size winning.
    """

    def __init__(
        self,
        channel: Channel,
        size: tuple[int, int],
        *,
        max_paste: int,
        resize_interval: float,
        on_first_frame: Callable[[], None] = lambda: None,
    ) -> None:
        self.size = size
        self._resize_interval = resize_interval
        self._channel = channel
        self._max_paste = max_paste
        self._on_first_frame: Callable[[], None] | None = on_first_frame
        self._loop = asyncio.get_running_loop()
        self._app: App[Any] | None = None
        self._driver: SSHDriver | None = None  # set while the app is in application mode
        # Input: bytes -> text (bad UTF-8 becomes U+FFFD, never an error) -> Textual events.
        self._decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode
        self._parser = XTermParser()
        self._escape_timer: asyncio.TimerHandle | None = None
        self._quiet_chars = 0  # characters parsed since the parser last gave an event
        self._skipping_paste = False
        self._skipped_tail = ""
        # Output.
        self._pending: list[str] = []
        self._send_scheduled = False
        self._paused = False
        self._dropped_output = False
        self._resize_timer: asyncio.TimerHandle | None = None
        self._last_resize = -resize_interval
        self._hung_up = False

    async def run(self, app: App[Any]) -> int:
        """Run ``app`` on this terminal until it exits; returns its return code."""
        self._app = app
        # Textual builds the driver itself, as driver_class(app, debug=, mouse=, size=). A
        # partial, not a class made per session: a class is a reference cycle, and this one
        # would hold the terminal and the app after the session. (Nothing of a session may
        # outlive it in a cycle: server/cycles.py says why.)
        app.driver_class = cast("type[SSHDriver]", functools.partial(SSHDriver, terminal=self))
        try:
            await app.run_async(size=self.size)
        finally:
            # This terminal holds the app, and the parser (a cycle with its generator) holds
            # the last key it made, which names the app.
            self._app = None
            self._parser._gen.close()
        return app.return_code or 0

    # Input ----------------------------------------------------------------------------------

    def feed(self, data: bytes) -> int:
        """Input from the client; returns how many events the app got from it.

        Ignored until the app is in application mode."""
        text = self._decode(data)
        if self._driver is None:
            return 0
        delivered = 0
        while text:
            if self._skipping_paste:
                text = self._skip_paste(text)
                continue
            delivered += self._parse(text[:_PARSE_SLICE])
            text = text[_PARSE_SLICE:]
            if self._quiet_chars > self._max_paste:
                # Only a bracketed paste keeps the parser quiet this long: it buffers the pasted
                # text until the paste ends. Stop feeding it until the end marker comes, so the app
                # gets the first max_paste characters and the server's memory stays bounded.
                log.info("paste longer than %d characters: truncated", self._max_paste)
                self._skipping_paste = True
        return delivered

    def _skip_paste(self, text: str) -> str:
        """Drop input up to the end of the paste; returns what follows, end marker included."""
        seen = self._skipped_tail + text
        end = seen.find(PASTE_END)
        if end < 0:
            self._skipped_tail = seen[-(len(PASTE_END) - 1) :]
            return ""
        self._skipping_paste = False
        self._skipped_tail = ""
        self._quiet_chars = 0
        return seen[end:]

    def _parse(self, text: str) -> int:
        self._quiet_chars += len(text)
        delivered = self._deliver(self._parser.feed(text))
        self._arm_escape_timer()
        return delivered

    def _deliver(self, parsed: Iterable[Message]) -> int:
        delivered = 0
        move: events.MouseMove | None = None  # of a run of moves, only the last matters
        for message in parsed:
            self._quiet_chars = 0
            # Only the SSH window-change request sets the size: a client could type an in-band
            # resize report with any numbers in it.
            if self._driver is None or isinstance(message, events.Resize | InBandWindowResize):
                continue
            if isinstance(message, events.MouseMove):
                move = message
                continue
            if move is not None:
                self._driver.process_message(move)
                delivered += 1
                move = None
            self._driver.process_message(message)
            delivered += 1
        if move is not None and self._driver is not None:
            self._driver.process_message(move)
            delivered += 1
        return delivered

    def _arm_escape_timer(self) -> None:
        # After a lone Esc the parser waits ESCAPE_DELAY for more; Textual's drivers poll its
        # tick(), here a timer fires at the parser's deadline.
        deadline = self._parser._timeout_time
        if deadline is None or self._escape_timer is not None:
            return
        delay = max(0.0, deadline - get_time()) + 0.001
        self._escape_timer = self._loop.call_later(delay, self._on_escape_timer)

    def _on_escape_timer(self) -> None:
        self._escape_timer = None
        self._deliver(self._parser.tick())
        self._arm_escape_timer()  # the clock may not have reached the deadline yet

    # Size -----------------------------------------------------------------------------------

    def resize(self, width: int, height: int) -> None:
        """The client's window changed (already clamped)."""
        self.size = (width, height)
        if self._resize_timer is None:
            # Each resize re-lays out and repaints the whole screen: a burst of window changes
            # (a window being dragged, or a client sending thousands) becomes a few.
            wait = self._last_resize + self._resize_interval - self._loop.time()
            self._resize_timer = self._loop.call_later(max(0.0, wait), self._post_resize)

    def _post_resize(self) -> None:
        self._resize_timer = None
        self._last_resize = self._loop.time()
        if self._driver is not None:
            self._driver.post_size(self.size)

    # Output ---------------------------------------------------------------------------------

    def write(self, data: str) -> None:
        if self._hung_up:
            return
        self._pending.append(data)
        if not self._send_scheduled:
            self._send_scheduled = True
            self._loop.call_soon(self._send)

    def _send(self, force: bool = False) -> None:
        self._send_scheduled = False
        data = "".join(self._pending)
        self._pending.clear()
        if not data or self._hung_up or self._channel.is_closing():
            return
        if self._paused and not force:
            self._dropped_output = True
            return
        self._channel.write(data.encode("utf-8", "replace"))

    def send_now(self) -> None:
        """Send what is pending at once, even if the client is slow (the app is leaving)."""
        self._send(force=True)

    def frame_done(self) -> None:
        if self._on_first_frame is not None:
            on_first_frame, self._on_first_frame = self._on_first_frame, None
            on_first_frame()

    def pause_output(self) -> None:
        """The channel's buffer is full: the client is not reading."""
        self._paused = True

    def resume_output(self) -> None:
        self._paused = False
        if self._dropped_output and self._app is not None:
            self._dropped_output = False
            # A full repaint: the frames dropped meanwhile were partial updates.
            self._app.call_later(self._app.refresh)

    # Life -----------------------------------------------------------------------------------

    def attach(self, driver: SSHDriver) -> None:
        self._driver = driver

    def detach(self) -> None:
        self._driver = None
        for timer in (self._escape_timer, self._resize_timer):
            if timer is not None:
                timer.cancel()
        self._escape_timer = self._resize_timer = None

    def hang_up(self) -> None:
        """The client is gone: stop the app; nothing more is written."""
        self._hung_up = True
        self.detach()
        if self._app is not None and self._app.return_code is None:
            self._app.exit()


class SSHDriver(Driver):
    """Textual driver for one app whose terminal is an SSH session (see ``Terminal``)."""

    def __init__(
        self,
        app: App[Any],
        terminal: Terminal,
        *,
        debug: bool = False,
        mouse: bool = True,
        size: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self._terminal = terminal

    def write(self, data: str) -> None:
        self._terminal.write(data)

    def flush(self) -> None:
        # Textual flushes after each frame; writes already go out once per loop turn.
        self._terminal.frame_done()

    def start_application_mode(self) -> None:
        self.write(_ENTER)
        if self._mouse:
            self.write(_MOUSE_ON)
        if not constants.DISABLE_KITTY_KEY:
            self.write(_KITTY_KEYS_ON)
        self._terminal.attach(self)
        self.post_size(self._terminal.size)

    def post_size(self, size: tuple[int, int]) -> None:
        self._size = size
        self.send_message(events.Resize.from_dimensions(size, None))

    def disable_input(self) -> None:
        self._terminal.detach()

    def stop_application_mode(self) -> None:
        self._terminal.detach()
        if self._mouse:
            self.write(_MOUSE_OFF)
        if not constants.DISABLE_KITTY_KEY:
            self.write(_KITTY_KEYS_OFF)
        self.write(_LEAVE)
        self._terminal.send_now()

    def send_message(self, message: Message) -> None:
        # Same thread, same loop: post directly (the base class goes through a thread-safe call).
        self._app.post_message(message)

    def open_url(self, url: str, new_tab: bool = True) -> None:
        """Never: a remote player must not open a browser on the server."""
        log.info("refused to open a URL for a remote session")

    def deliver_binary(
        self,
        binary: BinaryIO | TextIO,
        *,
        delivery_key: str,
        save_path: Path,
        open_method: Literal["browser", "download"] = "download",
        encoding: str | None = None,
        mime_type: str | None = None,
        name: str | None = None,
    ) -> None:
        """Never: a remote player must not write files on the server (screenshots, downloads)."""
        binary.close()
        error = PermissionError("no file delivery over SSH")
        self.send_message(events.DeliveryFailed(key=delivery_key, exception=error, name=name))


# Process-wide settings ------------------------------------------------------------------------

COLOR_SYSTEMS = ("truecolor", "256")
_configured = False


def _keep_stream(_target: object) -> contextlib.AbstractContextManager[None]:
    return contextlib.nullcontext()


def _system_commands(app: App[Any], screen: Screen[Any]) -> Iterator[SystemCommand]:
    for command in _textual_system_commands(app, screen):
        if command.title != "Screenshot":
            yield command


_textual_system_commands = App.get_system_commands
_textual_parse_rules = Stylesheet._parse_rules
_parsed: LRUCache[tuple[Any, ...], list[RuleSet]] = LRUCache(1024)


def _parse_rules_once(
    self: Stylesheet, css: str, read_from: Any, is_default_rules: bool = False,
    tie_breaker: int = 0, scope: str = "",
) -> list[RuleSet]:
    # What Textual caches per stylesheet, kept for the whole process: the parse depends only on
    # these arguments and the theme's variables.
    variables = getattr(self, "_pioche_variables", None)
    if variables is None or variables[0] is not self._variables:
        variables = (self._variables, tuple(sorted(self._variables.items())))
        self._pioche_variables = variables  # type: ignore[attr-defined]
    key = (css, read_from, is_default_rules, tie_breaker, scope, variables[1])
    rules = _parsed.get(key)
    if rules is None:
        rules = _textual_parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
        _parsed.set(key, rules)
    return rules


def configure_textual(color_system: str = "truecolor") -> None:
    """Make Textual fit a process that runs many apps on one loop. Call before the first app.

    - Each app's run redirects ``sys.stdout``/``sys.stderr`` to itself while it runs; with apps
      starting and stopping in any order, the process's streams would end up pointing at a dead
      app. The redirection is disabled: ``print`` in an app goes to the server's log streams.
    - One colour system for every session, not guessed from the server's own environment
      (``truecolor`` by default; ``256`` for older terminals such as macOS Terminal).
    - The command palette offers no Screenshot (it would write an SVG on the server's disk);
      ``SSHDriver`` also refuses every file delivery and URL opening.
    - CSS is parsed once for the process, not once per app: Textual keeps its parse cache in
      each app's stylesheet, and parses every source again (its own widgets' too) when an app
      starts and when it first shows a screen with CSS of its own — a quarter of an app's
      start-up, and some 10 ms the first time each player sees a window.
    """
    global _configured
    if color_system not in COLOR_SYSTEMS:
        raise ValueError(f"colour system must be one of {', '.join(COLOR_SYSTEMS)}")
    constants.COLOR_SYSTEM = color_system  # type: ignore[misc]  # read by each App.__init__
    if _configured:
        return
    _configured = True
    textual.app.redirect_stdout = _keep_stream  # type: ignore[misc,assignment]
    textual.app.redirect_stderr = _keep_stream  # type: ignore[misc,assignment]
    App.get_system_commands = _system_commands  # type: ignore[method-assign,assignment]
    Stylesheet._parse_rules = _parse_rules_once  # type: ignore[method-assign]
