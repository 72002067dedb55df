"""The coordinator tests' fixture: a real coordinator on a temporary data directory."""

from __future__ import annotations

from tests.coordinator.conftest import make_coordinator

__all__ = ["make_coordinator"]
