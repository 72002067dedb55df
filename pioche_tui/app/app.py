"""PiocheApp: one player's screen, fed by their coordinator session's mailbox.

Whoever builds it (the SSH server per connection, ``pioche play`` in a local terminal, the
tests) passes plain values. Several apps share one process and one event loop, so the app never
calls ``App.run()`` itself, never writes to stdout, starts no thread and keeps its start-up
lean: one small screen first, the others built when first shown.

A single task reads the session's mailbox (latest wins) and hands each kind of news to the
screen it concerns: the lobby, the table screen, chat, notices. When the coordinator closes the
session the app shows why for a moment (``FAREWELL_SECONDS``), then exits; ``farewell`` keeps
it for whoever ran the app (the SSH server writes it on the player's terminal).

Nothing ends by accident: quitting (Ctrl+Q, Ctrl+C, q in the lobby) asks first, saying what
becomes of the player's seat (``action_quit``).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from ..coordinator.client import Connector, CoordinatorClient, Mail
from ..coordinator.model import (
    ChatLine,
    GuestPass,
    Place,
    Player,
    Refused,
    ServerInfo,
    TableUpdate,
)
from ..coordinator.text import name_key, nickname
from ..engine.base import Event
from ..i18n import MESSAGES, Catalogue, pick_lang
from .chat import COMMANDS, chat_parts, info_parts, parse
from .colours import apply_depth, capped, depth_of, terminal_depth
from .games import table_screen_class
from .prefs import Preferences
from .screens.dialogs import Confirm, Farewell
from .screens.lobby import LobbyScreen
from .screens.nickname import NicknameScreen
from .screens.table import TableScreen
from .screens.too_small import TooSmallScreen, too_small

if TYPE_CHECKING:
    from .learn import LearnMemory

log = logging.getLogger("pioche.app")

CHAT_SEEN = 64  # chat lines remembered per scope, to drop the history sent again on return
FAREWELL_SECONDS = 1.5  # how long why the session ended stays on screen before the app exits
BLIP_NOTICE_SECONDS = 60.0  # « reconnexion… » stays until the bus is back or the session
# ends (remote.BLIP_LIMIT, 30 s: this is a margin over it)
SLOW_CONNECT = 1.0
"""Seconds a session may take to open before the screen says « Connexion au serveur… » (it
takes some 0.1 s; several seconds while a node's death has the cluster elect a leader, the
name's claim waiting through the election: ``directory.CLAIM_WAIT``)."""
ScreenT = TypeVar("ScreenT", bound=Screen[Any])


def _others_after(events: Sequence[Event], seat: int | None) -> bool:
    """Another seat acted after ``seat`` did, in ``events``."""
    played = False
    for event in events:
        if event.seat == seat:
            played = True
        elif played and event.seat is not None:
            return True
    return False


class PiocheApp(App[None]):
    """The app of one connection. It reaches the coordinator only through its own client,
    opened from ``connector`` (``coordinator.client``: the seam).

    ``identity`` is the player's key fingerprint (``SHA256:…``); for a guest (``guest=True``)
    it is the address they connect from, and their identity is drawn by the coordinator, with
    the reconnect token that proves it (``CoordinatorClient.guest_pass``). ``name`` None asks for a
    nickname (unless the key already has one). ``watch_only`` sessions can watch tables, not sit
    nor chat; ``watch_table`` opens that table at once; ``join_table`` (``ssh -t HOST join
    TABLE [CODE]``) sits the player at a free seat of that table, with its code
    ``join_code`` if private (a refusal is told over the lobby). ``lang`` is the client's locale
    (``LANG``): English when it starts with "en", French otherwise. ``quick_game`` starts a quick
    game against bots right after connecting.

    ``resume_token`` (``ssh -t HOST resume TOKEN``) asks for the seat of the guest that token
    proves: the player comes back as that guest, under the name on the seat. A token that
    holds no seat, or too many attempts from ``peer`` (the client's address), is told in a
    notice, and the session goes on as a new guest. ``server_address`` is the server's host and
    port as the player can reach them, for the command a seated guest is shown. ``peer`` is
    also the address the coordinator counts the tables created from (``Settings.table_rate``;
    "" for a local game).

    ``term`` and ``colorterm`` (the client's TERM and COLORTERM) and ``no_color`` (it sent
    NO_COLOR) set the colours the session gets, up to what the process allows
    (``colours``); None for a local game, which Textual sets up from the environment itself.
    The player's settings (``prefs``: language, colours, the turn's bell and title) are kept
    per key in the database, a guest's for the session.

    A ``connector`` whose client is open already hands the app a session as it is (a
    spectator's who shared a screen until now, or the coordinator's ``mirror`` of a table for a
    shared screen: ``service``): no nickname asked, no connection, the session taken where it
    is (its mailbox, unread so far, holds its table's update with the history).
    """

    TITLE = "Pioche"
    CSS_PATH = "app.tcss"
    ENABLE_COMMAND_PALETTE = False
    # Both replace Textual's own (App.BINDINGS: Ctrl+Q quits at once; Ctrl+C says, in English,
    # to press Ctrl+Q); both ask first (action_quit). A focused input keeps its Ctrl+C (copy).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "key.quit", show=False, priority=True),
        Binding("ctrl+c", "quit", "key.quit", show=False),
    ]

    def __init__(
        self,
        connector: Connector,
        *,
        identity: str,
        name: str | None = None,
        guest: bool = False,
        watch_only: bool = False,
        watch_table: str | None = None,
        join_table: str | None = None,
        join_code: str | None = None,
        lang: str | None = None,
        quick_game: str | None = None,
        resume_token: str | None = None,
        peer: str = "",
        server_address: tuple[str, int] | None = None,
        term: str | None = None,
        colorterm: str | None = None,
        no_color: bool = False,
    ) -> None:
        super().__init__()
        self.client: CoordinatorClient = connector.client()
        self._server: ServerInfo | None = None  # the games, the timers (read when mounted)
        self.identity = identity
        self.resume_token = resume_token
        self.peer = peer
        self.server_address = server_address
        self.guest_pass: GuestPass | None = None
        self.wanted_name = nickname(name) if name else None
        self.guest = guest
        self.watch_only = watch_only
        self.watch_table = watch_table
        self.join_table = join_table
        self.join_code = join_code
        self.quick_game = quick_game
        self.locale_lang = pick_lang(lang)
        self.prefs = Preferences()  # the player's saved ones once mounted (``_load_prefs``)
        self.t = Catalogue(self.locale_lang)
        self.ceiling = depth_of(self)  # what Textual set up for the process: serve --colors
        self.terminal_colours = (
            self.ceiling if term is None else terminal_depth(term, colorterm))
        self.no_color_asked = no_color
        self.apply_colours()
        self.window_title = self.TITLE
        """The terminal's title as this session last set it."""
        self._my_turn: bool | None = None  # at the table shown; None: no game on
        self.lobby: LobbyScreen | None = None
        self.table_screen: TableScreen | None = None
        self.farewell: str | None = None
        self.way_back: str | None = None  # a seated guest's resume command, as they go
        """Why the session ended, once it has (the caller may show it after the app exits)."""
        self._chat_seen: dict[str, deque[ChatLine]] = {}
        self._learning: LearnMemory | None = None
        self._quit_question: Confirm | None = None  # the question shown, while it is
        self.admin = False  # the coordinator takes this player for an admin (the Admin key)

    # --- start and end --------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        """The default screen, under every other: « Connexion au serveur… » there while the
        first session opens slowly (``connect``); removed once the start is over (a widget left
        on the default screen outlived its ended session in a reference cycle:
        server/cycles.py breaks a removed one's)."""
        yield Static("", id="connecting")

    async def on_mount(self) -> None:
        try:
            await self._start()
        except Refused as refusal:  # no coordinator to answer (a front's, while it restarts)
            self.farewell = self.t.refusal(refusal)
            self.say_farewell(self.farewell)

    async def _start(self) -> None:
        """``_open_session``, then « Connexion au serveur… » taken off the default screen."""
        try:
            await self._open_session()
        finally:
            for screen in self.screen_stack[:1]:
                screen.query("#connecting").remove()

    async def _open_session(self) -> None:
        """The player's settings, the server's facts, then the session: handed over, resumed,
        or opened under the name they asked for (else the nickname screen)."""
        await self._load_prefs()
        self._server = await self.client.server_info()
        if self.client.open:  # a session opened already, handed over (``Connector``)
            await self.take_session(await self.client.place())
            self._check_size(self.size.width, self.size.height)
            return
        if self.resume_token is not None and await self._resume(self.resume_token):
            self._check_size(self.size.width, self.size.height)
            return
        name = self.wanted_name or await self._known_name()
        if self.watch_only and not name:  # watchers neither sit nor chat: no need to ask
            name = self.t("watcher.name")
        error = await self.connect(name) if name else None
        if not self.client.open:
            self.open(NicknameScreen(default=name or "", error=error or ""))
        self._check_size(self.size.width, self.size.height)

    # --- the player's settings -------------------------------------------------------------

    async def _load_prefs(self) -> None:
        """The settings kept for the player's key: their language and colours before the
        first screen is shown."""
        prefs = Preferences.from_dict(await self.client.preferences(self.identity))
        if prefs != self.prefs:
            self.prefs = prefs
            self.t = Catalogue(prefs.lang or self.locale_lang)
            self.apply_colours()

    def set_prefs(self, prefs: Preferences) -> None:
        """Take the player's new settings: their colours at once, their language on the
        screens built from now on (``SettingsScreen`` rebuilds the lobby). Kept for their key
        when the settings window closes (``save_prefs``), not at each key."""
        old, self.prefs = self.prefs, prefs
        if prefs.colours != old.colours:
            self.apply_colours()
            # Every widget drawn again through the new filters; the windows built once are
            # built again when next shown.
            self._forget_windows()
            for screen in self.screen_stack:
                for widget in screen.walk_children(with_self=True):
                    widget.refresh()
        if not prefs.title and self.window_title != self.TITLE:
            self.set_window_title(self.TITLE)

    async def save_prefs(self) -> None:
        """Keep the settings for the player's key (a guest's last the session)."""
        if not await self.client.keep_preferences(self.identity, self.prefs.to_dict()):
            self.warn(self.t("settings.not_kept"))

    def follow_language(self) -> None:
        """Once the settings are closed: if the player changed the language, the screens say
        it in the new one (the windows built once are built again when next shown, and the
        lobby now, with what it showed)."""
        lang = self.prefs.lang or self.locale_lang
        if lang == self.t.lang:
            return
        self.t = Catalogue(lang)
        self._forget_windows()
        old = self.lobby
        if old is None or old is not self.screen:
            return  # (a window over it: the lobby keeps its words until the next connection)
        lobby = self.lobby = LobbyScreen(self.client)
        lobby.snapshot = old.snapshot
        lobby._chat = [chat_parts(line, self.t, self._reader)
                       for line in self._chat_seen.get("lobby", ())]
        self.switch_screen(lobby)

    def _forget_windows(self) -> None:
        """The windows built once per app (``reusable``), but those on the stack: built again
        when next shown."""
        for name in ("help", "create", "scores"):
            if self.is_screen_installed(name) and self.get_screen(name) not in self.screen_stack:
                self.uninstall_screen(name)

    def colours(self) -> tuple[str, bool]:
        """The depth this session renders with, and whether in greys (NO_COLOR)."""
        if self.prefs.colours == "auto":
            return capped(self.terminal_colours, self.ceiling), self.no_color_asked
        return capped(self.prefs.colours, self.ceiling), False

    def apply_colours(self) -> None:
        apply_depth(self, *self.colours())

    def set_window_title(self, title: str) -> None:
        """The terminal's window title (OSC 2), written as Textual's ``App.bell`` writes its
        bell. The server's driver saves the terminal's own title when the session starts and
        gives it back when it ends (``server.driver``)."""
        self.window_title = title
        if self._driver is not None and not self.is_headless:
            self._driver.write(f"\x1b]2;{title}\x07")

    def _signal_turn(self, update: TableUpdate) -> None:
        """Ring the bell and say so in the title when the player's turn comes after others
        played (not at a game's first move, nor when the player's own moves keep the turn);
        the title goes back once they have played. Updates are latest-wins: one may hold the
        player's move, the others' and the player's turn again."""
        playing = update.view is not None and update.table.status == "playing"
        me = update.seat
        mine = playing and me is not None and me in update.to_act
        if mine and (self._my_turn is False or (
                self._my_turn and _others_after(update.events, me))):
            if self.prefs.bell:
                self.bell()
            if self.prefs.title:
                self.set_window_title(self.t("title.your_turn"))
        elif not mine and self.window_title != self.TITLE:
            self.set_window_title(self.TITLE)
        self._my_turn = mine if playing else None

    async def _known_name(self) -> str | None:
        """The nickname this key used last time (guests and watchers have none)."""
        if self.guest or self.watch_only:
            return None
        return await self.client.known_name(self.identity)

    async def _resume(self, token: str) -> bool:
        """Connect as the guest ``token`` proves, back in their seat; False (the player told
        why) when it proves nobody."""
        try:
            self.guest_pass, name = await self.client.resume(token, self.peer)
        except Refused as e:
            self.warn(self.t.refusal(e))
            return False
        error = await self.connect(name)
        if error is not None:  # (the name is kept for the seat: this is not expected)
            self.open(NicknameScreen(default=name, error=error))
        return True

    async def connect(self, name: str) -> str | None:
        """Open the session under ``name``; a refusal's message in the player's language, or
        None when connected."""
        client = self.client
        if self.guest and self.guest_pass is None:
            self.guest_pass = await client.guest_pass()
        identity = self.guest_pass.identity if self.guest_pass is not None else self.identity
        player = Player(identity, name, self.guest_pass is not None, self.watch_only, self.peer)
        # (an asyncio timer: the app's own wait for this, in ``on_mount``, holds its messages.
        # In an empty context: a cancelled timer keeps its context until its time, and this
        # one's, the app's, kept the ended session's app for the cycle collector)
        slow = asyncio.get_running_loop().call_later(SLOW_CONNECT, self._show_connecting,
                                                     context=contextvars.Context())
        try:
            place = await client.connect(player, self.guest_pass)
        except Refused as e:
            return self.t.refusal(e)
        finally:
            slow.cancel()
        await self.take_session(place)
        return None

    def _show_connecting(self) -> None:
        """« Connexion au serveur… » on the default screen, while it is there (the start)."""
        for note in self.screen_stack[:1]:
            for static in note.query("#connecting").results(Static):
                static.update(self.t("notice.connecting"))

    @property
    def player_name(self) -> str | None:
        """The name the session is known by (the server's log of its end says it)."""
        player = self.client.player
        return player.name if player is not None else None

    async def take_session(self, place: Place) -> None:
        """Show the session's lobby and read its mailbox; go where the player asked to."""
        client = self.client
        player = client.player
        if player is not None and not player.watch_only and not player.guest:
            try:  # (the coordinator decides: this only shows the key to those it will serve)
                await client.admin_view()
                self.admin = True
            except Refused:
                self.admin = False
        self.lobby = LobbyScreen(client)
        if isinstance(self.screen, NicknameScreen):
            self.switch_screen(self.lobby)
        else:
            self.open(self.lobby)
        self.run_worker(self._read_mail(), name="mailbox", group="mailbox")
        asked = self.watch_table or (
            self.quick_game or self.join_table if not self.watch_only else None)
        if asked and place.table is not None and place.seat is None:
            # Brought back to the table they watched last time, they asked for another now.
            await self.call(client.leave)
        if self.watch_table:
            await self.call(client.watch, self.watch_table)
        elif self.join_table and not self.watch_only:
            # (a player back in the seat they held is told to leave it first)
            await self.call(client.join, self.join_table, None, self.join_code)
        elif self.quick_game and not self.watch_only and place.table is None:
            # (a player back in the seat they held is not sent to a new game)
            await self.call(client.quick_play, self.quick_game)

    async def action_quit(self) -> None:
        """Quit once the player says yes, told what becomes of their seat (``quit_detail``).
        With nothing to lose (no session yet: the nickname screen; or the session has ended)
        the app quits at once."""
        if not self.client.open or self.farewell is not None:
            self.exit()
            return
        if self._quit_question in self.screen_stack:
            return  # asked already

        def answered(yes: bool | None) -> None:
            self._quit_question = None
            if yes:
                self.exit()

        self._quit_question = Confirm(self.t("confirm.quit"),
                                      self.quit_detail(await self.client.place()))
        self.push_screen(self._quit_question, answered)  # (above a too-small screen too)

    def quit_detail(self, place: Place) -> str:
        """What quitting does to the player's seat: in a game, the stand-in plays it until
        they come back (with their key, or a guest with the resume command) within the grace
        period; at a table waiting for players, the seat is freed."""
        if place.table is None or place.seat is None:
            return ""
        if place.status == "waiting":
            return self.t("confirm.quit_waiting", id=place.table)
        if place.status != "playing" or self._server is None:
            return ""
        grace = round(self._server.grace)
        delay = (self.t("confirm.minutes", n=f"{grace / 60:g}") if grace >= 60
                 else self.t("confirm.seconds", n=grace))
        command = self.resume_command()
        if command is not None:
            return self.t("confirm.quit_seat_guest", delay=delay, command=command)
        return self.t("confirm.quit_seat", delay=delay)

    async def on_unmount(self) -> None:
        await self.client.close()

    async def on_server_shutdown(self, message: Message) -> None:
        """The SSH server is stopping (``server.session.ServerShutdown``): say so, and go. The
        coordinator first stops every table, so that this session's end leaves its seat and
        turn as they are for the next start (``CoordinatorClient.server_stopping``). A
        coordinator that does not answer (a front's, gone with the bus) changes nothing: the
        player is told all the same."""
        with contextlib.suppress(Refused):
            await self.client.server_stopping()
        self.farewell = self.with_resume(self.t("notice.shutdown"))
        self.exit()

    # --- the mailbox ----------------------------------------------------------------------

    async def _read_mail(self) -> None:
        while True:
            mail = await self.client.mail()
            update = mail.table
            if update is not None and update.table.learn and self._learning is None:
                await self.load_learning()  # (what the table's screen explains depends on it)
            self.deliver(mail)
            if mail.closed:
                return

    def deliver(self, mail: Mail) -> None:
        """Hand what arrived to the screens it concerns."""
        for notice in mail.notices:
            if notice.code in ("replaced", "kicked"):
                self.farewell = self.t.notice(notice.code, notice.text)
            elif notice.code in ("shutdown", "coordinator_lost", "unreachable"):
                self.farewell = self.with_resume(self.t.notice(notice.code, notice.text))
            elif notice.code == "reconnecting":  # (a front cut off from the bus: shown
                # until it is back, or the session ends: coordinator/remote.py)
                self.notify(self.t.notice(notice.code, notice.text), markup=False,
                            severity="warning", timeout=BLIP_NOTICE_SECONDS)
            elif notice.code == "reconnected":
                self.clear_notifications()
                self.notify(self.t.notice(notice.code, notice.text), markup=False)
            elif notice.code == "broadcast":  # (the operator's own words, as they wrote them)
                self.notify(notice.text, title=self.t("notice.broadcast"), markup=False,
                            timeout=15)
            else:
                self.notify(self.t.notice(notice.code, notice.text), markup=False)
        if mail.lobby is not None and self.lobby is not None:
            self.lobby.show_snapshot(mail.lobby)
        if mail.left_table:
            self.close_table()
        if mail.table is not None:
            self.show_table(mail.table)
        for line in mail.chat:
            self.show_chat(line)
        if mail.closed:
            if self.farewell is None:
                self.farewell = self.t("closed.other")
            self.say_farewell(self.farewell)

    def say_farewell(self, text: str) -> None:
        """The coordinator ended the session (the same key connected again elsewhere): say
        why over whatever is shown, long enough to be read, then exit."""
        self.push_screen(Farewell(text))
        self.set_timer(FAREWELL_SECONDS, self.exit)

    def show_table(self, update: TableUpdate) -> None:
        self._signal_turn(update)
        screen = self.table_screen
        if screen is not None and screen.table_id != update.table.id:
            self.close_table()
            screen = None
        if screen is None:
            cls = table_screen_class(update.table.game)
            screen = self.table_screen = cls(self.client, update)
            self.open(screen)
        else:
            screen.show_update(update)

    def close_table(self) -> None:
        """Back to the lobby: the table screen and whatever is above it go."""
        screen = self.table_screen
        self.table_screen = None
        self._my_turn = None
        if self.window_title != self.TITLE:
            self.set_window_title(self.TITLE)
        if screen is None:
            return
        while screen in self.screen_stack:
            self.pop_screen()
        self._check_size(self.size.width, self.size.height)

    def show_chat(self, line: ChatLine) -> None:
        """A chat line on the screen it belongs to (a private one: the screen shown); the bell
        when the coordinator says this copy rings (a mention of the player) and the player's
        settings let the bell ring."""
        heard = replace(line, bell=False)
        seen = self._chat_seen.setdefault(line.scope, deque(maxlen=CHAT_SEEN))
        if heard in seen:
            return  # the history the coordinator sends again when we come back
        seen.append(heard)
        screen: LobbyScreen | TableScreen | None = None
        if line.to:
            screen = self.table_screen or self.lobby
        elif line.scope == "lobby":
            screen = self.lobby
        elif self.table_screen is not None and self.table_screen.table_id == line.scope:
            screen = self.table_screen
        if screen is None:
            return
        screen.show_chat(chat_parts(line, self.t, self._reader))
        if line.bell and self.prefs.bell:
            self.bell()

    @property
    def _reader(self) -> str:
        """The name the player goes by now (a mention of it stands out)."""
        player = self.client.player
        return player.name if player is not None else ""

    def chat_info(self, *lines: str) -> None:
        """Lines for the player's eyes alone, in the chat of the screen shown (/help)."""
        screen = self.table_screen or self.lobby
        if screen is not None:
            for text in lines:
                screen.show_chat(info_parts(text))

    async def say(self, typed: str) -> None:
        """A line typed in a chat: said where the player is, or one of the chat's commands
        (``chat.parse``). A command misused or unknown is told, and nothing is sent."""
        t, client, line = self.t, self.client, parse(typed)
        if line.command == "":
            await self.call(client.chat, line.text)
        elif line.command == "help":
            self.chat_info(t("chat.help"), *(t(f"chat.help.{name}") for name in COMMANDS),
                           t("chat.help.mention"))
        elif line.command == "me" and line.text:
            await self.call(client.chat, line.text, me=True)
        elif line.command == "msg" and line.name and line.text:
            await self.call(client.chat, line.text, to=line.name)
        elif line.command == "ignore" and not line.name:
            names = await self._names(client.ignored)
            if names is not None:
                self.chat_info(t("chat.ignored", names=", ".join(names)) if names
                               else t("chat.ignored.none"))
        elif line.command in ("ignore", "unignore") and not line.text:
            request = client.ignore if line.command == "ignore" else client.unignore
            names = await self._names(request, line.name)
            if names is not None:
                shown = next((n for n in names if name_key(n) == name_key(line.name)),
                             line.name)
                self.chat_info(t(f"chat.{line.command}.done", name=shown))
        elif line.command in COMMANDS:
            self.warn(t(f"chat.usage.{line.command}"))
        else:
            self.warn(t("chat.unknown", command="/" + line.command))

    async def _names(self, request: Callable[..., Awaitable[tuple[str, ...]]], *args: str
                     ) -> tuple[str, ...] | None:
        """The names a request about the ignored players answers; None when refused (told)."""
        try:
            return await request(*args)
        except Refused as e:
            self.warn(self.t.refusal(e))
            return None

    # --- helpers for screens --------------------------------------------------------------

    @property
    def server_info(self) -> ServerInfo:
        assert self._server is not None, "read when mounted"
        return self._server

    @property
    def games(self) -> tuple[str, ...]:
        """The games the server runs (none before it was asked: the nickname screen)."""
        return self._server.game_names if self._server is not None else ()

    @property
    def learning(self) -> LearnMemory:
        """The session's explanations at learn tables: on or off, and those already shown
        (read once: ``load_learning``)."""
        assert self._learning is not None, "load_learning first"
        return self._learning

    async def load_learning(self) -> LearnMemory:
        """``learning``, with the explanations the player was shown read the first time."""
        if self._learning is None:
            from .learn import LearnMemory  # (only for players who learn: start-up stays lean)

            self._learning = LearnMemory(self, await self.client.learned())
        return self._learning

    def with_resume(self, farewell: str) -> str:
        """``farewell``, and for a guest seated at a game the command that gives the seat
        back: the last line their terminal keeps once the server has gone (or restarts), where
        the table screen that showed the command is gone too."""
        screen = self.table_screen
        command = self.resume_command()
        if (command is None or screen is None or screen.seat is None
                or screen.update.table.status != "playing"):
            return farewell
        self.way_back = self.t("farewell.resume", command=command)
        return f"{farewell} {self.way_back}"

    def resume_command(self) -> str | None:
        """What a guest types to get their seat back (``ssh -t -p PORT HOST resume TOKEN``):
        their table screen shows it while they play (``TableScreen.show_resume_command``). None
        for others, who need none."""
        if self.guest_pass is None or self.watch_only or self.server_address is None:
            return None
        return self.ssh_command("resume", self.guest_pass.token)

    def ssh_command(self, *words: str) -> str | None:
        """``ssh -t -p PORT HOST WORDS…``: what a player types to reach this server with a
        command (None: a local game, no server to name)."""
        if self.server_address is None:
            return None
        host, port = self.server_address
        return " ".join(["ssh", "-t", *(["-p", str(port)] if port != 22 else []), host,
                         *words])

    def copy_join_command(self, table_id: str, code: str | None, private: bool) -> None:
        """Show the command that opens Pioche seated at ``table_id``
        (``ssh -t -p PORT HOST join TABLE [CODE]``) and copy it to the player's clipboard
        (OSC 52: the terminal must allow it, so the command is shown too). A private table's
        code is only known to its players: for others, the command says to add it."""
        command = self.ssh_command("join", table_id, *([code] if code else []))
        if command is None:
            return
        self.copy_to_clipboard(command)
        key = "join.copied_no_code" if private and not code else "join.copied"
        self.notify(self.t(key, command=command), markup=False, timeout=10)

    def get_key_display(self, binding: Binding) -> str:
        """Textual's display of a key, with the keys it names in words (space, esc) in the
        player's language."""
        display = super().get_key_display(binding)
        key = f"keyname.{display}"
        return self.t(key) if key in MESSAGES else display

    async def call(self, request: Callable[..., Awaitable[Any]], *args: Any, **kwargs: Any
                   ) -> bool:
        """Make a request of the client; a refusal is shown to the player. True when granted.

        Screens await it in their key's handler: the keys pressed meanwhile wait in the
        screen's queue, so a key pressed twice makes its request twice, one after the other,
        as before the seam (the second usually refused: « Quittez d'abord votre table. »)."""
        refusal = await self.attempt(request, *args, **kwargs)
        if refusal is not None:
            self.warn(refusal)
            return False
        return True

    async def attempt(self, request: Callable[..., Awaitable[Any]], *args: Any,
                      **kwargs: Any) -> str | None:
        """Make a request of the client: None when granted, else the refusal in the player's
        language (for a window that shows it itself and stays open)."""
        try:
            await request(*args, **kwargs)
        except Refused as e:
            return self.t.refusal(e)
        return None

    def send(self, request: Awaitable[None]) -> None:
        """Make a request in the background: a move (``TableScreen.act``, which says its
        refusals), a learn table's note (whose refusal has nothing to say to the player:
        logged). A Textual worker, kept by the app until done: any other error than a refusal
        is the app's, as an error in a key's handler is (the app ends, the server reports it),
        never a task's exception nobody retrieves."""
        self.run_worker(self._quietly(request), name="request", group="requests")

    @staticmethod
    async def _quietly(request: Awaitable[None]) -> None:
        try:
            await request
        except Refused as e:
            log.info("request refused: %s", e)

    def warn(self, text: str) -> None:
        self.notify(text, severity="warning", markup=False)

    def open(self, screen: Screen[Any], callback: Any = None) -> None:
        """Push ``screen``, keeping the too-small screen on top if it is shown."""
        covered = isinstance(self.screen, TooSmallScreen)
        if covered:
            self.pop_screen()
        self.push_screen(screen, callback)
        if covered:
            self.push_screen(TooSmallScreen())

    def reusable(self, name: str, make: Callable[[], ScreenT]) -> ScreenT:
        """The app's window ``name``: built by ``make`` the first time, then kept and shown
        again (the help, the scores). Showing it again costs a fraction of building it (no
        widgets made, mounted and styled anew), and closing it frees nothing. A window already
        on the stack, under another, is not taken from there: a second one is built."""
        if not self.is_screen_installed(name):
            self.install_screen(make(), name)
        screen = cast(ScreenT, self.get_screen(name))
        return make() if screen in self.screen_stack else screen

    def pick_profile(self, names: Sequence[str]) -> None:
        """The profile of one of ``names``, chosen in a small window."""
        from .screens.profile import PlayerPicker

        def picked(name: str | None) -> None:
            if name:
                self.show_profile(name)

        self.open(PlayerPicker(tuple(names)), picked)

    def show_profile(self, name: str) -> None:
        from .screens.profile import ProfileScreen

        self.open(ProfileScreen(self.client, name))

    def show_help(self, under: Screen[Any], games: Sequence[str]) -> None:
        """The keys of ``under`` and the rules of ``games``."""
        from .screens.help import HelpScreen

        screen = self.reusable("help", lambda: HelpScreen(under, games))
        screen.show_for(under, games)
        self.push_screen(screen)

    def on_resize(self, event: events.Resize) -> None:
        self._check_size(event.size.width, event.size.height)

    def _check_size(self, width: int, height: int) -> None:
        shown = isinstance(self.screen, TooSmallScreen)
        if too_small(width, height) and not shown:
            self.push_screen(TooSmallScreen())
        elif shown and not too_small(width, height):
            self.pop_screen()
