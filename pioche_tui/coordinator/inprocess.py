"""The embedded mode's client: ``client.CoordinatorClient`` over the coordinator of this
process, and the SSH front's service's questions (``client.FrontDesk``) answered from it.

Each request calls the coordinator at once, on the loop's thread, as the apps did before the
seam: it never suspends, so a request is granted or refused before the screen's handler goes
on, exactly as today. The values returned are the coordinator's own frozen ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import profiles
from .core import Coordinator, Session
from .mailbox import Mail
from .model import (
    AdminView,
    GuestPass,
    LeaderboardRow,
    Place,
    Player,
    PlayerStats,
    Profile,
    Refused,
    Replay,
    ServerInfo,
    TableSummary,
)

NOT_CONNECTED = "Pas de session ouverte."


class InProcessClient:
    """``session`` is the coordinator's handle once connected (tests drive it directly)."""

    def __init__(self, coordinator: Coordinator) -> None:
        self.coordinator = coordinator
        self.session: Session | None = None

    def _session(self) -> Session:
        if self.session is None:
            raise Refused("not_connected", NOT_CONNECTED)
        return self.session

    @property
    def player(self) -> Player | None:
        return self.session.player if self.session is not None else None

    @property
    def open(self) -> bool:
        return self.session is not None and self.session.open

    @property
    def pending(self) -> bool:
        return self.session is not None and self.session.mailbox.pending

    @property
    def table_id(self) -> str | None:
        table = self.session.table if self.session is not None else None
        return table.id if table is not None else None

    # --- before connecting -----------------------------------------------------------------

    async def server_info(self) -> ServerInfo:
        return self.coordinator.server_info

    async def preferences(self, identity: str) -> dict[str, Any]:
        return self.coordinator.preferences(identity)

    async def keep_preferences(self, identity: str, data: Mapping[str, Any]) -> bool:
        return self.coordinator.keep_preferences(identity, data)

    async def known_name(self, identity: str) -> str | None:
        db = self.coordinator.db
        return db.nickname_of(identity) if db is not None else None

    async def guest_pass(self) -> GuestPass:
        return self.coordinator.guest_pass()

    async def resume(self, token: str, address: str) -> tuple[GuestPass, str]:
        return self.coordinator.resume(token, address)

    async def connect(self, player: Player, guest_pass: GuestPass | None = None) -> Place:
        if self.session is not None and self.session.open:
            raise Refused("connected", "Session déjà ouverte.")
        self.session = self.coordinator.connect(player, guest_pass)
        return _place(self.session)

    # --- the session ---------------------------------------------------------------------

    async def mail(self) -> Mail:
        return await self._session().mailbox.get()

    async def place(self) -> Place:
        return _place(self._session())

    async def create_table(self, game: str, *, seats: int,
                           options: Mapping[str, Any] | None = None,
                           bots: Mapping[int, str] | None = None,
                           timer: float | str | None = "default", private: bool = False,
                           sit: bool = True) -> str:
        return self._session().create_table(game, seats=seats, options=options, bots=bots,
                                            timer=timer, private=private, sit=sit)

    async def quick_play(self, game: str, seats: int = 4,
                         options: Mapping[str, Any] | None = None) -> str:
        return self._session().quick_play(game, seats, options)

    async def learn(self, game: str) -> str:
        return self._session().learn(game)

    async def join(self, table_id: str, seat: int | None = None, code: str | None = None
                   ) -> None:
        self._session().join(table_id, seat, code)

    async def watch(self, table_id: str, code: str | None = None) -> None:
        self._session().watch(table_id, code)

    async def start(self) -> None:
        self._session().start()

    async def leave(self) -> None:
        self._session().leave()

    async def rematch(self, accept: bool = True) -> None:
        self._session().rematch(accept)

    async def act(self, action: Any, step: int | None = None) -> None:
        answer = self._session().act(action, step)
        if answer is not None:  # (a table whose log is not immediate: Coordinator.act)
            await answer

    async def chat(self, text: str, to: str | None = None, me: bool = False) -> None:
        self._session().chat(text, to, me)

    async def ignore(self, name: str) -> tuple[str, ...]:
        return self._session().ignore(name)

    async def unignore(self, name: str) -> tuple[str, ...]:
        return self._session().unignore(name)

    async def ignored(self) -> tuple[str, ...]:
        return self._session().ignored()

    async def close(self) -> None:
        if self.session is not None:
            self.session.close()

    async def server_stopping(self) -> None:
        self.coordinator.freeze()

    async def leaderboard(self, game: str | None, limit: int) -> tuple[LeaderboardRow, ...]:
        db = self.coordinator.db
        return tuple(self.coordinator.read("the scores", db.leaderboard, game, limit,
                                           default=[])) if db is not None else ()

    async def player_stats(self) -> PlayerStats | None:
        db = self.coordinator.db
        return self.coordinator.read("a player's results", db.player_stats,
                                     self._session().player.identity,
                                     default=None) if db is not None else None

    async def profile(self, name: str) -> Profile | None:
        self._session()
        db = self.coordinator.db
        return self.coordinator.read("a profile", profiles.profile, db, name,
                                     default=None) if db is not None else None

    async def replay(self, table_id: str, seat: int | None = None, first: int = 0
                     ) -> Replay:
        return await self.coordinator.replay(self._session().player, table_id, seat, first)

    async def learned(self) -> tuple[str, ...]:
        return tuple(sorted(self.coordinator.learned(self._session().player.identity)))

    async def note_learned(self, situation: str) -> None:
        self.coordinator.note_learned(self._session().player.identity, situation)

    async def forget_learned(self) -> None:
        self.coordinator.forget_learned(self._session().player.identity)

    async def admin_view(self) -> AdminView:
        console = self.coordinator.console
        console.require(self._session())
        return console.view()

    async def admin_act(self, action: str, target: str = "", seconds: float | None = None
                        ) -> str:
        console = self.coordinator.console
        return console.act(console.require(self._session()), action, target, seconds)


def _place(session: Session) -> Place:
    table = session.table
    if table is None:
        return Place()
    return Place(table.id, session.seat, table.status)


class InProcessFront:
    """The SSH front's service's questions (``client.FrontDesk``), answered by this process's
    coordinator."""

    def __init__(self, coordinator: Coordinator) -> None:
        self.coordinator = coordinator

    def connector(self) -> Coordinator:
        return self.coordinator

    def table(self, table_id: str) -> TableSummary | None:
        table = self.coordinator.tables.get(table_id.strip().upper())
        if table is None or table.status == "closed":
            return None
        return table.summary()

    async def mirror(self, table_id: str) -> InProcessClient:
        client = InProcessClient(self.coordinator)
        client.session = self.coordinator.mirror(table_id)
        return client

    async def name_owner(self, nickname: str) -> str | None:
        db = self.coordinator.db
        return db.name_owner(nickname) if db is not None else None

    def holds_seat(self, identity: str) -> bool:
        return any(
            table.status in ("playing", "waiting") and table.seat_of(identity) is not None
            for table in self.coordinator.tables.values()
        )

    async def banned(self, identity: str | None, address: str) -> str | None:
        return self.coordinator.console.refusal(identity, address)

    async def close(self) -> None:
        self.coordinator.stop()
