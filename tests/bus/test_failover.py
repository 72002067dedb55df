"""Several coordinators on one bus (issue 18, coordinator/owners.py): two ``pioche coordinator
--several`` processes over one JetStream nats-server and one PostgreSQL database; a front in
this process (``Remote`` with the owners' buckets) plays for a player.

- the owner of a table is SIGKILLed mid-play: the other claims the table, brings it back from
  its log, and the player's session moves there (no farewell); every move the player saw
  acknowledged is in the log;
- a session homed on one coordinator joins a table the other owns: refused ``elsewhere`` there,
  moved, seated, unseen by the client.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import nats.errors
import pytest
import pytest_asyncio
from nats.aio.client import Client

from pioche_tui import bus, wire
from pioche_tui.bus import LEASES_BUCKET
from pioche_tui.bus import owners as kv
from pioche_tui.bus.natsd import NatsServer
from pioche_tui.bus.owners import OwnerBuckets, owner_of
from pioche_tui.coordinator.core import Coordinator as Core
from pioche_tui.coordinator.core import Session, Settings
from pioche_tui.coordinator.model import Player, Refused
from pioche_tui.coordinator.owners import RESERVED, TableOwners
from pioche_tui.coordinator.remote import Remote
from pioche_tui.coordinator.table import Table
from pioche_tui.store import jslog
from tests.bus.several import Seat, a_remote, alive_count, coordinator, logged, until
from tests.store.postgres import PostgresServer

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(loop_scope="module")
async def front(jetstream_server: NatsServer) -> AsyncIterator[tuple[Client, list[Remote]]]:
    """A connection with the front's role, and the Remotes made on it (stopped at the end)."""
    nc = await bus.connect(jetstream_server.url, "test-front", bus.FRONT)
    remotes: list[Remote] = []
    try:
        yield nc, remotes
    finally:
        for remote in remotes:
            await remote.stop()
        await nc.close()


async def test_a_killed_coordinators_table_is_served_by_the_other_and_no_move_is_lost(
        tmp_path: Path, jetstream_server: NatsServer, postgres: PostgresServer,
        front: tuple[Client, list[Remote]]) -> None:
    nc, remotes = front
    db = postgres.new_database()
    async with coordinator(tmp_path, "a", jetstream_server.url, db) as first:
        remote = await a_remote(nc, remotes, "f1")
        alice = Seat(remote.client())
        await alice.client.connect(Player("SHA256:alice", "alice"))
        table = await alice.client.create_table("defausse", seats=2, bots={1: "random"})
        assert await alice.play(3)
        dora = remote.client()  # (at a table waiting for players: in the database, no log)
        await dora.connect(Player("SHA256:dora", "dora"))
        waiting = await dora.create_table("defausse", seats=3, bots={1: "random"})
        owners = remote.owners
        assert owners is not None
        owner = await owner_of(owners, table)
        assert owner is not None
        assert (await owner_of(owners, waiting) or ("",))[0] == owner[0]
        async with coordinator(tmp_path, "b", jetstream_server.url, db) as second:
            await until(lambda: alive_count(remote, 2))
            assert await alice.play(2)
            first.kill()  # (SIGKILL, mid-play: bots move meanwhile)
            assert await alice.play(3)  # (served again: the session moved, never closed)
            now = await owner_of(owners, table)
            assert now is not None and now[0] != owner[0]
            assert alice.client.open
            await until(lambda: waiting_back(owners, waiting, owner[0]))
            while dora.pending:  # (its session moved too: the table again, seat and all)
                mail = await dora.mail()
                assert not mail.closed
            assert dora.open and dora.table_id == waiting
            # a clean stop hands the table over too: the session moves, told nothing
            async with coordinator(tmp_path, "c", jetstream_server.url, db):
                await until(lambda: alive_count(remote, 2))
                await second.stop()
                assert await alice.play(3)
                last = await owner_of(owners, table)
                assert last is not None and last[0] not in (owner[0], now[0])
                assert alice.client.open
                mine = (await logged(nc.jetstream(), table)).by_seat.get(0, 0)
    assert mine >= alice.acked, (mine, alice.acked)


