"""The Textual driver over an SSH channel, and the Textual settings a process of many apps needs.

This module and ``server/share.py`` (which looks at a sharing spectator's input as this one
parses it) are the only ones of Pioche that touch Textual's private parts, which is why Textual
is pinned to one version (8.2.8). What they use, and why:

- ``textual._xterm_parser.XTermParser``: the parser Textual's own drivers feed terminal input to;
  its ``_timeout_time`` (from ``textual._parser.Parser``) tells when a lone Esc must be resolved,
  and its ``_gen`` (a generator holding the parser) is closed when a session ends.
- ``Screen._compositor``, its ``render_update(full=True)`` and ``_dirty_regions``, and
  ``App._background_screens`` and ``App.cursor_position``: a whole frame of an app's screen
  rendered for a spectator who joins a shared screen (``full_frame``), the regions waiting to be
  repainted put back.
- ``Driver._size``, ``Driver._app`` and ``Driver.process_message``: the base class's own state.
- ``textual.app.redirect_stdout``/``redirect_stderr``: replaced, see ``configure_textual``.
- ``Stylesheet._parse_rules``: its cache made process-wide, see ``configure_textual``.
- ``Strip.render`` and ``Strip.render_ansi``, with the caches they keep (``Strip._render_cache``,
  Rich's ``Style._ansi``): made right for apps of different colour depths, see
  ``configure_textual``.

Textual's ``LinuxDriver`` is not usable here: it reads stdin in a thread, installs signal handlers
for the whole process and writes to the process's stderr. This driver runs on the event loop the
SSH server and every other app share: input bytes come from the SSH session (``Terminal.feed``),
output goes to the channel, coalesced per loop turn.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import contextvars
import functools
import logging
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, Literal, Protocol, TextIO, cast

import textual.app
from rich.color import ColorSystem
from rich.console import Console
from rich.control import Control
from rich.style import Style
from textual import constants, events
from textual._compositor import LayoutUpdate
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
from textual.strip import Strip

from . import budget
from .budget import CLIENT, METER, Meter

log = logging.getLogger("pioche.server")

# Terminal modes, as Textual's LinuxDriver sets them, minus in-band resize (over SSH the size comes
# from window-change requests, never from what the client types) and focus reports (Textual makes
# the app's focus a CSS pseudo-class: each report restyled the whole screen, for nothing Pioche
# shows).
_ENTER = (
    "\x1b[?1049h"  # alternate screen
    "\x1b[?25l"  # hide the cursor
    "\x1b[?2004h"  # bracketed paste
    "\x1b[?7l"  # no line wrap
    "\x1b[?2026$p"  # does the terminal do synchronized output? (the parser reads the answer)
    "\x1b[22;0t"  # keep the window's title (the app says « À vous » there), given back at the end
)
_KITTY_KEYS_ON = "\x1b[>25u"  # kitty keyboard: disambiguate (1) | all keys (8) | text (16)
_KITTY_KEYS_OFF = "\x1b[<u"
_MOUSE_ON = "\x1b[?1000h\x1b[?1003h\x1b[?1015h\x1b[?1006h"
_MOUSE_OFF = "\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l"
_LEAVE = "\x1b[?2004l\x1b[?7h\x1b[?1049l\x1b[?25h\x1b[23;0t"
_ASK_SYNC = "\x1b[?2026$p"


def enter_sequence(mouse: bool = True) -> str:
    """What a session's terminal is sent when an app takes it (modes, as SSHDriver sets them)."""
    return (_ENTER + (_MOUSE_ON if mouse else "")
            + ("" if constants.DISABLE_KITTY_KEY else _KITTY_KEYS_ON))


def leave_sequence(mouse: bool = True) -> str:
    """What gives the terminal back as it was, once the session's screen goes."""
    return ((_MOUSE_OFF if mouse else "")
            + ("" if constants.DISABLE_KITTY_KEY else _KITTY_KEYS_OFF) + _LEAVE)


def full_frame(app: App[Any]) -> str:
    """The whole of ``app``'s screen as it is now, as escape codes (what Textual writes for a
    full repaint, without repainting: the app's own next update is unchanged). Uses the
    screen's ``_compositor`` (``render_update(full=True)``, which forgets the regions waiting
    to be repainted: they are put back) and ``App._background_screens``."""
    screen = app.screen
    compositor = screen._compositor
    waiting = set(compositor._dirty_regions)
    update = compositor.render_update(full=True, screen_stack=app._background_screens)
    compositor._dirty_regions.update(waiting)
    assert isinstance(update, LayoutUpdate)  # (what a full update is)
    cursor = screen.outer_size.clamp_offset(app.cursor_position)
    return update.render_segments(app.console) + Control.move_to(*cursor).segment.text

