"""Soak: the real server under many sessions and constant churn, for a long time. Never part of
the test run; results go to docs/reliability.md.

    uv run --group bench python bench/soak.py [--minutes 30] [--sessions 100] [--churn 0.1]
                                              [--every 5] [--seed 1] [--attack KIND]

Runs ``pioche serve`` (the real app, default settings: bots think 0.8–2 s, a 60 s turn timer, a
dropped player keeps the seat 300 s) as its own process on 127.0.0.1, port 0, and drives it from
this process with ``--sessions`` asyncssh clients, each with its own ed25519 key (an identity,
so a seat can be reclaimed). Each client presses a key every 1–3 s: in the lobby « p », a
quick game of Défausse against three bots; at the table a random one (play, draw, keep, choose
a card, back to the lobby and a new quick game when a game ends). Every ``--every`` seconds
``--churn`` of the connected clients are dropped — half by a TCP reset, half by a clean close —
and reconnect 1–3 s later with the same key. Each client connects from its own loopback address
(127.0.1.1, …), as players do.
``--attack KIND`` adds ``--attackers`` sessions from one address (127.0.0.1), in their own
process, attacking for the whole run with one of ``tests/hostile/input_attacks.py``'s attacks
(``mixed``: each of them, one per session in turn).

What it checks, and prints as JSON at the end:

- no error: no ERROR line or traceback in the server's log, no session that ended with the
  crash apology, no client that failed to connect (other than being told the server is full);
- speed (reported, not a check: compare a run with ``--attack`` to one without): ``--typists``
  more players (5; own keys and addresses, never dropped) sit in the lobby and type a word of
  6 letters in its chat line every 1–3 s, then erase it: the time from each word sent to the
  word on their screen (a terminal emulator's screen, as the tests read it) is the server's
  answer time under the whole load, a key that always changes the screen;
- memory: the server's RSS sampled every 10 s; the growth over the last 10 minutes (median of
  the first minute of that window against the median of the last minute) must stay under 5 %;
- no lost table: a client dropped while seated at a game in progress sees the same table again
  after reconnecting (the seat was kept); at the end, no table log ended as « closed » (a table
  is closed only when every player has left it for good), and the server still lets a new
  client in. The server is then stopped with SIGTERM and must exit 0.

The exit status is 0 when every check passed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

import asyncssh
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.measure import cpu_seconds, load_average, percentiles  # noqa: E402
from pioche_tui.store.log import END, SEAT, read_log  # noqa: E402
from server.keys import fingerprint  # noqa: E402
from server.ssh import MSG_CRASH  # noqa: E402
from tests.hostile.input_attacks import ATTACKS, MIXED, attacker  # noqa: E402
from tests.server.conftest import Client  # noqa: E402
from tests.server.process import loopback, reset, serve_process  # noqa: E402

# The table screen's title (« Défausse · table K7PX »), as the client's bytes carry it.
TABLE_TITLE = re.compile(r"Défausse · table ([A-Z2-9]{4})\b")
ESCAPES = re.compile(r"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b.")
KEYS = ("\r", "\r", "\r", "d", "k", "1", "2", "3", "\x1b[C", "p")
TYPISTS_FROM = 900  # their loopback addresses come after the players'
LOBBY_MARK = "Bonjour"  # the lobby greets the player by name
LOBBY_KEYS = "p/P rapide"  # the lobby's key bar, painted whenever the lobby is shown again


class Watching(asyncssh.SSHClientSession[bytes]):
    """Keeps only what the soak needs: the last table id shown, the last text, the end."""

    def __init__(self) -> None:
        self.table: str | None = None
        self.tail = ""
        self.crashed = False
        self.in_lobby = False
        self.lobby_now = False  # the lobby shown last (not a table since)
        self.closed = asyncio.Event()
        self.changed = asyncio.Event()

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        text = ESCAPES.sub("", self.tail[-200:] + data.decode("utf-8", "replace"))
        table = -1  # where the last table title is in the text
        for found in TABLE_TITLE.finditer(text):
            self.table, table = found[1], found.start()
        if MSG_CRASH in text:
            self.crashed = True
        if LOBBY_MARK in text:
            self.in_lobby = True
        lobby = text.rfind(LOBBY_KEYS)
        if lobby != table:  # (whichever came last is on the screen)
            self.lobby_now = lobby > table
        self.tail = text[-400:]
        self.changed.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed.set()
        self.changed.set()

    async def wait_for_table(self, table: str, timeout: float) -> bool:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.table != table:
            self.changed.clear()
            remaining = deadline - loop.time()
            if remaining <= 0 or self.closed.is_set():
                return False
            try:
                await asyncio.wait_for(self.changed.wait(), remaining)
            except TimeoutError:
                return False
        return True


@dataclass
class Stats:
    connects: int = 0
    connect_failures: list[str] = field(default_factory=list)
    drops: int = 0
    resets: int = 0
    drops_at_table: int = 0
    seats_reclaimed: int = 0
    reclaim_seconds: list[float] = field(default_factory=list)
    tables_lost: list[str] = field(default_factory=list)
    crashes: int = 0
    unexpected_closes: int = 0
    keys_sent: int = 0
    typed: list[float] = field(default_factory=list)  # typists' seconds from word to screen
    typing_failures: int = 0


class Player:
    def __init__(self, index: int, port: int, tables_dir: Path, stats: Stats,
                 rng: random.Random) -> None:
        self.index = index
        self.name = f"soak{index:03d}"
        self.key = asyncssh.generate_private_key("ssh-ed25519")
        self.identity = fingerprint(self.key)
        self.tables_dir = tables_dir
        self.port = port
        self.stats = stats
        self.rng = rng
        self.conn: asyncssh.SSHClientConnection | None = None
        self.chan: asyncssh.SSHClientChannel[bytes] | None = None
        self.session: Watching | None = None
        self.dropping = False

    async def connect(self) -> bool:
        try:
            conn = await asyncssh.connect(
                "127.0.0.1", self.port, username=self.name, known_hosts=None,
                client_keys=[self.key], agent_path=None, config=None,
                local_addr=(loopback(self.index), 0),
            )
            chan, opened = await conn.create_session(
                Watching, term_type="xterm-256color", term_size=(100, 30), encoding=None,
                env={"LANG": "fr_FR.UTF-8"},
            )
        except (OSError, asyncssh.Error) as error:
            self.stats.connect_failures.append(f"{self.name}: {error}")
            return False
        assert isinstance(opened, Watching)
        self.conn, self.chan, self.session = conn, chan, opened
        self.dropping = False
        self.stats.connects += 1
        return True

    async def play(self, stop: asyncio.Event) -> None:
        """Press keys until told to stop or dropped. In the lobby, the key is « p », a quick
        game (a player who came back to a kept seat is shown the table instead): a random key
        there would have them watch the first table listed (Enter), and what they make the
        server do would then depend on what that table is (an attacker's, in ``--attack``)."""
        session, chan = self.session, self.chan
        assert session is not None and chan is not None
        while not stop.is_set() and not session.closed.is_set():
            await asyncio.sleep(self.rng.uniform(1.0, 3.0))
            if session.closed.is_set() or self.dropping:
                break
            chan.write(b"p" if session.lobby_now else self.rng.choice(KEYS).encode())
            self.stats.keys_sent += 1
        if session.crashed:
            self.stats.crashes += 1
        if session.closed.is_set() and not self.dropping and not stop.is_set():
            self.stats.unexpected_closes += 1

    def drop(self) -> str | None:
        """Cut the connection, by a TCP reset or a clean close; the table it was at, if any."""
        assert self.conn is not None and self.session is not None
        self.dropping = True
        self.stats.drops += 1
        table = self.session.table
        if self.rng.random() < 0.5:
            reset(self.conn)
            self.stats.resets += 1
        else:
            self.conn.close()
        return table


async def run_player(player: Player, stop: asyncio.Event) -> None:
    """Connect and play; once dropped (see churn()), reconnect after a while."""
    while not stop.is_set():
        if not await player.connect():
            await asyncio.sleep(2.0)
            continue
        await player.play(stop)
        if stop.is_set():
            return
        await asyncio.sleep(player.rng.uniform(1.0, 3.0))


async def type_words(index: int, port: int, stats: Stats, stop: asyncio.Event,
                     rng: random.Random) -> None:
    """A player in the lobby typing words in the chat line (see the docstring: speed)."""
    name = f"typist{index}"
    conn = await asyncssh.connect(
        "127.0.0.1", port, username=name, known_hosts=None, config=None, agent_path=None,
        client_keys=[asyncssh.generate_private_key("ssh-ed25519")],
        local_addr=(loopback(TYPISTS_FROM + index), 0),
    )
    async with conn:
        _chan, client = await conn.create_session(
            Client, term_type="xterm-256color", term_size=(100, 30), encoding=None,
            env={"LANG": "fr_FR.UTF-8"})
        client.screen.resize(100, 30)
        await client.wait_for(f"Bonjour {name}", 120)
        client.send("c")  # the lobby's chat line
        words = 0
        while not stop.is_set():
            await asyncio.sleep(rng.uniform(1.0, 3.0))
            word = "".join(chr(ord("a") + int(d)) for d in f"{index}{words:05d}")
            sent = time.monotonic()
            client.send(word)
            try:
                await client.wait_for(word, 60)
                stats.typed.append(time.monotonic() - sent)
                client.send("\x7f" * len(word))
                await client.wait_for(lambda screen, word=word: word not in screen, 60)
            except AssertionError:  # not shown within a minute
                stats.typing_failures += 1
                return
            words += 1


async def churn(players: list[Player], stop: asyncio.Event, stats: Stats, every: float,
                share: float, rng: random.Random, reclaims: list[asyncio.Task[None]]) -> None:
    while not stop.is_set():
        await asyncio.sleep(every)
        online = [p for p in players
                  if p.session is not None and not p.session.closed.is_set() and not p.dropping]
        for player in rng.sample(online, max(1, int(len(online) * share))):
            table = player.drop()
            if table is not None and seated_in_game(player, table):
                stats.drops_at_table += 1
                reclaims.append(asyncio.create_task(check_reclaim(player, table, stats, stop)))


def seated_in_game(player: Player, table: str) -> bool:
    """The player holds a seat at ``table`` (its log's header says so), has moved there, and the
    game goes on. (A game its player drops before their first move is closed at once: there is
    no seat to come back to, docs/server.md.)"""
    path = player.tables_dir / f"{table}.log"
    if not path.exists():
        return False
    contents = read_log(path)
    seats = [i for i, seat in enumerate(contents.header["seats"])
             if seat.get("identity") == player.identity]
    return not contents.ended and any(seat in seats for seat, _wire in contents.actions())


async def check_reclaim(player: Player, table: str, stats: Stats, stop: asyncio.Event
                        ) -> None:
    """After its reconnection, the player must be shown the same table again, unless the game
    ended meanwhile (the stand-in may finish it)."""
    for _attempt in range(200):  # wait for the reconnection (bounded)
        await asyncio.sleep(0.1)
        session = player.session
        if session is not None and not player.dropping and not session.closed.is_set():
            break
    else:
        if not stop.is_set():  # (at the end, players stop reconnecting)
            stats.tables_lost.append(f"{player.name}: never reconnected ({table})")
        return
    assert player.session is not None
    loop = asyncio.get_running_loop()
    back = loop.time()
    # Under load a new app may take a while to start (three start at once, each costs CPU):
    # a minute, before calling the table lost. The seat itself is kept 300 s.
    if await player.session.wait_for_table(table, 60.0):
        stats.seats_reclaimed += 1
        stats.reclaim_seconds.append(loop.time() - back)
    elif not stop.is_set() and not player.session.closed.is_set() and seated_in_game(
            player, table):
        stats.tables_lost.append(f"{player.name}: table {table} not shown after reconnecting")


def rss(process: psutil.Process) -> int:
    return int(process.memory_info().rss)


def seats_given_away(logs: list[Path]) -> list[str]:
    """The soak's players' seats the stand-in took for good (the player never came back in
    time). An attacker's (``--attack``: mallory0, …) are not counted: an attacking session that
    ends leaves its seat for good, as it should."""
    lost = []
    for path in logs:
        contents = read_log(path)
        players = {i for i, seat in enumerate(contents.header["seats"])
                   if seat.get("kind") == "player" and str(seat.get("name")).startswith("soak")}
        lost += [f"{path.stem} seat {record[1]}" for record in contents.records
                 if record[0] == SEAT and record[1] in players
                 and record[2].get("kind") == "bot"]
    return lost


async def soak(args: argparse.Namespace, data: Path) -> dict[str, Any]:
    stats = Stats()
    rng = random.Random(args.seed)
    samples: list[tuple[float, int]] = []
    cpu: list[float] = []  # the server's CPU use over each 10 s, in % of one core
    limit = str(args.sessions + 20)
    with serve_process(data, "--app", "pioche_tui.app:open_service", "--max-sessions", limit,
                       "--max-per-address", limit) as served:
        process = psutil.Process(served.process.pid)
        tables_dir = data / "data" / "tables"
        players = [Player(i, served.port, tables_dir, stats, random.Random(rng.random()))
                   for i in range(args.sessions)]
        stop = asyncio.Event()
        reclaims: list[asyncio.Task[None]] = []
        loop = asyncio.get_running_loop()
        started = loop.time()
        attacking = contextlib.AsyncExitStack()
        if args.attack:  # alongside the players, for the whole run; in before them (on a busy
            # machine its eight logins, at its low priority, took more than its two minutes)
            await attacking.enter_async_context(attacker(
                served.port, args.attack, args.attackers, seconds=args.minutes * 60 + 90,
                niceness=10))  # its own CPU would be on another machine: it takes what is left
        tasks = []
        for player in players:  # not all at once: logins cost the server CPU
            tasks.append(asyncio.create_task(run_player(player, stop)))
            await asyncio.sleep(0.2)
        typists = [asyncio.create_task(type_words(i, served.port, stats, stop,
                                                  random.Random(rng.random())))
                   for i in range(args.typists)]
        churner = asyncio.create_task(
            churn(players, stop, stats, args.every, args.churn, rng, reclaims))
        end = started + args.minutes * 60
        used, at = cpu_seconds(process), loop.time()
        while loop.time() < end:
            samples.append((loop.time() - started, rss(process)))
            if loop.time() > at:
                cpu.append((cpu_seconds(process) - used) / (loop.time() - at) * 100)
            used, at = cpu_seconds(process), loop.time()
            if args.verbose:
                print(f"{samples[-1][0]:7.0f} s rss {samples[-1][1] / 2**20:6.1f} MiB "
                      f"cpu {cpu[-1] if cpu else 0:5.1f} % connects {stats.connects} "
                      f"drops {stats.drops} reclaimed {stats.seats_reclaimed} "
                      f"lost {len(stats.tables_lost)}", flush=True)
            await asyncio.sleep(min(10.0, max(0.0, end - loop.time())))
        stop.set()
        await attacking.aclose()
        churner.cancel()
        await asyncio.gather(churner, return_exceptions=True)
        await asyncio.gather(*reclaims, return_exceptions=True)
        for failed in await asyncio.gather(*typists, return_exceptions=True):
            if failed is not None:
                stats.connect_failures.append(f"a typist: {failed!r}")
        for player in players:
            if player.conn is not None:
                player.conn.close()
        await asyncio.gather(*tasks, return_exceptions=True)
        # Still working: a newcomer gets in and sees the lobby.
        newcomer = Player(999, served.port, tables_dir, stats, rng)
        newcomer_ok = await newcomer.connect()
        if newcomer_ok:
            assert newcomer.session is not None
            for _attempt in range(100):
                if newcomer.session.in_lobby:
                    break
                await asyncio.sleep(0.1)
            newcomer_ok = newcomer.session.in_lobby
            assert newcomer.conn is not None
            newcomer.conn.close()
        served.process.terminate()
        exit_code = served.wait(60)
        log = served.log_text()
    window = [rss for at, rss in samples if at >= samples[-1][0] - 600]
    first = statistics.median(window[:6])
    last = statistics.median(window[-6:])
    logs = sorted((data / "data" / "tables").glob("*.log"))
    ends = [read_log(path).records[-1] for path in logs if read_log(path).ended]
    if args.server_log:
        Path(args.server_log).write_text(log)
    # Textual prints an app's traceback framed by Rich: "╭── Traceback (most recent call last)".
    lines = log.splitlines()
    errors = [line for line in lines
              if " ERROR " in line or "Traceback (most recent call last)" in line]
    # What each traceback says in the end: the line after Rich's box ("NoMatches: …").
    error_kinds = Counter(
        line for before, line in pairwise(lines)
        if before.startswith("╰") and line and line[0] not in "│╭╰ "
    )
    result = {
        "minutes": args.minutes,
        "sessions": args.sessions,
        "churn": f"{args.churn:.0%} every {args.every:g} s",
        "attack": f"{args.attack} from {args.attackers} sessions of 127.0.0.1"
        if args.attack else None,
        "connections": stats.connects,
        "connect_failures": len(stats.connect_failures),
        "drops": stats.drops,
        "drops_by_reset": stats.resets,
        "drops_at_a_table": stats.drops_at_table,
        "seats_reclaimed": stats.seats_reclaimed,
        "reclaim_seconds_median": round(statistics.median(stats.reclaim_seconds or [0]), 2),
        "reclaim_seconds_max": round(max(stats.reclaim_seconds or [0]), 2),
        "seats_given_to_the_stand_in": seats_given_away(logs),
        "tables_lost": stats.tables_lost,
        "keys_sent": stats.keys_sent,
        "typists": args.typists,
        "words_typed": len(stats.typed),
        "word_to_screen_ms": percentiles(stats.typed),
        "words_never_shown": stats.typing_failures,
        "sessions_crashed": stats.crashes,
        "unexpected_closes": stats.unexpected_closes,
        "server_error_count": len(errors),
        "server_error_kinds": dict(error_kinds.most_common(10)),
        "server_errors": [line for line in errors if "Traceback" not in line][:10],
        "table_logs": len(logs),
        "games_finished": sum(1 for record in ends if record == [END, "finished"]),
        "tables_closed": sum(1 for record in ends if record == [END, "closed"]),
        "tables_unfinished": len(logs) - len(ends),
        "server_cpu_percent_median": round(statistics.median(cpu or [0]), 1),
        "server_cpu_percent_max": round(max(cpu or [0]), 1),
        "rss_mib_start": round(samples[0][1] / 2**20, 1),
        "rss_mib_max": round(max(rss for _at, rss in samples) / 2**20, 1),
        "rss_mib_last10_first_minute": round(first / 2**20, 1),
        "rss_mib_last10_last_minute": round(last / 2**20, 1),
        "rss_growth_last10_percent": round((last - first) / first * 100, 2),
        "newcomer_got_in": newcomer_ok,
        "sigterm_exit_code": exit_code,
        "load_average": load_average(),
        "connect_failure_examples": stats.connect_failures[:5],
    }
    result["ok"] = bool(
        not stats.connect_failures and not stats.tables_lost and not stats.crashes
        and not stats.unexpected_closes and not errors and newcomer_ok and exit_code == 0
        and result["tables_closed"] == 0 and result["rss_growth_last10_percent"] < 5.0
        and not result["seats_given_to_the_stand_in"]
    )
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--churn", type=float, default=0.1, help="share dropped each time")
    parser.add_argument("--every", type=float, default=5.0, help="seconds between drops")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--verbose", action="store_true", help="a line every 10 s")
    parser.add_argument("--server-log", metavar="PATH", help="keep the server's log there")
    parser.add_argument("--attack", choices=[*sorted(ATTACKS), MIXED],
                        help="attackers alongside the players (tests/hostile/input_attacks.py;"
                        f" {MIXED}: every attack, one per session in turn)")
    parser.add_argument("--typists", type=int, default=5,
                        help="players typing in the lobby's chat, timed (default 5)")
    parser.add_argument("--attackers", type=int, default=8,
                        help="attacking sessions, all from one address (default 8)")
    args = parser.parse_args()
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    with tempfile.TemporaryDirectory(prefix="pioche-soak-") as tmp:
        result = asyncio.run(soak(args, Path(tmp)))
    result["started"] = started
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
