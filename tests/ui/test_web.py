"""`rea-tui web`: the TUI served with textual-serve, loaded by headless Chromium."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.support.browser import chromium_path, open_page

# .ci/run installs both (Debian packages chromium and tesseract-ocr) and sets this, so CI never skips.
REQUIRED = os.environ.get("REA_TUI_REQUIRE_BROWSER") == "1"
MISSING = [
    name for name, found in (("chromium", chromium_path()), ("tesseract", shutil.which("tesseract"))) if not found
]

needs_browser = pytest.mark.skipif(
    bool(MISSING) and not REQUIRED,
    reason=f"browser test needs {' and '.join(MISSING)} (apt-get install chromium tesseract-ocr; .ci/run does)",
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def read_screen(png: Path) -> str:
    """What the screenshot shows, read back with OCR."""
    result = subprocess.run(["tesseract", str(png), "-"], capture_output=True, text=True, timeout=60)
    return result.stdout


@pytest.mark.browser
@needs_browser
async def test_the_served_app_shows_the_prompt_list_in_a_browser(tmp_path: Path) -> None:
    assert not MISSING, f"missing {MISSING}"
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rea_tui",
            "web",
            "--port",
            str(port),
            "--",
            sys.executable,
            "-m",
            "rea_tui.server",
            "--synthetic",
            "500",
        ],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for _ in range(100):
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            await asyncio.sleep(0.1)
        text = ""
        async with open_page(f"http://127.0.0.1:{port}/") as page:
            for attempt in range(30):
                await asyncio.sleep(1.0)
                shot = await page.screenshot(tmp_path / f"web-{attempt}.png")
                text = await asyncio.to_thread(read_screen, shot)
                if "Investigate a feature" in text and "Prompts (6)" in text:
                    break
        assert "Prompts (6)" in text, text
        for title in ("Investigate a feature", "Compare application versions", "Trace a crash"):
            assert title in text, text
        assert "protocol 2026-07-28" in text
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_web_refuses_a_non_loopback_host() -> None:
    with tempfile.TemporaryDirectory():
        result = subprocess.run(
            [sys.executable, "-m", "rea_tui", "web", "--host", "0.0.0.0", "--port", "1"],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=30,
        )
    assert result.returncode == 2 and "loopback only" in result.stderr
