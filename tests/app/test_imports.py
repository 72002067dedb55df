"""The seam holds: the apps (pioche_tui/app/) and the widgets reach the coordinator only
through its client (coordinator/client.py) and the plain values that cross it (model.py), and
never the store, neither in their source nor in what importing them loads. ``text`` is pure
(the nickname alphabet, the chat's limits: the SSH front uses it too). ``app/service.py`` is
the embedded mode's wiring: it opens the coordinator and hands each app a client of it, so it
alone may name the coordinator itself (docs/server.md, « The seam »)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.engine.test_purity import imported_modules

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "pioche_tui" / "app"
WIDGETS = ROOT / "widgets"

SEAM = {"pioche_tui.coordinator.client", "pioche_tui.coordinator.model",
        "pioche_tui.coordinator.text"}
WIRING = {APP / "service.py": {"pioche_tui.coordinator.core", "pioche_tui.coordinator.inprocess",
                                "pioche_tui.coordinator.control"}}
# What the seam's modules load in turn: the package, and ``mailbox`` where ``Mail`` and
# ``Notice`` are defined (``client`` re-exports them; an app names them from there).
LOADED = SEAM | {"pioche_tui.coordinator", "pioche_tui.coordinator.mailbox"}
FORBIDDEN = ("pioche_tui.coordinator", "pioche_tui.store")


def app_files() -> list[Path]:
    files = sorted([*APP.rglob("*.py"), *WIDGETS.rglob("*.py")])
    assert len(files) > 20, "no app sources found"
    return files


def forbidden_imports(path: Path, source: str) -> list[str]:
    """The modules ``source`` (the text of ``path``) imports that an app may not."""
    allowed = SEAM | WIRING.get(path, set())
    tree = ast.parse(source, filename=str(path))
    return sorted(
        module for module in imported_modules(tree, path)
        if module not in allowed
        and any(module == bad or module.startswith(bad + ".") for bad in FORBIDDEN)
    )


@pytest.mark.parametrize("path", app_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_an_app_module_reaches_the_coordinator_through_the_seam_alone(path: Path) -> None:
    bad = forbidden_imports(path, path.read_text(encoding="utf-8"))
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}: use coordinator.client"


def test_the_check_sees_the_coordinators_internals() -> None:
    """(The check above would pass on anything if it saw nothing.) Relative imports, imports
    under TYPE_CHECKING and the store are seen; the seam's modules are not refused."""
    screen = APP / "screens" / "lobby.py"
    source = ("from typing import TYPE_CHECKING\n"
              "from ...coordinator.model import Refused\n"
              "from ...coordinator.client import CoordinatorClient\n"
              "from ...coordinator import core\n"
              "import pioche_tui.store.db\n"
              "if TYPE_CHECKING:\n"
              "    from ...coordinator.table import Table\n")
    assert forbidden_imports(screen, source) == [
        "pioche_tui.coordinator", "pioche_tui.coordinator.table", "pioche_tui.store.db"]
    assert forbidden_imports(APP / "service.py", "from ..coordinator.core import Settings\n") == []
    assert forbidden_imports(APP / "app.py", "from ..coordinator.core import Settings\n") == [
        "pioche_tui.coordinator.core"]


def app_modules() -> list[str]:
    """Every module of the app and the widgets but the embedded mode's wiring."""
    return [
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for path in app_files() if path not in WIRING
    ]


def test_importing_the_app_loads_the_seam_alone() -> None:
    """What importing them actually loads, in a fresh interpreter: the checks above read each
    module's own imports, not those of the modules it imports (the seam's ``model`` loaded
    the store and sqlite3 through the scores' rows, the app package the coordinator through
    ``open_service``)."""
    script = ("import importlib, sys\n"
              f"for name in {app_modules()!r}: importlib.import_module(name)\n"
              "print(' '.join(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=True)
    loaded = set(done.stdout.split())
    assert "pioche_tui.app.app" in loaded and "widgets.hand" in loaded
    bad = sorted(
        module for module in loaded
        if module not in LOADED
        and any(module == bad or module.startswith(bad + ".") for bad in FORBIDDEN)
    )
    assert not bad and "sqlite3" not in loaded, f"importing the app loads {bad}"
