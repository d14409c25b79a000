"""The architecture of ARCHITECTURE.md, checked: the import-linter contracts, no import cycle, the host facade."""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
import shutil
import subprocess
import sys
import types
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


# Every method of a rea-tui class that overrides a private method of a library's class, and why. A new one
# fails the test below until it is listed here with its reason (and the upstream issue, where one exists).
PRIVATE_OVERRIDES = {
    "rea_tui.ui.app.ReaApp._display": "textual.app.App: the egress guard must see every frame on the one path "
    "all frames take; Textual has no public hook for a frame's output",
    "rea_tui.ui.widgets.argument_form.ArgumentInput._on_key": "textual Input: the dropdown's keys before Input's "
    "own bindings (Textualize/textual#6605; its fix, PR #6631, runs a widget's bindings inline in _on_key)",
    "rea_tui.ui.widgets.completing_input.CompletingInput._on_key": "as ArgumentInput._on_key (Textualize/textual#6605)",
    "rea_tui.ui.widgets.completing_input.CompletingInput._on_focus": "textual Input: the completion is asked for when "
    "the field takes the focus; Input has no public focus hook that runs after its own",
    "rea_tui.ui.widgets.completing_input.CompletingInput._on_blur": "textual Input: the dropdown closes with the focus",
    "rea_tui.ui.web_server.GuardedServer._make_app": "textual_serve Server: the token and origin guard goes in "
    "front of every route of the aiohttp app it builds; textual-serve takes no middleware",
    "rea_tui.host.auth.provider.HostOAuthProvider._initialize": "mcp OAuthClientProvider: stored token expiry and "
    "redaction of tokens in the traffic log when the provider starts; the SDK has no public start hook",
    # The host's sign-in policy, mixed in before the SDK's providers. The SDK's provider takes no policy
    # (modelcontextprotocol/python-sdk#1368 asks for a less opinionated provider interface); until it does, the
    # policy wraps these three of its steps.
    "rea_tui.host.auth.provider._HostPolicy._initialize": "mcp OAuthClientProvider: as HostOAuthProvider._initialize",
    "rea_tui.host.auth.provider._HostPolicy._auth_flow": "mcp OAuthClientProvider: a connection that may not sign "
    "in follows no metadata URL, metadata only from trusted origins, one refresh, registration for the wanted "
    "scope (python-sdk#1368)",
    "rea_tui.host.auth.provider._HostPolicy._perform_authorization_code_grant": "mcp OAuthClientProvider: no "
    "browser without a Login, step-ups counted, the wanted scope asked for (python-sdk#1368)",
}


def rea_tui_modules() -> list[types.ModuleType]:
    return [importlib.import_module(info.name) for info in pkgutil.walk_packages(rea_tui.__path__, "rea_tui.")]


def private_overrides(modules: list[types.ModuleType]) -> set[str]:
    """`module.Class.method` for each method of rea-tui that a library class after it in some class's MRO
    defines as private: a subclass's own override, and a mixin's that takes effect only where it is mixed in
    before the library class (as an OAuth policy mixed into the SDK's provider)."""
    found: set[str] = set()
    for module in modules:
        for cls in vars(module).values():
            if not isinstance(cls, type) or cls.__module__ != module.__name__:
                continue
            mro = cls.__mro__
            for position, owner in enumerate(mro):
                if not owner.__module__.startswith("rea_tui"):
                    continue
                libraries = [
                    b for b in mro[position + 1 :] if not b.__module__.startswith("rea_tui") and b is not object
                ]
                for name, value in vars(owner).items():
                    # `_x_` names are enum's documented hooks; dunders are the language's.
                    if not name.startswith("_") or name.startswith("__") or name.endswith("_"):
                        continue
                    if not callable(value) and not isinstance(value, staticmethod | classmethod | property):
                        continue
                    if any(name in vars(base) for base in libraries):
                        found.add(f"{owner.__module__}.{owner.__qualname__}.{name}")
    return found


def test_every_private_override_of_a_library_is_listed_with_its_reason() -> None:
    found = private_overrides(rea_tui_modules())
    assert found - PRIVATE_OVERRIDES.keys() == set(), "a new private override: list it with its reason"
    assert PRIVATE_OVERRIDES.keys() - found == set(), "listed but gone: take it off the list"


def test_the_override_scan_finds_an_accidental_one() -> None:
    """A method that happens to share a private name of Textual's (as a screen's `_detach` once did) is found."""
    from textual.screen import Screen

    module = types.ModuleType("rea_tui.ui.screens.accidental")

    class Accidental(Screen[None]):
        def _detach(self) -> None: ...

        def _own_helper(self) -> None: ...

    Accidental.__module__ = module.__name__
    module.Accidental = Accidental  # type: ignore[attr-defined]
    assert private_overrides([module]) == {f"{module.__name__}.{Accidental.__qualname__}._detach"}