async def test_a_player_who_connects_as_their_tables_coordinator_dies_gets_their_seat(
        tmp_path: Path, jetstream_server: NatsServer, postgres: PostgresServer,
        front: tuple[Client, list[Remote]]) -> None:
    """Ada holds a seat at A's table, her connection dropped; A is SIGKILLed and she connects
    at once, while the front still takes A for alive (its heartbeats are under 3 s old): her
    connect waits for B to claim the table and seats her there, instead of being refused « Le
    serveur ne répond pas » (the 50-kill chaos bench, seed 7: an SSH player's connect at a
    coordinator's kill, their table standing still 20.8 s until they connected again). (A name
    of her own: the earlier tests' players may hold seats in the module's buckets.)"""
    nc, remotes = front
    db = postgres.new_database()
    async with coordinator(tmp_path, "a", jetstream_server.url, db) as first:
        remote = await a_remote(nc, remotes, "f1")
        alice = Seat(remote.client())
        who = Player("SHA256:ada", "ada")
        await alice.client.connect(who)
        table = await alice.client.create_table("defausse", seats=2, bots={1: "random"})
        assert await alice.play(2)
        async with coordinator(tmp_path, "b", jetstream_server.url, db):
            await until(lambda: alive_count(remote, 2))
            await alice.client.close()  # (dropped: her seat is held)
            first.kill()
            again = remote.client()
            place = await again.connect(who)
            assert (place.table, place.seat) == (table, 0)
            assert remote.owners is not None
            assert (await owner_of(remote.owners, table) or ("",))[0] != first.boot


async def test_a_join_of_a_table_whose_coordinator_just_died_waits_for_its_claim(
        tmp_path: Path, jetstream_server: NatsServer, postgres: PostgresServer,
        front: tuple[Client, list[Remote]]) -> None:
    """Dora's table at A waits for a player; A is SIGKILLed; Ada, just connected (at B),
    joins it at once: B refuses the join ``elsewhere`` (A's), and the front, finding A gone,
    waits for B to claim the table and seats her there. (The join was refused « Le serveur ne
    répond pas », Ada's session left homed on the dead A: the 50-kill chaos bench, seed 7, an
    SSH player joining a table made 0.1 s before its coordinator's kill, its table standing
    still 20.9 s.)"""
    nc, remotes = front
    db = postgres.new_database()
    async with coordinator(tmp_path, "a", jetstream_server.url, db) as first:
        remote = await a_remote(nc, remotes, "f1")
        dora = remote.client()
        await dora.connect(Player("SHA256:dora2", "dora2"))
        table = await dora.create_table("defausse", seats=3, bots={2: "random"})
        async with coordinator(tmp_path, "b", jetstream_server.url, db):
            await until(lambda: alive_count(remote, 2))
            first.kill()
            await gone_from_the_bus(nc, bus.home_subject(first.boot, remote.name))
            ada = remote.client()
            await ada.connect(Player("SHA256:ada2", "ada2"))  # (at B: A is gone)
            await ada.join(table)
            assert ada.open and ada.table_id == table
            assert remote.owners is not None
            assert (await owner_of(remote.owners, table) or ("",))[0] != first.boot


async def gone_from_the_bus(nc: Client, subject: str) -> None:
    """Until nats-server has dropped a killed process's subscriptions (``subject``: one of
    them): a request made the moment after the kill may still be routed to it, and wait for
    its whole time-out (CI, a loaded machine: Ada's connect through the coordinators' queue
    group went to the dead A)."""
    deadline = time.monotonic() + 10
    while True:
        try:
            await nc.request(subject, b"", timeout=0.5)
        except nats.errors.NoRespondersError:
            return
        except nats.errors.TimeoutError:
            pass
        assert time.monotonic() < deadline, f"{subject} still served"
        await asyncio.sleep(0.05)


async def waiting_back(owners: Any, table: str, dead: str) -> bool:
    owner = await owner_of(owners, table)
    return owner is not None and owner[0] != dead


async def test_a_session_joining_a_table_owned_elsewhere_moves_there(
        tmp_path: Path, jetstream_server: NatsServer, postgres: PostgresServer,
        front: tuple[Client, list[Remote]]) -> None:
    nc, remotes = front
    db = postgres.new_database()
    async with coordinator(tmp_path, "a", jetstream_server.url, db), \
            coordinator(tmp_path, "b", jetstream_server.url, db):
        remote = await a_remote(nc, remotes, "f2")
        await until(lambda: alive_count(remote, 2))
        bob = remote.client()
        await bob.connect(Player("SHA256:bob", "bob"))
        table = await bob.create_table("defausse", seats=3, bots={2: "random"})
        # carol connects until her home is not the table's owner
        assert remote.owners is not None
        owner = await owner_of(remote.owners, table)
        assert owner is not None
        for _ in range(40):
            carol = remote.client()
            await carol.connect(Player("SHA256:carol", "carol"))
            if carol._link.home != owner[0]:
                break
            await carol.close()
        else:
            raise AssertionError("the queue group never chose the other coordinator")
        await carol.join(table)
        assert carol._link.home == owner[0]
        while True:
            mail = await asyncio.wait_for(carol.mail(), 10)
            assert not mail.closed
            if mail.table is not None and mail.table.table.id == table:
                break
        assert mail.table.seat is not None


