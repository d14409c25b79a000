"""Import hygiene and the command line of the server."""

from __future__ import annotations

import subprocess
import sys

from tests.server.live import REPO


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=REPO, capture_output=True, text=True, timeout=timeout)


def test_the_server_never_imports_textual() -> None:
    code = (
        "import sys, rea_tui.server.rea_server, rea_tui.server.__main__, rea_tui.server.protocol.stdio_serving, "
        "rea_tui.server.protocol.http_serving, rea_tui.server.toolkit.tool_catalog; "
        "assert 'textual' not in sys.modules, 'textual imported'"
    )
    result = run("-c", code)
    assert result.returncode == 0, result.stderr


def test_importing_the_entry_point_stays_light() -> None:
    code = "import sys, rea_tui.server.__main__; assert 'mcp' not in sys.modules and 'lief' not in sys.modules"
    result = run("-c", code)
    assert result.returncode == 0, result.stderr


def test_bad_options_are_reported_on_stderr_only() -> None:
    for args in (["--http", "nonsense"], ["--synthetic", "0"], ["--synthetic", "100001"]):
        result = run("-m", "rea_tui.server", *args)
        assert result.returncode == 2 and result.stdout == "" and result.stderr, args


def test_an_unopenable_target_fails_cleanly(tmp_path: object) -> None:
    result = run("-m", "rea_tui.server", "--target", "/definitely/not/here")
    assert result.returncode == 2 and result.stdout == ""
    assert "cannot open target" in result.stderr


def test_the_stdio_front_loads_no_sdk_and_the_server_no_lief_or_capstone() -> None:
    """What runs before `initialize` is answered imports no SDK; LIEF and capstone load when first used."""
    front = (
        "import sys, rea_tui.server.__main__, rea_tui.server.protocol.stdio_front, rea_tui.server.target.target_paths; "
        "heavy = sorted(m for m in ('mcp', 'mcp_types', 'pydantic', 'anyio', 'lief', 'capstone') if m in sys.modules); "
        "assert not heavy, heavy"
    )
    assert (result := run("-c", front)).returncode == 0, result.stderr
    server = (
        "import sys, rea_tui.server.rea_server, rea_tui.server.protocol.stdio_serving, rea_tui.server.target.target; "
        "heavy = sorted(m for m in ('lief', 'capstone') if m in sys.modules); assert not heavy, heavy"
    )
    assert (result := run("-c", server)).returncode == 0, result.stderr


def test_the_fault_hook_is_gone_from_the_command_line() -> None:
    result = run("-m", "rea_tui.server", "--fault-injection")
    assert result.returncode == 2 and "unrecognized arguments: --fault-injection" in result.stderr
