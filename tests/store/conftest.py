"""A database on a real SQLite file in a temporary directory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pioche_tui.coordinator.text import name_key
from pioche_tui.store.db import Database


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    d = Database(tmp_path / "pioche.sqlite3", name_key)
    yield d
    d.close()
