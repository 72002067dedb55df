"""The Textual application: one per session, driven by the coordinator's views.

``open_service`` is what ``pioche serve`` serves (server/serve.py's DEFAULT_APP).
"""

from .service import open_service

__all__ = ["open_service"]
