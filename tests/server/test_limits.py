"""Limits: connection caps, login timeout, input rate and paste size, start-ups, terminal size,
slow clients."""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from dataclasses import replace
from typing import Any

import asyncssh
import pytest
from asyncssh.constants import MSG_GLOBAL_REQUEST
from asyncssh.packet import Boolean, String

from server.budget import BUDGET, METER, AddressBuckets, Bucket, Meter, meter_reading
from server.driver import PARSE_SLICE, SSHDriver
from server.keys import fingerprint
from server.limits import Limits
from server.session import SessionInfo
from server.ssh import (
    MAX_ENV_REQUESTS,
    MSG_ADDRESS_FULL,
    MSG_BUSY,
    MSG_FULL,
    PiocheServer,
)
from tests.server.conftest import WAIT, Client, Connect, LikeOpenSSH, all_sessions_gone
from tests.server.demo_app import DemoApp, DemoService
from tests.server.process import bare_session


@pytest.mark.parametrize("limits", [Limits(max_per_address=2)])
async def test_connections_per_address_are_capped(connect: Connect) -> None:
    first = await connect("alice")
    await connect("bob")
    with pytest.raises(asyncssh.DisconnectError) as refused:
        await connect("carol")
    assert refused.value.reason.startswith(MSG_ADDRESS_FULL.format(limit=2))
    assert first.conn is not None
    first.conn.close()
    await first.conn.wait_closed()
    for _attempt in range(50):  # a place is free again once the server has seen it close
        try:
            carol = await connect("carol")
            break
        except asyncssh.DisconnectError:
            await asyncio.sleep(0.05)
    await carol.wait_for("pseudo : carol")


async def told(server: PiocheServer, username: str, **options: Any) -> str:
    """Log in as ``username`` (options as ``asyncssh.connect``'s); the reason the server gives
    when it closes the connection, or "" if it closes without one."""
    reasons: list[str] = []

    class Told(LikeOpenSSH):
        def connection_lost(self, exc: Exception | None) -> None:
            reasons.append(exc.reason if isinstance(exc, asyncssh.DisconnectError) else "")

    try:
        async with asyncssh.connect(
            "127.0.0.1", server.port, username=username, known_hosts=None,
            client_keys=options.pop("client_keys", None), agent_path=None, config=None,
            client_factory=Told, **options,
        ) as conn:
            await asyncio.wait_for(conn.wait_closed(), WAIT)
    except asyncssh.DisconnectError as refused:  # (during login)
        return refused.reason
    return reasons[0]


@pytest.mark.parametrize("limits", [Limits(max_sessions=1)])
async def test_players_in_all_are_capped_but_a_returning_player_gets_in(
    connect: Connect, server: PiocheServer, service: DemoService
) -> None:
    await connect("alice")
    assert (await told(server, "bob")).startswith(MSG_FULL.format(limit=1))
    returning = asyncssh.generate_private_key("ssh-ed25519")
    service.seated.add(fingerprint(returning))  # a seat at a table
    carol = await connect("carol", client_keys=[returning])
    await carol.wait_for("pseudo : carol")


@pytest.mark.parametrize("limits", [Limits(login_timeout=0.5)])
async def test_a_client_that_never_logs_in_is_dropped(server: PiocheServer) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    try:
        assert (await reader.readline()).startswith(b"SSH-2.0-Pioche")
        writer.write(b"SSH-2.0-Silent\r\n")  # then nothing: no key exchange, no login
        await asyncio.wait_for(reader.read(), WAIT)  # returns at EOF: the server hung up
    finally:
        writer.close()


@pytest.mark.parametrize("limits", [Limits(login_timeout=0.5)])
@pytest.mark.parametrize("channel", [False, True], ids=["no_session", "session_never_started"])
async def test_a_connection_without_an_app_does_not_keep_its_slot(
    server: PiocheServer, caplog: pytest.LogCaptureFixture, channel: bool
) -> None:
    async with asyncssh.connect(
        "127.0.0.1", server.port, username="alice", known_hosts=None, client_keys=None,
        agent_path=None, config=None, client_factory=LikeOpenSSH,
    ) as conn:  # logged in, and then no session, or a session channel with nothing asked on it
        with caplog.at_level(logging.INFO, logger="pioche.server"):
            if channel:
                await bare_session(conn)
            await asyncio.wait_for(conn.wait_closed(), WAIT)  # the server closes it
    assert "no session for 0 s, disconnected" in caplog.text


