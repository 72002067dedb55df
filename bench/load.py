"""Load: many players and spectators over SSH on one server, as users feel it. Never part of
the test run; results go to docs/performance.md.

    uv run --group bench python bench/load.py [--sessions 10,50,100,200] [--seconds 40]
                                              [--burst 100] [--games defausse,collection]
                                              [--workers N]
                                              [--attack KIND [--attackers 8]]
                                              [--profile DIR] [--json FILE]
    uv run --group bench python bench/load.py --spectators 100,200 [--seconds 40]
                                              [--spectator-processes 2]

For each N in ``--sessions`` a fresh ``pioche serve`` (the real app, its caps raised, ``--trace``
on) runs as its own process on 127.0.0.1, and this process drives it with N asyncssh clients
(guests with a pty, xterm-256color, 100 × 30). Tables of four players, of each game in turn,
are set up through the screens: the first player creates the table with the dialog (``n``), the
three others join it from the lobby (``j``); every other pair of tables is also watched by two
spectators (``ssh … watch TABLE``). Each player is a script that reads its screen's prompt and
presses what a hurried player would (Enter to lay a raised card, ``d`` to draw, ``k`` to keep…)
about one second after the table's previous move, so each table plays about a move a second;
when the script does not know what to do, the turn timer's stand-in plays.

What it measures:

- move to frame: the server writes a line per accepted move (monotonic time, table, step);
  every table screen shows the move number in its title (« coup 37 »); each client notes when a
  step first shows in the bytes it receives (a later step counts too: frames are latest-wins).
  For each move, the delay until it reached every player and spectator of its table (and, per
  subscriber, until it reached that one);
- the server's CPU (psutil) over the play window, per move and per subscriber of a move (all of
  it: frames, the turn timers' ticks, SSH), and its memory growth per session;
- one new connection on the loaded server, from TCP connect to the first lobby frame
  (« Bonjour NAME ! »), a few times during play;
- at the largest N, ``--burst`` connections opened at once: when each first frame arrives, and
  what the seated players' moves cost meanwhile;
- before the tables are set up, ``--starts`` new connections one at a time on the idle server:
  the server's CPU for each, from the TCP connection to its first lobby frame and until the
  server is idle again (the SSH handshake, the login, the app's start).

``--spectators S1,S2`` measures instead one table (the first of ``--games``) of four scripted
players watched by S spectators, a fresh server per S: a play window without spectators (the
server's CPU per move, per seated player), then the S spectators connect over SSH as a spectator
does (``watch TABLE``), from ``--spectator-processes`` processes of their own, at most
``--connect-at-once`` at a time in each (how long they took, the server's CPU per spectator),
then a play window with them: move to frame on every screen (players' and spectators'), the
server's CPU per move, and so per extra spectator per move, its memory (RSS) per extra spectator,
and each client process's own CPU. With several counts, the CPU per move from one count to the
next, per spectator added, ends the output.

The clients share this process; its own CPU is reported (on 2 cores it competes with the
server). Each client connects from its own loopback address (127.0.1.1, 127.0.1.2, …), as players
do, so that the server's per-address limits apply to each alone. ``--attack KIND`` adds
``--attackers`` sessions from one address (127.0.0.1), in another process, attacking with one of
``tests/hostile/input_attacks.py``'s attacks (``mixed``: each of them, one per session in turn)
from ``--attack-warmup`` seconds before the play window to its end: the window then measures
what the players feel while attacked.
``--workers N`` serves with ``pioche serve --workers N`` (nats-server, the coordinator, N
fronts): the server's CPU and memory are then its whole process tree's, and the CPU is also
split by role (``cpu_percent_of_a_core_by_role``).
``--profile DIR`` runs the server under pyinstrument (bench/profiled.py) and writes
its profile of the play window, per N.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import codecs
import contextlib
import itertools
import json
import random
import re
import signal
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncssh
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.measure import (  # noqa: E402
    Tree,
    cpu_seconds,
    cpu_wait_seconds,
    load_average,
    percentiles,
    settle,
)
from tests.hostile.input_attacks import ATTACKS, MIXED, attacker  # noqa: E402
from tests.server.process import LikeOpenSSH, loopback, serve_process  # noqa: E402

SIZE = (100, 30)
TITLES = {"defausse": "Défausse", "collection": "Collection"}  # as the table's title says
STEP = re.compile(r"coup (\d+)")
TABLE_TITLE = re.compile(r"(?:Défausse|Collection) · table ([A-Z2-9]{4})\b")
TAIL = 160  # characters kept between chunks, so that a marker cut in two is still found
RECENT = 16_384  # characters kept for wait_for (a lobby's list of tables, a table's title)
CTRL_END = "\x1b[1;5F"  # the lobby's list: cursor to the last table (the newest)
CTRL_S = "\x13"
MOVE_EVERY = 1.0  # seconds between a table's moves
RETRY_AFTER = 0.3  # seconds before a script tries its next key when nothing happened
WAIT = 60.0  # seconds any expected screen may take, even on a loaded server

# What a scripted player presses, by the prompt it last read (first key first; the next ones
# when the move was not taken). Prompts that need nothing from the player map to (). A
# window's marker (DIALOGS) wins over the prompts in the same frame: a window is drawn over
# the table, whose prompt may come later in the frame.
PROMPTS: dict[str, dict[str, tuple[str, ...]]] = {
    "defausse": {
        "Quelle couleur": ("1", "\r"),
        "À vous :": ("\r", "d"),
        "Vous avez pioché": ("\r", "k"),
        "Au tour de": (),
        "Partie terminée": (),
    },
    "collection": {
        "À vous : piochez": ("a",),
        "Vous devez encore piocher": ("a",),
        "Piochez encore": ("s",),
        "Flip : voyez": ("a",),  # (« Vous piochez Flip : e pour l'activer… » is another)
        "Shadow !": ("k",),
        "Vous piochez": ("r", "e", "\r"),
        "réserve pleine : e": ("e", "\r"),
        "Quantique : gardez": ("\r",),
        "Tour passé": ("s",),
        "Choisissez dans la liste": ("\r",),
        "Fin de la manche : choisissez": ("\r",),
        "sur quel joueur": ("\r",),
        "de quel voisin": ("\r",),
        "de quelle pioche": ("\r",),
        "Au tour de": (),
        "Validation : en attente": (),
        "Partie terminée": (),
    },
}
DIALOGS = frozenset({
    "Quelle couleur", "Quantique : gardez", "Choisissez dans la liste",
    "Fin de la manche : choisissez", "sur quel joueur", "de quel voisin", "de quelle pioche",
})


class Steps:
    """The move numbers a screen showed, increasing, and when each first showed (monotonic
    time, the same clock in every process of the machine)."""

    def __init__(self, steps: list[int] | None = None,
                 seen_at: list[float] | None = None) -> None:
        self.steps = steps if steps is not None else []
        self.seen_at = seen_at if seen_at is not None else []

    @property
    def step(self) -> int:
        return self.steps[-1] if self.steps else -1

    def delivered(self, step: int) -> float | None:
        """When a step at least ``step`` first showed."""
        index = bisect.bisect_left(self.steps, step)
        return self.seen_at[index] if index < len(self.seen_at) else None

    def since(self, start: float) -> tuple[list[int], list[float]]:
        """The steps first shown from ``start`` on: all a move accepted after it can need."""
        index = bisect.bisect_left(self.seen_at, start)
        return self.steps[index:], self.seen_at[index:]


class Screen(Steps, asyncssh.SSHClientSession[bytes]):
    """One session's bytes, scanned for markers as they arrive: the move number, the prompt,
    any text waited for. Keeps no more than a short tail of what it received."""

    def __init__(self) -> None:
        super().__init__()
        self._decode = codecs.getincrementaldecoder("utf-8")("replace").decode
        self.recent = ""  # the last RECENT characters received
        self.changed = asyncio.Event()
        self.prompts: dict[str, tuple[str, ...]] = {}
        self.prompt: str | None = None
        self.closed = asyncio.Event()
        self.chan: asyncssh.SSHClientChannel[bytes] | None = None
        self.sent: list[float] = []  # when each key was sent (bench/fronts.py: key to frame)

    def connection_made(self, chan: asyncssh.SSHClientChannel[bytes]) -> None:
        self.chan = chan

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        now = time.monotonic()
        chunk = self._decode(data)
        text = self.recent[-TAIL:] + chunk
        last = self.steps[-1] if self.steps else -1
        for match in STEP.finditer(text):
            step = int(match[1])
            # A number at the very end may be cut ("coup 3" of "coup 37"): next chunk.
            if step > last and match.end() < len(text):
                self.steps.append(step)
                self.seen_at.append(now)
                last = step
        if self.prompts:  # the prompt is the window's, else the marker that came last
            best = -1
            for marker in self.prompts:
                at = text.rfind(marker)
                if at >= 0 and marker in DIALOGS:
                    self.prompt = marker
                    break
                if at > best:
                    best, self.prompt = at, marker
        self.recent = (self.recent + chunk)[-RECENT:]
        self.changed.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed.set()
        self.changed.set()

    def send(self, keys: str) -> None:
        if self.chan is not None and not self.chan.is_closing():
            self.sent.append(time.monotonic())
            self.chan.write(keys.encode())

    async def wait_for(self, wanted: str | re.Pattern[str], timeout: float = WAIT) -> str:
        """Wait until the text received lately holds ``wanted``; returns what matched (its
        first group for a pattern)."""
        deadline = time.monotonic() + timeout
        while True:
            if isinstance(wanted, str):
                if wanted in self.recent:
                    return wanted
            elif found := wanted.search(self.recent):
                return found[1] if found.groups() else found[0]
            if self.closed.is_set():
                raise ConnectionError(f"closed while waiting for {wanted!r}")
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), deadline - time.monotonic())


@dataclass
class Client:
    name: str
    conn: asyncssh.SSHClientConnection
    screen: Screen
    connect_s: float  # from TCP connect to the first lobby (or table) frame


_addresses = itertools.count()


async def connect(port: int, name: str, command: str | None = None,
                  marker: str | None = None, address: int | None = None) -> Client:
    """Open a session and wait for its first frame: the lobby's greeting, or ``marker``. It
    connects from the ``address``-th loopback address (by default the next one)."""
    started = time.monotonic()
    conn = await asyncssh.connect(
        "127.0.0.1", port, username=name, known_hosts=None, client_keys=None,
        agent_path=None, config=None, client_factory=LikeOpenSSH,
        local_addr=(loopback(next(_addresses) if address is None else address), 0),
    )
    _chan, screen = await conn.create_session(
        Screen, command, term_type="xterm-256color", term_size=SIZE, encoding=None)
    await screen.wait_for(marker or f"Bonjour {name} !")
    return Client(name, conn, screen, time.monotonic() - started)


@dataclass
class Table:
    id: str
    game: str
    players: list[Client]
    watchers: list[Client] = field(default_factory=list)

    @property
    def subscribers(self) -> list[Client]:
        return self.players + self.watchers


async def set_up_table(port: int | Sequence[int], index: int, game: str,
                       watched: bool) -> Table:
    """Four players: one creates the table through the dialog, three join it from the lobby;
    two spectators then watch it if ``watched``. With several ports (fronts), seat N connects
    to the N-th, in turn; the spectators to the first."""
    ports = [port] if isinstance(port, int) else list(port)
    names = [f"t{index:03d}p{seat}" for seat in range(4)]
    players = list(await asyncio.gather(*(
        connect(ports[seat % len(ports)], name) for seat, name in enumerate(names))))
    for player in players:
        player.screen.prompts = PROMPTS[game]
    creator = players[0].screen
    creator.send("n")
    await creator.wait_for("Nouvelle table")
    if game != "defausse":  # the game is the dialog's first field: open it, take the next one
        await asyncio.sleep(0.3)
        creator.send("\r")
        await asyncio.sleep(0.3)
        creator.send("\x1b[B")
        await asyncio.sleep(0.1)
        creator.send("\r")
        await asyncio.sleep(0.3)
    creator.send(CTRL_S)
    table_id = await creator.wait_for(TABLE_TITLE)
    title = f"{TITLES[game]} · table {table_id}"
    for player in players[1:]:
        await join(player.screen, table_id, title)
    for player in players:
        await player.screen.wait_for(STEP)  # the game started
    watchers = []
    if watched:
        watchers = list(await asyncio.gather(*(
            connect(ports[0], f"t{index:03d}w{n}", f"watch {table_id}", title)
            for n in range(2))))
    return Table(table_id, game, players, watchers)


async def join(screen: Screen, table_id: str, title: str) -> None:
    """Join the newest table from the lobby: the cursor to the last row (once the list shows
    that table there, it may come a little later), then ``j``."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        screen.send(CTRL_END)
        with contextlib.suppress(TimeoutError):
            await screen.wait_for(table_id, 1.0)
            screen.send(CTRL_END)  # the list may have grown after the previous one
            await asyncio.sleep(0.05)
            screen.send("j")
            await screen.wait_for(title, 3.0)
            return
    raise TimeoutError(f"could not join {table_id}")


