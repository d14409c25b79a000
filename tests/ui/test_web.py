"""`rea-tui web`: the TUI served with textual-serve, loaded by headless Chromium."""

from __future__ import annotations

import asyncio
import base64
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
from tests.support.browser import Page, chromium_path, open_page

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
    # One uniform block (`--psm 6`): the default page layout analysis drops the focused row, white on
    # blue, as a separate region it cannot read; the terminal is one grid of text anyway.
    result = subprocess.run(["tesseract", str(png), "-", "--psm", "6"], capture_output=True, text=True, timeout=60)
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


def terminal_output(page: Page) -> str:
    """What the app wrote to the page's terminal so far (binary websocket frames come base64-encoded)."""
    frames = [
        e["params"]["response"]
        for e in page.events
        if e["method"] == "Network.webSocketFrameReceived" and e["params"]["response"].get("opcode") == 2
    ]
    return b"".join(base64.b64decode(f.get("payloadData", "")) for f in frames).decode("utf-8", "replace")


# The Alt modifier bit of the DevTools protocol's Input.dispatchKeyEvent.
ALT = 1


async def press(page: Page, key: str, code: str, virtual_key: int, modifiers: int = 0) -> None:
    """A key pressed in the browser, to whatever has the focus there."""
    text = {"text": key} if len(key) == 1 else {}
    for kind in ("keyDown", "keyUp"):
        await page.send(
            "Input.dispatchKeyEvent",
            type=kind,
            key=key,
            code=code,
            windowsVirtualKeyCode=virtual_key,
            modifiers=modifiers,
            **(text if kind == "keyDown" else {}),
        )


needs_chromium = pytest.mark.skipif(
    chromium_path() is None and not REQUIRED,
    reason="browser test needs chromium (apt-get install chromium; .ci/run does)",
)


@pytest.mark.browser
@needs_chromium
async def test_the_page_takes_keys_as_soon_as_it_loads() -> None:
    """No click first: the terminal has the focus on load, so f2 reaches the app and opens the server's details."""
    port = free_port()
    server, url = start_web(port, sys.executable, "-m", "rea_tui.server", "--synthetic", "200")
    try:
        await wait_listening(port)
        async with open_page(url) as page:
            focused = ""
            for _ in range(60):
                await asyncio.sleep(0.5)
                focused = await page.evaluate("document.activeElement && document.activeElement.className") or ""
                started = await page.evaluate("document.body.classList.contains('-first-byte')")
                if "xterm-helper-textarea" in focused and started and "protocol 2026-07-28" in terminal_output(page):
                    break
            assert "xterm-helper-textarea" in focused, f"the focus is on {focused or 'the page'}"
            assert "protocol 2026-07-28" in terminal_output(page), "the app is up"
            assert "Capabilities" not in terminal_output(page)
            # F2 as the browser sends it: to the focused element, the terminal.
            await press(page, "F2", "F2", 113)
            for _ in range(40):
                await asyncio.sleep(0.5)
                if "Capabilities" in terminal_output(page):
                    break
            assert "Capabilities" in terminal_output(page), "the key did not reach the app"
            # Back, and alt+n (the browser's twin of ctrl+n) from the prompt list: the notes open.
            await press(page, "Escape", "Escape", 27)
            await asyncio.sleep(1.0)
            await press(page, "n", "KeyN", 78, modifiers=ALT)
            for _ in range(40):
                await asyncio.sleep(0.5)
                if "kept apart" in terminal_output(page):
                    break
            assert "kept apart" in terminal_output(page), "alt+n did not open the notes"
    finally:
        server.terminate()
        server.wait(timeout=10)


async def test_the_served_page_puts_the_focus_in_the_terminal_on_load() -> None:
    """The page as served: textual-serve's, with the script that focuses the terminal once, before </body>."""
    port = free_port()
    server, url = start_web(port, sys.executable, "-m", "rea_tui.server", "--synthetic", "50")
    try:
        await wait_listening(port)
        jar = aiohttp.CookieJar(unsafe=True)
        async with aiohttp.ClientSession(cookie_jar=jar) as client, client.get(url) as response:
            page = await response.text()
        assert page.count(".xterm-helper-textarea") == 1
        assert page.index("focusTerminal") < page.rindex("</body>")
        assert 'id="terminal"' in page  # textual-serve's own page, still whole
    finally:
        server.terminate()
        server.wait(timeout=10)