@pytest.mark.parametrize("limits", [Limits(max_pending=3, max_per_address=3)])
async def test_pending_connections_make_room_from_the_busiest_address(
    server: PiocheServer, caplog: pytest.LogCaptureFixture
) -> None:
    writers: list[asyncio.StreamWriter] = []  # (a writer let go closes its connection)

    async def silent(address: str) -> asyncio.StreamReader:
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", server.port, local_addr=(address, 0)
        )
        writers.append(writer)
        await reader.readline()  # the server's version: it has seen the connection
        return reader

    busy = [await silent("127.0.0.2") for _ in range(3)]
    with caplog.at_level(logging.INFO, logger="pioche.server"):
        other = await silent("127.0.0.3")  # makes room: the oldest from .2 is closed
        await asyncio.wait_for(busy[0].read(), WAIT)  # (returns at EOF: closed)
        # .2 has 2 pending, as many as the busiest: its newcomer is refused, told why
        assert (await told(server, "bob", local_addr=("127.0.0.2", 0))).startswith(MSG_BUSY)
        # a third address makes room again, from .2 (2 pending) rather than .3 (1)
        third = await silent("127.0.0.4")
        await asyncio.wait_for(busy[1].read(), WAIT)
    assert "127.0.0.2: pending connection closed to make room for 127.0.0.3" in caplog.text
    for reader in (busy[2], other, third):  # still open: nothing was sent to them
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(reader.read(), 0.1)
    for writer in writers:
        writer.close()


@pytest.mark.parametrize("limits", [Limits(login_timeout=0.5)])
async def test_a_connection_whose_session_ended_does_not_keep_its_slot(
    connect: Connect, caplog: pytest.LogCaptureFixture
) -> None:
    client = await connect("alice", command="ls")  # refused: the session ends at once
    assert await client.finished() == 1
    assert client.conn is not None
    with caplog.at_level(logging.INFO, logger="pioche.server"):
        await asyncio.wait_for(client.conn.wait_closed(), WAIT)  # the server closes it
    assert "no session for 0 s, disconnected" in caplog.text


async def test_environment_requests_beyond_the_cap_are_refused(
    connect: Connect, server: PiocheServer
) -> None:
    flood = {"LANG": "en_GB.UTF-8"} | {f"X{i}": "x" * 1000 for i in range(5000)}
    client = await connect("alice", env=flood)
    await client.wait_for("lang : en_GB.UTF-8")  # the first ones are taken, the app runs
    session = next(iter(server._sessions.values()))
    assert session._chan is not None
    assert len(session._chan.get_environment()) == MAX_ENV_REQUESTS


# The CPU budget of one session, small, and none for the address (every test client comes from
# 127.0.0.1); and no budget at all.
SMALL_BUDGET = Limits(cpu_rate=0.02, cpu_burst=0.05, address_cpu_rate=1e3, address_cpu_burst=1e3)
# (the same rate, and a burst that pays for a session's start, which its meter is charged for
# since round two's item 15: else a bystander's first key waits for the debt of its own start)
START_BUDGET = replace(SMALL_BUDGET, cpu_burst=0.5)
NO_BUDGET = Limits(cpu_rate=1e3, cpu_burst=1e3, address_cpu_rate=1e3, address_cpu_burst=1e3)
SLACK = 0.1  # CPU seconds: what one parse slice and one batch of events may cost past the budget


def meter_of(server: PiocheServer, name: str) -> Meter:
    """The input meter of the session whose SSH username was ``name``."""
    for session in server._sessions.values():
        if session.info is not None and session.info.nickname == name:
            assert session._terminal is not None
            return session._terminal.meter
    raise AssertionError(f"no session for {name}")


