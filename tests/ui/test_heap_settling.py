"""The app keeps long-lived objects out of full garbage collections, stage by stage (ui.runtime.settle_heap).

Without the stage at the SDK's load, the collections while a 5,000-tool server's
pages came in scanned Textual and the SDK each time: 55 to 90 ms frames.
Each case runs in a fresh interpreter (the stages are once per process).
"""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO

SCRIPT = """
import asyncio, gc, sys, time
from rea_tui.host import ServerSpec, Session
from rea_tui.ui.app import create_app
from rea_tui.ui.settings import AppSettings

# A server that never answers: the app loads the SDK, then waits for `initialize`.
MUTE = ServerSpec(name="mute", transport="stdio", command=sys.executable, args=("-c", "import time; time.sleep(60)"))


def tracked(thing):
    return any(o is thing for o in gc.get_objects())


async def main():
    app = create_app(Session([MUTE], timeout=60.0), settings=AppSettings())
    async with app.run_test() as pilot:
        await pilot.pause()
        from textual.app import App
        print("textual frozen at start", not tracked(App))
        deadline = time.monotonic() + 30
        while "mcp.shared.subscriptions" not in sys.modules and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        from mcp.client.session import ClientSession
        while tracked(ClientSession) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        print("sdk frozen while connecting", not tracked(ClientSession), app.session.state("mute").status)
        await app.action_quit()


asyncio.run(main())
"""


def test_textual_and_then_the_sdk_are_settled_before_any_catalog_arrives() -> None:
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, cwd=REPO, timeout=90)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "textual frozen at start True",
        "sdk frozen while connecting True connecting",
    ]