async def test_a_claim_is_a_compare_and_set_with_one_winner(jetstream_server: NatsServer
                                                            ) -> None:
    """Two coordinators claim the same dead owner's table: one wins; a new table's key is
    made once; a deposed owner's release leaves its successor's key."""

    nc = await bus.connect(jetstream_server.url, "test-claims", bus.COORDINATOR)
    try:
        buckets = await kv.open_owner_buckets(nc)
        first = await kv.create(buckets, "CAS1", "dead")
        assert first is not None
        assert await kv.create(buckets, "CAS1", "other") is None
        won = await asyncio.gather(kv.claim(buckets, "CAS1", "b", first),
                                   kv.claim(buckets, "CAS1", "c", first))
        assert sorted(w is None for w in won) == [False, True]
        winner = "b" if won[0] is not None else "c"
        found = await kv.owner_of(buckets, "CAS1")
        assert found is not None and found[0] == winner
        await kv.release(buckets, "CAS1", first)  # (the dead owner's revision: refused)
        assert await kv.owner_of(buckets, "CAS1") == found
        await kv.release(buckets, "CAS1", found[1])
        assert await kv.owner_of(buckets, "CAS1") is None
    finally:
        await nc.close()


@contextlib.asynccontextmanager
async def one_owning(jetstream_server: NatsServer, tmp_path: Path, cid: str, name: str,
                     seed: int
                     ) -> AsyncIterator[tuple[Client, Core, OwnerBuckets, TableOwners, Session,
                                              str]]:
    """A coordinator of several in this process (its core and its ``TableOwners`` under the id
    ``cid``, not running: the test beats), and the player ``name``'s table, just made there
    (``seed``: the coordinator's, one per test: the tests share the bus, and its buckets)."""
    nc = await bus.connect(jetstream_server.url, f"test-{cid}", bus.COORDINATOR)
    core = Core(Settings(tmp_path / "data", bot_delay=(0.0, 0.0), turn_timer=None,
                         logs="jetstream", seed=seed))
    try:
        await core.start(nc, restore=False)
        buckets = await kv.open_owner_buckets(nc)
        owners = TableOwners(core, buckets, cid)
        await owners.start()
        session = core.connect(Player(f"SHA256:{name}", name))
        table = session.create_table("defausse", seats=3, bots={1: "random"})
        yield nc, core, buckets, owners, session, table
    finally:
        core.stop()
        await nc.close()


async def test_a_table_claimed_by_another_coordinator_stops_here(
        jetstream_server: NatsServer, tmp_path: Path) -> None:
    """A deposed owner (paused while its lease expired, and another claimed its table) learns
    it from the owners' bucket at its next turn: it stops serving the table (a table waiting
    for players has no append to be refused)."""
    async with one_owning(jetstream_server, tmp_path, "deposed", "erin", 7) as (
            _nc, core, buckets, owners, session, table):
        await owners.beat()
        found = await kv.owner_of(buckets, table)
        assert found == ("deposed", owners.revisions[table])
        await buckets.leases.put("thief", wire.encode(wire.Lease(time.time(), "elsewhere")))
        assert await kv.claim(buckets, table, "thief", found[1]) is not None
        await owners.beat()
        assert table not in core.tables and table not in owners.revisions
        assert session.table is None
        # (its sessions told the table moved: their fronts move them to its new owner)
        assert any(n.code == "moved" for n in session.mailbox.take().notices)  # type: ignore[union-attr]
        stolen = await kv.owner_of(buckets, table)
        assert stolen is not None and stolen[0] == "thief"  # (its key left as it is)


