"""``pioche admin``: the operator's actions from the server's machine, over the control socket.

It talks to the running server (``pioche serve``, with or without ``--workers``) through the
Unix socket in its data directory (``pioche_tui/coordinator/control.py``), which only the
directory's owner may use. Every action is logged by the server as done by « console (USER) ».
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import time
from pathlib import Path
from typing import Any

from pioche_tui.coordinator.control import reachable, socket_path
from pioche_tui.coordinator.text import duration, idle_text

from .serve import add_data_dir_flag

TIMEOUT = 10.0  # seconds to wait for the server's answer


class NoServer(Exception):
    """No server answers on this data directory's socket."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "admin",
        help="the operator's actions on the running server (online, tables, kick, ban…)",
        description=(
            "Act on the Pioche server running on DATA_DIR, through its control socket "
            "(DATA_DIR/control/admin.sock, its owner's only). See docs/server.md."
        ),
    )
    add_data_dir_flag(p)
    p.add_argument("--json", action="store_true", help="print the server's answer as JSON")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    actions.add_parser("online", help="who is online: name, key, address, table, idle time")
    actions.add_parser("tables", help="the tables: game, status, move, spectators, seats")
    actions.add_parser("bans", help="the bans in force")
    kick = actions.add_parser("kick", help="close the session of the player online as NAME")
    kick.add_argument("target", metavar="NAME")
    ban = actions.add_parser(
        "ban", help="ban a key (SHA256:…), an address, or the player online as NAME")
    ban.add_argument("target", metavar="KEY|ADDRESS|NAME")
    ban.add_argument("--for", dest="duration", default="", metavar="DURATION",
                     help="30m, 2h, 7d… (default: for good)")
    unban = actions.add_parser("unban", help="lift the ban of a key or an address")
    unban.add_argument("target", metavar="KEY|ADDRESS")
    close = actions.add_parser("close", help="close a table: its game ends as abandoned")
    close.add_argument("target", metavar="TABLE")
    broadcast = actions.add_parser("broadcast", help="a line to every session")
    broadcast.add_argument("target", metavar="TEXT")
    motd = actions.add_parser("motd", help="the message of the day shown in the lobby "
                              "(\"\" removes it)")
    motd.add_argument("target", metavar="TEXT")
    p.set_defaults(run=run)


def request(data_dir: Path, payload: dict[str, Any]) -> dict[str, Any]:
    """The server's answer to ``payload``; NoServer when no server answers there."""
    path = socket_path(data_dir)
    if not path.exists():
        raise NoServer(f"no Pioche server runs on {data_dir} (no socket {path})")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(TIMEOUT)
        try:
            with reachable(path) as address:
                sock.connect(address)
        except PermissionError:
            raise NoServer(f"{path}: not yours (run pioche admin as the server's user)"
                           ) from None
        except OSError as error:  # (refused: a socket left by a server that died)
            raise NoServer(f"no Pioche server answers on {path} ({error.strerror})") from None
        sock.sendall(json.dumps(payload).encode() + b"\n")
        with sock.makefile("rb") as answer:
            try:
                line = answer.readline()
            except TimeoutError:
                raise NoServer(f"the server did not answer in {TIMEOUT:.0f} s") from None
    if not line:
        raise NoServer("the server closed the connection without an answer")
    reply: dict[str, Any] = json.loads(line)
    return reply


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
             .rstrip() for row in [header, *rows]]
    return "\n".join(lines)


def show(action: str, reply: dict[str, Any]) -> str:
    """The answer as a person reads it."""
    result = reply["result"]
    if action == "online":
        if not result:
            return "nobody online"
        return _table([[s["name"] + (" (watcher)" if s["watch_only"] else ""), s["identity"],
                        s["address"] or "-", s["table"] or "-", idle_text(s["idle"])]
                       for s in result], ["NAME", "KEY", "ADDRESS", "TABLE", "IDLE"])
    if action == "tables":
        if not result:
            return "no tables"
        return _table([[t["id"], t["game"], t["status"], str(t["step"]), str(t["spectators"]),
                        ", ".join(t["seats"])] for t in result],
                      ["TABLE", "GAME", "STATUS", "MOVE", "WATCHERS", "SEATS"])
    if action == "bans":
        if not result:
            return "no bans"
        return _table([[b["kind"], b["value"], "for good" if b["until"] is None else
                        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(b["until"])), b["by"]]
                       for b in result], ["KIND", "VALUE", "UNTIL", "BY"])
    return str(result)


def run(args: argparse.Namespace) -> int:
    payload: dict[str, Any] = {"action": args.action, "target": getattr(args, "target", "")}
    if args.action == "ban":
        try:
            payload["seconds"] = duration(args.duration)
        except ValueError:
            print(f"pioche admin: not a duration: {args.duration!r} (30m, 2h, 7d…)",
                  file=sys.stderr)
            return 2
    try:
        reply = request(args.data_dir, payload)
    except NoServer as error:
        print(f"pioche admin: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(reply, ensure_ascii=False, indent=2))
    elif reply.get("ok"):
        print(show(args.action, reply))
    if not reply.get("ok"):
        if not args.json:
            print(f"pioche admin: {reply.get('error')}", file=sys.stderr)
        return 1
    return 0