async def play(client: Client, stop: asyncio.Event, rng: random.Random) -> None:
    """A scripted player: when its prompt asks for something, it presses the first key about
    MOVE_EVERY after the step showed, then the next ones if the move was not taken."""
    screen = client.screen
    done: tuple[int, str | None] = (-1, None)
    while not stop.is_set():
        screen.changed.clear()
        keys = screen.prompts.get(screen.prompt or "", ())
        state = (screen.step, screen.prompt)
        if keys and state != done:
            done = state
            shown = screen.seen_at[-1] if screen.seen_at else time.monotonic()
            await asyncio.sleep(max(0.0, shown + MOVE_EVERY * rng.uniform(0.8, 1.2)
                                    - time.monotonic()))
            for key in keys:
                if stop.is_set() or (screen.step, screen.prompt) != state:
                    break
                screen.send(key)
                await asyncio.sleep(RETRY_AFTER)
            continue
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(screen.changed.wait(), 1.0)


def read_trace(path: Path) -> list[tuple[float, str, int]]:
    moves = []
    for line in path.read_text().splitlines():
        when, table, step = line.split()
        moves.append((float(when), table, int(step)))
    return moves


def latencies(moves: Iterable[tuple[float, str, int]], screens: Mapping[str, Sequence[Steps]],
              start: float, end: float) -> dict[str, Any]:
    """Move to frame for the moves accepted in [start, end): to every screen of the table
    (``screens``: by table), and to each. A move some screen never showed counts as missed."""
    every, each, missed, subscribers = [], [], 0, 0
    for when, table_id, step in moves:
        table = screens.get(table_id)
        if table is None or not start <= when < end:
            continue
        reached = [seen.delivered(step) for seen in table]
        subscribers += len(reached)
        if any(at is None for at in reached):
            missed += 1
            continue
        delays = [at - when for at in reached if at is not None]
        each.extend(delays)
        every.append(max(delays))
    return {"moves": len(every) + missed, "missed": missed, "subscriber_moves": subscribers,
            "to_every_subscriber_ms": percentiles(every), "to_each_subscriber_ms":
            percentiles(each)}


