"""Keys typed at once after starting, before the first prompt is listed, are for that prompt.

rea-tui starts on the first prompt: enter opens it and typed text goes to its
first empty field. Before a server has listed anything, the only rows are the
servers', and the keys went nowhere; they now wait for the first entry.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

from rea_tui.host import ServerSpec
from rea_tui.ui.widgets.argument_form import ArgumentForm, ArgumentInput
from rea_tui.ui.widgets.sidebar import ServerTree
from tests.conftest import REPO, sample_spec
from tests.support.import_gate import GATE_ENVIRONMENT, SUPPORT
from tests.support.pilot import make_app, wait_for
from tests.support.scenarios import SIZE


def held_sample(gate: Path) -> ServerSpec:
    """The sample server, its SDK import held until `gate` exists: it lists nothing till then."""
    env = {"PYTHONPATH": f"{SUPPORT / 'gate_sdk'}{os.pathsep}{REPO}", GATE_ENVIRONMENT: str(gate)}
    return dataclasses.replace(sample_spec("legacy"), env=env)


def focused_text(app: object) -> str | None:
    focused = app.focused  # type: ignore[attr-defined]
    return focused.value if isinstance(focused, ArgumentInput) else None


async def test_enter_and_text_typed_before_anything_is_listed_open_the_first_prompt(tmp_path: Path) -> None:
    gate = tmp_path / "sdk-gate"
    app = make_app([held_sample(gate)])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter", *"main loop")
        tree = app.query_one(ServerTree)
        assert app.session.state("sample").status == "connecting"
        assert all(not section.children for server in tree.root.children for section in server.children)
        gate.touch()
        await wait_for(pilot, lambda: focused_text(app) == "main loop", "the text in the first prompt's field")
        form = app.query_one(ArgumentForm)
        assert form.target is not None and form.target.name == "review_code"
        # Nothing was typed twice, and later keys go where the analyst is.
        await pilot.press("!")
        assert focused_text(app) == "main loop!"


async def test_keys_held_for_a_server_that_fails_go_to_its_row(tmp_path: Path) -> None:
    """No entry will come: the held keys go on as typed (enter on the failed server shows why)."""
    broken = ServerSpec(name="broken", transport="stdio", command=sys.executable, args=("-c", "raise SystemExit(3)"))
    app = make_app([broken])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter", *"abc")
        await wait_for(pilot, lambda: app.session.state("broken").status in ("failed", "exited"), "the failure")
        await wait_for(pilot, lambda: app.screen._held_keys is None, "the held keys sent on")  # type: ignore[attr-defined]
        assert app.query_one(ServerTree).has_focus


# A fresh interpreter, where the SDK is not loaded yet: the bundled server lists its prompts early, before
# the host's SDK has loaded, so the held keys open the prompt while the SDK loads in a thread and the form's
# first requests wait for it (tests/host/test_sdk_loader.py holds that import to check they never import it
# on the event loop, which deadlocked the two and failed the connection).
FRESH_START = """
import asyncio, sys
from tests.support.pilot import make_app, wait_for
from rea_tui.host import bundled_server_spec
from rea_tui.ui.widgets.argument_form import ArgumentInput

async def main():
    assert "mcp" not in sys.modules
    app = make_app([bundled_server_spec()])
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("enter", *"offline search")
        name = app.session.names[0]
        await wait_for(pilot, lambda: app.session.state(name).status != "connecting", "the connection", 60)
        await wait_for(pilot, lambda: isinstance(app.focused, ArgumentInput), "the form", 30)
        print(app.session.state(name).status, repr(app.focused.value))
        await app.action_quit()

asyncio.run(main())
"""


def test_on_a_fresh_start_the_typed_prompt_opens_while_the_sdk_loads() -> None:
    result = subprocess.run([sys.executable, "-c", FRESH_START], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().splitlines()[-1] == "ready 'offline search'"
