"""Headless Chromium driven over the DevTools protocol (aiohttp's websocket client; no other deps)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp

# Seconds the browser gets to exit on SIGTERM before its process group is killed.
STOP_GRACE_SECONDS = 10
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1600,1000",
)


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Page:
    """One browser tab: send commands, collect events."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse, session: str) -> None:
        self._socket = socket
        self._session = session
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.events: list[dict[str, Any]] = []
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self._socket:
            data = json.loads(message.data)
            if "id" in data and data["id"] in self._waiting:
                self._waiting.pop(data["id"]).set_result(data)
            elif "method" in data:
                self.events.append(data)

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        ident = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[ident] = future
        await self._socket.send_json({"id": ident, "method": method, "params": params, "sessionId": self._session})
        reply = await asyncio.wait_for(future, 30)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        result: dict[str, Any] = reply.get("result", {})
        return result

    def websocket_text(self) -> str:
        """Everything the page received over its websockets so far, as text."""
        frames = [
            e["params"]["response"].get("payloadData", "")
            for e in self.events
            if e["method"] == "Network.webSocketFrameReceived"
        ]
        return "".join(frames)

    async def screenshot(self, path: Path) -> Path:
        data = await self.send("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(data["data"]))
        return path

    async def evaluate(self, expression: str) -> Any:
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    def close(self) -> None:
        self._reader.cancel()


@contextlib.asynccontextmanager
async def open_page(url: str) -> AsyncIterator[Page]:
    """Start Chromium, open `url` in a fresh profile, and yield the page; everything stops afterwards."""
    binary = chromium_path()
    if binary is None:
        raise RuntimeError("chromium is not installed (Debian package `chromium`; .ci/run installs it)")
    # Chromium's helpers (zygote, renderer, crashpad) can still write into the profile just after the
    # browser exits: the whole process group is stopped, and a file written after that is no failure.
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        process = subprocess.Popen(
            [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--remote-debugging-port=0", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            assert process.stderr is not None
            endpoint = ""
            for _ in range(200):
                line = await asyncio.to_thread(process.stderr.readline)
                match = re.search(r"DevTools listening on (ws://\S+)", line)
                if match:
                    endpoint = match.group(1)
                    break
            if not endpoint:
                raise RuntimeError("chromium did not start its DevTools endpoint")
            async with aiohttp.ClientSession() as client, client.ws_connect(endpoint, max_msg_size=0) as socket:
                browser = Page(socket, "")
                target = await browser.send("Target.createTarget", url="about:blank")
                attached = await browser.send("Target.attachToTarget", targetId=target["targetId"], flatten=True)
                page = Page.__new__(Page)
                page.__dict__.update(browser.__dict__)
                page._session = attached["sessionId"]
                await page.send("Page.enable")
                await page.send("Network.enable")
                await page.send("Page.navigate", url=url)
                try:
                    yield page
                finally:
                    browser.close()
        finally:
            stop_group(process)


def stop_group(process: subprocess.Popen[str]) -> None:
    """SIGTERM to the browser and its helpers, SIGKILL to what is left after a grace period."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=STOP_GRACE_SECONDS)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
