"""The store's tests run on both backends: a real SQLite file in a temporary directory, and a
fresh database on a real PostgreSQL server (``postgres.py``, the ``postgres`` fixture of
tests/conftest.py: started once per test process from the machine's binaries; without them,
the PostgreSQL cases are skipped, saying why)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pioche_tui.coordinator.text import name_key
from pioche_tui.store.db import Database, PostgresDatabase, SQLiteDatabase

from .postgres import PostgresServer


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    d: Database
    if request.param == "sqlite":
        d = SQLiteDatabase(tmp_path / "pioche.sqlite3", name_key)
    else:
        server: PostgresServer = request.getfixturevalue("postgres")
        d = PostgresDatabase(server.new_database(), name_key)
    yield d
    d.close()
