"""For every test: Textual's reference cycles are broken from the start (``server/cycles.py``),
as ``pioche serve`` does before its first app. Tests run many apps in one process, and a cycle
made before the collector of a later test starts (a cached row an earlier test rendered) would
be counted against that test's screens (``tests/hostile/test_screen_memory.py``)."""

from __future__ import annotations

from server import cycles


def pytest_configure() -> None:
    cycles.install()
