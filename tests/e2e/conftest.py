"""A tmux of its own for each end-to-end test (tests/e2e/clients.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.clients import Tmux


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    # (tmux's sockets are per user: the pid keeps two test runs at once apart)
    tmux = Tmux(f"pioche-e2e-{os.getpid()}-{tmp_path.name}", tmp_path)
    yield tmux
    tmux("kill-server")
