"""Table churn (issue 12, item 10) with the real app behind the real SSH server: one address
opening quick games and dropping, eight connections at a time; one key doing it alone; games
left by everyone. Past the limit a creation is refused with a message saying when the player may
create again; no table is left playing for nobody; no log file is left of a game nobody played.
"""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import asyncssh
import pytest

from pioche_tui.coordinator.core import Coordinator
from pioche_tui.coordinator.model import Player
from server.limits import Limits
from server.ssh import PiocheServer
from tests.hostile.conftest import RecordingService, coordinator_settings, reset
from tests.hostile.defausse import makes_a_move, table_of, until
from tests.server.conftest import Client, Connect
from tests.server.process import serve_process

REAL_APP = "pioche_tui.app:open_service"

TABLE = re.compile(r"Défausse · table ([A-Z2-9]{4})")
REFUSED = re.compile(r"vous pourrez en créer une autre dans (\d+) s")
SIZE = (120, 30)


def toasts(screen: str) -> str:
    """The text of the notifications on ``screen`` (each line of a toast starts with « ▌ »),
    joined into one line: a message wraps."""
    lines = (row.split("▌", 1)[1] for row in screen.splitlines() if "▌" in row)
    return " ".join(" ".join(line.rstrip(" ─╮╯│").split()) for line in lines).strip()


async def quick_game_or_refusal(client: Client, name: str) -> str:
    """Press « p » in the lobby: the table's id, or the refusal the player reads."""
    await client.wait_for(f"Bonjour {name}")
    client.send("p")
    screen = await client.wait_for(
        lambda screen: bool(TABLE.search(screen) or REFUSED.search(toasts(screen))))
    found = TABLE.search(screen)
    return found[1] if found else toasts(screen)


def nobody_plays_for_nobody(coordinator: Coordinator) -> None:
    """Every table left is one someone is at, or one held still for a player who had moved."""
    for table in coordinator.tables.values():
        assert table.subscribers or (table.idle and table.human_acted), table.id


def logs(coordinator: Coordinator) -> list[str]:
    return sorted(path.name for path in coordinator.tables_dir.iterdir())


# Sixteen app starts from one address cost about its CPU burst (reliability.md, item 15 of
# round two): past it, its connections would wait for CPU. This test is about tables.
@pytest.mark.parametrize("limits", [Limits(address_cpu_rate=10.0, address_cpu_burst=10.0)])
@pytest.mark.parametrize("settings", [{"table_rate": (3, 10)}], indirect=True)
async def test_one_address_opening_quick_games_and_dropping(
    connect: Connect, server: PiocheServer, service: RecordingService,
) -> None:
    coordinator = service.coordinator
    outcomes: list[str] = []

    async def hit_and_run(n: int) -> None:
        name = f"churn{n}"  # guests, each under a new name: one identity each
        client = await connect(name, term_size=SIZE)
        outcomes.append(await quick_game_or_refusal(client, name))
        reset(client)

    for wave in range(2):  # eight connections at a time: the most one address may hold
        await asyncio.gather(*(hit_and_run(8 * wave + n) for n in range(8)))
        await until(lambda: not server.sessions)
    created = [o for o in outcomes if len(o) == 4]
    refused = [o for o in outcomes if o not in created]
    assert len(created) == 10, outcomes
    assert len(refused) == 6 and all(re.fullmatch(
        r"Trop de tables créées en une minute depuis votre adresse \(10 au plus\) : vous "
        r"pourrez en créer une autre dans \d+ s\.", o) for o in refused), refused
    # Each game was left before its player moved: closed at once, and nothing kept of it.
    await until(lambda: not coordinator.tables)
    assert logs(coordinator) == []


@pytest.mark.parametrize("settings", [{"table_rate": (3, 10)}], indirect=True)
async def test_one_key_opening_quick_games_and_dropping(
    connect: Connect, server: PiocheServer, service: RecordingService,
) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    outcomes: list[str] = []
    for _attempt in range(4):
        client = await connect("mallory", client_keys=[key], term_size=SIZE)
        outcomes.append(await quick_game_or_refusal(client, "mallory"))
        reset(client)
        await until(lambda: not server.sessions)
        assert not service.coordinator.tables  # closed as she dropped
    assert all(len(o) == 4 for o in outcomes[:3])
    wait = REFUSED.search(outcomes[3])
    assert outcomes[3].startswith("Trop de tables créées en une minute (3 au plus) :") and wait
    assert 1 <= int(wait[1]) <= 60
    assert logs(service.coordinator) == []


async def test_a_game_left_by_everyone_holds_still_for_the_player_who_moved(
    connect: Connect, server: PiocheServer, service: RecordingService,
    client_key: asyncssh.SSHKey,
) -> None:
    """A player who moved, then dropped, with a spectator who leaves too: nobody is there, the
    table holds still (no stand-in plays for nobody) and she finds it as she left it."""
    alice = await connect("alice", client_keys=[client_key], term_size=SIZE)
    table_id = await quick_game_or_refusal(alice, "alice")
    table, seat = table_of(service, "alice")
    await makes_a_move(alice, service, "alice")
    watcher = await connect("watch", command=f"watch {table_id}", term_size=SIZE)
    await watcher.wait_for(f"Défausse · table {table_id}")
    reset(alice)
    await until(lambda: table.seats[seat].away)
    step = table.step
    await until(lambda: table.step > step + 2)  # the stand-in plays while someone watches
    reset(watcher)
    await until(lambda: not server.sessions)
    # (a server's session ends before its coordinator session has closed — a shared screen's
    # in the background — and a bot's move may land in between: from the table's last
    # subscriber's end on, nothing may move)
    await until(lambda: table.idle)
    held = table.step
    await asyncio.sleep(0.5)  # (bots answer within 0.05 s)
    assert table.step == held and table.idle
    nobody_plays_for_nobody(service.coordinator)
    again = await connect("alice", client_keys=[client_key], term_size=SIZE)
    await again.wait_for(f"Défausse · table {table_id}")
    assert table.step >= held and not table.idle


async def test_a_table_of_bots_nobody_came_back_to_stops(tmp_path: Path) -> None:
    """A real ``pioche serve`` restarted on a table of bots: nobody comes to watch it, so it
    holds still (its log does not grow by a byte), then closes when the grace period is over,
    leaving no log (nobody played in it)."""
    data = tmp_path / "data"
    c = Coordinator(coordinator_settings(data, bot_delay=(0.001, 0.002)))
    await c.start()
    tid = c.connect(Player("SHA256:ann", "Ann")).create_table(
        "defausse", seats=4, bots=dict.fromkeys(range(4), "basic"), options={"target": 1000},
        sit=False)
    await until(lambda: c.tables[tid].step >= 20)
    c.stop()  # as a crash would: the log stays unfinished, the table comes back at the start
    log = c.log_path(tid)
    size = log.stat().st_size
    with serve_process(tmp_path, "--app", REAL_APP, "--grace", "2", "--bot-delay", "0.001",
                       "--turn-timer", "0") as served:
        sizes = []
        deadline = time.monotonic() + 20
        while log.exists():
            sizes.append(log.stat().st_size)
            assert time.monotonic() < deadline, f"still there, {sizes[-1]} bytes"
            await asyncio.sleep(0.02)
        assert f"table {tid} restored at step" in served.log_text()
    assert len(sizes) > 10 and set(sizes) == {size}