PASTE_END = "\x1b[201~"
PARSE_SLICE = 256
"""Characters of input parsed per loop callback: parsing costs a few microseconds a character,
and the budget is checked between slices."""
MAX_BATCH = 8
"""Events the app is given at once, at most: as many as cost about ``BATCH_CPU`` by the last
batches' measure (a burst of typing goes at once, keys that open a screen one by one)."""
BATCH_CPU = 0.05
MOVE_SLICES = 8
"""Slices parsed at once while they give nothing but mouse moves (of which only the last is
given): a flood of moves costs its parsing, not a frame per slice."""
QUIET = 0.025
"""The app has handled a batch (and painted what it changed) once it has run nothing for this
long: more than Textual's wait between a change and its repaint (1/60 s)."""
INPUT_WAITS, READING_HELD = "input waits", "reading held"
"""Why a connection is over its budget, for its terminal (``Terminal._over``)."""
SETTLE_TIMEOUT = 0.25
"""The most a batch waits for the app to be quiet (an app that is never quiet still gets input)."""
BACKGROUND_MEMORY = 5.0
"""Seconds over which the app's background (what it spends between batches, on others' doing)
is averaged: that much of its spending while it handles a batch is given back."""
# What a client may report but the app never gets: only the SSH window-change request sets the
# size (a client could type an in-band resize report with any numbers in it), and focus reports
# (never asked for) would restyle the whole screen.
_DROPPED = (events.Resize, InBandWindowResize, events.AppFocus, events.AppBlur)
_UNMETERED = contextvars.Context()


def _nothing() -> None:
    pass


class Channel(Protocol):
    """What the terminal writes to and reads from: the SSH session (``server.ssh._Session``),
    which writes to its channel and then calls ``pause_output`` if the client leaves too much
    untaken, and stops or resumes reading its channel."""

    def write(self, data: bytes) -> None: ...

    def is_closing(self) -> bool: ...

    def pause_reading(self) -> None: ...

    def resume_reading(self) -> None: ...


