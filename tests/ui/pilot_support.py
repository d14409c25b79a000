"""Helpers for driving the real app headless."""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import Callable

from textual.pilot import Pilot

from rea_tui.ui.app import ReaApp


async def until(pilot: Pilot[int], condition: Callable[[], object], timeout: float = 10.0, what: str = "") -> None:
    """Let the app run until `condition()` is true."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        await pilot.pause(0.05)


async def ready(pilot: Pilot[int], app: ReaApp, server: str | None = None) -> None:
    name = server or app.specs[0].name
    await until(pilot, lambda: app.servers[name].status in ("ready", "failed", "exited"), 30, f"{name} to connect")
    await pilot.pause(0.1)


def sent(app: ReaApp, server: str, method: str) -> int:
    hosted = app.servers[server].hosted
    assert hosted is not None
    return len(hosted.connection.traffic.requests_sent(method))


def screen_text(app: ReaApp) -> str:
    """Everything the current screen shows, as plain text (from the SVG export)."""
    svg = app.export_screenshot()
    body = svg[svg.index("<g class=") :] if "<g class=" in svg else svg
    text = re.sub(r"</text>", "", body)
    text = re.sub(r"<[^>]+>", "", text)
    return html.unescape(text).replace("\xa0", " ")