@pytest.mark.parametrize("limits", [START_BUDGET])
@pytest.mark.parametrize("bracketed", [True, False], ids=["pasted", "typed"])
async def test_a_huge_paste_is_throttled_and_hurts_nobody_else(
    connect: Connect, server: PiocheServer, bracketed: bool
) -> None:
    alice = await connect("alice")
    bob = await connect("bob")
    await bob.wait_for("connectes : alice, bob")
    assert alice.chan is not None
    meter = meter_of(server, "alice")
    loop = asyncio.get_running_loop()
    started, spent = loop.time(), meter.spent
    size = 1024 * 1024
    alice.send(b"\x1b[200~" + b"a" * size + b"\x1b[201~" if bracketed else b"a" * size)
    bob.send("k")
    await bob.wait_for("touche : k")
    await asyncio.sleep(0.5)  # unthrottled, a million keys would have been taken by now
    elapsed = loop.time() - started
    # The server spent at most alice's budget (burst, then rate) on her.
    limits = server.limits
    assert meter.spent - spent <= limits.cpu_burst + limits.cpu_rate * elapsed + SLACK
    if bracketed:  # cut after max_paste characters, the rest dropped at little cost
        screen = await alice.wait_for("caracteres")
        pasted = int(screen.split("colle : ")[1].split()[0])
        assert server.limits.max_paste <= pasted <= server.limits.max_paste + PARSE_SLICE
    else:  # a million keys: most of them still wait in alice's client
        assert alice.chan.get_write_buffer_size() > size // 2


@pytest.mark.parametrize("limits", [SMALL_BUDGET])
async def test_keys_beyond_the_budget_wait_their_turn(
    connect: Connect, server: PiocheServer
) -> None:
    alice = await connect("alice")
    await alice.wait_for("pseudo : alice")
    assert alice.conn is not None and alice.chan is not None
    meter = meter_of(server, "alice")
    loop = asyncio.get_running_loop()
    started, spent = loop.time(), meter.spent
    for _key in range(2000):  # one key per SSH packet, as fast as the client can
        alice.send("a")
    await alice.wait_for("touches : 1")
    await asyncio.sleep(1.0)
    shown = int(alice.screen.text().split("touches : ")[1].split()[0])
    elapsed = loop.time() - started
    limits = server.limits
    assert meter.spent - spent <= limits.cpu_burst + limits.cpu_rate * elapsed + SLACK
    assert shown < 2000  # the rest waits its turn (2,000 bytes fit in the SSH window)


@pytest.mark.parametrize("limits", [Limits(max_startups=1)])
async def test_keys_typed_before_the_app_has_started_are_given_once_it_has(
    connect: Connect,
) -> None:
    """Before, what came before the app was in application mode was dropped: a player who
    typed ahead of the first frame, while her app waited its turn to be built on a busy
    server, lost it (the soak's players, whose « p » for a quick game was lost under attack)."""
    players = await asyncio.gather(*(connect(name) for name in ("alice", "bob", "carol")))
    for player in players:
        player.send("ab")  # at once: two of them wait for a turn to build their app
    for player in players:
        await player.wait_for("touches : 2")


async def frames_going(alice: Client) -> None:
    """The demo app paints its whole screen 50 times a second from now on, by its own timer
    (as a busy lobby repaints on others' news)."""
    alice.send("f")
    await alice.wait_for("trame")
    await asyncio.sleep(1.0)  # (the key's batch settled long ago)


async def spending(meter: Meter, seconds: float) -> tuple[float, float]:
    """What the meter's app spent over ``seconds``: charged as its own, and counted only."""
    owned, others = meter.owned, meter.others
    await asyncio.sleep(seconds)
    return (meter.owned - owned) / seconds, (meter.others - others) / seconds