class Terminal:
    """One SSH session's terminal as its app sees it.

    The SSH session calls ``feed`` (input bytes), ``resize``, ``pause_output``/``resume_output``
    (its flow control: what the client has not taken yet) and ``hang_up``; ``run`` runs the app
    on it. Output is coalesced per loop turn. While the client does not read, output is dropped
    instead of queued, and the app repaints the whole screen once the client reads again: a slow
    client gets only the newest frame.

    Input is given to the app only while the connection's ``meter`` (``server.budget``) is out
    of debt, and charged by what it costs, measured: its parsing and everything the app does in
    its own context until it is quiet again (handling the events, painting the frames that
    follow, writing them); what the app does between batches (frames others' moves cause) is
    counted in the meter, not charged (``Meter.own``), and so is, of what it spends while it
    handles a batch, what it spends anyway in that time: its background, the rate measured
    between batches (``BACKGROUND_MEMORY``), given back when the batch is handled (on a busy
    lobby a typist's key would otherwise pay for the lobby's repaints that run meanwhile).
    Bytes are parsed ``PARSE_SLICE``
    characters at a time; events reach the app in small batches, and
    the next batch waits until the app is quiet again (``QUIET``), having handled the last one
    and repainted, so that its cost is counted before more is given; meanwhile what it will
    probably cost (the last batches' cost per event) is held from the budget, so that several
    sessions of one address do not all give a costly batch at once. Input not yet given stays
    here and the channel stops reading: SSH flow control then holds the client back. A resize is
    one more event (the latest size wins), given at most once per ``resize_interval`` seconds.
    Consecutive mouse moves waiting their turn become the last one.
    """

    def __init__(
        self,
        channel: Channel,
        size: tuple[int, int],
        *,
        max_paste: int,
        resize_interval: float,
        meter: Meter,
        name: str = "a session",
        on_first_frame: Callable[[], None] = lambda: None,
        entered: bool = False,
        shown: Callable[[], bool] | None = None,
        on_shown: Callable[[], None] = lambda: None,
    ) -> None:
        self.size = size
        # A session handed over from a shared screen (server/share.py): its terminal is set up
        # already (``entered``), and the app's frames are kept from it until ``shown()`` says
        # the app shows what the shared screen showed; then ``on_shown`` is called and the
        # app paints its whole screen.
        self.entered = entered
        self._shown = shown
        self._on_shown = on_shown
        self._resize_interval = resize_interval
        self._channel = channel
        self._max_paste = max_paste
        self.meter = meter
        self._name = name  # for the log
        self._held_back = False  # input was held for the budget (said once in the log)
        # While the connection is over its budget its app paints nothing (Textual's batch
        # update, entered here and left once it is back under): the frames others' news would
        # make it paint are painted once, as one, when it is.
        self._frozen: contextlib.AbstractContextManager[None] | None = None
        self._over_by: set[str] = set()  # why it is over: its input waits, its reading is held
        self._on_first_frame: Callable[[], None] | None = on_first_frame
        self._loop = asyncio.get_running_loop()
        self._app: App[Any] | None = None
        self._driver: SSHDriver | None = None  # set while the app is in application mode
        # Input: bytes -> text (bad UTF-8 becomes U+FFFD, never an error) -> Textual events.
        budget.install()
        self._context = contextvars.Context()  # where input is parsed: charged to the meter
        self._context.run(METER.set, meter)
        self._context.run(CLIENT.set, True)
        meter.own = True  # (the app's start is the connection's doing)
        self._decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode
        self._text = ""  # decoded input; from _read on, not parsed yet
        self._read = 0
        self._parser = XTermParser()
        self._events: deque[Message] = deque()  # parsed, not given to the app yet
        self._reading = True
        self._left = False  # the app has left application mode: input is ignored
        self._pump_timer: asyncio.TimerHandle | None = None
        self._unsettled = False  # a batch was given and the app has not been quiet since
        # When the last batch was given, the meter then (spent, owned), its size:
        self._given_at = (0.0, 0.0, 0.0, 0)
        self._settled_at: tuple[float, float] | None = None  # when it was handled, meter.others
        self._background = 0.0  # CPU s a second the app spends on others' doing, by the last looks
        self._event_cpu = BATCH_CPU / MAX_BATCH  # what an event costs, by the last batches
        self._reserved = 0.0  # held from the budget for the batch being handled
        self._settle_timer: asyncio.TimerHandle | None = None
        self._escape_timer: asyncio.TimerHandle | None = None
        self._quiet_chars = 0  # characters parsed since the parser last gave an event
        self._skipping_paste = False
        self._skipped_tail = ""
        self._resize_due = False
        self._last_resize = -resize_interval
        # Output.
        self._pending: list[str] = []
        self._send_scheduled = False
        self._paused = False
        self._dropped_output = False
        self._hung_up = False

    async def run(self, app: App[Any]) -> int:
        """Run ``app`` on this terminal until it exits; returns its return code."""
        self._app = app
        # Textual builds the driver itself, as driver_class(app, debug=, mouse=, size=). A
        # partial, not a class made per session: a class is a reference cycle, and this one
        # would hold the terminal and the app after the session. (Nothing of a session may
        # outlive it in a cycle: server/cycles.py says why.)
        app.driver_class = cast("type[SSHDriver]", functools.partial(SSHDriver, terminal=self))
        METER.set(self.meter)  # the app's tasks inherit it: their time is counted in it
        # and charged while it is the session's own doing (``Meter.own``). This task was
        # started from the client's packets (the shell request), in their context: without
        # this, everything the app ever did would be charged as the client's.
        CLIENT.set(False)
        try:
            await app.run_async(size=self.size)
        finally:
            # This terminal holds the app, and the parser (a cycle with its generator) holds
            # the last key it made, which names the app.
            self._app = None
            self._parser._gen.close()
            self._shown, self._on_shown = None, _nothing  # (they may hold the session)
        return app.return_code or 0

    # Input ----------------------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        """Input from the client. What comes before the app is in application mode waits for
        its start to be over (a player typing ahead of the lobby's first frame); what comes
        once it has left is ignored."""
        text = self._decode(data)
        if self._left or not text:
            return
        self._text = self._text[self._read :] + text
        self._read = 0
        if self._driver is not None:
            self._wake()
        self._flow()

    def feed_held(self, data: list[bytes]) -> None:
        """Input held for this terminal while its channel's reading was stopped (a session
        handed over from a shared screen): given, and the channel read again once it all is."""
        self._reading = False
        for chunk in data:
            self.feed(chunk)
        self._flow()

    def _wake(self) -> None:
        if not self._unsettled:
            self._pump_in(0.0)

    def _pump_in(self, delay: float) -> None:
        """Pump in ``delay`` seconds, or sooner if a pump is due sooner."""
        when = self._loop.time() + delay
        timer = self._pump_timer
        if timer is not None:
            if timer.when() <= when:
                return
            timer.cancel()
        self._pump_timer = self._loop.call_at(when, self._pump, context=self._context)

    def _pump(self) -> None:
        """Give the app what the budget allows: a resize if one is due, else a batch of events,
        parsing one more slice of input if none is waiting. Runs in the meter's context."""
        self._pump_timer = None
        if self._driver is None or self._unsettled:
            return
        debt = self.meter.wait()
        if debt > 0:
            if not self._held_back:
                self._held_back = True
                log.info("%s: over its CPU budget, its input waits", self._name)
            self._over(INPUT_WAITS, True)
            self._pump_in(debt)
        else:
            self._over(INPUT_WAITS, False)
            if self._resize_ready():
                self._give_resize()
            else:
                if not self._events and self._read < len(self._text):
                    self._parse_slice()
                    for _slice in range(MOVE_SLICES - 1):
                        if not self._only_a_move() or self._read == len(self._text):
                            break
                        self._parse_slice()  # more moves may follow: they replace this one
                if self._events:
                    self._give_events()
                elif self._read < len(self._text):
                    self._pump_in(0.0)
        self._flow()

    def _reading_held(self, held: bool) -> None:
        """The connection's reading is held for its budget (``budget.Reading``), or not."""
        self._over(READING_HELD, held)

    def _over(self, why: str, over: bool) -> None:
        """The connection is over its budget (for ``why``), or no longer: its app paints
        nothing while it is over for any reason, but while it handles a batch of input (what
        the input changes is painted, and charged)."""
        if over:
            self._over_by.add(why)
        else:
            self._over_by.discard(why)
        self._freeze(bool(self._over_by) and not self._unsettled)

    def _freeze(self, frozen: bool) -> None:
        if frozen and self._frozen is None and self._app is not None:
            self._frozen = self._app.batch_update()
            self._frozen.__enter__()
        elif not frozen and self._frozen is not None:
            batch, self._frozen = self._frozen, None
            batch.__exit__(None, None, None)  # (what is dirty is painted, once)

    def _only_a_move(self) -> bool:
        return len(self._events) == 1 and isinstance(self._events[0], events.MouseMove)

    def _resize_ready(self) -> bool:
        """A resize is due and its interval has passed (if not, pump again when it has)."""
        if not self._resize_due:
            return False
        wait = self._last_resize + self._resize_interval - self._loop.time()
        if wait > 0:
            self._pump_in(wait)
        return wait <= 0

    def _give_resize(self) -> None:
        assert self._driver is not None
        self._resize_due = False
        self._last_resize = self._loop.time()
        self._driver.post_size(self.size)
        self._wait_for_app(1)

    def _give_events(self) -> None:
        assert self._driver is not None
        size = max(1, min(MAX_BATCH, int(BATCH_CPU / self._event_cpu)))
        given = 0
        while self._events and given < size:
            self._driver.process_message(self._events.popleft())
            given += 1
        self._wait_for_app(given)

    def _wait_for_app(self, given: int) -> None:
        """Give nothing more until the app has been quiet for a while (or SETTLE_TIMEOUT)."""
        self._unsettled = True
        self._freeze(False)
        now = self._loop.time()
        if self._settled_at is not None:  # the app's background, measured since the last batch
            at, others = self._settled_at
            self._settled_at = None
            if now > at:
                weight = min(1.0, (now - at) / BACKGROUND_MEMORY)
                self._background += weight * ((self.meter.others - others) / (now - at)
                                              - self._background)
        self.meter.own = True
        self._given_at = (now, self.meter.spent, self.meter.owned, given)
        self._reserved = given * self._event_cpu
        self.meter.reserve(self._reserved)
        self._check_settled()

    def _check_settled(self) -> None:
        # Not in the meter's context: looking costs the session nothing, and is no activity.
        self._settle_timer = None
        now = self._loop.time()
        given_at, spent, owned, given = self._given_at
        quiet = QUIET - (now - max(self.meter.active_at, given_at))
        late = given_at + SETTLE_TIMEOUT - now
        if quiet > 0 and late > 0:
            self._settle_timer = self._loop.call_later(
                min(quiet, late), self._check_settled, context=_UNMETERED
            )
            return
        self._unsettled = False
        # What the app does next, until more input is given, is not this session's doing (the
        # frames others' moves cause): counted, not taken from its budget.
        self.meter.own = False
        self.meter.reserve(-self._reserved)  # now measured
        self._reserved = 0.0
        # What the app spends anyway meanwhile (others' moves, the lobby's news) was not this
        # batch's doing: given back. Not to a connection over its budget: its app would have
        # painted nothing meanwhile (``_over``), so all it spent was its doing.
        background = min(self.meter.owned - owned, self._background * (now - given_at))
        if background <= 0 or self.meter.wait() > 0:
            background = 0.0
        else:
            self.meter.give_back(background)
        self._settled_at = (now, self.meter.others)
        self._freeze(bool(self._over_by))
        if given:
            # The estimate follows the costliest recent events down slowly (never to zero).
            cost = (self.meter.spent - spent - background) / given
            self._event_cpu = max(cost, self._event_cpu / 2, 1e-6)
        if self._driver is not None:
            self._pump_in(0.0)

    def _flow(self) -> None:
        """Stop reading the channel while input waits here; read again once it is all given."""
        waiting = self._read < len(self._text) or bool(self._events)
        if waiting and self._reading:
            self._reading = False
            self._channel.pause_reading()
        elif not waiting and not self._reading:
            self._reading = True
            self._channel.resume_reading()  # (may feed at once)

    def _parse_slice(self) -> None:
        if self._skipping_paste:
            self._skip_paste()
            return
        text = self._text[self._read : self._read + PARSE_SLICE]
        self._read += len(text)
        self._quiet_chars += len(text)
        for message in self._parser.feed(text):
            self._queue(message)
        self._arm_escape_timer()
        if self._quiet_chars > self._max_paste:
            # Only a bracketed paste keeps the parser quiet this long: it buffers the pasted
            # text until the paste ends. Stop feeding it until the end marker comes, so the app
            # gets the first max_paste characters and the server's memory stays bounded.
            log.info("paste longer than %d characters: truncated", self._max_paste)
            self._skipping_paste = True

    def _skip_paste(self) -> None:
        """Drop input up to the end of the paste; what follows, end marker included, stays."""
        seen = self._skipped_tail + self._text[self._read :]
        end = seen.find(PASTE_END)
        if end < 0:
            self._skipped_tail = seen[-(len(PASTE_END) - 1) :]
            self._text, self._read = "", 0
            return
        self._skipping_paste = False
        self._skipped_tail = ""
        self._quiet_chars = 0
        self._text, self._read = seen[end:], 0

    def _queue(self, message: Message) -> None:
        self._quiet_chars = 0
        if isinstance(message, _DROPPED):
            return
        if isinstance(message, events.MouseMove) and self._events and isinstance(
            self._events[-1], events.MouseMove
        ):
            self._events[-1] = message  # of a run of moves, only the last matters
            return
        self._events.append(message)

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
        if self._read < len(self._text):
            return  # more input waits its turn here: the sequence goes on in it
        for message in self._parser.tick():
            self._queue(message)
        self._arm_escape_timer()  # the clock may not have reached the deadline yet
        self._wake()

    # Size -----------------------------------------------------------------------------------

    def resize(self, width: int, height: int) -> None:
        """The client's window changed (already clamped)."""
        self.size = (width, height)
        if self._driver is not None:
            # Each resize re-lays out and repaints the whole screen: a burst of window changes
            # (a window being dragged, or a client sending thousands) becomes a few.
            self._resize_due = True
            self._wake()

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
        if (self._paused or self._shown is not None) and not force:
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
            if not self._unsettled:
                self._wait_for_app(0)  # the start is the session's own until the app is quiet
        if self._shown is not None and self._shown():
            on_shown, self._shown, self._on_shown = self._on_shown, None, _nothing
            on_shown()
            self.resume_output()

    def pause_output(self) -> None:
        """The client is not taking what it was sent: drop frames until ``resume_output``."""
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
        # (undone by detach: the meter outlives the session, and must not hold it in a cycle)
        self.meter.on_held = self._reading_held

    def detach(self) -> None:
        self._driver = None
        self._left = True
        self._over_by.clear()
        self._freeze(False)
        self.meter.on_held = None
        self.meter.reserve(-self._reserved)  # (the address's bucket outlives the session)
        self._reserved = 0.0
        for timer in (self._escape_timer, self._pump_timer, self._settle_timer):
            if timer is not None:
                timer.cancel()
        self._escape_timer = self._pump_timer = self._settle_timer = None

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
        # (a terminal set up already is only asked again whether it synchronizes output)
        self.write(_ASK_SYNC if self._terminal.entered else enter_sequence(self._mouse))
        self._terminal.attach(self)
        self.post_size(self._terminal.size)

    def post_size(self, size: tuple[int, int]) -> None:
        self._size = size
        self.send_message(events.Resize.from_dimensions(size, None))

    def disable_input(self) -> None:
        self._terminal.detach()

    def stop_application_mode(self) -> None:
        self._terminal.detach()
        self.write(leave_sequence(self._mouse))
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

