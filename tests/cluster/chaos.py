"""The chaos of issue 18: every process of a deployment killed in turn while people play.

Two ``pioche coordinator --several --logs jetstream --bus-replicas 3`` over one PostgreSQL
database, two ``pioche front`` processes, a cluster of three NATS nodes (``NatsCluster``); at
``tables`` tables of Défausse (one round each), a player of this process (a ``Remote``: the
fronts' code, in this process, over its own connection to the cluster) plays seat 0 against a
bot; at ``ssh`` of them a scripted SSH player (asyncssh, the real app through a front) holds
seat 1. A table whose game ends is followed by a new one (its players move there).

``Chaos.kill(kind)`` SIGKILLs one process of a kind, drawn with the run's seed: a coordinator
(a new one is started at once: a supervisor's restart, a new boot id, an empty data directory),
a front (started again on its port), a NATS node (started again after a pause), then waits for
the dust to settle: every table that was playing has moved again and every player is back at
their table (an SSH player whose connection died reconnects to a front, as a person would; a
player of this process whose session ended connects again). ``finish`` lets every table play
its game to the end, then ``check`` reads every table's log from the stream and the games
from the database. What must hold, whatever was killed:

- every move a player saw acknowledged (an ``act`` answered; a step shown on a screen: a move
  is shown only once its record is durable) is in the table's log;
- each table ends its game once: one end record in its log, one row in ``games``;
- each player gets their seat back after each kill (never the lobby, never another seat).

What a polished server owes that the issue leaves open, and this harness holds it to: a
player whose connection a kill cut is back at their seat when they reconnect (within
``BACK_WAIT``); a table stands still only while what serves it is being replaced
(``SETTLE_WAIT`` at most, measured per kill as ``Kill.stalls``); nothing a player was shown is
taken back.

tests/cluster/test_chaos.py runs a short chaos in CI; bench/chaos.py a long one (the figures of
docs/performance.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
import statistics
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncssh
import psycopg
from nats.aio.client import Client as Nats

from pioche_tui import bus
from pioche_tui.bus.directory import through_elections
from pioche_tui.bus.natsd import NatsCluster
from pioche_tui.coordinator.mailbox import Mail
from pioche_tui.coordinator.model import Player as Who
from pioche_tui.coordinator.model import Refused, TableUpdate
from pioche_tui.coordinator.remote import Remote, RemoteClient
from pioche_tui.store import jslog
from pioche_tui.store.log import LogError
from server.keys import ensure_host_key
from tests.bus.several import (
    Coordinator,
    Front,
    Logged,
    a_remote,
    alive_count,
    logged,
    start_coordinator,
    start_front,
    until,
)
from tests.hostile.test_restart_live import login
from tests.server.conftest import Client
from tests.server.test_workers import TITLE

KINDS = ("coordinator", "front", "node")
COORDINATOR_ARGS = ("--bus-replicas", "3", "--bot-delay", "0.1,0.3", "--table-rate", "60,60")
"""Three copies of every log and bucket; bots slower than the tests' usual (twenty tables on
two shared cores); a player may make a table a second (a game of one round lasts some 10 s on
a quiet machine: past the default six a minute, a player's new table was refused, and the
player made no more: seed 21)."""
PACE = (0.1, 0.3)  # seconds a player of this process thinks before a move
OPTIONS = {"single_round": True}  # a game of some forty moves
SETTLE_WAIT = 45.0  # seconds after a kill for every table to move and every player to sit
BACK_WAIT = 60.0  # seconds a player keeps reconnecting to their seat
FINISH_WAIT = 90.0  # seconds for the last games to end
ATTEMPT_WAIT = 20.0  # seconds an SSH connection is given to show the player's table
AWAY_WAIT = 5.0  # seconds an SSH player looks at another screen than their table's, then
# connects again (a person sent to the lobby while their game plays on would)


@dataclass
class Table:
    """One table's bookkeeping: what its players saw and had acknowledged."""

    id: str
    ssh: bool
    shown: int = 0  # the highest step any of its players was shown
    acked: int = 0  # seat 0's moves acknowledged
    moves: list[float] = field(default_factory=list)  # when its step was seen to advance
    over: bool = False

    def saw(self, step: int) -> None:
        if step > self.shown:
            self.shown = step
            self.moves.append(time.monotonic())

    def moved_since(self, moment: float) -> float | None:
        """Seconds from ``moment`` to the first move seen after it."""
        return next((t - moment for t in self.moves if t > moment), None)


