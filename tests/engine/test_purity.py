"""The engine is pure: standard library only, no asyncio, no I/O, no clock (design.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "pioche_tui" / "engine"

# Modules the engine must never import: our UI/network/storage stack, and anything that reaches
# outside the process or reads the clock.
FORBIDDEN_MODULES = {
    "textual", "rich", "asyncssh", "msgpack", "asyncio", "sqlite3", "socket", "subprocess",
    "threading", "multiprocessing", "os", "sys", "io", "pathlib", "shutil", "tempfile", "time",
    "datetime", "logging", "secrets", "urllib", "http", "select", "signal",
    "pioche_tui.coordinator", "pioche_tui.store", "pioche_tui.app", "server", "widgets",
}
FORBIDDEN_CALLS = {"open", "print", "input", "exec", "eval", "compile", "__import__", "breakpoint"}


def engine_files() -> list[Path]:
    files = sorted(ENGINE.rglob("*.py"))
    assert files, "no engine sources found"
    return files


def imported_modules(tree: ast.AST, path: Path) -> set[str]:
    found: set[str] = set()
    package = ".".join(path.relative_to(ENGINE.parents[1]).with_suffix("").parts[:-1])
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the file's package
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                found.add(".".join([*base, node.module] if node.module else base))
            elif node.module:
                found.add(node.module)
    return found


@pytest.mark.parametrize("path", engine_files(), ids=lambda p: str(p.relative_to(ENGINE)))
def test_engine_file_is_pure(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for module in imported_modules(tree, path):
        for bad in FORBIDDEN_MODULES:
            assert module != bad and not module.startswith(bad + "."), (
                f"{path.name} imports {module}: the engine must stay pure"
            )
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in FORBIDDEN_CALLS, (
                f"{path.name}:{node.lineno} calls {node.func.id}(): no I/O in the engine"
            )


def test_the_check_catches_a_forbidden_import(tmp_path: Path) -> None:
    """The scanner itself works: a relative import of the store is seen as such."""
    fake = ENGINE / "defausse" / "x.py"
    tree = ast.parse("from ...store import log\nimport asyncio\n")
    assert imported_modules(tree, fake) == {"pioche_tui.store", "asyncio"}
