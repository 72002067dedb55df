"""The server's log: lines for people (the default) or JSON objects for log collectors.

``--log-format json`` (``pioche serve``, and every process of ``--workers``) writes one JSON
object a line: ``time`` (ISO 8601, UTC, milliseconds), ``level``, ``logger``, ``role`` (the
process: ``serve``, ``supervisor``, ``coordinator``, ``front``), ``pid``, ``message`` (the
line a person reads), ``exception`` when there is one, and the fields of the event the line
tells, where it tells one (``event``: ``table_created``, ``table_started``,
``table_finished`` with its ``result``, ``table_closed``, ``session_opened``,
``session_closed``, ``ssh_session_closed``, ``admin`` with ``admin``, ``action``, ``target``…:
the ``extra`` of the logging call). docs/server.md, « The log ».
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from typing import Any

FORMATS = ("text", "json")
# The attributes every LogRecord has: anything else on a record is an event's field.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {
    "message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    def __init__(self, role: str) -> None:
        super().__init__()
        self.role = role

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "role": self.role,
            "pid": record.process,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in out:
                out[key] = value
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def text_format(role: str | None) -> str:
    """The lines for people; with ``role``, the process's role and pid after the level (all
    the processes of ``--workers`` write to the same terminal or file)."""
    if role is None:
        return "%(asctime)s %(levelname)s %(message)s"
    return f"%(asctime)s %(levelname)s {role}[%(process)d] %(message)s"


def setup(log_format: str, role: str, *, tagged: bool = True) -> None:
    """Log INFO and up to stderr, as ``log_format`` says; ``tagged``: text lines name the
    process's role (``--workers``)."""
    handler = logging.StreamHandler()
    if log_format == "json":
        handler.setFormatter(JsonFormatter(role))
    else:
        handler.setFormatter(logging.Formatter(text_format(role if tagged else None)))
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)
    logging.getLogger("asyncssh").setLevel(logging.WARNING)  # one line per packet otherwise
    logging.getLogger("nats").setLevel(logging.WARNING)


def add_log_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--log-format", choices=FORMATS, default="text",
        help="text (lines for people, the default) or json (one object a line, for log "
        "collectors: docs/server.md)",
    )
