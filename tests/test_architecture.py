"""The architecture of ARCHITECTURE.md, checked: the import-linter contracts, no import cycle, the host facade."""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
from importlinter.cli import lint_imports

import rea_tui.host

REPO = Path(__file__).resolve().parents[1]


def test_the_import_contracts_in_pyproject_hold() -> None:
    assert lint_imports(config_filename=str(REPO / "pyproject.toml"), no_cache=True) == 0


def test_the_contracts_fail_when_the_server_imports_the_host(tmp_path: Path) -> None:
    """The server's contract can fail: a copy of the package whose server imports the host breaks it."""
    copy = tmp_path / "rea_tui"
    shutil.copytree(REPO / "rea_tui", copy, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    victim = copy / "server" / "limits.py"
    victim.write_text(victim.read_text() + "\nimport rea_tui.host  # a server that reaches into the host\n")
    lint = "from importlinter.cli import lint_imports; raise SystemExit(lint_imports(no_cache=True))"
    result = subprocess.run(
        [sys.executable, "-c", lint],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode != 0, result.stdout
    assert "The reference server imports nothing else of rea-tui" in result.stdout
    assert "BROKEN" in result.stdout


def import_cycles(package: str) -> list[set[str]]:
    """Strongly connected components of more than one module in the package's import graph (Tarjan)."""
    graph = grimp.build_graph(package, cache_dir=None)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component: set[str] = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(component)

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def test_no_import_cycle() -> None:
    assert import_cycles("rea_tui") == []


def test_the_cycle_finder_finds_a_cycle(tmp_path: Path, monkeypatch: object) -> None:
    """The check above can fail: two modules that import each other are one cycle."""
    package = tmp_path / "cyclic_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from cyclic_pkg import b\n")
    (package / "b.py").write_text("from cyclic_pkg import a\n")
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        assert import_cycles("cyclic_pkg") == [{"cyclic_pkg.a", "cyclic_pkg.b"}]
    finally:
        sys.path.remove(str(tmp_path))


def test_every_facade_name_loads_and_none_is_shadowed_by_a_module() -> None:
    """A facade name equal to a submodule's name would be replaced by that module once it is imported."""
    submodules = {info.name for info in pkgutil.iter_modules(rea_tui.host.__path__)}
    for name in rea_tui.host.__all__:
        assert name not in submodules, f"rea_tui.host.{name} is both an exported name and a module"
        assert getattr(rea_tui.host, name) is not None
    for info in pkgutil.iter_modules(rea_tui.host.__path__):
        importlib.import_module(f"rea_tui.host.{info.name}")
    for name in rea_tui.host.__all__:
        assert not isinstance(getattr(rea_tui.host, name), type(rea_tui.host)), name


# What the MCP SDK keeps to itself: its private modules and a session's private attributes.
PRIVATE_SDK = re.compile(r"\bmcp(?:_types)?(?:\.\w+)*\._\w+|\._dispatcher\b|\._stamp\b")


def test_requests_use_the_sdks_public_api_only() -> None:
    uses = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for path in sorted((REPO / "rea_tui").rglob("*.py"))
        if "server" not in path.relative_to(REPO / "rea_tui").parts[:1]
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if PRIVATE_SDK.search(line)
    ]
    assert uses == []


def test_the_private_api_scan_finds_a_private_use() -> None:
    assert PRIVATE_SDK.search("from mcp.shared._httpx_utils import create_mcp_http_client")
    assert PRIVATE_SDK.search("raw = await session._dispatcher.send_raw_request(method, params, opts)")
    assert not PRIVATE_SDK.search("raw = await session.send_request(request, RAW_RESULT)")
