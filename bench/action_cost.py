"""What each thing a player does costs the server, by the server's own meter (the CPU budget's,
``server/budget.py``). Never part of the test run; results go to docs/performance.md.

    uv run python bench/action_cost.py [--repeat 3]

The real app behind the real SSH server, in this process (the meter is read from the
connection), its CPU budget lifted; one guest client with a 100 × 30 terminal, in this process
too (its own work is not on the meter). Each action is sent, and what the meter charges in the
next ``WINDOW`` seconds, less what it charged in as long just before (a blinking cursor keeps
charging a little), is the action's cost, its frames included. First it times the meter
itself: loop callbacks run bare, then in a meter's context.
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import json
import sys
import tempfile
import time
from pathlib import Path

import asyncssh

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pioche_tui.app.service import EmbeddedService  # noqa: E402
from pioche_tui.coordinator.core import Coordinator  # noqa: E402
from server import budget  # noqa: E402
from server.budget import METER, Bucket, Meter  # noqa: E402
from server.driver import configure_textual  # noqa: E402
from server.limits import Limits  # noqa: E402
from server.ssh import PiocheServer  # noqa: E402
from tests.hostile.conftest import coordinator_settings  # noqa: E402
from tests.server.conftest import Client  # noqa: E402
from tests.server.process import LikeOpenSSH  # noqa: E402

SIZE = (100, 30)
UNLIMITED = Limits(cpu_rate=1e3, cpu_burst=1e3, address_cpu_rate=1e3, address_cpu_burst=1e3)
# (label, what to send: keys, or a window size)
ACTIONS: list[tuple[str, str | tuple[int, int]]] = [
    ("a key that moves nothing (↓ in the lobby)", "\x1b[B"),
    ("focus out and in (ESC [ O, ESC [ I)", "\x1b[O\x1b[I"),
    ("help opened (?)", "?"),
    ("help closed (Esc)", "\x1b"),
    ("scores opened (s)", "s"),
    ("scores closed (Esc)", "\x1b"),
    ("chat line focused (c)", "c"),
    ("a letter typed in the chat", "x"),
    ("chat line left (Esc)", "\x1b"),
    ("resize to 400 × 200", (400, 200)),
    ("resize to 399 × 200", (399, 200)),
    ("help opened at 400 × 200", "?"),
    ("help closed at 400 × 200", "\x1b"),
    ("resize back to 100 × 30", SIZE),
]


WINDOW = 1.5  # seconds: a costly screen at 400 × 200 is well under it


async def charged(meter: Meter) -> float:
    """What the meter charges in the next WINDOW seconds."""
    start = meter.spent
    await asyncio.sleep(WINDOW)
    return meter.spent - start


async def callback_cost(context: contextvars.Context, count: int = 200_000) -> float:
    """Microseconds of CPU per loop callback, each scheduling the next, run in ``context``."""
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    left = count

    def step() -> None:
        nonlocal left
        left -= 1
        if left:
            loop.call_soon(step, context=context)
        else:
            done.set_result(None)

    started = time.process_time()
    loop.call_soon(step, context=context)
    await done
    return (time.process_time() - started) / count * 1e6


async def hook_overhead() -> dict[str, float]:
    bare = await callback_cost(contextvars.Context())
    budget.install()
    metered = contextvars.Context()
    metered.run(METER.set, Meter(Bucket(1.0, 1.0), Bucket(1.0, 1.0)))
    return {"bare_us": round(bare, 2), "hooked_us": round(await callback_cost(
        contextvars.Context()), 2), "metered_us": round(await callback_cost(metered), 2)}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--term", default="xterm-256color",
                        help="the client's TERM (its colours: docs/server.md, --colors)")
    parser.add_argument("--colorterm", default=None,
                        help="the client's COLORTERM (truecolor for true colour)")
    args = parser.parse_args()
    overhead = await hook_overhead()
    print(f"a loop callback: {overhead['bare_us']} µs bare, {overhead['hooked_us']} µs with the "
          f"hook and no meter, {overhead['metered_us']} µs metered")
    configure_textual()
    with tempfile.TemporaryDirectory(prefix="pioche-actions-") as tmp:
        coordinator = Coordinator(coordinator_settings(Path(tmp)))
        await coordinator.start()
        service = EmbeddedService(coordinator)
        server = PiocheServer(service.make_app, asyncssh.generate_private_key("ssh-ed25519"),
                              name_owner=service.name_owner, limits=UNLIMITED)
        await server.start("127.0.0.1", 0)
        conn = await asyncssh.connect(
            "127.0.0.1", server.port, username="alice", known_hosts=None, client_keys=None,
            agent_path=None, config=None, client_factory=LikeOpenSSH)
        env = {"COLORTERM": args.colorterm} if args.colorterm else {}
        _chan, client = await conn.create_session(
            Client, term_type=args.term, term_size=SIZE, env=env, encoding=None)
        client.screen.resize(*SIZE)
        await client.wait_for("Bonjour alice")
        (session,) = server._sessions.values()
        assert session._terminal is not None
        meter = session._terminal.meter
        await asyncio.sleep(WINDOW)  # the first frame's last writes
        costs: dict[str, list[float]] = {"connection and app start-up": [meter.spent]}

        def send(action: str | tuple[int, int]) -> None:
            if isinstance(action, str):
                client.send(action)
            else:
                assert client.chan is not None
                client.chan.change_terminal_size(*action)
                client.screen.resize(*action)

        for _round in range(args.repeat):
            for label, action in ACTIONS:
                before = await charged(meter)
                send(action)
                costs.setdefault(label, []).append(await charged(meter) - before)
        conn.close()
        await server.close()
        await service.close()
    for label, values in costs.items():
        print(f"{label:45} " + "  ".join(f"{1000 * v:7.1f}" for v in values) + "  ms")
    print(json.dumps({label: [round(1000 * v, 1) for v in values]
                      for label, values in costs.items()}))


if __name__ == "__main__":
    asyncio.run(main())
