"""Spectators who share a screen: one app paints it, every viewer's channel gets the same bytes.

Spectators of one table whose terminals have the same size, language and colours see the same
screen (the app's ``Sharing.share_key`` says which sessions those are: ``watch TABLE``
sessions, see docs/server.md). Instead of one app each, a ``Group`` runs one app for them, on a
``driver.Terminal`` whose channel is the group itself: each frame's bytes, made once, are
written to every member's channel.

- A member who joins is sent the terminal's set-up and a whole frame (``driver.full_frame``:
  the app's screen as it is, rendered without disturbing the app), then the group's updates.
  Until the group's app shows the table, its frames go to nobody.
- A member whose client does not take its output (the session's flow control, as for an app
  of its own: ``_Session.check_output``) skips frames meanwhile, and gets a whole frame once
  it has caught up: the others never wait for it.
- A member who resizes leaves for the group of its new size (made if there is none), at most
  once per ``resize_interval``; a group left by its last member stops its app.
- A member who presses a key (or clicks, scrolls, pastes) gets an app of its own, on what it
  held while sharing (its own watching session), showing the same table. Until that app shows
  the table the member keeps the group's frames, and what it typed waits; then the new app
  paints its whole screen and gets what was typed. Each shared screen is a spectator's screen
  only: a key is never handled by the group's app.
- A group whose app no longer shows its table (the table closed) hands every member an app of
  its own, as a key would.

Input while sharing is only looked at (parsed to tell keys from the terminal's answers and
mouse moves), within the connection's metered reading (``budget.meter_reading``: charged to
it, and not read while it is in debt).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine, Hashable, Iterable
from typing import Any

from textual import events
from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.app import App
from textual.message import Message

from .budget import Bucket, Meter
from .driver import _UNMETERED, Channel, Terminal, enter_sequence, full_frame, leave_sequence
from .limits import Limits
from .session import ServerShutdown, SessionInfo, Sharing

log = logging.getLogger("pioche.server")

# What a member sends that needs an app of its own; the rest (its terminal's answers, the mouse
# moving over the screen) changes nothing it sees.
_QUIT_KEYS = ("ctrl+q", "ctrl+c")  # PiocheApp's quit keys: a question, asked here
_NEEDS_AN_APP = (events.Key, events.MouseDown, events.MouseUp, events.Click,
                 events.MouseScrollUp, events.MouseScrollDown, events.MouseScrollLeft,
                 events.MouseScrollRight, events.Paste)
GROUP_CPU = 1e6
"""A group's app is everyone's: its meter (where its CPU time is counted) never holds it back."""


class Hub:
    """The server's groups, by (key, size). What the app is asked that may wait for the
    coordinator (a request over the bus, ``pioche front``) is awaited: joining, making a
    group's app; closing what is let go of runs in the background (``later``), since a
    session may end in a synchronous callback."""

    def __init__(self, sharing: Sharing, limits: Limits,
                 startups: asyncio.Semaphore) -> None:
        self.sharing = sharing
        self.limits = limits
        self.startups = startups
        self.groups: dict[tuple[Hashable, tuple[int, int]], Group] = {}
        self.closing = False
        self._background: set[asyncio.Task[None]] = set()

    async def member(self, channel: Channel, info: SessionInfo, meter: Meter) -> Member | None:
        """A member for this session if it may share (in the group of its key and size);
        None if it must have an app of its own."""
        if self.closing:
            return None
        joined = await self.sharing.join(info)
        if joined is None:
            return None
        key, held = joined
        member = Member(self, channel, info, key, held, meter)
        if self.closing or not await member.move(info.size):
            member.hang_up()  # (what it held closed)
            member.close()
            return None
        return member

    async def group(self, key: Hashable, size: tuple[int, int], info: SessionInfo,
                    meter: Meter) -> Group | None:
        """The group of ``key`` and ``size``, started if there was none, its start charged to
        ``meter`` (None if its app cannot be made: the table is gone; or the server stops).
        Returned with no wait after looking: the caller joins it before anything else runs."""
        app: App[Any] | None = None
        while True:
            group = self.groups.get((key, size))
            if self.closing or (group is not None and not group.stopping):
                if app is not None:  # (made meanwhile by another, or too late)
                    self.later(self.sharing.discard(app))
                return None if self.closing else group
            if app is not None:
                group = self.groups[key, size] = Group(self, key, size, app, meter)
                group.start()
                return group
            app = await self.sharing.shared_app(info)
            if app is None:
                return None

    def forget(self, group: Group) -> None:
        if self.groups.get((group.key, group.size)) is group:
            del self.groups[group.key, group.size]

    def later(self, closing: Coroutine[Any, Any, None]) -> None:
        """Run ``closing`` (letting go of a session) in the background; ``settle`` waits for
        those still running."""
        task = asyncio.get_running_loop().create_task(closing)
        self._background.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("shared screens: letting go of a session failed",
                      exc_info=task.exception())

    async def settle(self) -> None:
        """Wait for what runs in the background (the server's last step)."""
        while self._background:
            await asyncio.wait(list(self._background))

    def close(self) -> list[asyncio.Task[None]]:
        """The server stops: every group's app is told (it freezes the tables, as any app
        does) and exits; its members end (the server says goodbye). The apps' tasks."""
        self.closing = True
        tasks = []
        for group in list(self.groups.values()):
            group.app.post_message(ServerShutdown(self.limits.shutdown_grace))
            if group.task is not None:
                tasks.append(group.task)
        return tasks


class Group:
    """One shared screen: its app, on a Terminal whose channel (this) fans out to members."""

    def __init__(self, hub: Hub, key: Hashable, size: tuple[int, int], app: App[Any],
                 founder: Meter) -> None:
        self.hub = hub
        self.key = key
        self.size = size
        self.app = app
        self.members: dict[Member, None] = {}  # in order of arrival
        self.shown = False  # the app shows the table: its frames go out
        self.stopping = False
        self.task: asyncio.Task[None] | None = None
        self._loop = asyncio.get_running_loop()
        self._wanting: set[Member] = set()  # to be sent a whole frame
        self._full_scheduled = False
        limits = hub.limits
        self.meter = Meter(Bucket(GROUP_CPU, GROUP_CPU))
        # Who made the group pays for its start (as for an app of their own): a spectator
        # resizing again and again spends their own budget, then waits (Member.resize).
        self._founder: Meter | None = founder
        self.terminal = Terminal(
            self, size, max_paste=limits.max_paste, resize_interval=limits.resize_interval,
            meter=self.meter, name=f"shared screen {key} {size[0]}x{size[1]}",
            on_first_frame=self._started, shown=self._shows, on_shown=self._show,
        )
        self._released = True

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name=f"shared screen {self.key}")

    async def _run(self) -> None:
        hub = self.hub
        await hub.startups.acquire()  # (an app's start is a burst of CPU, as anyone's)
        self._released = False
        try:
            if not self.stopping:
                await self.terminal.run(self.app)
        except Exception:
            log.exception("shared screen %s: the app failed", self.key)
        finally:
            self._started()
            self._bill_founder()
            hub.later(hub.sharing.discard(self.app))  # (one that never ran holds its session)
            self.stopping = True
            hub.forget(self)
            # Those still here get an app of their own (or end, if the server stops).
            for member in list(self.members):
                member.group_ended(self)
            self.members.clear()
            self.terminal = self.app = None  # type: ignore[assignment]  # (freed with it)

    def _started(self) -> None:
        if not self._released:
            self._released = True
            self.hub.startups.release()

    def _shows(self) -> bool:
        return self.hub.sharing.shows(self.app)

    def _bill_founder(self) -> None:
        if self._founder is not None:
            self._founder.charge(self.meter.spent)
            self._founder = None

    def _show(self) -> None:
        self._bill_founder()
        if self.hub.sharing.lost_table(self.app):
            # Its table closed while the app started: the lobby it shows is nobody's to share.
            for member in list(self.members):
                member.group_ended(self)
            return
        self.shown = True
        for member in self.members:
            self.send_full(member)

    # Members.

    def add(self, member: Member) -> None:
        self.members[member] = None
        if self.shown:
            self.send_full(member)

    def remove(self, member: Member) -> None:
        self.members.pop(member, None)
        self._wanting.discard(member)
        if not self.members and not self.stopping:
            self.stopping = True
            self.hub.forget(self)
            if self.app is not None:
                self.app.exit()

    def send_full(self, member: Member) -> None:
        """Send ``member`` a whole frame, soon (one rendering for all who want one)."""
        self._wanting.add(member)
        if not self._full_scheduled:
            self._full_scheduled = True
            # (charged to those who asked, below: not to whoever's callback asked first)
            self._loop.call_soon(self._send_full, context=_UNMETERED)

    def _send_full(self) -> None:
        self._full_scheduled = False
        if not self.shown or self.stopping or not self._wanting:
            return
        wanting, self._wanting = self._wanting, set()
        # A whole frame is for those who asked (joining, catching up after a backlog): its
        # rendering is charged to them, shared, so a slow reader pays for its catch-ups.
        started = time.thread_time()
        data = self.terminal._context.run(full_frame, self.app).encode("utf-8", "replace")
        cost = (time.thread_time() - started) / len(wanting)
        for member in wanting:
            member.meter.charge(cost)
            if member.group is self:
                member.send_full(data)

    # The Terminal's channel.

    def write(self, data: bytes) -> None:
        if not self.shown:
            return
        if self.hub.sharing.lost_table(self.app):
            # Its table closed: the app shows the lobby, which is nobody's to share (nor
            # sent). Each member gets an app of its own (in the lobby, where its session is).
            for member in list(self.members):
                member.group_ended(self)
            return
        for member in self.members:
            member.send(data)

    def is_closing(self) -> bool:
        return self.stopping and not self.members

    def pause_reading(self) -> None:
        """(the group's app gets no input)"""

    def resume_reading(self) -> None:
        """(the group's app gets no input)"""


