"""Faults with the real app behind the real server: clients dropped in the middle of their turn
(a TCP reset, a clean close, a client that stops reading), and an exception inside one app.

Each time the seat is kept (the player had moved: tests/hostile/test_churn.py has those who had
not), the stand-in plays it while anyone is there to see it, and the player who comes back with
the same key is shown the same table with their own hand, nobody else's."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncssh
import pytest

from pioche_tui.store.log import read_log
from server.limits import Limits
from server.ssh import MSG_CRASH, PiocheServer
from tests.hostile.conftest import RecordingService, reset
from tests.hostile.defausse import app_of, makes_a_move, own_hand_shown, table_of, until
from tests.server.conftest import Client, Connect

# Small output buffer and a short patience, so a client that stops reading is cut off quickly.
LIMITS = Limits(write_buffer=16 * 1024, stall_timeout=1.0)


async def seated_at_a_quick_game(connect: Connect, service: RecordingService, name: str,
                                 key: asyncssh.SSHKey, **options: Any) -> Client:
    client = await connect(name, client_keys=[key], term_size=(100, 30), **options)
    await client.wait_for(f"Bonjour {name}")
    client.send("p")
    await client.wait_for("Défausse · table")
    return client


async def back_at_the_table(connect: Connect, service: RecordingService, name: str,
                            key: asyncssh.SSHKey, table_id: str, seat: int) -> Client:
    """Reconnect with the same key: the same table, the same seat, and on the screen exactly
    this seat's hand."""
    again = await connect(name, client_keys=[key], term_size=(100, 30))
    await again.wait_for(f"Défausse · table {table_id}")
    table, seat_now = table_of(service, name)
    assert (table.id, seat_now) == (table_id, seat)
    await own_hand_shown(again, service, name)
    return again


@pytest.mark.parametrize("limits", [LIMITS])
# A turn timer: when the one who must act stops reading, the table goes on without them (the
# stand-in plays when the timer runs out), so output piles up for that client.
@pytest.mark.parametrize("settings", [{"turn_timer": 0.5}], indirect=True)
@pytest.mark.parametrize("how", ["reset", "close", "stops_reading"])
async def test_a_player_dropped_mid_turn_keeps_the_seat(
    connect: Connect, server: PiocheServer, service: RecordingService,
    client_key: asyncssh.SSHKey, how: str,
) -> None:
    # (a small SSH window, so that a client that stops reading soon stops the server's output)
    alice = await seated_at_a_quick_game(connect, service, "alice", client_key, window=4096)
    table, seat = table_of(service, "alice")
    await makes_a_move(alice, service, "alice")
    await until(lambda: seat in table.game.to_act(table.state))  # her turn
    step = table.step
    if how == "reset":
        reset(alice)
    elif how == "close":
        assert alice.conn is not None
        alice.conn.close()
    else:
        # Stops reading while the table goes on: the server queues at most its buffer, then
        # drops frames, then cuts the client off.
        assert alice.chan is not None
        alice.chan.pause_reading()
        session = next(iter(server._sessions.values()))
        chan = session._chan
        assert chan is not None
        queued = 0
        while not alice.closed.is_set():
            queued = max(queued, chan.get_write_buffer_size())
            await asyncio.sleep(0.01)
        # What was queued stays within the buffer plus the one frame that filled it.
        assert queued <= LIMITS.write_buffer + 64 * 1024
    await until(lambda: not server.sessions)
    # The seat is kept for its player.
    assert table.seats[seat].kind == "player" and table.seats[seat].away
    assert table.status == "playing"
    if how == "stops_reading":  # connected, reading nothing: her timer ran out, the stand-in
        await until(lambda: any(  # played for her
            record[1] == seat for record in read_log(table.writer.path).records[step:]  # type: ignore[union-attr]
        ) or table.status != "playing")
    # Nobody is left at the table: it holds still until she is back.
    held = table.step
    await asyncio.sleep(0.3)  # (the bots answer within 0.05 s)
    assert table.idle and table.step == held
    await back_at_the_table(connect, service, "alice", client_key, table.id, seat)
    assert not table.seats[seat].away


@pytest.mark.parametrize("settings", [{"turn_timer": 0.5}], indirect=True)
async def test_an_exception_in_one_app_ends_that_session_only(
    connect: Connect, server: PiocheServer, service: RecordingService,
    client_key: asyncssh.SSHKey,
) -> None:
    bob_key = asyncssh.generate_private_key("ssh-ed25519")
    alice = await seated_at_a_quick_game(connect, service, "alice", client_key)
    bob = await seated_at_a_quick_game(connect, service, "bob", bob_key)
    alice_table, alice_seat = table_of(service, "alice")
    bob_table, _bob_seat = table_of(service, "bob")
    await makes_a_move(alice, service, "alice")

    def fail() -> None:
        raise RuntimeError("a bug in one session's app")

    app_of(service, "alice").call_later(fail)
    assert await alice.finished() == 1
    assert MSG_CRASH in alice.output
    # Bob's session, his table and the coordinator go on.
    step = bob_table.step
    await until(lambda: bob_table.step > step + 3 or bob_table.status != "playing")
    bob.send("?")
    await until(lambda: type(app_of(service, "bob").screen).__name__ == "HelpScreen")
    assert len(server.sessions) == 1
    # Alice's seat waits for her (her table holds still: nobody else is there); she gets it back.
    assert alice_table.seats[alice_seat].away and alice_table.idle
    await back_at_the_table(connect, service, "alice", client_key, alice_table.id, alice_seat)