COLOR_SYSTEMS = {"truecolor": "truecolor", "256": "256", "16": "standard", "none": None}
"""``pioche serve --colors``: the most colours any session gets (its console's colour system)."""
RENDERED_LINES = 1024
"""Lines kept rendered per colour system other than true colour (which Textual keeps itself)."""
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


_textual_render = Strip.render
_rendered: dict[ColorSystem, LRUCache[int, tuple[Strip, str]]] = {}


def _render(self: Strip, console: Console) -> str:
    # Textual keeps a line's escape codes in the line (Strip._render_cache), and a style's in
    # the style (Rich's Style._ansi), whatever the colour system they were made for. Lines and
    # styles are shared by every app of the process (widgets.lines, Rich's own caches), and
    # sessions have different depths (pioche_tui.app.colours): those caches hold true colour's
    # codes only. Other depths keep theirs here, by line, and never touch a style's.
    system = console._color_system
    if system is None or system == ColorSystem.TRUECOLOR:  # (None: Textual's own default)
        return _textual_render(self, console)
    cache = _rendered.get(system)
    if cache is None:
        cache = _rendered[system] = LRUCache(RENDERED_LINES)
    known = cache.get(id(self))
    if known is not None and known[0] is self:
        return known[1]
    text = "".join([segment if style is None else _render_style(style, segment, system)
                    for segment, style, _ in self._segments])
    cache.set(id(self), (self, text))  # (the line is held: its id is not reused meanwhile)
    return text