async def test_what_the_app_does_between_the_session_s_keys_is_counted_not_charged(
    connect: Connect, server: PiocheServer
) -> None:
    """Before, the app's task ran in the context of the client's packets that started it (the
    shell request): everything it did was charged to the session as its client's doing."""
    alice = await connect("alice")
    await alice.wait_for("pseudo : alice")
    meter = meter_of(server, "alice")
    await frames_going(alice)
    charged = meter.buckets[0].spent
    owned, others = await spending(meter, 1.0)
    assert others > 0.02  # the frames cost something, counted
    assert owned == 0 and meter.buckets[0].spent == charged  # and nothing taken


async def test_an_app_over_its_budget_paints_nothing_until_it_is_back_under(
    connect: Connect, server: PiocheServer
) -> None:
    """What others' doing makes an app paint is not charged (above); so that a connection
    over its budget (eight attacking sessions in a busy lobby, each repainting it twice a
    second) costs no more than its budget for long, its app paints nothing while it is over:
    once back under, it paints what changed meanwhile, once. Before, it painted on."""
    alice = await connect("alice")
    await alice.wait_for("pseudo : alice")
    meter = meter_of(server, "alice")
    await frames_going(alice)
    _owned, painting = await spending(meter, 1.0)
    assert painting > 0.02  # (the frames cost something: else this test says nothing)
    for _key in range(2000):  # one key per SSH packet: far over its budget, for long
        alice.send("a")
    await alice.wait_for("touches : 1")
    while meter.wait() == 0:  # (its burst spent first)
        await asyncio.sleep(0.1)
    _owned, over = await spending(meter, 2.0)
    # (a sixth on a quiet machine, a third under a loaded CI's; painting on, it was two thirds)
    assert over < painting / 2.5, (
        f"{painting * 1000:.0f} ms a second on frames, {over * 1000:.0f} while over budget")
    shown = int(alice.screen.text().split("touches : ")[1].split()[0])
    assert shown < 2000  # (it was over its budget all along)


async def test_a_key_is_not_charged_for_what_the_app_spends_anyway_meanwhile(
    connect: Connect, server: PiocheServer
) -> None:
    """A key is charged for its handling, not for the frames the app paints meanwhile on
    others' doing: that app is never quiet, so each key's batch lasts its longest (0.25 s),
    and before, its charge was the key's cost plus a quarter of a second of frames."""
    alice = await connect("alice")
    await alice.wait_for("pseudo : alice")
    meter = meter_of(server, "alice")

    async def charged_per_key(first: int) -> float:
        owned = meter.owned
        for key in range(first, first + 10):
            alice.send("a")
            await alice.wait_for(f"touches : {key}")
            await asyncio.sleep(0.3)  # (the key's batch settled)
        return (meter.owned - owned) / 10

    await asyncio.sleep(0.5)
    alone = await charged_per_key(1)
    await frames_going(alice)
    await asyncio.sleep(2.0)  # (no key: what the app spends is measured as its background)
    _owned, background = await spending(meter, 1.0)
    assert background > 0.02  # (the frames cost something: else this test says nothing)
    with_frames = await charged_per_key(12)
    # Before: about alone + 0.25 * background (a quarter of a second of frames per key).
    assert with_frames < alone + 0.25 * background / 2, (
        f"a key costs {alone * 1000:.1f} ms alone, is charged {with_frames * 1000:.1f} ms "
        f"while the app spends {background * 1000:.0f} ms a second on its frames")


@pytest.mark.parametrize("limits", [Limits(max_paste=1000, cpu_rate=1e3, cpu_burst=1e3)])
async def test_a_paste_is_truncated(connect: Connect) -> None:
    alice = await connect("alice")
    await alice.wait_for("pseudo : alice")
    alice.send("\x1b[200~" + "x" * 200_000 + "\x1b[201~")
    screen = await alice.wait_for("caracteres")
    pasted = int(screen.split("colle : ")[1].split()[0])
    assert 1000 <= pasted <= 1000 + PARSE_SLICE
    alice.send("\x1b[200~court\x1b[201~")  # the next paste is whole again
    await alice.wait_for("colle : 5 caracteres")
    alice.send("k")
    await alice.wait_for("touche : k")


