"""What a front asks of the coordinator besides its apps' requests (coordinator/remote.py's
``Remote``): who owns a nickname, whether a returning player holds a seat (from the lobby it
caches), a table's mirror for a shared screen and the client of a session opened already."""

from __future__ import annotations

from pathlib import Path

import pytest

from pioche_tui.bus.natsd import NatsServer
from pioche_tui.coordinator.model import Player, Refused
from tests.contract.conftest import news_until, update_until

from .world import coordinator_on, front_on, seated, until


async def test_the_front_knows_who_holds_a_seat_and_who_owns_a_name(
        nats_server: NatsServer, tmp_path: Path) -> None:
    url = nats_server.url
    async with coordinator_on(url, tmp_path / "data"), front_on(url, "fronta") as front, \
            front_on(url, "frontb") as other:
        await seated(front, "Alice")
        for remote in (front, other):  # (each front's lobby, from the coordinator's)
            await until(lambda r=remote: r.holds_seat("SHA256:Alice-key"),  # type: ignore[misc]
                        "the seat in the front's lobby")
            assert not remote.holds_seat("SHA256:Bob-key")
        assert await other.name_owner("alice") == "SHA256:Alice-key"
        assert await other.name_owner("Bob") is None


async def test_a_mirror_sees_the_table_as_its_spectators_and_is_closed_with_its_client(
        nats_server: NatsServer, tmp_path: Path) -> None:
    url = nats_server.url
    async with coordinator_on(url, tmp_path / "data") as host, \
            front_on(url, "fronta") as front:
        creator = front.client()
        await creator.connect(Player("SHA256:Carl-key", "Carl"))
        table = await creator.create_table("toy", seats=2, bots={0: "basic", 1: "basic"},
                                           timer=None, sit=False, options={"goal": 1000})
        sid = await front.mirror(table)
        mirror = front.opened(sid)
        assert mirror.open and mirror.sid == sid and host.sessions[sid] == "fronta"
        update = await update_until(mirror, lambda u: u.view is not None)
        assert update.seat is None and update.table.id == table == mirror.table_id
        assert update.table.spectators == 1  # (Carl: the mirror is not counted)
        await mirror.close()
        await until(lambda: sid not in host.sessions, "the mirror closed")


async def test_a_private_table_has_no_mirror(nats_server: NatsServer, tmp_path: Path) -> None:
    url = nats_server.url
    async with coordinator_on(url, tmp_path / "data") as host, \
            front_on(url, "fronta") as front:
        creator = front.client()
        await creator.connect(Player("SHA256:Carl-key", "Carl"))
        table = await creator.create_table("toy", seats=2, timer=None, private=True)
        with pytest.raises(Refused) as refusal:
            await front.mirror(table)
        assert refusal.value.code == "code" and list(host.sessions) == [creator.sid]


def test_a_fronts_client_loads_neither_the_coordinator_nor_the_store() -> None:
    """A front holds no game state: ``remote`` imports the seam's values, not ``core`` (and
    ``text``'s pure name folding, to know a session's own name in a lobby)."""
    import subprocess
    import sys

    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, pioche_tui.coordinator.remote; print(' '.join("
         "m for m in sys.modules if m.startswith(('pioche_tui.coordinator', 'pioche_tui.store',"
         " 'sqlite3'))))"], capture_output=True, text=True, check=True, timeout=60).stdout.split()
    assert sorted(loaded) == ["pioche_tui.coordinator", "pioche_tui.coordinator.mailbox",
                              "pioche_tui.coordinator.model", "pioche_tui.coordinator.remote",
                              "pioche_tui.coordinator.text"]


async def test_a_lobby_crosses_the_bus_once_and_each_session_reads_it(
        nats_server: NatsServer, tmp_path: Path) -> None:
    """The sessions' mails name the lobby published on ``pioche.lobby`` instead of carrying
    it (40 KiB for a big one, decoded once per front, not once per session)."""
    from pioche_tui import bus, wire
    from pioche_tui.coordinator.mailbox import Mail

    url = nats_server.url
    async with coordinator_on(url, tmp_path / "data"), front_on(url, "fronta") as front:
        alice, bob = front.client(), front.client()
        await alice.connect(Player("SHA256:Alice-key", "Alice"))
        spy = await bus.connect(url, "test-spy")
        try:
            seen = await spy.subscribe(bus.session_subject(front.name, alice.sid))
            await spy.flush()
            await bob.connect(Player("SHA256:Bob-key", "Bob"))  # (the lobby changes)
            while True:
                message = await seen.next_msg(timeout=10)
                mail = wire.decode(message.data)
                if isinstance(mail, Mail) and bus.LOBBY_HEADER in (message.headers or {}):
                    break
            assert mail.lobby is None
        finally:
            await spy.close()
        got = await news_until(alice, lambda m: m.lobby is not None
                               and "Bob" in [e.name for e in m.lobby.online])
        assert got.lobby is front.lobby  # (the front's own copy)


async def test_a_requests_effects_are_in_the_mailboxes_when_it_returns_however_many_at_once(
        nats_server: NatsServer, tmp_path: Path) -> None:
    """The contract's ordering, with many requests of one front at once: the host sends the
    news before the answer, and a request's coroutine resumes after the answer's subscription
    task has run, which runs after the news' (scheduled when it came, earlier)."""
    import asyncio

    url = nats_server.url
    async with coordinator_on(url, tmp_path / "data"), front_on(url, "fronta") as front:
        clients = [front.client() for _ in range(12)]
        for i, client in enumerate(clients):
            await client.connect(Player(f"SHA256:p{i}-key", f"joueur{i}",
                                        address=f"192.0.2.{i}"))
        for round_ in range(3):  # (the chat's limit: 3 lines in 3 s)
            for client in clients:  # (read everything first)
                while client.pending:
                    await client.mail()
            await asyncio.gather(*(c.chat(f"r{round_} {i}") for i, c in enumerate(clients)))
            for client in clients:
                said = []
                while client.pending:  # (no waiting: it is all there)
                    said += [line.text for line in (await client.mail()).chat]
                assert sorted(said) == sorted(f"r{round_} {i}" for i in range(12))


async def test_a_client_that_never_connects_leaves_nothing_behind(
        nats_server: NatsServer, tmp_path: Path) -> None:
    url = nats_server.url
    async with coordinator_on(url, tmp_path / "data") as host, \
            front_on(url, "fronta") as front:
        taken = front.client()
        await taken.connect(Player("SHA256:Alice-key", "Alice"))
        for _ in range(3):  # (a login's questions, then a name refused)
            client = front.client()
            assert (await client.server_info()).grace == 60.0
            with pytest.raises(Refused):
                await client.connect(Player("SHA256:Other-key", "Alice"))
            await client.close()
            with pytest.raises(KeyError):
                front.opened(client.sid)
        assert list(front._links) == [taken.sid] and list(host.sessions) == [taken.sid]