def _render_style(style: Style, text: str, system: ColorSystem) -> str:
    """Textual's ``Strip.render_style`` for ``system``, leaving the style's own cache as it was."""
    kept = style._ansi
    ansi = Strip.render_ansi(style, system)  # (cached by style and system)
    style._ansi = kept
    output = f"\x1b[{ansi}m{text}\x1b[0m" if ansi else text
    if style._link:
        output = f"\x1b]8;id={style._link_id};{style._link}\x1b\\{output}\x1b]8;;\x1b\\"
    return output


def configure_textual(color_system: str = "truecolor") -> None:
    """Make Textual fit a process that runs many apps on one loop. Call before the first app.

    - Each app's run redirects ``sys.stdout``/``sys.stderr`` to itself while it runs; with apps
      starting and stopping in any order, the process's streams would end up pointing at a dead
      app. The redirection is disabled: ``print`` in an app goes to the server's log streams.
    - A ceiling on every session's colours (``truecolor`` by default; ``256``, ``16`` or
      ``none``), not guessed from the server's own environment: each app then takes what its
      client's terminal says, up to it (``pioche_tui.app.colours``). Textual's escape-code
      caches are made to hold for apps of different depths in one process (``_render``).
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
    # read by each App.__init__ (None: no colours)
    constants.COLOR_SYSTEM = COLOR_SYSTEMS[color_system]  # type: ignore[misc]
    if _configured:
        return
    _configured = True
    textual.app.redirect_stdout = _keep_stream  # type: ignore[misc,assignment]
    textual.app.redirect_stderr = _keep_stream  # type: ignore[misc,assignment]
    App.get_system_commands = _system_commands  # type: ignore[method-assign,assignment]
    Stylesheet._parse_rules = _parse_rules_once  # type: ignore[method-assign]
    Strip.render = _render  # type: ignore[method-assign]