def screens_of(tables: dict[str, Table]) -> dict[str, list[Steps]]:
    return {table.id: [client.screen for client in table.subscribers]
            for table in tables.values()}


async def probe(port: int, count: int, every: float, stop: asyncio.Event) -> list[float]:
    """One new connection at a time, ``count`` times: connect to first lobby frame."""
    times = []
    for n in range(count):
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every)
        if stop.is_set():
            break
        client = await connect(port, f"probe{n:03d}")
        times.append(client.connect_s)
        client.conn.close()
    return times


async def burst(port: int, count: int) -> dict[str, Any]:
    """``count`` connections at once; when each first frame came."""
    started = time.monotonic()
    results = await asyncio.gather(
        *(connect(port, f"burst{n:03d}") for n in range(count)), return_exceptions=True)
    clients = [r for r in results if isinstance(r, Client)]
    errors = [repr(r) for r in results if not isinstance(r, Client)]
    took = time.monotonic() - started
    for client in clients:
        client.conn.close()
    return {"connections": count, "failed": len(errors), "errors": errors[:3],
            "first_frame_ms": percentiles([c.connect_s for c in clients]),
            "all_in_s": round(took, 2)}


async def app_starts(port: int, server: psutil.Process, count: int) -> dict[str, Any]:
    """``count`` new connections to the lobby, one at a time on the idle server, after one that
    pays the first imports: the server's CPU for each, from the TCP connection (SSH handshake,
    login, the app's start, its first frame) until the server is idle again; each is closed,
    and the server idle again, before the next."""
    first = await connect(port, "start")
    first.conn.close()
    await settle(server)
    costs, frames = [], []
    for n in range(count):
        cpu0 = cpu_seconds(server)
        client = await connect(port, f"start{n:02d}")
        await settle(server)
        costs.append(cpu_seconds(server) - cpu0)
        frames.append(client.connect_s)
        client.conn.close()
        await settle(server)
    return {"connections": count,
            "server_cpu_ms_per_connection": percentiles(costs),
            "first_frame_ms": percentiles(frames)}


