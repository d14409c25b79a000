"""Shared fixtures: isolated user directories and real servers to talk to."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rea_tui.host.config.config import ServerSpec

REPO = Path(__file__).resolve().parent.parent


def pytest_configure(config: pytest.Config) -> None:
    # Any text that reaches a terminal unsanitized raises instead of being neutralized quietly,
    # in this process and in every rea-tui the tests start.
    os.environ["REA_TUI_STRICT_EGRESS"] = "1"
    # The frame rate users get, applied the way the launcher applies it (Textual is imported already).
    from rea_tui.ui.runtime import apply_frame_rate
    from rea_tui.ui.settings import DEFAULT_FPS

    apply_frame_rate(DEFAULT_FPS)


@pytest.fixture(autouse=True)
def isolated_user_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Config, cache and data go to a per-test folder, never the real user's."""
    home = tmp_path / "user"
    for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        path = home / name.lower()
        path.mkdir(parents=True)
        monkeypatch.setenv(name, str(path))
    return home


def sample_spec(protocol: str = "auto", *, hostile: bool = False, name: str = "sample") -> ServerSpec:
    env = {"SAMPLE_HOSTILE": "1"} if hostile else {}
    return ServerSpec(
        name=name,
        transport="stdio",
        command=sys.executable,
        args=("-m", "tests.support.sample_server"),
        cwd=str(REPO),
        env=env,
        protocol=protocol,  # type: ignore[arg-type]
    )


def raw_spec(mode: str, *, name: str | None = None, url: str | None = None) -> ServerSpec:
    return ServerSpec(
        name=name or f"raw-{mode}",
        transport="stdio",
        command=sys.executable,
        args=("-m", "tests.support.raw_server", mode, *([url] if url else [])),
        cwd=str(REPO),
        protocol="legacy",
    )


def start_http_server(args: list[str], pattern: str) -> tuple[subprocess.Popen[str], str]:
    """Start a server process that prints its URL on stderr; return it and the URL."""
    process = subprocess.Popen(
        [sys.executable, *args],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stderr is not None
    for _ in range(200):
        line = process.stderr.readline()
        if not line:
            break
        match = re.search(pattern, line)
        if match:
            return process, match.group(1)
    process.kill()
    raise RuntimeError(f"server {args} did not print its URL")


@pytest.fixture(scope="session")
def sample_http_url() -> Iterator[str]:
    """The sample server over streamable HTTP on 127.0.0.1 (one per test session)."""
    process, url = start_http_server(
        ["-m", "tests.support.sample_server", "--http", "127.0.0.1:0"], r"listening on (http://\S+)"
    )
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