@pytest.mark.parametrize("limits", [Limits(max_startups=1)])
async def test_start_ups_take_turns_and_all_get_in(connect: Connect) -> None:
    clients = await asyncio.gather(*(connect(name) for name in ("ann", "ben", "cat", "dan")))
    for client in clients:
        await client.wait_for("connectes : ann, ben, cat, dan")


@pytest.mark.parametrize(
    ("size", "shown"),
    [((0, 0), "80x24"), ((2**32 - 1, 2**32 - 1), "400x200"), ((0, 50), "80x50"), ((1, 1), None)],
)
async def test_terminal_sizes_are_clamped(
    connect: Connect, size: tuple[int, int], shown: str | None
) -> None:
    client = await connect("alice", term_size=size)
    if shown is not None:
        await client.wait_for(f"taille : {shown}")
    else:
        await asyncio.sleep(0.3)  # a 1x1 app has nothing readable to show, but must survive
    for odd in ((0, 0), (2**32 - 1, 0), (1, 2**32 - 1), (1, 1)):
        client.resize(*odd)
        await asyncio.sleep(0.1)
    client.resize(100, 30)
    await client.wait_for("taille : 100x30")


async def test_a_thousand_resizes_a_second_reach_the_app_a_few_times(
    connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    posted: list[tuple[int, int]] = []
    post_size = SSHDriver.post_size

    def counting(self: SSHDriver, size: tuple[int, int]) -> None:
        posted.append(size)
        post_size(self, size)

    monkeypatch.setattr(SSHDriver, "post_size", counting)
    alice = await connect("alice")
    bob = await connect("bob")
    await alice.wait_for("taille : 80x24")
    loop = asyncio.get_running_loop()
    started = loop.time()
    for index in range(1000):
        alice.resize(60 + index % 100, 20 + index % 30)
        if index % 50 == 49:
            await asyncio.sleep(0.05)  # 1,000 window changes in about a second
    alice.resize(123, 45)
    await alice.wait_for("taille : 123x45")
    elapsed = loop.time() - started  # (resizes may still reach the app while it is waited for)
    # One resize per resize_interval (0.2 s) reaches the app, plus the first two (alice's and
    # bob's start) and the last.
    assert len(posted) <= elapsed / 0.2 + 4
    bob.send("k")  # the other session did not wait for alice's resizes
    await bob.wait_for("touche : k")


async def flooding_client_that_stops_reading(connect: Connect) -> Client:
    """A client with a small SSH window whose app floods it, and which then stops reading."""
    client = await connect("alice", window=4096)
    await client.wait_for("pseudo : alice")
    client.send("f")
    await client.wait_for("trame")
    assert client.chan is not None
    client.chan.pause_reading()
    return client


@pytest.mark.parametrize("limits", [Limits(write_buffer=4096, stall_timeout=0.5)])
async def test_a_client_that_stops_reading_is_disconnected(
    connect: Connect, server: PiocheServer, service: DemoService
) -> None:
    alice = await flooding_client_that_stops_reading(connect)
    await asyncio.wait_for(alice.closed.wait(), WAIT)
    await all_sessions_gone(server, service)


@pytest.mark.parametrize("limits", [Limits(write_buffer=4096, stall_timeout=30)])
async def test_a_slow_client_gets_the_newest_frame(connect: Connect) -> None:
    alice = await flooding_client_that_stops_reading(connect)
    await asyncio.sleep(1.0)  # the server's buffer fills: it drops frames from now on
    alice.send("k")  # the frame showing it is dropped too...
    await asyncio.sleep(0.5)
    assert alice.chan is not None
    alice.chan.resume_reading()
    await alice.wait_for("touche : k")  # ...and the full repaint after the pause shows it


@pytest.mark.parametrize("limits", [Limits(address_cpu_rate=0.001, address_cpu_burst=1.0)])
async def test_an_address_keeps_what_it_spent_when_it_comes_back(
    connect: Connect, server: PiocheServer, service: DemoService
) -> None:
    alice = await connect("alice")
    await alice.wait_for("pseudo : alice")
    address = meter_of(server, "alice").buckets[1]
    assert not address.full  # her connection and her app's start-up were charged to it
    assert alice.conn is not None
    alice.conn.close()
    await all_sessions_gone(server, service)
    bob = await connect("bob")  # from the same address: the same bucket, not a full one
    await bob.wait_for("pseudo : bob")
    assert meter_of(server, "bob").buckets[1] is address


def test_an_address_bucket_is_forgotten_once_unused_and_full() -> None:
    buckets = AddressBuckets(rate=1e6, burst=1.0)
    bucket = buckets.take("192.0.2.1")
    bucket.spend(0.5)
    buckets.give_back("192.0.2.1")
    assert buckets.take("192.0.2.2") is not bucket and len(buckets) == 1  # refilled: forgotten


def test_an_address_gets_the_average_free_address_s_share_while_others_are_busy() -> None:
    """The rule of ``AddressBuckets.share_out``, look by look (each a second's spending)."""
    buckets = AddressBuckets(rate=0.15, burst=1.5, busy_rate=0.02, calm_load=0.05)
    heavy = buckets.take("192.0.2.1")

    def looks(*spending: tuple[list[Bucket], float]) -> None:
        for _look in range(20):
            for spenders, seconds in spending:
                for bucket in spenders:
                    bucket.spend(seconds)
            buckets.share_out(1.0, 0.0)

    looks(([heavy], 0.15))
    assert heavy.rate == 0.15  # alone: its full budget
    honest = [buckets.take(f"192.0.2.{n}") for n in range(10, 20)]
    looks(([heavy], 0.15), (honest, 0.01))
    assert heavy.rate == 0.02  # the floor: the average honest address spends 0.01
    assert all(bucket.rate == 0.02 for bucket in honest)  # (more than they spend)
    households = [buckets.take(f"192.0.2.{n}") for n in range(20, 30)]
    looks(([heavy], 0.15), (honest, 0.01), (households, 0.05))
    assert heavy.rate == pytest.approx(0.03, abs=0.002)  # the average free address: 0.03
    looks(([heavy], 0.15))
    assert heavy.rate == 0.15  # the others gone quiet: its full budget again
    second = buckets.take("192.0.2.2")
    looks(([heavy, second], 0.15))
    # Two heavy addresses, each held back: neither is a measure of what an address wants, and
    # nobody else waits: each keeps its full budget.
    assert heavy.rate == second.rate == 0.15
    player = buckets.take("192.0.2.3")
    looks(([heavy], 0.15), ([player], 0.06))
    # One honest player spending more than the floor while an attacker is held back: she is
    # not cut for it (the attacker is no measure), the attacker is cut to what she spends.
    assert player.rate == 0.15
    assert heavy.rate == pytest.approx(0.06, abs=0.005)


def test_the_busy_server_is_logged_only_for_an_address_its_share_held_back(
        caplog: pytest.LogCaptureFixture) -> None:
    """An address that spends more than its share from what it had saved (a player's
    reconnection: a new app's start) is held back by nothing: no « the server is busy » line
    for it (at the 0.03 floor, the soak wrote one a second for honest players). An attacker in
    debt at its share gets its one line."""
    buckets = AddressBuckets(rate=0.15, burst=1.5, busy_rate=0.03, calm_load=0.05)
    others = [buckets.take(f"192.0.2.{n}") for n in range(10, 20)]
    player, attacker = buckets.take("192.0.2.1"), buckets.take("192.0.2.2")
    with caplog.at_level(logging.INFO, logger="pioche.server"):
        for look in range(30):
            for bucket in others:
                bucket.spend(0.01)
            player.spend(0.5 if look == 10 else 0.005)  # (one start, from what it had saved)
            attacker.spend(0.2)
            buckets.share_out(1.0, float(look))
    busy = [r.getMessage() for r in caplog.records if "the server is busy" in r.getMessage()]
    assert len(busy) == 1 and busy[0].startswith("address 192.0.2.2:"), busy
    assert player.level > 0  # (it was never in debt)


# (No CPU budget here: answering her 6,000 requests costs more than hers, and her key would
# wait for it; this test is about the queue.)
@pytest.mark.parametrize("limits", [replace(NO_BUDGET, write_buffer=4096, stall_timeout=30)])
async def test_a_client_that_does_not_read_cannot_make_the_server_queue_replies(
    connect: Connect, server: PiocheServer
) -> None:
    alice = await connect("alice")
    await alice.wait_for("pseudo : alice")
    assert alice.conn is not None
    (connection,) = server._open
    assert connection._conn is not None and connection._conn._transport is not None
    transport = connection._conn._transport
    # (a small kernel buffer on the server's side, so that its own queue fills soon)
    transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    alice.conn._transport.pause_reading()
    most = 0
    loop = asyncio.get_running_loop()
    for _burst in range(60):  # requests that each get a reply, 6,000 in all
        for _request in range(100):
            alice.conn.send_packet(MSG_GLOBAL_REQUEST, String(b"x@pioche"), Boolean(True))
            alice.conn._global_request_waiters.append(loop.create_future())  # (as asyncssh does)
        await asyncio.sleep(0.01)
        most = max(most, connection.queued())
    assert not transport.is_reading()  # it stopped reading her...
    assert most <= 4096 + 64 * 1024  # ...once her replies passed its buffer (+ one read's)
    alice.conn._transport.resume_reading()  # she reads again: so does the server
    alice.send("k")
    await alice.wait_for("touche : k")


async def test_a_reading_that_ends_gives_back_what_it_held_and_lets_go() -> None:
    """A connection whose read put it in debt, then ended: the budget check it had scheduled
    is cancelled, the next read's cost it held from the address's bucket (which outlives the
    connection) is given back, and its protocol is its own again (nothing holds it)."""
    reads = 0

    class Costly(asyncio.Protocol):
        def data_received(self, data: bytes) -> None:
            nonlocal reads
            reads += 1
            end = time.thread_time() + 0.02
            while time.thread_time() < end:  # 20 ms of CPU
                pass

    ours, theirs = socket.socketpair()
    loop = asyncio.get_running_loop()
    transport, protocol = await loop.connect_accepted_socket(Costly, ours)
    address = Bucket(rate=1.0, burst=0.01)
    meter = Meter(Bucket(rate=1.0, burst=1.0), address)
    reading = meter_reading(protocol, transport, meter)
    try:
        theirs.send(b"x")
        for _ in range(200):  # the read (in debt: held), then the debt paid and reading resumed
            if reads and BUDGET not in reading._holds and reading._reserved:
                break
            await asyncio.sleep(0.01)
        held = reading._reserved
        assert held > 0
        level = address.level
        reading.close()
        assert address.level >= level + held * 0.99  # given back (and refilled meanwhile)
        assert reading._budget_timer is None and "data_received" not in vars(protocol)
    finally:
        transport.close()
        theirs.close()


class MeteredService(DemoService):
    """Notes which meter, if any, the work the server asks of it was charged to."""

    def __init__(self) -> None:
        super().__init__()
        self.meters: dict[str, Meter | None] = {}

    def make_app(self, session: SessionInfo) -> DemoApp:
        self.meters["make_app"] = METER.get()
        return super().make_app(session)

    def name_owner(self, nickname: str) -> str | None:
        self.meters["name_owner"] = METER.get()
        return super().name_owner(nickname)


@pytest.mark.parametrize("service", [MeteredService()])
async def test_what_a_connection_asks_of_the_server_is_charged_to_it(
    connect: Connect, server: PiocheServer, service: MeteredService
) -> None:
    """What asyncssh runs for a connection's packets (its login, its session's start, building
    its app: some 100 ms of CPU) is charged to that connection, not to nobody."""
    alice = await connect("alice")
    await alice.wait_for("alice")
    meter = meter_of(server, "alice")
    assert service.meters == {"make_app": meter, "name_owner": meter}
