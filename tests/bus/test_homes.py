"""Several coordinators on one bus, what a session sees of them (issue 18, last wave): two
coordinators and a front in this process, over one nats-server with JetStream
(``tests/contract/conftest.py``'s ``several``: the front's sessions are homed on B, A, B, …).

- A guest's pass drawn by one coordinator holds on the other: both sign with the bus's one
  guests' secret (``pioche_keys``, which a front may not read: tests/bus/test_cross.py).
- An admin on one coordinator closes a table the other serves.
- A deposed owner's sessions move to the table's new owner, as on a failover.
- A front started before the coordinators learns there are several (their leases).
- Table ids are unique across coordinators that draw the same ids.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pioche_tui.coordinator.mailbox import Mail
from pioche_tui.coordinator.model import Place, Player, Refused
from pioche_tui.coordinator.remote import Remote, RemoteClient
from tests.bus.world import until
from tests.contract.conftest import news_until, several, update_until

pytestmark = pytest.mark.asyncio(loop_scope="function")


async def playing_at_b(remote: Remote, b: str, name: str) -> tuple[RemoteClient, str, int]:
    """``name`` connected (their session homed on B, whose boot id is ``b``) at a toy table of
    B's, their first move made: the client, the table, the step of that move."""
    client = remote.client()
    await client.connect(Player(f"SHA256:{name}", name))
    table = await client.quick_play("toy", seats=2)
    assert client._link.home == b
    update = await update_until(client, lambda u: u.view is not None and 0 in u.to_act)
    await client.act(1, update.step)
    return client, table, update.step


async def test_a_guests_pass_from_one_coordinator_holds_on_the_other(tmp_path: Path) -> None:
    async with several(tmp_path / "data") as (hosts, remote):
        a, b = hosts
        assert a.coordinator.guests.secret == b.coordinator.guests.secret
        gus_pass = await a._free.guest_pass()  # (drawn by A)
        gus = remote.client()
        await gus.connect(Player(gus_pass.identity, "Gus", guest=True), gus_pass)
        assert gus._link.home == b.boot
        table = await gus.quick_play("toy", seats=2)  # (B's)
        update = await update_until(gus, lambda u: u.view is not None and 0 in u.to_act)
        await gus.act(1, update.step)
        await gus.close()
        # B proves the token A drew, and gives the seat back
        proved, name = await remote.call("resume", {"token": gus_pass.token,
                                                    "address": "192.0.2.9"}, None, b.boot)
        assert proved == gus_pass and name == "Gus"
        back = remote.client()
        place = await back.connect(Player(proved.identity, name, guest=True), proved)
        assert place == Place(table, 0, "playing")


async def test_an_admin_closes_a_table_another_coordinator_serves(tmp_path: Path) -> None:
    async with several(tmp_path / "data") as (hosts, remote):
        a, b = hosts
        alice = remote.client()
        await alice.connect(Player("SHA256:alice", "alice"))
        assert alice._link.home == b.boot
        table = await alice.create_table("toy", seats=2, bots={1: "basic"})
        await until(lambda: a.cross is not None and table in a.cross.tables, "A sees it")
        done = a.coordinator.console.act("admin", "close", table.lower())
        assert table in done
        last = await news_until(alice, lambda m: any(n.code == "table_closed"
                                                     for n in m.notices))
        assert last.left_table and alice.open
        await until(lambda: table not in b.coordinator.tables, "closed on B")
        with pytest.raises(Refused) as refused:  # (a table nobody serves: as on one)
            a.coordinator.console.act("admin", "close", "ZZZZ")
        assert refused.value.code == "no_table"


async def test_a_deposed_owners_sessions_move_to_the_new_owner(tmp_path: Path) -> None:
    """A claims B's table while B lives (as after B was paused past its lease): B learns it
    and hands the table over, and alice's session moves to A, where her seat is: her client
    reads no farewell, no stop, no lobby, only her table again (« Vous retrouvez votre
    place. », as after a failover)."""
    import time

    from pioche_tui.bus import owners as kv

    async with several(tmp_path / "data") as (hosts, remote):
        a, b = hosts
        alice, table, _step = await playing_at_b(remote, b.boot, "alice")
        assert a.owners is not None and b.owners is not None
        await until(lambda: table in b.owners.revisions, "B's owner key")
        owned = await kv.owner_of(a.owners.buckets, table)
        assert owned is not None
        won = await kv.claim(a.owners.buckets, table, a.boot, owned[1])
        assert won is not None
        await a.owners._bring_back(table, won, time.time())
        seen = [await news_until(alice, lambda m: True)]
        while not any(n.code == "reclaimed" for n in seen[-1].notices):
            seen.append(await news_until(alice, lambda m: True))
        assert alice._link.home == a.boot
        assert table not in b.coordinator.tables
        assert not any(m.closed or m.left_table for m in seen), seen
        assert [n.code for m in seen for n in m.notices] == ["reclaimed"]  # (as on a failover)
        assert alice.open and alice.table_id == table
        update = seen[-1].table
        assert update is not None and update.seat == 0, seen[-1]
        if 0 not in update.to_act:
            update = await update_until(alice, lambda u: 0 in u.to_act)
        await alice.act(1, update.step)  # (served by A)