def layout(sessions: int, games: Sequence[str]) -> list[tuple[str, bool]]:
    """Tables (game, watched) for ``sessions``: four players each, the games in turn, half the
    tables of each game watched by two spectators (10 sessions per 2 tables)."""
    tables: list[tuple[str, bool]] = []
    used = 0
    while True:
        index = len(tables)
        watched = index % 4 in (0, 3)
        need = 4 + (2 if watched else 0)
        if used + need > sessions:
            break
        tables.append((games[index % len(games)], watched))
        used += need
    return tables


async def run_level(args: argparse.Namespace, sessions: int, with_burst: bool) -> dict[str, Any]:
    games = args.games.split(",")
    plan = layout(sessions, games)
    cap = str(sessions + args.burst + 20)
    with tempfile.TemporaryDirectory(prefix="pioche-load-") as tmp:
        trace = Path(tmp) / "trace.txt"
        python: tuple[str, ...] = (sys.executable,)
        if args.profile:  # profiled between SIGUSR1 and SIGUSR2: the play window
            args.profile.mkdir(parents=True, exist_ok=True)
            for old in args.profile.glob(f"server-{sessions}.*"):
                old.unlink()
            python = (sys.executable, str(ROOT / "bench" / "profiled.py"),
                      str(args.profile / f"server-{sessions}.txt"))
        extra = ["--app", args.app, "--max-sessions", cap, "--max-pending", cap,
                 "--max-per-address", cap, "--trace", str(trace),
                 "--turn-timer", str(args.turn_timer)]
        with serve_process(Path(tmp), *extra, python=python,
                           workers=args.workers or None) as served:
            server = served_by(served.process.pid, args)
            me = psutil.Process()
            await asyncio.sleep(1.0)
            starts = await app_starts(served.port, server, args.starts) if args.starts else None
            rss_start = server.memory_info().rss
            set_up_started = time.monotonic()
            tables: dict[str, Table] = {}
            for index, (game, watched) in enumerate(plan):
                table = await set_up_table(served.port, index, game, watched)
                tables[table.id] = table
            set_up_s = time.monotonic() - set_up_started
            clients = [c for t in tables.values() for c in t.subscribers]
            stop = asyncio.Event()
            rng = random.Random(sessions)
            players = [asyncio.create_task(play(c, stop, rng))
                       for t in tables.values() for c in t.players]
            await asyncio.sleep(args.warmup)
            rss_playing = server.memory_info().rss
            attacking = contextlib.AsyncExitStack()
            attack_report: dict[str, int] = {}
            if args.attack:
                attack_report = await attacking.enter_async_context(attacker(
                    served.port, args.attack, args.attackers,
                    seconds=args.attack_warmup + args.seconds + 60))
                await asyncio.sleep(args.attack_warmup)
            if args.profile:
                server.send_signal(signal.SIGUSR1)
            roles0 = server.roles() if isinstance(server, Tree) else {}
            cpu0, mine0, start = cpu_seconds(server), cpu_seconds(me), time.monotonic()
            waited0 = cpu_wait_seconds(server)
            probe_stop = asyncio.Event()
            probes = asyncio.create_task(
                probe(served.port, args.probes, args.seconds / (args.probes + 1), probe_stop))
            await asyncio.sleep(args.seconds)
            end = time.monotonic()
            cpu1, mine1 = cpu_seconds(server), cpu_seconds(me)
            roles1 = server.roles() if isinstance(server, Tree) else {}
            waited = cpu_wait_seconds(server) - waited0
            await attacking.aclose()
            if args.profile:
                server.send_signal(signal.SIGUSR2)
                report = args.profile / f"server-{sessions}.html"
                for _ in range(600):  # written after the text one: wait for both
                    if report.exists():
                        break
                    await asyncio.sleep(0.1)
            probe_stop.set()
            probe_times = await probes
            burst_result: dict[str, Any] | None = None
            if with_burst and args.burst:
                burst_start = time.monotonic()
                burst_result = await burst(served.port, args.burst)
                await asyncio.sleep(2.0)  # moves sent during the burst reach their screens
                burst_end = burst_start + burst_result["all_in_s"]
                moves = read_trace(trace)
                burst_result["seated_players_meanwhile"] = latencies(
                    moves, screens_of(tables), burst_start, burst_end)
            stop.set()
            await asyncio.gather(*players)
            if args.verbose:
                for table in tables.values():
                    print(table.id, table.game, [(c.screen.step, c.screen.prompt)
                                                 for c in table.subscribers], file=sys.stderr)
            moves = read_trace(trace)
            # the last moves may be in flight
            played = latencies(moves, screens_of(tables), start, end - 2.0)
            window = [(w, t, s) for w, t, s in moves if start <= w < end]
            subscriber_moves = sum(len(tables[t].subscribers) for _, t, _ in window
                                   if t in tables)
            cpu = cpu1 - cpu0
            result = {
                "sessions": len(clients),
                "tables": {g: sum(1 for t in tables.values() if t.game == g) for g in games},
                "spectators": sum(len(t.watchers) for t in tables.values()),
                "set_up_s": round(set_up_s, 1),
                "seconds": args.seconds,
                "moves_per_s": round(len(window) / (end - start), 1),
                "move_to_frame": played,
                "server_cpu_percent_of_a_core": round(100 * cpu / (end - start), 1),
                "server_waited_for_a_cpu_percent": round(100 * waited / (end - start), 1),
                "server_cpu_ms_per_subscriber_move": round(1000 * cpu / subscriber_moves, 2)
                if subscriber_moves else None,
                "bench_cpu_percent_of_a_core": round(100 * (mine1 - mine0) / (end - start), 1),
                "server_rss_mib": round(rss_playing / 2**20, 1),
                "rss_growth_mib_per_session": round(
                    (rss_playing - rss_start) / len(clients) / 2**20, 2),
                "new_connection_first_frame_ms": percentiles(probe_times),
                "first_frame_ms_during_set_up": percentiles([c.connect_s for c in clients]),
                "app_starts_on_the_idle_server": starts,
                "load_average": load_average(),
            }
            if isinstance(server, Tree):  # (--workers: where the CPU went)
                result["workers"] = args.workers
                result["cpu_percent_of_a_core_by_role"] = {
                    role: round(100 * (roles1[role] - roles0.get(role, 0.0)) / (end - start), 1)
                    for role in sorted(roles1)}
            if args.attack:
                result["attack"] = {"kind": args.attack, "sessions": args.attackers,
                                    "from": "127.0.0.1", "warmup_s": args.attack_warmup,
                                    "attacker_cpu_s": attack_report.get("cpu_ms", 0) / 1000}
            if burst_result is not None:
                result["burst"] = burst_result
            for client in clients:
                client.conn.close()
    return result


