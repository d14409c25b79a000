"""Driving the real app headless: building it, waiting on it, reading what it shows.

`wait_for` is the one way tests wait for the app; `make_app` builds the app
the way `rea-tui` does (a host `Session` and the app around it).
"""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from textual import events
from textual.pilot import Pilot

from rea_tui.host import ReplayPlan, ServerSpec, Session, new_transcript_path
from rea_tui.ui.app import ReaApp, create_app
from rea_tui.ui.settings import AppSettings

# What snapshots and screenshots run with: no timings, no machine details, no blinking cursor.
TEST_SETTINGS_FILE = Path(__file__).with_name("settings.json")
DEFAULT_WAIT = 30.0


def snapshot_settings() -> AppSettings:
    return AppSettings.load(TEST_SETTINGS_FILE)


def make_app(
    specs: Iterable[ServerSpec],
    *,
    transcript: Path | bool | None = True,
    settings: AppSettings | None = None,
    replay: ReplayPlan | None = None,
    offline: bool = False,
    timeout: float = 30.0,
) -> ReaApp:
    """The app on a fresh session. `transcript`: True for a new one in the sessions folder, None for none."""
    # An offline replay records nothing.
    fresh = new_transcript_path() if transcript is True else None if transcript is False else transcript
    path = None if offline else fresh
    session = Session(specs, timeout=timeout, transcript=path)
    return create_app(session, settings=settings or AppSettings(), replay=replay, offline=offline)


async def wait_for(
    pilot: Pilot[Any], condition: Callable[[], object], what: str = "", timeout: float = DEFAULT_WAIT
) -> None:
    """Let the app run until `condition()` holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        await pilot.pause(0.02)


async def ready(pilot: Pilot[Any], app: ReaApp, server: str | None = None) -> None:
    """Wait until the server (the first by default) is connected, or has failed."""
    name = server or app.session.names[0]
    await wait_for(
        pilot,
        lambda: (
            app.session.state(name).status in ("ready", "failed", "exited") and not app.session.reading_target(name)
        ),
        f"{name} to connect (and its target to be read)",
        30,
    )
    await pilot.pause(0.1)


def sent(app: ReaApp, server: str, method: str) -> int:
    hosted = app.session.hosted(server)
    assert hosted is not None
    return len(hosted.connection.traffic.requests_sent(method))


def screen_text(app: ReaApp) -> str:
    """Everything the current screen shows, as plain text (from the SVG export)."""
    svg = app.export_screenshot()
    body = svg[svg.index("<g class=") :] if "<g class=" in svg else svg
    text = re.sub(r"</text>", "", body)
    text = re.sub(r"<[^>]+>", "", text)
    return html.unescape(text).replace("\xa0", " ")


def terminal_key(key: str) -> events.Key:
    """A key as a terminal's input thread posts it to the app: `key` names it, one letter is also its character."""
    return events.Key(key, key if len(key) == 1 else None)
