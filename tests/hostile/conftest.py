"""Fixtures for hostile-client tests: the real app (coordinator, store, PiocheApp) behind the real
SSH server on 127.0.0.1, with the server's SSH clients (tests/server/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from pioche_tui.app.app import PiocheApp
from pioche_tui.app.service import EmbeddedService, SessionFacts
from pioche_tui.coordinator.core import Coordinator, Settings
from tests.server.conftest import (  # noqa: F401 - the SSH fixtures
    Client,
    client_key,
    connect,
    host_key,
    limits,
    server,
)
from tests.server.process import reset as reset_connection


def reset(client: Client) -> None:
    """Drop the client's connection with a TCP reset (``tests.server.process.reset``)."""
    assert client.conn is not None
    reset_connection(client.conn)


class RecordingService(EmbeddedService):
    """The real service, keeping the apps it made so tests can look inside them; ``apps`` holds
    those still running (as the demo service's does, for ``all_sessions_gone``)."""

    def __init__(self, coordinator: Coordinator) -> None:
        super().__init__(coordinator)
        self.made: list[PiocheApp] = []

    @property
    def apps(self) -> list[PiocheApp]:
        return [app for app in self.made if app.return_code is None]

    def make_app(self, session: SessionFacts, *args: Any, **kwargs: Any) -> PiocheApp:
        app = super().make_app(session, *args, **kwargs)
        self.made.append(app)
        return app


def coordinator_settings(data: Path, **changes: Any) -> Settings:
    """Bots that answer quickly, no turn timer, a long grace: tests decide when things happen."""
    values: dict[str, Any] = {"bot_delay": (0.02, 0.05), "turn_timer": None, "grace": 120.0,
                              "seed": 3}
    values.update(changes)
    return Settings(data, **values)


@pytest.fixture
def settings(tmp_path: Path, request: pytest.FixtureRequest) -> Settings:
    """Override with ``@pytest.mark.parametrize("settings", [{...}], indirect=True)``."""
    return coordinator_settings(tmp_path / "data", **getattr(request, "param", {}))


@pytest.fixture
async def service(settings: Settings) -> AsyncIterator[RecordingService]:
    coordinator = Coordinator(settings)
    await coordinator.start()
    opened = RecordingService(coordinator)
    yield opened
    await opened.close()