class Member:
    """A session while it shares a group's screen. The SSH session talks to it as it does to
    a ``Terminal`` (``feed``, ``resize``, ``pause_output``/``resume_output``, ``hang_up``);
    ``run`` waits until the session ends (False) or needs an app of its own (True: ``held`` is
    what that app takes over)."""

    def __init__(self, hub: Hub, channel: Channel, info: SessionInfo, key: Hashable,
                 held: object, meter: Meter) -> None:
        self.hub = hub
        self.channel = channel
        self.info = info
        self.key = key
        self.held: object | None = held
        self._viewer = held  # whose quit question it asks (``held`` goes to its own app)
        self.meter = meter
        self.size = info.size
        self.group: Group | None = None
        self._loop = asyncio.get_running_loop()
        self._done: asyncio.Future[bool] = self._loop.create_future()
        self._own: Terminal | None = None  # the app of its own being started, once asked
        self._paused = False  # its client does not take what it is sent
        self._asking = False  # the quit question is shown
        self._yes = False  # its « yes » is highlighted
        self._questions: dict[tuple[tuple[int, int], bool], bytes] = {}  # drawn already
        self._missed = False  # frames were skipped meanwhile
        self._typed: list[bytes] = []  # input that waits for the member's own app
        self._parser = XTermParser()
        self._escape_timer: asyncio.TimerHandle | None = None
        self._resize_timer: asyncio.TimerHandle | None = None
        self._moving: asyncio.Task[None] | None = None  # to the group of a new size
        self._last_resize = -hub.limits.resize_interval
        self._reading = True
        self.channel.write(enter_sequence().encode())

    async def run(self) -> bool:
        try:
            return await self._done
        finally:
            self.close()

    def close(self) -> None:
        """Its input is no longer looked at (the parser's generator is a cycle)."""
        self._parser._gen.close()
        for timer in (self._escape_timer, self._resize_timer):
            if timer is not None:
                timer.cancel()
        self._escape_timer = self._resize_timer = None
        # (a move under way finishes: it finds the member ended, and stops a group made
        # for it alone)

    # Groups.

    async def move(self, size: tuple[int, int]) -> bool:
        """Into the group of ``size``; False if there is none to be had, or the member no
        longer shares (it ended, or asked for an app of its own, while the group was made)."""
        group = await self.hub.group(self.key, size, self.info, self.meter)
        if group is None:
            return False
        if self._done.done():
            group.remove(self)  # (a group made for it alone stops)
            return False
        if self.group is not None:
            self.group.remove(self)
        self.size = size
        self.group = group
        group.add(self)
        return True

    def group_ended(self, group: Group) -> None:
        """The group's app is gone or lost its table (closed, failed, or the server stops):
        an app of its own, wherever its session is now; none if the server stops."""
        if self.group is not group:
            return
        group.remove(self)  # (no more of its frames)
        self.group = None
        if self.hub.closing:
            self.hang_up()
        else:
            self._ask_for_app()

    # Output.

    def send(self, data: bytes) -> None:
        if self._paused or self._asking:
            self._missed = True
            return
        self.channel.write(data)  # (may pause_output)

    def send_full(self, data: bytes) -> None:
        if self._paused:
            self._missed = True
            return
        self._missed = False
        self.channel.write(data)
        if self._asking:  # (a resize, or caught up: the question stays over the screen)
            self._draw_question()

    def pause_output(self) -> None:
        self._paused = True

    def resume_output(self) -> None:
        self._paused = False
        if self._missed and self.group is not None:
            self.group.send_full(self)  # (clears _missed when it is sent)

    # Input.

    def feed(self, data: bytes) -> None:
        if self._own is not None or self._done.done():
            self._typed.append(data)  # for its own app, once it shows
            self._hold_reading()
            return
        self._look_at(data)

    def feed_held(self, data: list[bytes]) -> None:
        """Input held for this member while its channel's reading was stopped (typed before
        it existed): looked at, and the channel read again, unless it now waits for an app of
        its own (whose terminal reads it again once it has been given what was typed)."""
        for chunk in data:
            self.feed(chunk)
        if self._reading:
            self.channel.resume_reading()

    def _look_at(self, data: bytes) -> None:
        text = data.decode("utf-8", "replace")  # (only looked at: a split character is no key)
        if self._handle(self._parser.feed(text)):
            self._typed.append(data)
            self._ask_for_app()
            return
        self._arm_escape_timer()

    def _handle(self, messages: Iterable[Message]) -> bool:
        """Answer the quit question's keys; True if a message needs an app of its own (the
        parser is drained all the same)."""
        needs = False
        for message in messages:
            if not isinstance(message, _NEEDS_AN_APP) or self._done.done():
                continue
            key = message.key if isinstance(message, events.Key) else None
            if self._asking:
                self._answer(key)
            elif key in _QUIT_KEYS:
                self._ask_quit()
            else:
                needs = True
        return needs and not self._asking and not self._done.done()

    # The quit question (PiocheApp.action_quit asks it of a spectator too), without an app:
    # drawn by the app's ``quit_question`` over the shared screen, which this member stops
    # getting while it is shown, and gets whole again when the answer is no. As the dialog:
    # o or y is yes; n or Escape no; Enter the highlighted button (« Non » at first); the
    # arrows and Tab move the highlight. (A click on its buttons is not taken: keys only.)

    def _ask_quit(self) -> None:
        self._asking = True
        self._yes = False
        self._draw_question()

    def _draw_question(self) -> None:
        # Drawn again at each arrow key and whole frame: built once per size and highlight
        # (building it reads the player's settings).
        key = (self.size, self._yes)
        question = self._questions.get(key)
        if question is None:
            if len(self._questions) >= 2:
                self._questions.clear()  # (a new size)
            question = self._questions[key] = self.hub.sharing.quit_question(
                self._viewer, self.size, self._yes).encode()
        self.channel.write(question)

    def _answer(self, key: str | None) -> None:
        if key in ("o", "y") or (key == "enter" and self._yes):
            self._asking = False
            self._leave(own_app=False)
        elif key in ("n", "escape", "enter"):
            self._asking = False
            if self.group is not None:
                self.group.send_full(self)
        elif key in ("left", "right", "tab", "shift+tab"):
            self._yes = not self._yes
            self._draw_question()

    def _leave(self, own_app: bool) -> None:
        """Out of its group: with an app of its own to come (``run`` returns True), or ending
        (what it held closed)."""
        if self.group is not None:
            self.group.remove(self)
            self.group = None
        if not own_app and self.held is not None and self._own is None:
            self.hub.later(self.hub.sharing.release(self.held))
            self.held = None
        if not self._done.done():
            self._done.set_result(own_app)

    def _arm_escape_timer(self) -> None:
        # A lone Esc is a key once the parser has waited for more (driver.Terminal does so too).
        deadline = self._parser._timeout_time
        if deadline is None or self._escape_timer is not None:
            return
        self._escape_timer = self._loop.call_later(
            max(0.0, deadline - get_time()) + 0.001, self._escape_due)

    def _escape_due(self) -> None:
        self._escape_timer = None
        if self._own is None and self._handle(self._parser.tick()):
            self._typed.append(b"\x1b")  # (the app's parser resolves it the same way)
            self._ask_for_app()
        else:
            self._arm_escape_timer()

    def _hold_reading(self) -> None:
        if self._reading:
            self._reading = False
            self.channel.pause_reading()

    def _ask_for_app(self) -> None:
        """A key needs an app of its own: the session starts one (``run`` returns True). It
        stays in its group until that app shows the table (``handed_over``)."""
        self._hold_reading()
        if not self._done.done():
            self._done.set_result(True)

    def hand_to(self, terminal: Terminal) -> None:
        """The session's own app runs on ``terminal``: the group's frames go on until it
        shows (``handed_over``)."""
        self._own = terminal

    def handed_over(self) -> Callable[[], None]:
        """What the own app's terminal calls once its app shows the table: the member leaves
        its group, and the app gets what was typed meanwhile. Returns a function that does
        so (for ``Terminal``'s ``on_shown``)."""

        def done() -> None:
            if self.group is not None:
                self.group.remove(self)
                self.group = None
            typed, self._typed = self._typed, []
            self.held = None  # (the app has it now)
            if self._own is not None:  # (the channel's reading is the terminal's from now)
                self._own.feed_held(typed)

        return done

    # Size and end.

    def resize(self, width: int, height: int) -> None:
        """The client's window changed (already clamped): move at most once per
        ``resize_interval`` (the latest size wins)."""
        self.size = (width, height)
        if self._own is not None:
            self._own.resize(width, height)
        if self._resize_timer is not None or self._moving is not None:
            return  # (the move under way looks at the size again once done)
        wait = self._last_resize + self.hub.limits.resize_interval - self._loop.time()
        self._resize_timer = self._loop.call_later(max(0.0, wait), self._apply_resize)

    def _apply_resize(self) -> None:
        self._resize_timer = None
        self._last_resize = self._loop.time()
        if self._done.done():
            return  # (ended, or handed over: its own app takes the size, ``resize``)
        debt = self.meter.wait()
        if debt > 0:  # (over its budget: the resize waits, as an app's input does)
            self._resize_timer = self._loop.call_later(debt, self._apply_resize)
            return
        if self.group is not None and self.group.size != self.size:
            self._moving = self._loop.create_task(self._move_to(self.size))

    async def _move_to(self, size: tuple[int, int]) -> None:
        try:
            moved = await self.move(size)
        finally:
            self._moving = None
        if not moved and not self._done.done():
            self._ask_for_app()  # (no group to be had: an app of its own)
        elif self.size != size and not self._done.done():
            self.resize(*self.size)  # (it changed again meanwhile)

    def hang_up(self) -> None:
        """The client is gone, or the server ends the session."""
        if self._own is not None:
            self._own.hang_up()
        self._leave(own_app=False)

    def goodbye(self) -> bytes:
        """What gives the client's terminal back, when the session ends while sharing."""
        return leave_sequence().encode()

