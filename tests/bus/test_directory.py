"""The lobby and the online names across processes (issue 18): JetStream key-value buckets on a
real nats-server (bus/directory.py).

- Two fronts see one lobby, built each from the buckets: a table made through one is in the
  other's lobby (and in the mail of its session in the lobby), with who is online; closed, it
  is gone from both.
- A name online through front A is refused through front B; two owners of sessions (two
  connections: two coordinators) cannot both hold one name, whatever the timing; the same
  identity takes its name over.
- A front SIGKILLed (a real process) frees its names: another player takes the name (a
  watcher's: no key owns it) through the other front within the bucket's max age. An owner
  gone without a word (its keys never deleted) loses them at the max age, and the fronts'
  lobbies see them go.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from pioche_tui import bus, wire
from pioche_tui.bus.directory import (
    ONLINE_MAX_AGE,
    Buckets,
    LobbyWatch,
    OnlineNames,
    online_key,
    open_buckets,
)
from pioche_tui.bus.natsd import NatsServer
from pioche_tui.coordinator.model import LobbySnapshot, Player, Refused, TableSummary
from pioche_tui.coordinator.remote import Remote
from pioche_tui.coordinator.text import name_key
from tests.bus.world import coordinator_on, front_on, until
from tests.contract.conftest import news_until

pytestmark = pytest.mark.asyncio(loop_scope="function")

ROOT = Path(__file__).resolve().parents[2]


@asynccontextmanager
async def jetstream_bus(tmp_path: Path) -> AsyncIterator[NatsServer]:
    server = NatsServer(jetstream=tmp_path / "bus")
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def player(name: str, key: str | None = None) -> Player:
    return Player(f"SHA256:{key or name}-key", name, address="192.0.2.1")


def names_online(remote: Remote) -> set[str]:
    return {entry.name for entry in remote.lobby.online} if remote.lobby else set()


def table_ids(lobby: LobbySnapshot | None) -> set[str]:
    return {table.id for table in lobby.tables} if lobby is not None else set()


async def test_two_fronts_see_one_lobby(tmp_path: Path) -> None:
    async with jetstream_bus(tmp_path) as server, \
            coordinator_on(server.url, tmp_path / "data", buckets=True) as host, \
            front_on(server.url, "fa", buckets=True) as front_a, \
            front_on(server.url, "fb", buckets=True) as front_b:
        alice = front_a.client()
        await alice.connect(player("alice"))
        bob = front_b.client()
        await bob.connect(player("bob"))
        await until(lambda: names_online(front_a) == names_online(front_b) == {"alice", "bob"},
                    "both fronts list alice and bob online")

        table = await alice.create_table("toy", seats=2)
        await until(lambda: table in table_ids(front_b.lobby), "the table in front B's lobby")
        # bob, in the lobby on front B, gets it in his mail: the front's own lobby
        got = await news_until(bob, lambda m: m.lobby is not None
                               and table in table_ids(m.lobby))
        assert got.lobby is front_b.lobby or table in table_ids(front_b.lobby)
        await until(lambda: any(e.name == "alice" and e.table == table
                                for e in front_b.lobby.online),  # type: ignore[union-attr]
                    "front B's list shows alice at her table")
        # one lobby: the same tables on both fronts, as the coordinator has them
        assert table_ids(front_a.lobby) == table_ids(front_b.lobby) \
            == table_ids(host.coordinator.snapshot())

        await alice.leave()  # (nobody moved: the table closes)
        await until(lambda: table not in table_ids(front_a.lobby)
                    and table not in table_ids(front_b.lobby), "the table gone from both")
        await alice.close()
        await until(lambda: names_online(front_b) == {"bob"}, "alice gone from B's list")
        assert host.names is not None and set(host.names.held) == {bob.sid}  # type: ignore[attr-defined]

        # a front that starts now reads the whole lobby at once
        again = await bob.create_table("toy", seats=2)
        await until(lambda: again in table_ids(front_a.lobby), "the new table on A")
        async with front_on(server.url, "fc", buckets=True) as front_c:
            assert again in table_ids(front_c.lobby)
            assert names_online(front_c) == {"bob"}


async def test_a_front_reads_the_buckets_again_when_the_bus_comes_back(tmp_path: Path
                                                                      ) -> None:
    """nats-server restarted (same port, JetStream's files kept): the front's watchers are
    gone with it, and what changes afterwards reaches its lobby because it reads both buckets
    again."""
    async with jetstream_bus(tmp_path) as server, \
            coordinator_on(server.url, tmp_path / "data", buckets=True) as host, \
            front_on(server.url, "fa", buckets=True) as front:
        server.kill()
        await server.start()
        await until(lambda: host.nc.is_connected and front.nc.is_connected
                    and front._rewatch is not None and front._rewatch.done(),
                    "both back on the bus, the buckets read again")
        alice = front.client()
        await alice.connect(player("alice"))
        table = await alice.create_table("toy", seats=2)
        await until(lambda: table in table_ids(front.lobby) and "alice" in names_online(front),
                    "the new table and alice in the front's lobby")


async def test_a_coordinator_starting_sweeps_the_tables_it_does_not_hold(tmp_path: Path
                                                                         ) -> None:
    """A table left in the bucket by a coordinator killed before it could delete it is gone
    once a coordinator starts (one coordinator holds every table in this wave)."""
    async with jetstream_bus(tmp_path) as server:
        nc = await bus.connect(server.url, "dead-owner")
        try:
            stale = TableSummary("ZZZZ", "toy", "Toy", (), (), "playing", 0, False, None, "x")
            await (await open_buckets(nc)).lobby.put("ZZZZ", wire.encode(stale))
            async with front_on(server.url, "fa", buckets=True) as front:
                assert table_ids(front.lobby) == {"ZZZZ"}
                async with coordinator_on(server.url, tmp_path / "data", buckets=True):
                    await until(lambda: not table_ids(front.lobby), "the stale table swept")
        finally:
            await nc.close()


async def test_a_name_online_on_front_a_is_refused_on_front_b(tmp_path: Path) -> None:
    async with jetstream_bus(tmp_path) as server, \
            coordinator_on(server.url, tmp_path / "data", buckets=True), \
            front_on(server.url, "fa", buckets=True) as front_a, \
            front_on(server.url, "fb", buckets=True) as front_b:
        alice = front_a.client()
        await alice.connect(player("alice"))
        impostor = front_b.client()
        with pytest.raises(Refused) as refused:
            await impostor.connect(player("ALICE", key="mallory"))  # (one name_key)
        assert refused.value.code == "name_taken"
        assert not impostor.open
        # alice herself, connecting again through B, takes her name (and session) over
        again = front_b.client()
        await again.connect(player("alice"))
        await until(lambda: not alice.open, "the older session replaced")
        await until(lambda: names_online(front_a) == {"alice"}, "alice listed once")


async def test_two_owners_cannot_hold_one_name(tmp_path: Path) -> None:
    """Two holders of sessions on two connections (two coordinators, or a coordinator and a
    stale one) racing for one name: exactly one gets it, every time."""
    async with jetstream_bus(tmp_path) as server:
        one = await bus.connect(server.url, "owner-1")
        two = await bus.connect(server.url, "owner-2")
        try:
            names_one = OnlineNames((await open_buckets(one)).online, ONLINE_MAX_AGE)
            names_two = OnlineNames((await open_buckets(two)).online, ONLINE_MAX_AGE)
            for n in range(20):
                key = online_key(name_key(f"joueur{n}"))
                results = await asyncio.gather(
                    names_one.claim(key, wire.Online(f"joueur{n}", "SHA256:a", False, None,
                                                     "f1", f"a{n}")),
                    names_two.claim(key, wire.Online(f"Joueur{n}", "SHA256:b", False, None,
                                                     "f2", f"b{n}")),
                    return_exceptions=True)
                refused = [r for r in results if isinstance(r, Refused)]
                assert len(refused) == 1 and refused[0].code == "name_taken", results
            assert len(names_one.held) + len(names_two.held) == 20
            # the same identity takes a name over from the other owner
            key = online_key(name_key("joueur0"))
            holder, other = (names_one, names_two) if "a0" in names_one.held \
                else (names_two, names_one)
            identity = "SHA256:a" if holder is names_one else "SHA256:b"
            await other.claim(key, wire.Online("joueur0", identity, False, None, "f", "c0"))
            assert "c0" in other.held
            await holder.sync(refresh=True)  # (its refresh finds the name taken: let go)
            assert not any(k == key for k in holder.held.values())
            # a watcher named by the coordinator (``want``, not ``claim``) under a key still
            # held by their own session of a dead owner: the same identity, taken over
            key = online_key(name_key("spectateur"))
            await names_one.claim(key, wire.Online("spectateur", "SHA256:w", True, None, "f",
                                                   "w1"))
            names_two.want({"w2": (key, wire.Online("spectateur", "SHA256:w", True, None, "g",
                                                    "w2"))})
            await names_two.sync()
            assert names_two.held.get("w2") == key
        finally:
            await one.close()
            await two.close()


async def test_an_owner_gone_without_a_word_loses_its_names_at_the_max_age(tmp_path: Path
                                                                           ) -> None:
    max_age = 2.0
    async with jetstream_bus(tmp_path) as server:
        owner_nc = await bus.connect(server.url, "owner")
        buckets = await open_buckets(owner_nc, max_age=max_age)
        watch_nc = await bus.connect(server.url, "watcher")
        built: list[LobbySnapshot] = []
        watch = LobbyWatch(Buckets((await open_buckets(watch_nc, max_age=max_age)).lobby,
                                   (await open_buckets(watch_nc, max_age=max_age)).online,
                                   max_age), built.append, interval=0.05)
        await watch.start()
        try:
            names = OnlineNames(buckets.online, max_age)
            key = online_key(name_key("alice"))
            await names.claim(key, wire.Online("alice", "SHA256:alice", False, None, "f", "s1"))
            await until(lambda: bool(built) and [e.name for e in built[-1].online] == ["alice"],
                        "the watcher lists alice")
            await owner_nc.close()  # (gone: no delete, no refresh)
            other_nc = await bus.connect(server.url, "other")
            try:
                others = OnlineNames((await open_buckets(other_nc, max_age=max_age)).online,
                                     max_age)
                entry = wire.Online("Alice", "SHA256:mallory", False, None, "g", "s2")
                with pytest.raises(Refused):
                    await others.claim(key, entry)  # (still held, for now)
                await until(lambda: not built[-1].online, "alice's key expired, seen")

                async def claimed() -> None:
                    while True:
                        try:
                            await others.claim(key, entry)
                            return
                        except Refused:
                            await asyncio.sleep(0.1)

                await asyncio.wait_for(claimed(), max_age + 3)
            finally:
                await other_nc.close()
        finally:
            await watch.stop()
            await watch_nc.close()


FRONT_SCRIPT = textwrap.dedent("""
    import asyncio, sys
    from pioche_tui import bus
    from pioche_tui.bus.directory import buckets_of
    from pioche_tui.coordinator.model import Player
    from pioche_tui.coordinator.remote import Remote

    async def main():
        nc = await bus.connect(sys.argv[1], "doomed-front")
        remote = Remote(nc, "doomed", buckets=await buckets_of(nc, create=False))
        await remote.start()
        client = remote.client()
        # (a watcher: no name is owned by their key, and its name frees for anyone)
        await client.connect(Player("SHA256:alice-key", "alice", watch_only=True,
                                    address="192.0.2.1"))
        print("connected", flush=True)
        await asyncio.sleep(60)

    asyncio.run(main())
""")


async def test_a_front_sigkilled_frees_its_names_within_the_max_age(tmp_path: Path) -> None:
    async with jetstream_bus(tmp_path) as server, \
            coordinator_on(server.url, tmp_path / "data", buckets=True) as host, \
            front_on(server.url, "fb", buckets=True) as front_b:
        process = subprocess.Popen(
            [sys.executable, "-c", FRONT_SCRIPT, server.url], stdout=subprocess.PIPE,
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            assert process.stdout is not None
            line = await asyncio.wait_for(asyncio.to_thread(process.stdout.readline), 20)
            assert line == b"connected\n"
            await until(lambda: "alice" in names_online(front_b), "alice online, seen on B")
            impostor = front_b.client()
            with pytest.raises(Refused):
                await impostor.connect(player("alice", key="mallory"))
            os.kill(process.pid, signal.SIGKILL)
            started = asyncio.get_running_loop().time()

            async def take() -> None:
                while True:
                    try:
                        await front_b.client().connect(player("alice", key="mallory"))
                        return
                    except Refused as refusal:
                        assert refusal.code == "name_taken", refusal
                        await asyncio.sleep(0.2)

            await asyncio.wait_for(take(), ONLINE_MAX_AGE + 5)
            assert asyncio.get_running_loop().time() - started <= ONLINE_MAX_AGE + 5
            await until(lambda: [e.name for e in front_b.lobby.online] == ["alice"]  # type: ignore[union-attr]
                        and host.coordinator.sessions.keys() == {"SHA256:mallory-key"},
                        "the new alice alone online")
        finally:
            process.kill()
            process.wait()

