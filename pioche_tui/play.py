"""``pioche play``: Pioche in this terminal, against bots, with no server.

It runs a coordinator of its own (tables and results under ``--data``) and the same app an SSH
player gets, under the login name; with ``--game`` it starts a quick game at once, otherwise it
opens the lobby.
"""

from __future__ import annotations

import argparse
import getpass
import os
from pathlib import Path

from .engine import GAMES


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "play",
        help="play in this terminal against bots",
        description="Play in this terminal against bots (no server needed).",
    )
    p.add_argument("--game", "-g", choices=sorted(GAMES) or None,
                   help="start a quick game of this game at once (default: open the lobby)")
    p.add_argument("--name", "-n", default=None, help="your nickname (default: your login)")
    p.add_argument("--data", type=Path, default=Path("data"),
                   help="where tables and results are kept (default ./data)")
    p.add_argument("--bot-delay", type=float, default=0.7, metavar="SECONDS",
                   help="how long bots think, at most (default 0.7)")
    p.add_argument("--lang", choices=("fr", "en"), default=None,
                   help="language (default: from LANG, French unless it starts with en)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import asyncio

    from .app.app import PiocheApp
    from .app.service import open_service
    from .i18n import lang_from_env

    name = args.name or getpass.getuser()
    delay = max(0.0, args.bot_delay)

    async def main() -> str | None:
        service = await open_service(args.data, bot_delay=(delay / 2, delay))
        app = PiocheApp(service.coordinator, identity=f"local:{getpass.getuser()}", name=name,
                        lang=args.lang or lang_from_env(os.environ), quick_game=args.game)
        try:
            await app.run_async()
        finally:
            await service.close()
        return app.farewell

    farewell = asyncio.run(main())
    if farewell:
        print(farewell)
    return 0