@dataclass
class Kill:
    kind: str
    target: str
    at: float
    stalls: list[float] = field(default_factory=list)  # per table playing: kill → next move
    settled: float = 0.0  # seconds until every table moved and every player sat
    stuck: int = 0  # tables that did not move within SETTLE_WAIT (not in ``stalls``)


class Problems(list[str]):
    """What went wrong, each said once with what is known (the run goes on: the figures)."""

    def say(self, text: str) -> None:
        self.append(text)
        print(f"PROBLEM: {text}", flush=True)


class BusPlayer:
    """Seat 0 of a table, played from this process over the harness's ``Remote``; when its
    session ends (a failure: this front never dies), reconnects and must find its seat
    again."""

    def __init__(self, chaos: Chaos, n: int, ssh: SshPlayer | None) -> None:
        self.chaos, self.ssh = chaos, ssh
        self.who = Who(f"SHA256:chaos-bus-{n}", f"bus{n}")
        self.client: RemoteClient | None = None
        self.table: Table | None = None
        self.rng = random.Random(chaos.seed * 1000 + n)
        self.reconnects = 0
        self.task: asyncio.Task[None] | None = None
        self.seen: TableUpdate | None = None  # the last update of its table (told when a
        # game does not end)

    async def sit(self) -> None:
        """Connected, at a new table (with the SSH player, if any, seated too)."""
        if self.client is None:
            self.client = self.chaos.remote.client()
            await self.client.connect(self.who)
        await self.new_table()
        self.task = self.chaos.play(self.run(), f"player {self.who.name}")

    async def new_table(self) -> None:
        assert self.client is not None
        if self.client.table_id is not None:
            with contextlib.suppress(Refused):
                await self.client.leave()
        if self.ssh is None:
            tid = await self.chaos.retry(lambda: self.client_now().create_table(
                "defausse", seats=2, options=OPTIONS, bots={1: "basic"}))
            self.table = Table(tid, ssh=False)
        else:
            tid = await self.chaos.retry(lambda: self.client_now().create_table(
                "defausse", seats=3, options=OPTIONS, bots={2: "basic"}))
            self.table = Table(tid, ssh=True)
            await self.ssh.join(self.table)
        self.chaos.tables.append(self.table)

    def client_now(self) -> RemoteClient:
        assert self.client is not None
        return self.client

    async def run(self) -> None:
        """Read the news and play. ``mail()`` is never cancelled (a mail taken and then
        cancelled would be lost: the table would wait for a move this player never saw it
        ask for), and the newest update of the table is kept until it is played or outdated,
        so that a move is made even when other news (a lobby) came on top of it."""
        reading: asyncio.Task[Mail] | None = None
        latest: TableUpdate | None = None
        while True:
            client, table = self.client_now(), self.table
            assert table is not None
            if reading is None:
                reading = asyncio.ensure_future(client.mail())
            await asyncio.wait((reading,), timeout=1.0)
            if reading.done():
                mail, reading = reading.result(), None
                if mail.closed:  # (its front, this process, never dies: a failure, told;
                    # a front keeps its sessions through a bus blip, moves them when their
                    # coordinator dies or is deposed)
                    latest = None
                    self.chaos.problems.say(
                        f"{self.who.name}'s session ended at {table.id}: "
                        f"{[(n.code, n.text) for n in mail.notices]}")
                    await self.back()
                    continue
                update = mail.table
                if mail.left_table and (update is None or update.table.id != table.id) \
                        and not table.over:
                    latest = None  # (sent to the lobby: the product's failure, told)
                    await self.rejoin()
                    continue
                if update is not None and update.table.id == table.id:
                    table.saw(update.step)
                    latest = self.seen = update
                    if update.table.status == "finished":
                        latest = None
                        table.over = True
                        if self.chaos.ending:
                            return
                        await self.new_table()
                        continue
            if latest is None or not (latest.seat == 0 and 0 in latest.to_act
                                      and latest.view.legal) or client.pending:
                continue
            await asyncio.sleep(self.rng.uniform(*PACE))
            if client.pending:  # (newer news: this update may be outdated)
                continue
            update, latest = latest, None
            try:
                await client.act(update.view.legal[0], update.step)
            except Refused as refusal:
                self.chaos.refusals[refusal.code] = self.chaos.refusals.get(refusal.code, 0) + 1
                if refusal.code not in ("stale", "unavailable", "not_your_turn", "paused",
                                        "not_playing", "stopped", "not_seated",
                                        "not_connected"):
                    self.chaos.problems.say(f"{self.who.name} at {table.id}: move refused "
                                            f"{refusal.code} ({refusal})")
                if refusal.code in ("unavailable", "paused"):
                    latest = update  # (tried again at the next turn of the loop)
                elif refusal.code == "not_seated":
                    await self.rejoin()
                elif refusal.code == "not_connected":  # (its session ended: a new one)
                    await self.back()
                continue
            table.acked += 1

    async def rejoin(self) -> None:
        """The session is in the lobby while its table plays on (a failure, told: a deposed
        owner's sessions move to the new owner, ``Remote``): join the table again, as a
        person would, until the seat is theirs again (the table may be on its way to another
        coordinator meanwhile)."""
        table = self.table
        assert table is not None
        if await self.chaos.game_over(table.id):  # (its game ended meanwhile)
            table.over = True
            if not self.chaos.ending:
                await self.new_table()
            return
        self.chaos.lobbied(f"{self.who.name} sent to the lobby while {table.id} plays on")
        deadline = time.monotonic() + BACK_WAIT
        why = ""
        while True:
            client = self.client_now()
            if not client.open:  # (the session ended meanwhile: a new one, seat and all)
                await self.back()
                return
            with contextlib.suppress(Refused):
                place = await client.place()
                if place.table == table.id and place.seat == 0:
                    return
            if await self.chaos.game_over(table.id):
                table.over = True
                if not self.chaos.ending:
                    await self.new_table()
                return
            if time.monotonic() > deadline:
                self.chaos.seats_lost += 1
                self.chaos.problems.say(f"{self.who.name} cannot sit at {table.id} again in "
                                        f"{BACK_WAIT:.0f} s: {why}")
                if not self.chaos.ending:
                    await self.new_table()
                return
            try:
                await client.join(table.id)
            except Refused as refusal:
                why = f"{refusal.code} ({refusal})"
                if refusal.code in ("started", "no_table"):
                    # (a started table takes no join, not even its seat's player's; a table
                    # owned elsewhere may be unknown here: the player quits and connects
                    # again, as a person would, and a new session finds the seat)
                    with contextlib.suppress(Refused):
                        await client.close()
                    await asyncio.sleep(1.0)  # (the seat's new owner restoring it)
                    await self.back(rejoin=False)
                    return
                if refusal.code == "already_seated":  # (elsewhere: leave it first)
                    with contextlib.suppress(Refused):
                        if (await client.place()).table != table.id:
                            await client.leave()
            await asyncio.sleep(0.5)

    async def back(self, rejoin: bool = True) -> None:
        """A new session; the seat must come back with it (or, ``rejoin``, by joining the
        table from the lobby)."""
        table = self.table
        assert table is not None
        self.reconnects += 1
        deadline = time.monotonic() + BACK_WAIT
        while True:
            self.client = self.chaos.remote.client()
            try:
                place = await self.client.connect(self.who)
                break
            except Refused as refusal:
                if time.monotonic() > deadline:
                    self.chaos.problems.say(f"{self.who.name} cannot connect again: {refusal}")
                    raise
                await asyncio.sleep(0.5)
        if place.table != table.id or place.seat != 0:
            if place.table is None and await self.chaos.game_over(table.id):
                table.over = True  # (its game ended meanwhile: nothing held any more)
                if not self.chaos.ending:
                    await self.new_table()
                return
            if place.table is None and rejoin:  # (in the lobby: the player joins their
                await self.rejoin()  # table, which the lobby shows them at; told)
                return
            self.chaos.problems.say(f"{self.who.name} did not get seat 0 of {table.id} back: "
                                    f"{place}")
            self.chaos.seats_lost += 1
            if not self.chaos.ending:
                await self.new_table()

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)