def served_by(pid: int, args: argparse.Namespace) -> psutil.Process:
    """What the server's CPU and memory are read from: its process, or with ``--workers`` its
    whole tree (the supervisor, nats-server, the coordinator, the fronts)."""
    return Tree(pid) if args.workers else psutil.Process(pid)


SPECTATOR_ADDRESSES = 10_000  # the first loopback address of the spectators' processes


async def spectator_client(spec: dict[str, Any]) -> None:
    """A spectators' process (``--spectator-client SPEC``): opens its share of the spectators
    (``watch TABLE``, as a spectator types it), at most ``at_once`` connecting at a time, and
    writes a JSON line: when each saw the table. Then it waits for a line on stdin: the play
    window's start (monotonic time), after which it writes the steps each screen showed since
    then (a JSON line) and closes its connections; nothing when stdin ends (its parent gone)."""
    limit = asyncio.Semaphore(spec["at_once"])

    async def one(n: int) -> Client:
        async with limit:
            return await connect(spec["port"], f"s{n:04d}", f"watch {spec['table']}",
                                 spec["title"], address=SPECTATOR_ADDRESSES + n)

    results = await asyncio.gather(
        *(one(n) for n in range(spec["first"], spec["first"] + spec["count"])),
        return_exceptions=True)
    clients = [r for r in results if isinstance(r, Client)]
    errors = [repr(r) for r in results if not isinstance(r, Client)]
    print(json.dumps({"connect_s": [c.connect_s for c in clients], "failed": len(errors),
                      "errors": errors[:3]}), flush=True)
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    if line.strip():
        since = float(line)
        print(json.dumps({"screens": [c.screen.since(since) for c in clients]}), flush=True)
    for client in clients:
        client.conn.close()


