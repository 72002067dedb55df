"""A tmux of its own for each end-to-end test (tests/e2e/clients.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.clients import Tmux


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    tmux = Tmux(f"pioche-e2e-{tmp_path.name}", tmp_path)
    yield tmux
    tmux("kill-server")