async def test_a_table_made_here_is_not_taken_for_another_coordinators_by_a_second_create(
        jetstream_server: NatsServer, tmp_path: Path) -> None:
    """The request's ``created`` and the beat's, both under way for a table just made (the
    chaos test, seed 1: the beat found the table before the request's create was answered):
    the second create finds the key, which names this coordinator; the table stays served
    here. (It was stopped as « its id is taken »: its player left at a table nobody served.)"""
    async with one_owning(jetstream_server, tmp_path, "maker", "fanny", 8) as (
            _nc, core, buckets, owners, session, table):
        await asyncio.gather(owners.created(table), owners.created(table))
        assert table in core.tables and session.table is not None
        found = await kv.owner_of(buckets, table)
        assert found == ("maker", owners.revisions[table])


async def test_a_coordinator_that_could_not_put_its_lease_keeps_its_tables_until_claimed(
        jetstream_server: NatsServer, tmp_path: Path) -> None:
    """The leases' bucket out of reach for longer than a lease lives (a NATS node's death:
    the bucket's stream electing a leader, 4–9 s; here the bucket removed): the coordinator
    goes on serving its tables, and stops one only once another claimed it. (It stopped them
    all, and its lease coming back, nobody ever claimed them: the chaos test, seed 1, every
    table of that coordinator standing still for good.) Nor does it claim, at its first beat
    with the bucket back, the tables of a coordinator whose lease expired meanwhile: that one
    puts it again within a beat."""
    async with one_owning(jetstream_server, tmp_path, "cut-off", "gaston", 9) as (
            nc, core, buckets, owners, session, table):
        await owners.beat()
        # another coordinator, alive all along, and its table
        await buckets.leases.put("other", wire.encode(wire.Lease(time.time(), "elsewhere")))
        assert await kv.create(buckets, "OTHR", "other") is not None
        await nc.jetstream().delete_stream(f"KV_{LEASES_BUCKET}")
        owners._renewed -= 10  # (as if the bucket had been out of reach for 10 s)
        await owners.beat()
        assert table in core.tables and session.table is not None
        await kv.open_owner_buckets(nc)  # (the bucket back, empty: every lease expired)
        await owners.beat()  # (the first beat since: the other has not put its lease yet)
        assert table in core.tables
        assert (await kv.owner_of(buckets, "OTHR") or ("",))[0] == "other"
        await buckets.leases.put("other", wire.encode(wire.Lease(time.time(), "elsewhere")))
        await owners.beat()
        assert (await kv.owner_of(buckets, "OTHR") or ("",))[0] == "other"
        found = await kv.owner_of(buckets, table)
        assert found is not None and found[0] == "cut-off"
        await buckets.leases.put("thief", wire.encode(wire.Lease(time.time(), "elsewhere")))
        assert await kv.claim(buckets, table, "thief", found[1]) is not None
        await owners.beat()
        assert table not in core.tables and session.table is None


async def test_a_lease_gone_is_not_claimed_while_its_coordinator_is_heard(
        jetstream_server: NatsServer, tmp_path: Path) -> None:
    """A coordinator whose lease is missing (the leases' bucket lost it or could not take it
    for a while: a NATS node's death, docs/server.md « Several coordinators ») but whose
    heartbeats are heard keeps its tables; once silent for ``bus.SILENCE`` they are claimed,
    unless this coordinator hears nothing itself (its own heartbeats not coming back). (The
    cluster test, tests/cluster/test_leases.py: two coordinators claimed each other's.)"""
    async with one_owning(jetstream_server, tmp_path, "listener", "hugo", 10) as (
            _nc, _core, buckets, owners, _session, _table):
        owners.listen()
        owners.heard("listener")
        owners.heard("quiet")
        assert await kv.create(buckets, "QUIT", "quiet") is not None  # (no lease of quiet)
        await owners.beat()
        assert (await kv.owner_of(buckets, "QUIT") or ("",))[0] == "quiet"
        owners._heard["quiet"] -= bus.SILENCE + 1  # (silent since)
        owners._hearing_since -= bus.SILENCE + 1
        owners._own -= 3 * bus.HEARTBEAT  # (and this one deaf meanwhile: not a claim)
        await owners.beat()
        assert (await kv.owner_of(buckets, "QUIT") or ("",))[0] == "quiet"
        owners._own += 3 * bus.HEARTBEAT  # (hearing its own heartbeats again)
        await owners.beat()
        # claimed, and with nothing to bring back (no log, no table waiting) its key deleted
        assert await kv.owner_of(buckets, "QUIT") is None