class Spectators:
    """``count`` spectators of a table, over SSH from ``processes`` processes of their own
    (``spectator_client``), so that their clients' CPU does not share this process's core."""

    def __init__(self) -> None:
        self.processes: list[asyncio.subprocess.Process] = []
        self.cpu: list[psutil.Process] = []
        self.reported = False  # every process said what its screens showed

    async def open(self, port: int, table_id: str, title: str, count: int, processes: int,
                   at_once: int) -> dict[str, Any]:
        """Start the processes and wait until every spectator saw the table (or gave up)."""
        first = 0
        for index in range(processes):
            share = count // processes + (1 if index < count % processes else 0)
            if not share:
                continue
            spec = {"port": port, "table": table_id, "title": title, "first": first,
                    "count": share, "at_once": at_once}
            process = await asyncio.create_subprocess_exec(
                sys.executable, str(Path(__file__).resolve()), "--spectator-client",
                json.dumps(spec), stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, limit=2**28)
            self.processes.append(process)
            self.cpu.append(psutil.Process(process.pid))
            first += share
        reports = [await self._read(process, WAIT * (count / at_once + 2))
                   for process in self.processes]
        return {"connected": sum(len(r["connect_s"]) for r in reports),
                "failed": sum(r["failed"] for r in reports),
                "errors": [e for r in reports for e in r["errors"]][:3],
                "first_frame_ms": percentiles([t for r in reports for t in r["connect_s"]])}

    def cpu_seconds(self) -> list[float]:
        return [cpu_seconds(process) for process in self.cpu]

    async def screens(self, since: float) -> list[Steps]:
        """What each spectator's screen showed since ``since``; their processes then end."""
        screens: list[Steps] = []
        for process in self.processes:
            assert process.stdin is not None
            process.stdin.write(f"{since}\n".encode())
            await process.stdin.drain()
            report = await self._read(process, WAIT)
            screens.extend(Steps(steps, seen_at) for steps, seen_at in report["screens"])
        self.reported = True
        await self.close()
        return screens

    async def close(self) -> None:
        """Let the processes end (they close their connections when their stdin ends), or
        end them: at once if they have not reported yet (an error or an interruption here)."""
        for process in self.processes:
            if process.stdin is not None and not process.stdin.is_closing():
                process.stdin.close()
            if process.returncode is None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(process.wait(), 30.0 if self.reported else 0.5)
            if process.returncode is None:
                process.kill()
                await process.wait()

    @staticmethod
    async def _read(process: asyncio.subprocess.Process, timeout: float) -> dict[str, Any]:
        assert process.stdout is not None
        line = await asyncio.wait_for(process.stdout.readline(), timeout)
        if not line:
            raise RuntimeError("a spectators' process ended early (its errors are above)")
        report: dict[str, Any] = json.loads(line)
        return report


