"""Import hygiene and the command line of the server."""

from __future__ import annotations

import subprocess
import sys

from tests.server.live import REPO


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=REPO, capture_output=True, text=True, timeout=timeout)


def test_the_server_never_imports_textual() -> None:
    code = (
        "import sys, rea_tui.server.rea_server, rea_tui.server.__main__, rea_tui.server.serving; "
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
