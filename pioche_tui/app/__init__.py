"""The Textual application: one per session, driven by the coordinator's views.

``open_service`` is what ``pioche serve`` serves (server/serve.py's DEFAULT_APP). It is
imported when asked for, not with the package: the embedded mode's wiring loads the
coordinator itself and the store, which an app's own modules never need (the seam:
tests/app/test_imports.py checks what importing the app loads).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .service import open_service

__all__ = ["open_service"]


def __getattr__(name: str) -> Any:
    if name == "open_service":
        from .service import open_service

        return open_service
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
