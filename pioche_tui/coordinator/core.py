"""The coordinator: every session talks to the games only through it.

It keeps who is online, the tables and their seats, runs each table's game, writes its log,
records results in SQLite, and pushes to each session's mailbox the newest view of what that
session may see. It lives on the server's one event loop; its methods never await, so each call
runs to completion and a table only ever has one writer (design.md).

Sessions call it through their :class:`Session` handle, which knows who they are and where they
sit: a session can never act for another seat.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import secrets
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine import GAMES
from ..engine.base import BadOptions, Game
from ..store.db import Database, SeatResult
from ..store.log import END, SEAT, LogError, LogWriter, read_log
from .clock import later
from .mailbox import Mailbox, Notice
from .model import ChatLine, LobbySnapshot, OnlineEntry, Player, Refused
from .table import STAND_IN, Seat, Table
from .text import RateLimiter, nickname, sanitise

log = logging.getLogger("pioche.coordinator")

ID_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: ids are read aloud
BOT_NAMES = (
    "Ambre", "Basile", "Capucine", "Désiré", "Eulalie", "Firmin", "Gaspard", "Honorine",
    "Ignace", "Joséphine", "Lucien", "Margot", "Noé", "Octavie", "Prosper", "Rosalie",
)
CHAT_HISTORY = 30
MIN_TIMER, MAX_TIMER = 10.0, 600.0


@dataclass(frozen=True, slots=True)
class Settings:
    data_dir: Path
    bot_delay: tuple[float, float] = (0.8, 2.0)  # seconds a bot "thinks" (min, max)
    turn_timer: float | None = 60.0  # default per decision at tables with a human
    grace: float = 300.0  # how long a dropped player keeps their seat
    # Tests and demos: table ids, private codes, deals and bot names from one seeded generator,
    # so screens are reproducible. None (production) draws them from the system's randomness.
    seed: int | None = None
    # Seconds between two lobby snapshots sent to the sessions in the lobby: each one costs every
    # such session a repaint, and a crowd connecting at once changes the lobby at every
    # connection. (Screen tests set 0: at once.)
    lobby_interval: float = 0.5


class Session:
    """One connection's handle on the coordinator. Every method raises Refused on a request
    it cannot grant, with nothing changed."""

    def __init__(self, coordinator: Coordinator, player: Player, key: str) -> None:
        self.coordinator = coordinator
        self.player = player
        self.key = key  # the player's identity, unique among sessions for watchers
        self.mailbox = Mailbox()
        self.table: Table | None = None
        self.seat: int | None = None  # None while watching or in the lobby
        self.open = True

    def __repr__(self) -> str:
        return f"<Session {self.player.name}>"

    # The session's requests, all delegated: the coordinator owns every rule about them.
    def create_table(self, game: str, *, seats: int, options: Mapping[str, Any] | None = None,
                     bots: Mapping[int, str] | None = None, timer: float | str | None = "default",
                     private: bool = False, sit: bool = True) -> str:
        return self.coordinator.create_table(self, game, seats=seats, options=options or {},
                                             bots=bots or {}, timer=timer, private=private,
                                             sit=sit)

    def quick_play(self, game: str, seats: int = 4, options: Mapping[str, Any] | None = None
                   ) -> str:
        return self.coordinator.quick_play(self, game, seats, options or {})

    def join(self, table_id: str, seat: int | None = None, code: str | None = None) -> None:
        self.coordinator.join(self, table_id, seat, code)

    def watch(self, table_id: str, code: str | None = None) -> None:
        self.coordinator.watch(self, table_id, code)

    def start(self) -> None:
        self.coordinator.start_table(self)

    def leave(self) -> None:
        self.coordinator.leave_table(self)

    def act(self, action: Any, step: int | None = None) -> None:
        self.coordinator.act(self, action, step)

    def chat(self, text: str) -> None:
        self.coordinator.chat(self, text)

    def close(self) -> None:
        self.coordinator.disconnect(self)

    def table_code(self) -> str | None:
        """The code of the private table this session sits at, for the player to share."""
        return self.table.code if self.table is not None and self.seat is not None else None


class Coordinator:
    def __init__(self, settings: Settings, games: Mapping[str, Game[Any, Any]] | None = None
                 ) -> None:
        self.settings = settings
        self.games = dict(games if games is not None else GAMES)
        self.tables: dict[str, Table] = {}
        self.sessions: dict[str, Session] = {}  # by identity: one live session each
        self.db: Database | None = None
        self._rng = random.Random(settings.seed)  # bot delays and names: no replay needs them
        self._ids: random.Random = (
            secrets.SystemRandom() if settings.seed is None else random.Random(settings.seed)
        )  # table ids, private codes and deal seeds
        self._chat: dict[str, deque[ChatLine]] = {}
        self._chat_limit = RateLimiter(3, 3.0)
        self._lobby_pending = False
        self._lobby_sent = -math.inf  # loop time of the last lobby snapshot sent
        self._watchers = 0

    # --- life -----------------------------------------------------------------------------

    @property
    def tables_dir(self) -> Path:
        return self.settings.data_dir / "tables"

    def log_path(self, table_id: str) -> Path:
        return self.tables_dir / f"{table_id}.log"

    async def start(self) -> None:
        """Open the database and bring back every unfinished table from its log."""
        self.tables_dir.mkdir(parents=True, exist_ok=True)
        self.db = Database(self.settings.data_dir / "pioche.sqlite3")
        for path in sorted(self.tables_dir.glob("*.log")):
            try:
                self.restore(path)
            except (LogError, ValueError, KeyError) as e:
                log.error("cannot restore %s: %s", path.name, e)

    def stop(self) -> None:
        """Tell every session, stop every timer, close logs and the database. Unfinished
        tables stay on disk and come back at the next start."""
        for session in list(self.sessions.values()):
            session.mailbox.put_notice(Notice("shutdown", "Le serveur s'arrête. À bientôt !"))
            session.open = False
            session.mailbox.close()
        self.sessions.clear()
        for table in self.tables.values():
            table.cancel_timers()
            if table.writer is not None:
                table.writer.close()
        self.tables.clear()
        if self.db is not None:
            self.db.close()
            self.db = None

    def restore(self, path: Path) -> None:
        contents = read_log(path)
        if contents.ended:
            return
        h = contents.header
        game = self.games[h["game"]]
        seats = [Seat.from_log(s) for s in h["seats"]]
        table = Table(self, str(h["table"]), game, dict(game.options(h["options"])), seats,
                      str(h.get("creator", "")), h.get("timer"), h.get("code"))
        table.seed = int(h["seed"])
        table.started_at = float(h.get("started", time.time()))
        table.state = game.new_game(len(seats), table.options, table.seed)
        table.bot_rng.seed(table.seed)
        for record in contents.records:
            if record[0] == SEAT:
                table.seats[record[1]] = Seat.from_log(record[2])
            elif record[0] != END:
                game.apply(table.state, record[1], game.action_from_wire(record[2]))
                table.step += 1
        table.writer = LogWriter.reopen(path, contents)
        table.status = "playing"
        self.tables[table.id] = table
        now = asyncio.get_running_loop().time()
        for i, seat in enumerate(table.seats):
            if seat.kind == "player":
                # Everyone dropped at once: give them the turn timer to come back before the
                # stand-in plays for them (see Seat.patient).
                seat.patient = True
                self._start_grace(table, i, now)
        if contents.dropped_bytes:
            log.warning("table %s: dropped a torn tail of %d bytes", table.id,
                        contents.dropped_bytes)
        log.info("table %s restored at step %d", table.id, table.step)
        table.after_change([])
        self.lobby_changed()

    # --- sessions -------------------------------------------------------------------------

    def connect(self, player: Player) -> Session:
        """A new session; the player gets back a seat they hold, if any.

        Refused when the name is used by someone else online, or owned by another key.
        """
        if player.watch_only:  # watchers neither own names nor replace one another
            self._watchers += 1
            key = f"watch#{self._watchers}:{player.identity}"
        else:
            if nickname(player.name) != player.name:
                raise Refused("bad_name", "Un pseudo : de 2 à 16 lettres, chiffres, _ . ou -.")
            key = player.identity
            name = player.name.casefold()
            for other in self.sessions.values():
                if other.player.name.casefold() == name and other.player.identity != key:
                    raise Refused("name_taken", f"Le pseudo {player.name} est déjà en ligne.")
            if self.db is not None:
                owner = self.db.name_owner(player.name)
                if owner is not None and owner != key:
                    raise Refused("name_owned",
                                  f"Le pseudo {player.name} appartient à un autre joueur.")
                self.db.seen(key, player.name, time.time())
        previous = self.sessions.get(key)
        if previous is not None:  # the same person again: the newest connection wins
            previous.mailbox.put_notice(Notice("replaced", "Vous vous êtes connecté ailleurs."))
            self.disconnect(previous)
        session = Session(self, player, key)
        self.sessions[key] = session
        session.mailbox.put_lobby(self.snapshot())
        for line in self._chat.get("lobby", ()):
            session.mailbox.put_chat(line)
        if not player.watch_only:
            self._reclaim(session)
        self.lobby_changed()
        return session

    def _reclaim(self, session: Session) -> None:
        for table in self.tables.values():
            seat_no = table.seat_of(session.player.identity)
            if seat_no is None or table.status not in ("playing", "waiting"):
                continue
            seat = table.seats[seat_no]
            if seat.grace is not None:
                seat.grace.cancel()
                seat.grace = None
            seat.session, seat.away_since, seat.patient = session, None, False
            seat.name = session.player.name
            self._place(session, table, seat_no)
            table.changed()
            table.schedule()
            table.publish()
            session.mailbox.put_notice(Notice("reclaimed", "Vous retrouvez votre place."))
            return

    def disconnect(self, session: Session) -> None:
        """The connection is gone: a seat in a game in progress is kept for the grace period
        (the stand-in plays meanwhile); anything else is left."""
        if not session.open:
            return
        session.open = False
        table, seat_no = session.table, session.seat
        if table is not None and seat_no is not None and table.status == "playing":
            table.unsubscribe(session)
            seat = table.seats[seat_no]
            seat.session = None
            self._start_grace(table, seat_no, asyncio.get_running_loop().time())
            table.changed()
            table.schedule()
            table.publish()
            session.table = session.seat = None
        elif table is not None:
            self._leave(session)
        if self.sessions.get(session.key) is session:
            del self.sessions[session.key]
        self._chat_limit.forget(session.player.identity)
        session.mailbox.close()
        self.lobby_changed()

    def _start_grace(self, table: Table, seat_no: int, now: float) -> None:
        seat = table.seats[seat_no]
        seat.away_since = now
        seat.session = None
        seat.grace = later(self.settings.grace, self._grace_over, table, seat_no)

    def _grace_over(self, table: Table, seat_no: int) -> None:
        seat = table.seats[seat_no]
        seat.grace = None
        if seat.kind == "player" and seat.session is None and table.status == "playing":
            self._hand_to_bot(table, seat_no)
        self._maybe_close(table)

    def _hand_to_bot(self, table: Table, seat_no: int) -> None:
        """The stand-in keeps this seat to the end of the game."""
        seat = table.seats[seat_no]
        seat.kind, seat.bot, seat.session, seat.away_since = "bot", STAND_IN, None, None
        if seat.grace is not None:
            seat.grace.cancel()
            seat.grace = None
        if table.writer is not None and table.status == "playing":
            table.writer.append_seat(seat_no, seat.to_log())
        table.changed()
        table.schedule()
        table.publish()

    # --- the lobby ------------------------------------------------------------------------

    def snapshot(self) -> LobbySnapshot:
        tables = tuple(t.summary() for t in self.tables.values() if t.status != "closed")
        online = tuple(sorted(
            (OnlineEntry(s.player.name, s.player.watch_only, s.table.id if s.table else None)
             for s in self.sessions.values()),
            key=lambda e: e.name.casefold(),
        ))
        return LobbySnapshot(tables, online)

    def lobby_changed(self) -> None:
        """Send the lobby to sessions in it: at the next loop turn, however many changes, and
        then no sooner than ``Settings.lobby_interval`` after the previous snapshot. (A new
        session gets its own snapshot at once.)"""
        if self._lobby_pending:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (start-up or shutdown): nobody to tell
            return
        self._lobby_pending = True
        later(self._lobby_sent + self.settings.lobby_interval - loop.time(), self._send_lobby)

    def _send_lobby(self) -> None:
        self._lobby_pending = False
        self._lobby_sent = asyncio.get_running_loop().time()
        snapshot = self.snapshot()
        for session in self.sessions.values():
            if session.table is None:
                session.mailbox.put_lobby(snapshot)

    # --- tables ---------------------------------------------------------------------------

    def _game(self, name: str) -> Game[Any, Any]:
        game = self.games.get(name)
        if game is None:
            raise Refused("unknown_game", f"Jeu inconnu : {name}.")
        return game

    def _table(self, table_id: str) -> Table:
        table = self.tables.get(table_id.strip().upper())
        if table is None or table.status == "closed":
            raise Refused("no_table", f"Pas de table {table_id}.")
        return table

    def _new_id(self, length: int) -> str:
        while True:
            tid = "".join(self._ids.choice(ID_ALPHABET) for _ in range(length))
            if tid not in self.tables and not self.log_path(tid).exists():
                return tid

    def bot_name(self, taken: set[str]) -> str:
        free = [n for n in BOT_NAMES if n not in taken]
        return self._rng.choice(free) if free else f"Robot {len(taken) + 1}"

    def bot_delay(self) -> float:
        low, high = self.settings.bot_delay
        return self._rng.uniform(low, high) if high > 0 else 0.0

    def _require_player(self, session: Session) -> None:
        if session.player.watch_only:
            raise Refused("watch_only", "Session spectateur : vous pouvez regarder, pas jouer.")
        if session.table is not None:
            raise Refused("already_seated", "Quittez d'abord votre table.")

    def create_table(self, session: Session, game_name: str, *, seats: int,
                     options: Mapping[str, Any], bots: Mapping[int, str],
                     timer: float | str | None, private: bool, sit: bool) -> str:
        """A new table; the creator takes seat 0 unless ``sit`` is False (then they watch:
        a table of bots only)."""
        self._require_player(session)
        game = self._game(game_name)
        if not game.min_seats <= seats <= game.max_seats:
            raise Refused("seats", f"{game.title} se joue de {game.min_seats} à "
                                   f"{game.max_seats} joueurs.")
        try:
            checked = dict(game.options(options))
        except BadOptions as e:
            raise Refused("bad_options", str(e)) from e
        if timer == "default":  # the operator's setting, not checked against players' bounds
            timer = self.settings.turn_timer
        elif timer is not None:
            timer = float(timer)
            if not MIN_TIMER <= timer <= MAX_TIMER:
                raise Refused("timer", f"Le minuteur va de {MIN_TIMER:.0f} à {MAX_TIMER:.0f} s.")
        table_seats = [Seat("free") for _ in range(seats)]
        taken: set[str] = {session.player.name}
        for seat_no, bot in bots.items():
            if not 0 <= seat_no < seats or (sit and seat_no == 0):
                raise Refused("bad_seat", f"Pas de siège {seat_no} pour un robot.")
            if bot not in game.bot_names():
                raise Refused("bad_bot", f"Robot inconnu : {bot}.")
            name = self.bot_name(taken)
            taken.add(name)
            table_seats[seat_no] = Seat("bot", name, bot=bot)
        if not sit and any(s.kind == "free" for s in table_seats):
            raise Refused("bad_seat", "Une table sans vous doit n'avoir que des robots.")
        table = Table(self, self._new_id(4), game, checked, table_seats,
                      session.player.identity, timer if sit else None,
                      self._new_id(6) if private else None)
        self.tables[table.id] = table
        if sit:
            table_seats[0] = Seat("player", session.player.name, session.player.identity,
                                  session=session)
            self._place(session, table, 0)
        else:
            self._place(session, table, None)
        table.changed()
        if all(s.kind != "free" for s in table.seats):
            table.start(self._ids.getrandbits(63))
        return table.id

    def quick_play(self, session: Session, game_name: str, seats: int,
                   options: Mapping[str, Any]) -> str:
        """A table against bots, started at once."""
        game = self._game(game_name)
        seats = max(game.min_seats, min(seats, game.max_seats))
        return self.create_table(session, game_name, seats=seats, options=options,
                                 bots={i: "basic" for i in range(1, seats)}, timer="default",
                                 private=False, sit=True)

    def join(self, session: Session, table_id: str, seat_no: int | None, code: str | None
             ) -> None:
        self._require_player(session)
        table = self._table(table_id)
        if table.code is not None and (code or "").strip().upper() != table.code:
            raise Refused("code", "Cette table est privée : il faut son code.")
        if table.status != "waiting":
            raise Refused("started", "La partie a déjà commencé ; vous pouvez la regarder.")
        free = [i for i, s in enumerate(table.seats) if s.kind == "free"]
        if seat_no is None:
            if not free:
                raise Refused("full", "La table est complète.")
            seat_no = free[0]
        elif seat_no not in free:
            raise Refused("seat_taken", "Ce siège n'est pas libre.")
        table.seats[seat_no] = Seat("player", session.player.name, session.player.identity,
                                    session=session)
        self._place(session, table, seat_no)
        table.changed()
        if not any(s.kind == "free" for s in table.seats):
            table.start(self._ids.getrandbits(63))
        else:
            table.publish()

    def watch(self, session: Session, table_id: str, code: str | None) -> None:
        if session.table is not None:
            raise Refused("already_seated", "Quittez d'abord votre table.")
        table = self._table(table_id)
        if table.code is not None and (code or "").strip().upper() != table.code:
            raise Refused("code", "Cette table est privée : il faut son code.")
        self._place(session, table, None)

    def start_table(self, session: Session) -> None:
        table = session.table
        if table is None or session.seat is None:
            raise Refused("not_seated", "Vous n'êtes assis à aucune table.")
        if table.status != "waiting":
            raise Refused("started", "La partie a déjà commencé.")
        if session.player.identity != table.creator:
            raise Refused("not_creator", "Seul le créateur de la table peut la lancer.")
        table.start(self._ids.getrandbits(63))

    def leave_table(self, session: Session) -> None:
        if session.table is None:
            raise Refused("not_seated", "Vous n'êtes à aucune table.")
        self._leave(session)

    def _leave(self, session: Session) -> None:
        table, seat_no = session.table, session.seat
        assert table is not None
        table.unsubscribe(session)
        session.table = session.seat = None
        session.mailbox.put_left_table()
        if seat_no is not None:
            seat = table.seats[seat_no]
            if table.status == "waiting":
                table.seats[seat_no] = Seat("free")
                humans = table.humans()
                if table.creator == session.player.identity and humans:
                    table.creator = humans[0].identity or ""
            elif table.status == "playing":
                seat.session = None
                self._hand_to_bot(table, seat_no)
            else:
                seat.session = None
            table.changed()
            table.publish()
        if session.open:
            session.mailbox.put_lobby(self.snapshot())
            for line in self._chat.get("lobby", ()):
                session.mailbox.put_chat(line)
        self._maybe_close(table)
        self.lobby_changed()

    def _place(self, session: Session, table: Table, seat_no: int | None) -> None:
        session.table, session.seat = table, seat_no
        table.subscribe(session, seat_no)
        for line in self._chat.get(table.id, ()):
            session.mailbox.put_chat(line)
        self.lobby_changed()

    def _maybe_close(self, table: Table) -> None:
        """A table with nobody left to play or watch closes (an unfinished log ends 'closed')."""
        if table.subscribers or any(s.kind == "player" and (s.session or s.grace)
                                    for s in table.seats):
            return
        table.cancel_timers()
        if table.writer is not None and table.status == "playing":
            table.writer.end("closed")
            table.writer.close()
        table.status = "closed"
        del self.tables[table.id]
        self._chat.pop(table.id, None)
        self.lobby_changed()

    # --- play -----------------------------------------------------------------------------

    def act(self, session: Session, action: Any, step: int | None) -> None:
        table, seat_no = session.table, session.seat
        if table is None or seat_no is None or table.seats[seat_no].session is not session:
            raise Refused("not_seated", "Vous n'êtes assis à aucune table.")
        table.submit(seat_no, action, step)

    def table_finished(self, table: Table, seats: list[SeatResult], rounds: int) -> None:
        """Record the result; absent players' seats need no keeping any more."""
        if self.db is not None:
            self.db.record_game(table.id, table.game.name, table.options, table.started_at,
                                time.time(), rounds, self.log_path(table.id).name, seats)
        for seat in table.seats:
            if seat.grace is not None:
                seat.grace.cancel()
                seat.grace = None
        later(0, self._maybe_close, table)

    def notify_seat(self, table: Table, seat_no: int, code: str, text: str) -> None:
        session = table.seats[seat_no].session
        if session is not None:
            session.mailbox.put_notice(Notice(code, text))

    # --- chat -----------------------------------------------------------------------------

    def chat(self, session: Session, text: str) -> None:
        if session.player.watch_only:
            raise Refused("watch_only", "Session spectateur : pas de messages.")
        clean = sanitise(text)
        if not clean:
            raise Refused("empty", "Message vide.")
        now = time.time()
        if not self._chat_limit.allow(session.player.identity, now):
            raise Refused("chat_rate", "Doucement : 3 messages toutes les 3 secondes au plus.")
        scope = session.table.id if session.table is not None else "lobby"
        line = ChatLine(scope, session.player.name, clean, now)
        self._chat.setdefault(scope, deque(maxlen=CHAT_HISTORY)).append(line)
        if scope == "lobby":
            targets = [s for s in self.sessions.values() if s.table is None]
        else:
            targets = list(self.tables[scope].subscribers)
        for target in targets:
            target.mailbox.put_chat(line)