async def test_a_coordinator_bringing_claimed_tables_back_keeps_its_own_lease(
        jetstream_server: NatsServer, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A beat that claims a dead coordinator's tables waits for their restores (0.5–6 s
    under load): meanwhile its own lease is put every beat still. (It was put only at the
    next beat: restores longer than the lease lives let it expire, and the other
    coordinator claimed every table of this one: the chaos test, seed 5, two live
    coordinators claiming each other's tables in turn, their players sent around.)"""
    async with one_owning(jetstream_server, tmp_path, "heir", "hugo", 10) as (
            _nc, core, buckets, owners, _session, table):
        await owners.beat()
        found = await kv.owner_of(buckets, table)
        assert found is not None
        assert await kv.claim(buckets, table, "dead", found[1]) is not None  # (no lease)
        restore = core.restore_table

        async def slow_restore(table_id: str, stopped_at: float) -> bool:
            await asyncio.sleep(kv.LEASE_MAX_AGE + 1.5)  # (a loaded machine's restore)
            return await restore(table_id, stopped_at)

        monkeypatch.setattr(core, "restore_table", slow_restore)
        beating = asyncio.ensure_future(owners.beat())
        missing = 0
        while not beating.done():
            missing += "heir" not in await kv.alive(buckets)
            await asyncio.sleep(0.2)
        await beating
        assert (await kv.owner_of(buckets, table) or ("",))[0] == "heir"
        assert table in core.tables
        assert missing == 0


async def in_play(core: Core, owners: TableOwners, table: str, name: str
                  ) -> tuple[Table, Session]:
    """The table with a second player, ``name``, joined: started, its owner key put."""
    other = core.connect(Player(f"SHA256:{name}", name))
    other.join(table)
    await owners.beat()
    playing = core.tables[table]

    async def started() -> bool:
        return playing.status == "playing"

    await until(started)
    return playing, other


async def play_until_refused(core: Core, playing: Table, *sessions: Session) -> None:
    """Each player makes their first legal move at their turn until the table stops here (its
    next append refused: another writer has its log)."""
    while playing.id in core.tables:
        for one in sessions:
            if one.seat is not None and one.seat in playing.game.to_act(playing.state):
                with contextlib.suppress(Refused):
                    answer = one.act(playing.game.legal_actions(playing.state, one.seat)[0],
                                     playing.step)
                    if answer is not None:
                        await answer
        await asyncio.sleep(0.05)


async def test_a_table_its_deposed_owner_wrote_to_after_the_claim_comes_back_at_its_owner(
        jetstream_server: NatsServer, tmp_path: Path) -> None:
    """A coordinator claimed a table and restored it from its log; its deposed owner, not yet
    aware, appended one more move; the owner's next append is refused (« another writer »)
    and the table stops there. Its key names this coordinator still: the next beat brings
    the table back from its log, the deposed owner's move in it, and its players get their
    seats back, told nothing but « Vous retrouvez votre place ». (The key was released: the
    table stood still, owned by nobody, until a coordinator started; the chaos test, seed 5.
    Then its sessions were told ``moved`` at once, and their fronts waited for a new owner
    that never came: they ended after 30 s; the chaos bench.)"""
    async with one_owning(jetstream_server, tmp_path, "owner", "iris", 11) as (
            nc, core, buckets, owners, session, table):
        playing, other = await in_play(core, owners, table, "jules")
        seats = {one: one.seat for one in (session, other)}
        assert None not in seats.values()
        js = nc.jetstream()
        deposed = jslog.JetStreamLog.reopen(js, await jslog.read_table(js, table))
        await deposed.append_seat(2, playing.seats[2].to_log())  # (the other writer's)
        await play_until_refused(core, playing, session, other)
        found = await kv.owner_of(buckets, table)
        assert found is not None and found[0] == "owner"
        told = [mail for one in (session, other) if (mail := one.mailbox.take()) is not None]
        assert not any(mail.left_table or any(n.code in ("moved", "stopped") for n in mail.notices)
                       for mail in told)  # (held: told nothing)
        with pytest.raises(Refused) as refused:  # (a key meanwhile: the table is paused)
            session.act(playing.game.legal_actions(playing.state, seats[session])[0])
        assert refused.value.code == "paused"
        await owners.beat()
        assert table in core.tables and table in owners.revisions
        assert await kv.owner_of(buckets, table) == found
        for one, seat in seats.items():
            assert one.table is core.tables[table] and one.seat == seat
            mail = one.mailbox.take()
            assert mail is not None and not mail.left_table and mail.table is not None
            assert [notice.code for notice in mail.notices] == ["reclaimed"]
        assert not core.held


async def test_a_table_another_coordinator_claimed_and_wrote_to_moves_its_sessions_at_the_beat(
        jetstream_server: NatsServer, tmp_path: Path) -> None:
    """The other writer is the new owner: the table's next append here is refused, its
    sessions are held, and the next beat, reading the key that names the other coordinator,
    tells them ``moved`` (their fronts move them there)."""
    async with one_owning(jetstream_server, tmp_path, "slow", "kim", 13) as (
            nc, core, buckets, owners, session, table):
        playing, lou = await in_play(core, owners, table, "lou")
        found = await kv.owner_of(buckets, table)
        assert found is not None
        await buckets.leases.put("heir3", wire.encode(wire.Lease(time.time(), "elsewhere")))
        assert await kv.claim(buckets, table, "heir3", found[1]) is not None
        js = nc.jetstream()
        heir = jslog.JetStreamLog.reopen(js, await jslog.read_table(js, table))
        await heir.append_seat(2, playing.seats[2].to_log())  # (the new owner's first write)
        await play_until_refused(core, playing, session, lou)
        assert table in core.held
        for one in (session, lou):
            mail = one.mailbox.take()
            assert mail is None or not mail.left_table
        await owners.beat()
        assert not core.held and table not in core.tables
        for one in (session, lou):
            mail = one.mailbox.take()
            assert one.table is None and mail is not None and mail.left_table
            assert [notice.code for notice in mail.notices] == ["moved"]


async def test_a_claimed_table_whose_restore_failed_is_brought_back_at_the_next_beat(
        jetstream_server: NatsServer, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A claimed table's restore fails (its log's stream electing a leader after a NATS
    node's death: the read times out): the claim stands, and the next beat tries the restore
    again. (The key was released at the next beat: the table owned by nobody, its deposed
    owner stopped, its players sent to the lobby; the chaos bench, seed 13.)"""
    async with one_owning(jetstream_server, tmp_path, "heir2", "jade", 12) as (
            _nc, core, buckets, owners, _session, table):
        await owners.beat()
        found = await kv.owner_of(buckets, table)
        assert found is not None
        assert await kv.claim(buckets, table, "dead2", found[1]) is not None  # (no lease)
        restore = core.restore_table
        failures = [TimeoutError()]

        async def failing_once(table_id: str, stopped_at: float) -> bool:
            if failures:
                raise failures.pop()
            return await restore(table_id, stopped_at)

        monkeypatch.setattr(core, "restore_table", failing_once)
        await owners.beat()  # (deposed for « dead2 », claimed back, its restore failed)
        assert not failures and table not in core.tables
        assert (await kv.owner_of(buckets, table) or ("",))[0] == "heir2"
        await owners.beat()
        assert table in core.tables
        assert (await kv.owner_of(buckets, table) or ("",))[0] == "heir2"


async def test_a_table_made_while_the_owners_bucket_does_not_answer_takes_a_reserved_id(
        tmp_path: Path, jetstream_server: NatsServer, postgres: PostgresServer,
        front: tuple[Client, list[Remote]]) -> None:
    """The owners' bucket does not answer (its stream electing a leader after a NATS node's
    death; here, gone): a table's creation takes an id reserved before, as any, instead of
    failing on the reserve's top-up; with none left, it is refused ``unavailable`` (asked
    again). (It was refused « Erreur interne du serveur »: the chaos bench, seed 13, bus
    players asking for a table at a node's kill, who then made no more tables.)"""
    nc, remotes = front
    async with coordinator(tmp_path, "a", jetstream_server.url, postgres.new_database()):
        remote = await a_remote(nc, remotes, "f9")
        kim = remote.client()
        await kim.connect(Player("SHA256:kim", "kim"))
        js = nc.jetstream(timeout=5.0)
        await js.delete_stream(f"KV_{bus.OWNERS_BUCKET}")
        try:
            for _ in range(RESERVED):  # (each takes the next id reserved before)
                table = await kim.create_table("defausse", seats=2, bots={1: "random"})
                assert kim.table_id == table
                await kim.leave()
            with pytest.raises(Refused) as refused:  # (none left: asked again later)
                await kim.create_table("defausse", seats=2, bots={1: "random"})
            assert refused.value.code == "unavailable"
        finally:
            await kv.open_owner_buckets(nc)  # (back, for the module's next tests)