def cpu_per_move(cpu: float, moves: int) -> float | None:
    return round(1000 * cpu / moves, 2) if moves else None


@dataclass
class Window:
    """A play window: its bounds (monotonic time), the server's CPU in it, and how long the
    server waited for a CPU while it had work (the shared machine's share of the latencies)."""

    start: float
    end: float
    cpu: float
    waited: float

    def moves(self, moves: Iterable[tuple[float, str, int]]) -> int:
        return sum(1 for when, _, _ in moves if self.start <= when < self.end)

    def percent(self, seconds: float) -> float:
        return round(100 * seconds / (self.end - self.start), 1)


async def window(server: psutil.Process, seconds: float) -> Window:
    cpu, waited, start = cpu_seconds(server), cpu_wait_seconds(server), time.monotonic()
    await asyncio.sleep(seconds)
    return Window(start, time.monotonic(), cpu_seconds(server) - cpu,
                  cpu_wait_seconds(server) - waited)


async def run_watched(args: argparse.Namespace, spectators: int) -> dict[str, Any]:
    """One table of four scripted players, watched by ``spectators`` over SSH: a play window
    without them; then, the players waiting, the spectators connect from their own processes;
    then a play window with them."""
    game = args.games.split(",")[0]
    cap = str(spectators + 40)
    with tempfile.TemporaryDirectory(prefix="pioche-watched-") as tmp:
        trace = Path(tmp) / "trace.txt"
        extra = ["--app", args.app, "--max-sessions", cap, "--max-pending", cap,
                 "--max-per-address", cap, "--trace", str(trace),
                 "--turn-timer", str(args.turn_timer)]
        crowd = Spectators()
        with serve_process(Path(tmp), *extra, workers=args.workers or None) as served:
            try:
                server, me = served_by(served.process.pid, args), psutil.Process()
                await asyncio.sleep(1.0)
                table = await set_up_table(served.port, 0, game, watched=False)
                title = f"{TITLES[game]} · table {table.id}"
                rng = random.Random(spectators)
                stop = asyncio.Event()
                players = [asyncio.create_task(play(c, stop, rng)) for c in table.players]
                await asyncio.sleep(args.warmup)
                alone = await window(server, args.seconds)
                rss_alone = server.memory_info().rss
                # The players wait while the spectators connect (a game lasts some 150 moves,
                # and at 1,000 spectators the old server takes minutes to let them in).
                stop.set()
                await asyncio.gather(*players)
                cpu0, connect_started = cpu_seconds(server), time.monotonic()
                connected = await crowd.open(served.port, table.id, title, spectators,
                                             args.spectator_processes, args.connect_at_once)
                connected["all_in_s"] = round(time.monotonic() - connect_started, 1)
                connected["server_cpu_ms_per_spectator"] = round(
                    1000 * (cpu_seconds(server) - cpu0) / spectators, 1)
                connected["spectator_processes_cpu_s"] = [
                    round(c, 1) for c in crowd.cpu_seconds()]
                stop = asyncio.Event()
                players = [asyncio.create_task(play(c, stop, rng)) for c in table.players]
                await asyncio.sleep(args.warmup)
                mine0, theirs0 = cpu_seconds(me), crowd.cpu_seconds()
                watched = await window(server, args.seconds)
                mine = cpu_seconds(me) - mine0
                theirs = [b - a for a, b in zip(theirs0, crowd.cpu_seconds(), strict=True)]
                rss_watched = server.memory_info().rss
                await asyncio.sleep(2.0)  # the window's last moves reach their screens
                watchers = await crowd.screens(watched.start)
                stop.set()
                await asyncio.gather(*players)
                over = [c.screen.prompt == "Partie terminée" for c in table.players]
                for client in table.players:
                    client.conn.close()
            finally:
                await crowd.close()
        moves = read_trace(trace)

    def to_frame(screens: Sequence[Steps], during: Window) -> dict[str, Any]:
        return latencies(moves, {table.id: screens}, during.start, during.end - 2.0)

    players_screens = [c.screen for c in table.players]
    alone_ms = cpu_per_move(alone.cpu, alone.moves(moves))
    watched_ms = cpu_per_move(watched.cpu, watched.moves(moves))
    return {
        "scenario": "one table watched", "game": game, "players": len(table.players),
        "spectators": spectators, "seconds": args.seconds,
        "without_spectators": {
            "moves_per_s": round(alone.moves(moves) / (alone.end - alone.start), 2),
            "move_to_frame": to_frame(players_screens, alone),
            "server_cpu_ms_per_move": alone_ms,
            "server_cpu_ms_per_seated_player_per_move": round(alone_ms / len(table.players), 2)
            if alone_ms is not None else None,
            "server_waited_for_a_cpu_percent": alone.percent(alone.waited),
            "server_rss_mib": round(rss_alone / 2**20, 1),
        },
        "spectators_connecting": connected,
        "with_spectators": {
            "moves_per_s": round(watched.moves(moves) / (watched.end - watched.start), 2),
            "move_to_frame": to_frame([*players_screens, *watchers], watched),
            "move_to_frame_players": to_frame(players_screens, watched),
            "move_to_frame_spectators": to_frame(watchers, watched),
            "server_cpu_ms_per_move": watched_ms,
            "server_cpu_percent_of_a_core": watched.percent(watched.cpu),
            "server_waited_for_a_cpu_percent": watched.percent(watched.waited),
            "server_rss_mib": round(rss_watched / 2**20, 1),
            "players_process_cpu_percent_of_a_core": watched.percent(mine),
            "spectator_processes_cpu_percent_of_a_core": [watched.percent(t) for t in theirs],
        },
        "game_over": all(over),  # the game ended: the last window lacks moves
        "server_cpu_ms_per_extra_spectator_per_move": round(
            (watched_ms - alone_ms) / spectators, 3)
        if watched_ms is not None and alone_ms is not None else None,
        "server_rss_mib_per_extra_spectator": round(
            (rss_watched - rss_alone) / spectators / 2**20, 3),
        "load_average": load_average(),
    }