def shows(wanted: str, closed: asyncio.Event, screen: str) -> bool:
    """The screen shows ``wanted``, or the connection is closed."""
    return wanted in screen or closed.is_set()


class SshPlayer:
    """Seat 1 of a table, played over SSH through a front as a person would: at each turn
    draw, then keep (or the first colour); when the connection ends, connect again (to
    whichever front answers) and expect their table on the screen."""

    def __init__(self, chaos: Chaos, n: int) -> None:
        self.chaos = chaos
        self.name = f"ssh{n}"
        self.key = asyncssh.generate_private_key("ssh-ed25519")
        self.conn: asyncssh.SSHClientConnection | None = None
        self.client: Client | None = None
        self.table: Table | None = None
        self.rng = random.Random(chaos.seed * 1000 + 500 + n)
        self.reconnects = 0
        self.task: asyncio.Task[None] | None = None
        self._connecting = asyncio.Lock()  # one connection made at a time (its loop's, or
        # the join of its next table, which would abort each other's)

    async def connect(self, command: str | None = None) -> Client:
        fronts = [front for front in self.chaos.fronts if front.running]
        port = self.rng.choice(fronts or self.chaos.fronts).port
        if self.conn is not None:
            self.conn.abort()
        self.conn, self.client = await login(port, self.name, self.key, command)
        return self.client

    async def join(self, table: Table) -> None:
        """Sit at ``table`` (waiting for this player): a new connection, ``join TABLE``."""
        self.table = table
        async with self._connecting:
            await self.reach(f"join {table.id}")
        if self.task is None:
            self.task = self.chaos.play(self.run(), f"player {self.name}")

    async def reach(self, command: str | None) -> None:
        """Connect until this player's table is on the screen."""
        assert self.table is not None
        deadline = time.monotonic() + BACK_WAIT
        table = self.table
        wanted = f"Défausse · table {table.id}"
        while True:
            if command is None and table.over:  # (its next table is being made)
                return
            try:
                client = await self.connect(command)
                # (the app's first frame may take seconds on a busy machine: a connection
                # that stays open is waited for, not dropped and made again)
                await client.wait_for(functools.partial(shows, wanted, client.closed),
                                      timeout=max(1.0, min(ATTEMPT_WAIT,
                                                           deadline - time.monotonic())))
                if wanted not in client.screen.text():
                    raise AssertionError(f"connection closed: {client.screen.text()}")
                self.note()
                return
            except (OSError, asyncssh.Error, AssertionError) as error:
                if time.monotonic() > deadline:
                    self.chaos.seats_lost += 1
                    self.chaos.problems.say(
                        f"{self.name} not back at {self.table.id} in {BACK_WAIT:.0f} s: "
                        f"{error!r}\n{self.client.screen.text() if self.client else ''}")
                    return  # (told; the player's loop tries again while the run lasts)
                await asyncio.sleep(0.5)

    def note(self) -> None:
        assert self.client is not None and self.table is not None
        found = TITLE.search(self.client.screen.text())
        if found and found[1] == self.table.id:
            self.table.saw(int(found[2]))

    async def run(self) -> None:
        away: float | None = None  # since when the screen shows another place than the table
        while True:
            if self._connecting.locked():  # (its next table being joined, ``join``: what
                away = None  # that connection shows is ``reach``'s to judge, not this loop's.
                # Judged here, a join slower than AWAY_WAIT (a node's kill: 20 s) read as the
                # player sent away from a table that had not started, and ended this loop)
                await asyncio.sleep(0.1)
                continue
            client, table = self.client, self.table
            assert client is not None and table is not None
            if client.closed.is_set():
                if table.over:
                    await asyncio.sleep(0.1)  # (its next table is being made)
                    continue
                async with self._connecting:  # (not while the next table is joined)
                    if client is self.client and table is self.table:
                        self.reconnects += 1
                        await self.reach(None)
                continue
            self.note()
            if self.at_table or table.over:
                away = None
            elif away is None:
                away = time.monotonic()
            elif time.monotonic() - away > AWAY_WAIT:  # (in the lobby: a deposed owner's)
                self.reconnects += 1
                if not await self.chaos.game_over(table.id):
                    self.chaos.lobbied(f"{self.name} shown another screen than {table.id}'s "
                                       f"for {AWAY_WAIT:.0f} s while it plays on:\n"
                                       f"{client.screen.text()}")
                away = None
                async with self._connecting:
                    if client is self.client and table is self.table:
                        await self.reach(None)
                continue
            screen = client.screen.text()
            if "choisir la couleur" in screen:
                client.send("1")
            elif "k garder" in screen:
                client.send("k")
            elif "À vous" in screen:
                client.send("d")
            await asyncio.sleep(0.1)

    @property
    def at_table(self) -> bool:
        return (self.client is not None and not self.client.closed.is_set()
                and self.table is not None
                and f"Défausse · table {self.table.id}" in self.client.screen.text())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
        if self.conn is not None:
            self.conn.abort()


