"""The TUI's start: the prompt list shows, and opens, while the server's session is still coming up.

As `rea-tui` does, the server is started before the app (`started`), so its
lists are asked for while the SDK loads (host/early_lists.py); the relay
(tests/support/slow_opening.py) holds the session's opening back so the
connection is still coming up, every time, while the test works the form.
With the server's SDK held at an import gate instead, its target opens only
when the test opens the gate, and the form's description follows it.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from textual.widgets import Static

from rea_tui.host import Session, start_server_process
from rea_tui.ui.app import create_app
from rea_tui.ui.messages import NodeRef
from rea_tui.ui.settings import AppSettings
from rea_tui.ui.widgets.argument_form import ArgumentForm
from rea_tui.ui.widgets.sidebar import ServerTree
from tests.support.import_gate import gated_environment
from tests.support.pilot import wait_for
from tests.support.scenarios import SERVER, reference_spec
from tests.support.slow_opening import HOLD_SECONDS, slow_reference_spec

FIRST_PROMPT = "investigate_feature"


async def test_the_prompt_list_opens_before_the_server_is_ready_and_no_key_is_lost() -> None:
    spec = slow_reference_spec(SERVER)
    session = Session([spec], timeout=30.0, started={spec.name: start_server_process(spec)}, remember_protocols=False)
    app = create_app(session, settings=AppSettings())
    async with app.run_test(size=(160, 48)) as pilot:
        tree = app.query_one(ServerTree)

        def cursor_on_first_prompt() -> bool:
            data = tree.cursor_node.data if tree.cursor_node is not None else None
            return data is not None and (data.kind, data.name) == ("prompt", FIRST_PROMPT)

        await wait_for(pilot, cursor_on_first_prompt, "the early prompt list, cursor on its first prompt", HOLD_SECONDS)
        assert session.state(SERVER).status == "connecting"
        await pilot.press("enter", *"offline search")
        form = app.query_one(ArgumentForm)
        await wait_for(pilot, lambda: form.target is not None and form.target.name == FIRST_PROMPT, "its form")
        feature = form.field("feature")
        assert feature is not None
        await wait_for(pilot, lambda: feature.value == "offline search", "what was typed, in its first field")
        assert session.state(SERVER).status == "connecting"
        await wait_for(pilot, lambda: session.state(SERVER).status == "ready", "the session", HOLD_SECONDS + 20)
        assert feature.value == "offline search"
        document = form.field("document")
        assert document is not None
        document.input.focus()
        # Asked while it connected or after: completion answers from the session either way.
        await wait_for(pilot, lambda: bool(document.dropdown.values), "the documents")


async def test_a_form_opened_while_the_target_opens_takes_the_servers_fresh_description(tmp_path: Path) -> None:
    # The server's SDK is held at an import gate: its early lists say the target is still opening, and
    # the target opens (announced with list_changed) once the gate opens.
    gate = tmp_path / "sdk-gate"
    spec = replace(reference_spec(10), env=gated_environment("gate_sdk", gate))
    session = Session([spec], timeout=30.0, started={spec.name: start_server_process(spec)}, remember_protocols=False)
    app = create_app(session, settings=AppSettings())
    async with app.run_test(size=(160, 48)) as pilot:
        tree = app.query_one(ServerTree)
        await wait_for(pilot, lambda: tree.find(NodeRef("prompt", SERVER, FIRST_PROMPT)), "the early prompt list")
        await pilot.press("enter", *"offline search")
        form = app.query_one(ArgumentForm)
        description = form.query_one("#form-description", Static)
        await wait_for(pilot, lambda: "(still opening)" in str(description.render()), "the early description")
        gate.touch()
        await wait_for(pilot, lambda: "(still opening)" not in str(description.render()), "the fresh one")
        assert "Active target: synthetic" in str(description.render())
        feature = form.field("feature")
        assert feature is not None and feature.value == "offline search", "the fields, and what was typed, stay"
