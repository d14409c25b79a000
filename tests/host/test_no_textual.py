"""The layering rules, checked in a fresh interpreter.

`rea_tui.host`, `rea_tui.server` and the `rea_tui.cli` package must never
import Textual (a command that opens the TUI imports it when it runs), and
importing `rea_tui.cli` (all `rea-tui --help` needs) must not import the MCP
SDK either.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

IMPORT_ALL = textwrap.dedent(
    """
    import importlib, json, pkgutil, sys

    imported = []
    failed = {}
    for package_name in ("rea_tui.host", "rea_tui.server", "rea_tui.cli"):
        try:
            package = importlib.import_module(package_name)
        except ImportError as exc:
            if package_name == "rea_tui.host":
                raise
            failed[package_name] = repr(exc)
            continue
        imported.append(package_name)
        for info in pkgutil.walk_packages(package.__path__, package_name + "."):
            if info.name.endswith(".__main__"):
                continue  # importing a __main__ would run it
            importlib.import_module(info.name)
            imported.append(info.name)
    print(json.dumps({
        "imported": imported,
        "failed": failed,
        "textual": sorted(m for m in sys.modules if m == "textual" or m.startswith("textual.")),
        "mcp": "mcp" in sys.modules,
    }))
    """
)

IMPORT_CLI = textwrap.dedent(
    """
    import json, sys
    import rea_tui.cli
    parser = rea_tui.cli.build_parser()
    parser.format_help()
    heavy = ("mcp", "mcp_types", "textual")
    print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in heavy)))
    """
)


def run_python(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        env=os.environ.copy(),
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


def test_host_server_and_cli_never_import_textual() -> None:
    report = json.loads(run_python(IMPORT_ALL))
    imported = report["imported"]
    # The walk really covered the host core (not just the empty package).
    for module in (
        "rea_tui.host.protocol.connection",
        "rea_tui.host.features.completion",
        "rea_tui.host.features.tool_call",
        "rea_tui.cli.commands.call",
    ):
        assert module in imported
    assert report["textual"] == [], f"textual imported by the headless layers: {report['textual']}"
    # Sanity: the walk imported the SDK-using modules for real.
    assert report["mcp"] is True


def test_cli_import_and_help_do_not_import_mcp_or_textual() -> None:
    heavy = json.loads(run_python(IMPORT_CLI))
    assert heavy == [], f"`rea-tui --help` path imports heavy modules: {heavy}"
