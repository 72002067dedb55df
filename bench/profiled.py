"""Run a Python module under pyinstrument, profiling only between two signals.

    python bench/profiled.py OUTPUT -m MODULE [ARGS...]

SIGUSR1 starts the profiler, SIGUSR2 stops it and writes its report to OUTPUT: the functions
that took the most time, on their own and with what they called, then the call tree (and an
HTML one beside it). bench/load.py runs ``pioche serve`` this way with ``--profile``, so that the
profile covers the play window only, not the set-up.
"""

from __future__ import annotations

import runpy
import signal
import sys
from pathlib import Path
from types import FrameType

from pyinstrument import Profiler
from pyinstrument.frame import Frame

TOP = 40


def top_functions(root: Frame) -> str:
    """The functions with the most time of their own, and with their callees (a function
    that calls itself counted once), in seconds."""
    own: dict[str, float] = {}
    total: dict[str, float] = {}

    def walk(frame: Frame, active: frozenset[str]) -> None:
        name = f"{frame.function}  {frame.file_path_short}:{frame.line_no}"
        own[name] = own.get(name, 0.0) + frame.total_self_time
        if name not in active:
            total[name] = total.get(name, 0.0) + frame.time
        for child in frame.children:
            walk(child, active | {name})

    walk(root, frozenset())
    lines = [f"total {root.time:.3f} s; own time:"]
    lines += [f"{t:8.3f}  {n}" for n, t in sorted(own.items(), key=lambda i: -i[1])[:TOP]]
    lines.append("with callees:")
    lines += [f"{t:8.3f}  {n}" for n, t in sorted(total.items(), key=lambda i: -i[1])[:TOP * 2]]
    return "\n".join(lines) + "\n\n"


def main() -> None:
    output = Path(sys.argv[1])
    if sys.argv[2] != "-m":
        raise SystemExit(__doc__)
    module = sys.argv[3]
    profiler = Profiler(interval=0.001, async_mode="disabled")

    def start(_signum: int, _frame: FrameType | None) -> None:
        if not profiler.is_running:
            profiler.start()

    def stop(_signum: int, _frame: FrameType | None) -> None:
        if profiler.is_running:
            session = profiler.stop()
            root = session.root_frame()
            flat = top_functions(root) if root is not None else ""
            output.write_text(flat + profiler.output_text(show_all=False))
            output.with_suffix(".html").write_text(profiler.output_html())

    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, stop)
    sys.argv = [module, *sys.argv[4:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
