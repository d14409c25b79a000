"""`rea-tui web`: the TUI served with textual-serve, loaded by headless Chromium."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import aiohttp
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


URL = re.compile(r"served at (http://\S+)")


def start_web(port: int, *server: str) -> tuple[subprocess.Popen[str], str]:
    """`rea-tui web` on `port`, and the URL it printed (with its token)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "rea_tui", "web", "--port", str(port), "--", *server],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    for line in process.stderr:
        found = URL.search(line)
        if found:
            return process, found.group(1)
    raise AssertionError("rea-tui web printed no URL")


async def wait_listening(port: int) -> None:
    for _ in range(100):
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        await asyncio.sleep(0.1)


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
    server, url = start_web(port, sys.executable, "-m", "rea_tui.server", "--synthetic", "500")
    try:
        await wait_listening(port)
        text = ""
        async with open_page(url) as page:
            for attempt in range(30):
                await asyncio.sleep(1.0)
                shot = await page.screenshot(tmp_path / f"web-{attempt}.png")
                text = await asyncio.to_thread(read_screen, shot)
                # The list shows while the session still comes up (the early lists); the header says when it is up.
                if "Investigate a feature" in text and "Prompts (6)" in text and "protocol 2026-07-28" in text:
                    break
        assert "Prompts (6)" in text, text
        # A long title gives way (ending in an ellipsis) before its argument counts do.
        for title in ("Investigate a feature", "Compare application", "Trace a crash"):
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


async def test_only_the_page_with_the_token_and_its_own_origin_may_drive_the_app() -> None:
    port = free_port()
    server, url = start_web(port, sys.executable, "-m", "rea_tui.server", "--synthetic", "50")
    base = f"http://127.0.0.1:{port}"
    try:
        await wait_listening(port)
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as client:
            for path in ("/", "/?token=wrong"):
                async with client.get(base + path) as page:
                    assert page.status == 403, path
            # DNS rebinding: the right token at a foreign host name is refused.
            async with client.get(url, headers={"Host": f"evil.example:{port}"}) as page:
                assert page.status == 403
            async with client.get(url) as page:
                assert page.status == 200 and "rea-tui-web" in page.cookies
            # A page elsewhere in the browser: its Origin gives it away, even with the cookie in the jar.
            for origin in ("http://evil.example", "null", f"http://127.0.0.1:{port + 1}"):
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await client.ws_connect(base + "/ws", headers={"Origin": origin})
                assert refused.value.status == 403, origin
        async with aiohttp.ClientSession() as stranger:  # the right origin, but no cookie
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await stranger.ws_connect(base + "/ws", headers={"Origin": base})
            assert refused.value.status == 403
        # Like a browser, keep the cookie for 127.0.0.1 (aiohttp keeps none for IP hosts unless told).
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as client:
            async with client.get(url):
                pass
            socket_ = await client.ws_connect(base + "/ws", headers={"Origin": base})
            await socket_.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
