"""``pioche play``: Pioche in this terminal, against bots, with no server.

It runs a coordinator of its own and the same app an SSH player gets, under the login name; with
``--game`` it starts a quick game at once, otherwise it opens the lobby.

Its tables and results go to a directory of its own, per user (:func:`default_data_dir`), never
a server's ``./data``: a local game's bots and timers must not write into a live server's
tables. Like ``pioche serve``, it locks the directory it opens (``store/lock.py``): a second
process on the same directory is refused and changes nothing.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from collections.abc import Mapping
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
    p.add_argument("--data-dir", "--data", dest="data_dir", type=Path, default=None,
                   help="where tables and results are kept (default "
                        "$XDG_DATA_HOME/pioche, else ~/.local/share/pioche)")
    p.add_argument("--bot-delay", type=float, default=0.7, metavar="SECONDS",
                   help="how long bots think, at most (default 0.7)")
    p.add_argument("--lang", choices=("fr", "en"), default=None,
                   help="language (default: from LANG, French unless it starts with en)")
    p.set_defaults(run=run)


def default_data_dir(env: Mapping[str, str] = os.environ) -> Path:
    """Local play's own directory: ``$XDG_DATA_HOME/pioche`` (the XDG base directories; an
    unset or relative value is ignored, as the specification says), else
    ``~/.local/share/pioche``."""
    base = env.get("XDG_DATA_HOME", "")
    if not base or not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "pioche"


def run(args: argparse.Namespace) -> int:
    import asyncio

    from .app.app import PiocheApp
    from .app.service import open_service
    from .i18n import Catalogue, lang_from_env
    from .store.lock import DataDirBusy, DataDirLock

    name = args.name or getpass.getuser()
    delay = max(0.0, args.bot_delay)
    lang = args.lang or lang_from_env(os.environ)
    data_dir = args.data_dir or default_data_dir()
    try:
        lock = DataDirLock.acquire(data_dir)
    except DataDirBusy as busy:
        holder = busy.holder
        t = Catalogue(lang)
        who = (t("play.busy.holder", pid=holder.pid, command=holder.command or "?")
               if holder.pid is not None else t("play.busy.unknown"))
        print(t("play.busy", dir=data_dir, holder=who), file=sys.stderr)
        return 1

    async def main() -> str | None:
        service = await open_service(data_dir, bot_delay=(delay / 2, delay))
        app = PiocheApp(service.desk.connector(), identity=f"local:{getpass.getuser()}", name=name,
                        lang=lang, quick_game=args.game)
        try:
            await app.run_async()
        finally:
            await service.close()
        return app.farewell

    try:
        farewell = asyncio.run(main())
    finally:
        lock.release()
    if farewell:
        print(farewell)
    return 0
