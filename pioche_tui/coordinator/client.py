"""The seam between the apps and the coordinator: the only way an app reaches it.

An app is given a :class:`Connector` and opens its own :class:`CoordinatorClient` from it: the
client of one connection. Its requests are awaitable; a refusal raises ``model.Refused`` with
nothing changed, as the coordinator's own calls do. News (lobby snapshots, table updates, chat,
notices, the session's end) arrives in the session's mailbox, latest-wins and bounded
(``mailbox``), and is read through the client (``mail``).

What crosses is plain data: the frozen values of ``model`` and ``Mail``/``Notice`` (re-exported
here), the engine's views and actions, str/int/float/bool/None and tuples and dicts of them.
Nothing crosses that holds the coordinator's state (no table, no database, no session object),
so a client may live in another process than the coordinator (issue 16: a client over a message
bus). Today's implementation is ``inprocess.InProcessClient``, the embedded mode.

What the SSH front's service asks of the coordinator besides (the apps' connector, who owns a
nickname, does a returning player hold a seat, a table's mirror for shared screens):
:class:`FrontDesk`.

The rule (tests/app/test_imports.py): modules under ``pioche_tui/app/`` and ``widgets/``
import of the coordinator only this module, ``model`` and ``text`` (pure text rules: the
nickname alphabet, the chat's limits); ``app/service.py``, which opens the embedded coordinator
and hands the apps its clients, also ``core`` and ``inprocess``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from .mailbox import Mail as Mail
from .mailbox import Notice as Notice
from .model import (
    AdminView,
    GuestPass,
    LeaderboardRow,
    Place,
    Player,
    PlayerStats,
    Profile,
    Replay,
    ServerInfo,
    TableSummary,
)


class CoordinatorClient(Protocol):
    """One connection's client. Before ``connect`` only the requests marked so may be made;
    the others raise ``Refused("not_connected")``.

    Requests that name the player (preferences, learned situations, scores) act for the
    connected session's own identity, but for ``preferences`` and ``keep_preferences``, read
    before the player has connected (the screen's language and colours come first)."""

    # --- what the client knows without asking (as of the news read last) ------------------

    @property
    def player(self) -> Player | None:
        """The connected player as the coordinator names them (a watcher's name may change:
        « spectateur2 »); None before ``connect``."""

    @property
    def open(self) -> bool:
        """Connected, and not ended by the coordinator (nor closed)."""

    @property
    def pending(self) -> bool:
        """News waits in the mailbox."""

    @property
    def table_id(self) -> str | None:
        """The table the session is at (None: the lobby, or not connected)."""

    # --- before connecting -----------------------------------------------------------------

    async def server_info(self) -> ServerInfo:
        """The games, the turn timers, the grace period (any time)."""

    async def preferences(self, identity: str) -> dict[str, Any]:
        """The settings kept for ``identity`` ({} for a guest or none; any time)."""

    async def keep_preferences(self, identity: str, data: Mapping[str, Any]) -> bool:
        """Keep them; False when the store refused (any time)."""

    async def known_name(self, identity: str) -> str | None:
        """The nickname this key used last (any time)."""

    async def guest_pass(self) -> GuestPass:
        """A new guest's identity and reconnect token (any time)."""

    async def resume(self, token: str, address: str) -> tuple[GuestPass, str]:
        """The guest ``token`` proves and the name on the seat kept for them (any time).
        Refused: too many attempts from ``address``, or no seat kept for that token."""

    async def connect(self, player: Player, guest_pass: GuestPass | None = None) -> Place:
        """Open the session: where it finds itself (a seat held, the table watched last
        time, or the lobby). Refused when the name is not the player's to take."""

    # --- the session ---------------------------------------------------------------------

    async def mail(self) -> Mail:
        """Wait for news and take all of it (latest-wins)."""

    async def place(self) -> Place:
        """Where the session is now."""

    async def create_table(self, game: str, *, seats: int,
                           options: Mapping[str, Any] | None = None,
                           bots: Mapping[int, str] | None = None,
                           timer: float | str | None = "default", private: bool = False,
                           sit: bool = True) -> str:
        """A new table's id; the player sits at seat 0 (``sit``), or watches bots play."""

    async def quick_play(self, game: str, seats: int = 4,
                         options: Mapping[str, Any] | None = None) -> str:
        """A table against bots, started at once."""

    async def learn(self, game: str) -> str:
        """A learn table (``Coordinator.learn``)."""

    async def join(self, table_id: str, seat: int | None = None, code: str | None = None
                   ) -> None: ...

    async def watch(self, table_id: str, code: str | None = None) -> None: ...

    async def start(self) -> None:
        """Start the waiting table the player created."""

    async def leave(self) -> None: ...

    async def rematch(self, accept: bool = True) -> None:
        """At a finished table: ask for a rematch, or accept the one asked for (``accept``);
        or decline it, which leaves the table (``Coordinator.rematch``)."""

    async def act(self, action: Any, step: int | None = None) -> None:
        """Play ``action`` at the player's seat; ``step`` is the update's it answers (an older
        one is refused as ``stale``)."""

    async def chat(self, text: str, to: str | None = None, me: bool = False) -> None:
        """Say ``text`` to the lobby or to the table the session is at (a spectator: to its
        spectators), or privately to the player online under the name ``to``; ``me``: an
        action (« /me »)."""

    async def ignore(self, name: str) -> tuple[str, ...]:
        """Hide the lines of the player online under ``name`` for this session; the names
        ignored now."""

    async def unignore(self, name: str) -> tuple[str, ...]:
        """Show ``name``'s lines again; the names still ignored."""

    async def ignored(self) -> tuple[str, ...]:
        """The names this session ignores."""

    async def close(self) -> None:
        """The connection ends (a seat in play is kept for the grace period). Idempotent."""

    async def server_stopping(self) -> None:
        """The server this session runs in stops: every table holds still, so that the
        sessions' ends are not taken for players dropping (embedded: ``Coordinator.freeze``).
        A front of ``--workers`` stopping alone, its coordinator running on, changes nothing:
        its sessions' ends are dropped connections (``RemoteClient.server_stopping``)."""

    async def leaderboard(self, game: str | None, limit: int) -> tuple[LeaderboardRow, ...]:
        """The best players of ``game`` (None: all games)."""

    async def player_stats(self) -> PlayerStats | None:
        """The connected player's own results (None: the coordinator knows nothing of them,
        a guest)."""

    async def profile(self, name: str) -> Profile | None:
        """The profile of the player who owns the nickname ``name`` (None: nobody does — a
        guest has no profile)."""

    async def replay(self, table_id: str, seat: int | None = None, first: int = 0
                     ) -> Replay:
        """The finished game of ``table_id``, its steps from ``first`` (at most
        ``model.REPLAY_PAGE`` of them: ``model.Replay``): as a spectator
        saw it, or (``seat``) as the connected player saw it from their own seat. Refused:
        no such game, not their seat, a private table's game they did not play, its log
        gone after the server's retention, a game too long (``coordinator.profiles``)."""

    async def learned(self) -> tuple[str, ...]:
        """The learn tables' explanations the player was shown, sorted (a key's are kept)."""

    async def note_learned(self, situation: str) -> None: ...

    async def forget_learned(self) -> None: ...

    # --- the operator's (coordinator/admin.py): refused ``not_admin`` unless the connected
    # player's key is in the admins' file, whatever the client sends -----------------------

    async def admin_view(self) -> AdminView:
        """Who is online, the tables, the bans, the message of the day."""

    async def admin_act(self, action: str, target: str = "", seconds: float | None = None
                        ) -> str:
        """Do an admin's ``action`` (``admin.ACTIONS``: kick NAME, ban TARGET for ``seconds``
        or for good, unban TARGET, close TABLE, broadcast TEXT, motd TEXT); what was done."""


class Connector(Protocol):
    """What an app is given: it opens the app's own client (embedded: the coordinator)."""

    def client(self) -> CoordinatorClient: ...


class FrontDesk(Protocol):
    """What the SSH front's service asks of its coordinator beyond each app's own client: the
    apps' connector, the questions of a login (who owns a nickname; does a returning player
    hold a seat) and what shared spectator screens need (a table as the lobby shows it, a
    table's mirror). Embedded: ``inprocess.InProcessFront``; a front over the bus
    (``pioche front``): ``server.front.RemoteFront``."""

    def connector(self) -> Connector:
        """What a new app opens its client from."""

    def table(self, table_id: str) -> TableSummary | None:
        """The table ``table_id`` (as typed) as the lobby shows it, or None if the lobby has
        no such table (closed, or unknown). From the newest lobby snapshot over the bus: a
        table created a moment ago may not be in it yet."""

    async def mirror(self, table_id: str) -> CoordinatorClient:
        """An open client of a session that sees the table as its spectators do, for a
        screen several of them share (``Coordinator.mirror``). Refused as ``watch`` is."""

    async def name_owner(self, nickname: str) -> str | None:
        """The key fingerprint that owns ``nickname`` (by ``text.name_key``), or None."""

    def holds_seat(self, identity: str) -> bool:
        """A seat at a table in play or waiting for players: a returning player. Synchronous
        (asyncssh asks it in its synchronous callbacks): over the bus, the newest lobby
        snapshot's seats answer it."""

    async def banned(self, identity: str | None, address: str) -> str | None:
        """Why a login with the key ``identity`` (None: a guest) from ``address`` is refused
        (a ban: coordinator/admin.py), or None. Over the bus, asked of the coordinator."""

    async def close(self) -> None:
        """The front is done with its coordinator (embedded: the coordinator stops, its logs
        flushed and its store closed)."""
