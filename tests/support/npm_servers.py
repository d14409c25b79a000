"""MCP servers from npm for the tests, installed once into a cache folder.

`tests/support/npm/` pins them (package.json and its package-lock.json, with
integrity hashes); `npm ci` installs that into
`~/.cache/rea-tui-tests/npm-<hash of the lockfile>/` the first time a test
asks, so later runs (and other worktrees) reuse it. Needs Node and npm,
which CI has; without them the tests that need a server are skipped, except
under CI, where that is a failure.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

PINNED = Path(__file__).resolve().parent / "npm"
EVERYTHING_VERSION = "2026.8.31"
EVERYTHING_ENTRY = Path("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
INSTALL_TIMEOUT = 300


def cache_root() -> Path:
    # Not XDG_CACHE_HOME: the tests point that at a per-test folder.
    return Path.home() / ".cache" / "rea-tui-tests"


def install_dir() -> Path:
    digest = hashlib.sha256((PINNED / "package-lock.json").read_bytes()).hexdigest()[:16]
    return cache_root() / f"npm-{digest}"


def _missing_tools(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must have Node and npm)")
    pytest.skip(reason)


def installed() -> Path:
    """The folder with the pinned servers' node_modules, installing it if needed."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        _missing_tools("node and npm are needed to run the npm MCP servers")
    target = install_dir()
    if (target / EVERYTHING_ENTRY).is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / "install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (target / EVERYTHING_ENTRY).is_file():
            staging = target.with_name(target.name + ".partial")
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir()
            for name in ("package.json", "package-lock.json"):
                shutil.copy(PINNED / name, staging / name)
            done = subprocess.run(
                [str(npm), "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
                cwd=staging,
                capture_output=True,
                text=True,
                timeout=INSTALL_TIMEOUT,
            )
            if done.returncode != 0:
                pytest.fail(f"npm ci failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
            with contextlib.suppress(FileNotFoundError):
                shutil.rmtree(target)
            staging.rename(target)
    return target


def everything_command() -> list[str]:
    """`node .../server-everything/dist/index.js stdio`, the official test server, pinned."""
    node = shutil.which("node")
    assert node is not None
    return [node, str(installed() / EVERYTHING_ENTRY), "stdio"]