async def test_a_session_in_the_lobby_whose_seat_the_dead_home_still_shows_moves(
        tmp_path: Path) -> None:
    """Kim's session, homed on B, is in the lobby; the lobby's bucket still shows her seated at
    a table of B's (a seat she had just left when B died, before B wrote it: the 50-kill chaos
    bench, seed 13). B dies. A, asked to take her session, refuses it ``elsewhere``: B's. Her
    session waits for that table's claim, then moves to A; it ended « Le serveur redémarre »
    before (« cannot move »)."""
    from pioche_tui import wire
    from pioche_tui.bus import owners as kv
    from pioche_tui.coordinator.model import SeatInfo, TableSummary

    async with several(tmp_path / "data") as (hosts, remote):
        a, b = hosts
        kim = remote.client()
        await kim.connect(Player("SHA256:kim", "kim"))
        assert kim._link.home == b.boot and kim.table_id is None
        assert a.owners is not None and a.board is not None and a.cross is not None
        await kv.create(a.owners.buckets, "STAL", b.boot)  # (B's table, as B wrote it)
        await a.board.kv.put("STAL", wire.encode(TableSummary(
            "STAL", "toy", "Toy", (), (SeatInfo("player", "kim", identity="SHA256:kim"),
                                       SeatInfo("bot", "Ana", bot="random")),
            "playing", 0, False, None, "kim")))
        await until(lambda: a.cross is not None
                    and a.cross.seat_elsewhere("SHA256:kim") is not None, "A sees the seat")
        await b.nc.close()  # (B dies: no lease, no heartbeat, nobody on its subjects)
        await until(lambda: kim._link.home == a.boot and kim._link.settled.is_set(),
                    "Kim's session moved to A")
        assert kim.open
        while kim.pending:
            mail = await kim.mail()
            assert not mail.closed, mail.notices


async def test_a_session_whose_table_is_gone_at_its_new_home_is_sent_to_the_lobby(
        tmp_path: Path) -> None:
    """Kim plays at B's table; B dies; A claims the table but cannot bring it back (here its
    log is gone; in the 50-kill chaos bench, seed 13, its last move had landed in the log as B
    died, the game ended at the claim and the table closed before Kim's session came). Her
    session moves to A and is told it left the table, instead of showing it for good."""
    from pioche_tui.store import jslog

    async with several(tmp_path / "data") as (hosts, remote):
        a, b = hosts
        kim, table, step = await playing_at_b(remote, b.boot, "kim")
        await update_until(kim, lambda u: u.step > step and 0 in u.to_act)
        await jslog.remove(b.nc.jetstream(timeout=5.0), table)
        await b.nc.close()  # (B dies)
        async def until_left() -> Mail:  # (B's silence, its lease's expiry, A's claim)
            while not ((mail := await kim.mail()).left_table or mail.closed):
                pass
            return mail

        mail = await asyncio.wait_for(until_left(), 20)
        assert mail.left_table and not mail.closed
        assert kim.open and kim.table_id is None and kim._link.home == a.boot


async def test_a_front_started_before_the_coordinators_learns_there_are_several(
        tmp_path: Path) -> None:
    """The front starts first (the owners' buckets not there yet); the coordinators' leases
    tell it there are several: its sessions have homes, hearing a second coordinator ends
    none of them, and a join of a table owned elsewhere moves the session."""
    import asyncio

    from pioche_tui import bus

    async with several(tmp_path / "data", front_first=True) as (hosts, remote):
        alice = remote.client()
        await alice.connect(Player("SHA256:alice", "alice"))
        assert remote.owners is not None and alice._link.home in {h.boot for h in hosts}
        table = await alice.create_table("toy", seats=3, bots={2: "basic"})
        await asyncio.sleep(bus.HEARTBEAT * 1.5)  # (both coordinators heard)
        assert alice.open
        for _ in range(20):  # (until the queue group homes bob on the other coordinator)
            bob = remote.client()
            await bob.connect(Player("SHA256:bob", "bob"))
            if bob._link.home != alice._link.home:
                break
            await bob.close()
        else:
            raise AssertionError("the queue group never chose the other coordinator")
        await bob.join(table)
        assert bob._link.home == alice._link.home
        update = await update_until(bob, lambda u: u.table.id == table and u.seat is not None)
        assert update.seat == 1 and alice.open and bob.open


async def test_table_ids_are_unique_across_coordinators(tmp_path: Path) -> None:
    """Both coordinators draw ids from one seed (the same ids, in the same order): each table
    made on each still gets an id of its own, reserved in the owners' bucket before any table
    has it, and no table is stopped for a taken id."""
    import asyncio

    from pioche_tui.bus import owners as kv

    async with several(tmp_path / "data", seeds=(11, 11)) as (hosts, remote):
        a, b = hosts
        made: list[str] = []
        clients = []
        for name in ("alice", "bob", "carol", "dave"):  # (homed on B, A, B, A)
            client = remote.client()
            await client.connect(Player(f"SHA256:{name}", name))
            made.append(await client.create_table("toy", seats=3, bots={1: "basic"}))
            clients.append(client)
        assert len(set(made)) == 4
        await asyncio.sleep(1.5)  # (each coordinator's beat: a taken id would stop a table)
        for client, table in zip(clients, made, strict=True):
            assert client.table_id == table and client.open
            owner = await kv.owner_of(a.owners.buckets, table)  # type: ignore[union-attr]
            assert owner is not None and owner[0] == client._link.home
        assert {*a.coordinator.tables, *b.coordinator.tables} == set(made)
