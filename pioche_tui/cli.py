"""The ``pioche`` command: one subcommand per job (serve, coordinator, front, play, sim,
keygen, admin, bus-config).

Each subcommand lives in its own module with ``register(subparsers)``, which adds its parser and
sets ``run`` (a function of the parsed arguments returning an exit status). Heavy imports
(Textual, asyncssh) happen inside ``run``, so ``pioche sim`` starts fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import play, replay, sim


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pioche",
        description="Pioche: card games in the terminal, over SSH.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # The server's commands live in the server package (it imports the app, never the reverse);
    # imported here, not at module import, and light until their run().
    from server import admin, busconfig, front, keygen, serve, workers

    serve.register(sub)
    workers.register(sub)
    front.register(sub)
    play.register(sub)
    sim.register(sub)
    replay.register(sub)
    keygen.register(sub)
    admin.register(sub)
    busconfig.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    status: int = args.run(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