class Chaos:
    """The deployment, its players, the kills and the bookkeeping (see the module's doc)."""

    def __init__(self, root: Path, cluster: NatsCluster, db: str, *, seed: int,
                 tables: int = 20, ssh: int = 4) -> None:
        self.root, self.cluster, self.db, self.seed = root, cluster, db, seed
        self.rng = random.Random(seed)
        self.size, self.ssh_size = tables, ssh
        self.coordinators: list[Coordinator] = []
        self.fronts: list[Front] = []
        self.nc: Nats | None = None
        self.remotes: list[Remote] = []
        self.players: list[BusPlayer] = []
        self.ssh: list[SshPlayer] = []
        self.tables: list[Table] = []
        self.kills: list[Kill] = []
        self.problems = Problems()
        self.seats_lost = 0
        self.refusals: dict[str, int] = {}  # moves refused, by code
        self.rejoins = 0  # players sent to the lobby while their table played on (the
        # product's failure: a deposed owner's sessions move to the table's new owner, a new
        # session finds its seat); each joins their table again by hand, and the run goes on
        self.ending = False
        self._started = 0
        self._log = logging.FileHandler(root / "players.log")  # (this process's side)
        self._log.setLevel(logging.INFO)
        self._level = logging.NOTSET

    @property
    def remote(self) -> Remote:
        return self.remotes[0]

    async def start(self) -> None:
        url = self.cluster.url
        self._log.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s "
                                                 "%(message)s"))
        logger = logging.getLogger("pioche_tui")
        logger.addHandler(self._log)
        self._level = logger.level
        logger.setLevel(logging.INFO)
        keys = self.root / "keys"
        ensure_host_key(keys)
        # (the first coordinator alone: one started at the same moment crashed on its first
        # write to the owners' buckets, which had no leader yet (NoStreamResponseError, seed
        # 5); then the others at once: a Python process took up to 40 s to start on the
        # loaded machine)
        await self.new_coordinator()
        started = await asyncio.gather(
            self.new_coordinator(),
            *(start_front(self.root, f"front{n}", url, keys) for n in range(2)),
            return_exceptions=True)  # (each one that started is stopped by ``stop``)
        self.fronts.extend(one for one in started if isinstance(one, Front))
        for failed in started:
            if isinstance(failed, BaseException):
                raise failed
        self.nc = await bus.connect(url, "chaos-players", bus.FRONT)
        await a_remote(self.nc, self.remotes, "chaos")
        await until(lambda: alive_count(self.remote, 2))
        self.ssh = [SshPlayer(self, n) for n in range(self.ssh_size)]
        self.players = [BusPlayer(self, n, self.ssh[n] if n < self.ssh_size else None)
                        for n in range(self.size)]
        await asyncio.gather(*(player.sit() for player in self.players))

    async def new_coordinator(self) -> Coordinator:
        self.coordinators = [c for c in self.coordinators if c.running]
        self._started += 1
        one = await start_coordinator(self.root, f"c{self._started}", self.cluster.url,
                                      self.db, COORDINATOR_ARGS)
        self.coordinators.append(one)
        return one

    async def retry(self, call: Callable[[], object]) -> str:
        """``call()`` again while the coordinators do not answer (a kill under way)."""
        deadline = time.monotonic() + BACK_WAIT
        while True:
            try:
                result = await call()  # type: ignore[misc]
                assert isinstance(result, str)
                return result
            except Refused as refusal:
                if refusal.code != "unavailable" or time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.3)

    def play(self, loop: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        """A player's loop, as a task whose end on an error is told: a player of the harness
        that stops playing leaves its table standing still, taken for the product's failure
        (the bench, seed 13: an SSH player's loop ended, untold), or makes no more tables."""
        task = asyncio.create_task(loop, name=name)
        task.add_done_callback(self._ended)
        return task

    def _ended(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and (error := task.exception()) is not None:
            self.problems.say(f"{task.get_name()} stopped playing: {error!r}")
            logging.getLogger("pioche_tui.chaos").error(  # (where: in players.log)
                "%s stopped playing", task.get_name(), exc_info=error)

    def lobbied(self, text: str) -> None:
        """A player away from their seat while their game plays on: a seat not given back."""
        self.rejoins += 1
        self.problems.say(f"{text} (joined again by hand)")

    async def game_over(self, table_id: str) -> bool:
        """The table's game has ended (its log says so). A table without a log has not
        started (a table's log begins with its game: one waiting for its SSH player has none):
        its game is not over. (That LogError, raised here, ended the SSH player's loop whose
        join was slow: its next tables waited for its moves for good, the bench's tables
        standing still past 45 s, seed 13.)"""
        assert self.nc is not None
        js = self.nc.jetstream()
        try:  # (a read that times out while the stream elects a leader is made again: that
            # TimeoutError ended a player's loop, the bench with 50 kills, seed 13, kill 4)
            return (await through_elections(f"reading {table_id}'s log",
                                            lambda: logged(js, table_id))).ends > 0
        except LogError:
            return False

    def playing(self) -> list[Table]:
        return [player.table for player in self.players
                if player.table is not None and not player.table.over]

    async def kill(self, kind: str) -> Kill:
        """SIGKILL one process of ``kind``, bring a successor up, wait until every table that
        was playing has moved again and every SSH player sits at their table."""
        at = time.monotonic()
        watched = self.playing()
        if kind == "coordinator":
            victim = self.rng.choice([c for c in self.coordinators if c.running])
            victim.kill()
            target = victim.boot
            try:
                await self.new_coordinator()
            except AssertionError as error:  # (told; the other serves meanwhile)
                self.problems.say(f"no coordinator started after {target}'s kill: {error}")
        elif kind == "front":
            front = self.rng.choice(self.fronts)
            target = front.log.stem
            front.kill()
            try:
                await front.restart()
            except AssertionError as error:  # (told; the other front serves meanwhile)
                self.problems.say(f"front {target} not started again: {error}")
        else:
            index = self.rng.randrange(len(self.cluster.nodes))
            target = f"n{index + 1}"
            self.cluster.kill(index)
            await asyncio.sleep(self.rng.uniform(0.0, 1.0))
            await self.cluster.restart(index)
        kill = Kill(kind, target, at)
        print(f"kill {len(self.kills) + 1}: {kind} {target}", flush=True)
        deadline = at + SETTLE_WAIT
        while True:
            still = [t for t in watched if not t.over and t.moved_since(at) is None]
            away = [p.name for p in self.ssh  # (one between two tables is not away)
                    if not p.at_table and p.table in watched and not p.table.over]
            if not still and not away:
                break
            if time.monotonic() > deadline:
                self.problems.say(f"kill {len(self.kills) + 1} ({kind} {target}): after "
                                  f"{SETTLE_WAIT:.0f} s, tables standing still: "
                                  f"{[t.id for t in still]}, SSH players away: {away}")
                for table in still:
                    print(await self.state_of(table), flush=True)
                break
            await asyncio.sleep(0.1)
        kill.settled = time.monotonic() - at
        kill.stuck = len([t for t in watched if not t.over and t.moved_since(at) is None])
        kill.stalls = [s for t in watched if (s := t.moved_since(at)) is not None]
        self.kills.append(kill)
        print(f"  settled in {kill.settled:.1f} s; tables stood still up to "
              f"{max(kill.stalls, default=0):.1f} s", flush=True)
        return kill

    async def played(self, kills: int) -> Report:
        """The whole chaos: start, ``kills`` kills, every game to its end, the check; the
        processes' logs printed if it fails, everything stopped whatever happens."""
        try:
            await self.start()
            await self.run(kills)
            await self.finish()
            return await self.check()
        except BaseException:
            print(self.logs())
            raise
        finally:
            await self.stop()

    async def run(self, kills: int) -> None:
        """``kills`` kills, the kinds in turn (each round of three in a drawn order), a drawn
        pause of 0.2–2 s of play before each."""
        order: list[str] = []
        for _ in range(kills):
            if not order:
                order = list(KINDS)
                self.rng.shuffle(order)
            await asyncio.sleep(self.rng.uniform(0.2, 2.0))
            await self.kill(order.pop())

    async def finish(self) -> None:
        """No new tables: every table plays its game to the end."""
        self.ending = True
        deadline = time.monotonic() + FINISH_WAIT
        while [t for t in self.tables if not t.over]:
            if time.monotonic() > deadline:
                left = [t for t in self.tables if not t.over]
                self.problems.say(f"games not over after {FINISH_WAIT:.0f} s: "
                                  f"{[t.id for t in left]}")
                for table in left:
                    print(await self.state_of(table), flush=True)
                break
            await asyncio.sleep(0.2)

    async def state_of(self, table: Table) -> str:
        """What is known of a table whose game does not end: its log's end, what its player
        of this process last saw, and its SSH player's screen."""
        assert self.nc is not None
        lines = [f"--- {table.id}: shown step {table.shown}, {table.acked} acknowledged"]
        try:
            contents = await jslog.read_table(self.nc.jetstream(), table.id)
            lines.append(f"its log: {len(contents.records)} records, the last "
                         f"{contents.records[-4:]}")
        except LogError as error:
            lines.append(f"its log: {error}")
        holders = [p.who.name for p in self.players if p.table is table]
        lines.append(f"the table of {holders}, over {table.over}")
        for player in self.players:
            if player.table is table:
                seen = player.seen
                lines.append(f"{player.who.name}: " + (
                    f"last saw step {seen.step}, to act {seen.to_act}, its seat "
                    f"{seen.seat}, {len(seen.view.legal)} legal moves"
                    if seen is not None and seen.table.id == table.id else "saw nothing")
                    + f"; pending {player.client_now().pending}, open "
                      f"{player.client_now().open}, loop done "
                      f"{player.task is not None and player.task.done()}")
        for ssh in self.ssh:
            if ssh.table is table:
                lines.append(f"{ssh.name}: at the table {ssh.at_table}, joining "
                             f"{ssh._connecting.locked()}, loop done "
                             f"{ssh.task is not None and ssh.task.done()}, screen:\n"
                             f"{ssh.client.screen.text() if ssh.client else ''}")
        return "\n".join(lines)

    async def check(self) -> Report:
        """Every table's log against what its players saw; the games in the database."""
        assert self.nc is not None
        js = self.nc.jetstream()
        report = Report(self)
        with psycopg.connect(self.db) as pg:
            rows: dict[str, int] = dict(pg.execute(
                "SELECT table_id, count(*) FROM games GROUP BY table_id").fetchall())
        for table in self.tables:
            try:
                log = await logged(js, table.id)
                removed = False
            except LogError:  # (never started: a table that waited for its SSH player; or
                # closed before any player's move, its log removed: the bots' steps only)
                log, removed = Logged(0, {}, 0), True
            report.moves += log.moves
            if table.shown > log.moves and not (removed and table.acked == 0):
                report.lost += table.shown - log.moves
                self.problems.say(f"{table.id}: step {table.shown} shown, "
                                  f"{log.moves} moves in its log")
            if table.acked > log.by_seat.get(0, 0):
                report.lost += table.acked - log.by_seat.get(0, 0)
                self.problems.say(f"{table.id}: seat 0 had {table.acked} moves acknowledged, "
                                  f"its log holds {log.by_seat.get(0, 0)}")
            report.acked += table.acked
            if table.over:
                report.games += 1
                recorded = rows.get(table.id, 0)
                if log.ends != 1 or recorded != 1:
                    report.twice += max(0, log.ends - 1) + max(0, recorded - 1)
                    self.problems.say(f"{table.id}: over, {log.ends} end records in its log, "
                                      f"recorded {recorded} times")
        return report

    async def stop(self) -> None:
        for player in self.players:
            await player.stop()
        for ssh in self.ssh:
            await ssh.stop()
        for remote in self.remotes:
            with contextlib.suppress(Exception):
                await remote.stop()
        if self.nc is not None:
            with contextlib.suppress(Exception):
                await self.nc.close()
        await asyncio.gather(*(front.stop() for front in self.fronts),
                             *(one.stop() for one in self.coordinators))
        logging.getLogger("pioche_tui").removeHandler(self._log)
        logging.getLogger("pioche_tui").setLevel(self._level)
        self._log.close()

    def logs(self) -> str:
        """The processes' logs' last lines (for a failure's message)."""
        return "\n".join(f"--- {log.name}\n{log.read_text(errors='replace')[-2500:]}"
                         for log in sorted(self.root.glob("*.log")))


class Report:
    """The figures of a run."""

    def __init__(self, chaos: Chaos) -> None:
        self.chaos = chaos
        self.moves = 0  # in the logs
        self.acked = 0  # seat 0's acknowledged
        self.lost = 0  # acknowledged or shown, not in the log
        self.games = 0  # over
        self.twice = 0  # ends recorded more than once

    def lines(self) -> list[str]:
        chaos = self.chaos
        out = [f"seed {chaos.seed}: {len(chaos.kills)} kills, {len(chaos.tables)} tables "
               f"({self.games} games over), {self.moves} moves logged"]
        for kind in KINDS:
            kills = [k for k in chaos.kills if k.kind == kind]
            stalls = sorted(s for k in kills for s in k.stalls)
            worst = sorted(max(k.stalls, default=0.0) for k in kills)
            if kills:
                out.append(f"  {kind}: {len(kills)} kills; tables stood still median "
                           f"{statistics.median(stalls):.2f} s, max {stalls[-1]:.2f} s; "
                           f"worst table per kill median {statistics.median(worst):.2f} s; "
                           f"settled (every table moved, every player seated) max "
                           f"{max(k.settled for k in kills):.1f} s; tables still standing "
                           f"after {SETTLE_WAIT:.0f} s: {sum(k.stuck for k in kills)}")
        out.append(f"acknowledged moves lost: {self.lost} (of {self.acked} acknowledged to "
                   f"seat 0, and every step shown); results recorded twice: {self.twice}; "
                   f"seats not given back: {chaos.seats_lost}")
        out.append(f"reconnections: {sum(p.reconnects for p in chaos.players)} by players of "
                   f"the bus, {sum(p.reconnects for p in chaos.ssh)} over SSH; players sent to "
                   f"the lobby while their game played on (a failure; each joined again by "
                   f"hand): {chaos.rejoins}")
        return out