def spectator_steps(results: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """From one count of spectators to the next: the server's CPU per move per spectator
    added (the same table, size, language and colours)."""
    steps = []
    for low, high in itertools.pairwise(results):
        before = low["with_spectators"]["server_cpu_ms_per_move"]
        after = high["with_spectators"]["server_cpu_ms_per_move"]
        if before is not None and after is not None and high["spectators"] > low["spectators"]:
            steps.append({"from": low["spectators"], "to": high["spectators"],
                          "server_cpu_ms_per_extra_spectator_per_move": round(
                              (after - before) / (high["spectators"] - low["spectators"]), 3)})
    return steps


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", default="10,50,100,200",
                        help="session counts, one server each (default 10,50,100,200)")
    parser.add_argument("--seconds", type=float, default=40.0, help="play window per N")
    parser.add_argument("--warmup", type=float, default=5.0,
                        help="seconds of play before the window opens")
    parser.add_argument("--burst", type=int, default=100,
                        help="connections opened at once at the largest N (0: none)")
    parser.add_argument("--probes", type=int, default=8,
                        help="single new connections during the window")
    parser.add_argument("--games", default="defausse,collection")
    parser.add_argument("--turn-timer", type=float, default=60.0,
                        help="the server's turn timer: its stand-in plays what scripts miss")
    parser.add_argument("--attack", choices=[*sorted(ATTACKS), MIXED],
                        help="attack the server during the window (tests/hostile/input_attacks.py;"
                        f" {MIXED}: every attack, one per session in turn)")
    parser.add_argument("--attackers", type=int, default=8,
                        help="attacking sessions, all from one address (default 8)")
    parser.add_argument("--attack-warmup", type=float, default=10.0,
                        help="seconds of attack before the window opens (the budget's burst)")
    parser.add_argument("--profile", type=Path, help="directory for pyinstrument profiles")
    parser.add_argument("--app", default="pioche_tui.app:open_service",
                        help="what pioche serve serves (an opener taking the settings)")
    parser.add_argument("--starts", type=int, default=10,
                        help="app starts timed one by one on each idle server (0: none)")
    parser.add_argument("--spectators",
                        help="instead of the sessions: one table watched by this many "
                             "spectators, a server each (e.g. 100,200 or 1000)")
    parser.add_argument("--spectator-processes", type=int, default=2,
                        help="processes the spectators' clients are spread over (default 2)")
    parser.add_argument("--connect-at-once", type=int, default=20,
                        help="spectators connecting at once in each of their processes")
    parser.add_argument("--spectator-client", help=argparse.SUPPRESS)
    parser.add_argument("--workers", type=int, default=0,
                        help="serve with pioche serve --workers N (the CPU and memory are "
                             "then the whole process tree's; default: one process)")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    parser.add_argument("--verbose", action="store_true",
                        help="say where each table's screens stand at the end")
    args = parser.parse_args()
    if args.spectator_client:
        await spectator_client(json.loads(args.spectator_client))
        return
    results: list[dict[str, Any]] = []
    if args.spectators:
        for spectators in (int(n) for n in args.spectators.split(",")):
            result = await run_watched(args, spectators)
            print(json.dumps(result), flush=True)
            results.append(result)
        if steps := spectator_steps(results):
            print(json.dumps({"spectators_added": steps}), flush=True)
            results.append({"spectators_added": steps})
    else:
        counts = [int(n) for n in args.sessions.split(",")]
        for sessions in counts:
            result = await run_level(args, sessions, with_burst=sessions == max(counts))
            print(json.dumps(result), flush=True)
            results.append(result)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    asyncio.run(main())
