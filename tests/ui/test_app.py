"""The real app, driven headless with Pilot, against real server processes."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from rich.style import Style
from textual.binding import Binding
from textual.widgets import Tabs

from rea_tui.host import FormTarget
from rea_tui.ui.app import ReaApp
from rea_tui.ui.widgets.argument_form import ArgumentForm
from rea_tui.ui.widgets.dropdown import EMPTY_MESSAGE
from rea_tui.ui.widgets.sidebar import ServerTree
from rea_tui.ui.widgets.workflow_view import WorkflowView
from tests.conftest import REPO, raw_spec, sample_spec
from tests.support.pilot import make_app, ready, screen_text, sent, wait_for

SIZE = (160, 48)


async def open_prompt(pilot, app: ReaApp, name: str, server: str = "sample") -> ArgumentForm:  # type: ignore[no-untyped-def]
    from rea_tui.ui.messages import NodeRef

    tree = app.query_one(ServerTree)
    assert tree.select_ref(NodeRef("prompt", server, name))
    form = app.query_one(ArgumentForm)
    await wait_for(pilot, lambda: form.target == FormTarget("prompt", server, name), what=f"form for {name}")
    await pilot.pause()
    return form


def footer_text(field) -> str:  # type: ignore[no-untyped-def]
    return str(field.dropdown.footer.render())


async def test_prompt_list_shows_titles_argument_counts_and_required_marks() -> None:
    app = make_app([sample_spec("auto")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        text = screen_text(app)
        assert "Review code  2 args, 1*" in text
        tree = app.query_one(ServerTree)
        # The label as drawn: the title, then its counts (kept whole when the title has to give way).
        labels = [tree.render_label(n, Style(), Style()).plain for n in tree.root.children[0].children[0].children]
        assert labels == ["Review code  2 args, 1*", "Investigate a procedure  3 args, 1*"]
        assert "Tools (8)" in text and "Templates (1)" in text
        assert "protocol 2026-07-28" in text and "✓ completions" in text


async def test_dropdown_opens_on_focus_narrows_with_context_and_accepting_only_fills() -> None:
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        form = await open_prompt(pilot, app, "investigate")
        document = form.field("document")
        procedure = form.field("procedure")
        assert document is not None and procedure is not None
        document.input.focus()
        await wait_for(pilot, lambda: document.dropdown.values == ("Helper", "Notes", "libsearch"), what="documents")
        await pilot.press("H")
        await wait_for(pilot, lambda: document.dropdown.values == ("Helper",), what="narrowed documents")
        await pilot.press("enter")  # accepts the highlighted value; renders nothing
        assert document.value == "Helper" and not document.dropdown.is_open
        assert sent(app, "sample", "prompts/get") == 0
        procedure.input.focus()
        await wait_for(
            pilot,
            lambda: procedure.dropdown.values == ("helper_main", "helper_sync", "render_page"),
            what="procedures in Helper",
        )
        last = app.session.completion_log.records[-1]
        assert last.argument == "procedure" and last.context == {"document": "Helper"}
        await pilot.press("down", "down", "up")
        assert procedure.dropdown.highlighted_value() == "helper_sync"
        await pilot.press("end")
        assert procedure.dropdown.highlighted_value() == "render_page"
        await pilot.press("escape")
        assert not procedure.dropdown.is_open and procedure.value == ""
        await pilot.press("r")
        await wait_for(pilot, lambda: procedure.dropdown.values == ("render_page",))
        await pilot.press("tab")
        assert procedure.value == "render_page"
        assert sent(app, "sample", "prompts/get") == 0
        assert sent(app, "sample", "tools/call") == 0


async def test_has_more_footer_and_empty_message() -> None:
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        form = await open_prompt(pilot, app, "investigate")
        document, procedure, feature = form.field("document"), form.field("procedure"), form.field("feature")
        assert document and procedure and feature
        document.input.value = "libsearch"
        procedure.input.focus()
        await wait_for(pilot, lambda: len(procedure.dropdown.values) == 100, what="first page")
        assert footer_text(procedure) == "100 of 250 - keep typing to narrow"
        await pilot.press(*"search_02")
        await wait_for(
            pilot,
            lambda: len(procedure.dropdown.values) == 50 and procedure.dropdown.shown_for == "search_02",
        )
        assert footer_text(procedure) == "50 values"
        # The list's scrollbar follows its new length (the page is painted without laying the screen out).
        assert procedure.dropdown.options.vertical_scrollbar.window_virtual_size == 50
        feature.input.focus()
        # Its reply, not the "asking" line shown until then (a loaded machine shows that first).
        await wait_for(pilot, lambda: feature.dropdown.is_open and footer_text(feature) == EMPTY_MESSAGE)
        assert feature.dropdown.shown_for == ""
        assert feature.dropdown.is_open and feature.dropdown.footer.region.height >= 1


async def test_typing_past_the_field_scrolls_it_and_deleting_brings_the_start_back() -> None:
    # The field repaints on a keystroke without laying out the screen, so it clamps its own scroll.
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        form = await open_prompt(pilot, app, "investigate")
        feature = form.field("feature")
        assert feature is not None
        feature.input.focus()
        await pilot.pause()
        typed = "x" * (feature.input.scrollable_content_region.width + 20)
        await pilot.press(*typed)
        assert feature.value == typed and feature.input.virtual_size.width == len(typed) + 1
        assert feature.input.scroll_x > 0  # the cursor at the end stays in view
        await pilot.press(*["backspace"] * (len(typed) - 2))
        await pilot.pause()
        assert feature.value == "xx" and feature.input.scroll_x == 0


async def test_required_fields_are_checked_before_rendering() -> None:
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        form = await open_prompt(pilot, app, "investigate")
        await pilot.press("ctrl+r")
        await pilot.pause(0.2)
        assert sent(app, "sample", "prompts/get") == 0
        feature = form.field("feature")
        assert feature is not None and feature.has_class("-invalid")
        assert "Fill the required field(s): feature" in screen_text(app)


async def test_render_shows_workflow_with_steps_and_resource_link_opens_into_evidence() -> None:
    app = make_app([sample_spec("auto")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        form = await open_prompt(pilot, app, "investigate")
        feature = form.field("feature")
        assert feature is not None
        feature.input.focus()
        await pilot.press(*"offline search", "escape", "enter")
        view = app.query_one(WorkflowView)
        await wait_for(pilot, lambda: view.workflow is not None, what="workflow")
        assert view.workflow is not None
        assert [s.tool for s in view.workflow.steps] == ["list_documents", "echo", "structured_info"]
        await pilot.pause(0.2)
        assert "Steps (3)" in screen_text(app)
        # The cards come with the guidance under the steps, in the workflow's one scroller.
        view.query(".content-card").first().scroll_visible(animate=False, immediate=True)
        await pilot.pause(0.2)
        assert "resource link" in screen_text(app)
        cards = [card.border_title for card in view.query(".content-card")]
        assert cards == ["resource link", "embedded resource", "image"]
        await pilot.click(".open-link")
        await wait_for(
            pilot, lambda: app.session.ledger.entries and app.session.ledger.entries[-1].finished, what="resource read"
        )
        entry = app.session.ledger.entries[-1]
        assert entry.tool == "resources/read" and entry.arguments == {"uri": "sample://readme"}
        assert "readme" in entry.text()
        assert sent(app, "sample", "tools/call") == 0


async def test_list_changed_refreshes_prompts_and_keeps_selection_and_values() -> None:
    app = make_app([sample_spec("auto")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        form = await open_prompt(pilot, app, "review_code")
        code = form.field("code")
        assert code is not None
        code.input.value = "print('typed before the change')"
        hosted = app.session.hosted("sample")
        assert hosted is not None
        await hosted.connection.request("tools/call", {"name": "add_prompt", "arguments": {"name": "brand_new"}})
        await wait_for(
            pilot, lambda: hosted.catalogs.prompts.get("brand_new") is not None, what="refreshed prompt list"
        )
        await wait_for(pilot, lambda: "brand_new" in screen_text(app), what="the new prompt in the list")
        assert form.target == FormTarget("prompt", "sample", "review_code")
        assert form.field("code").value == "print('typed before the change')"  # type: ignore[union-attr]
        assert "brand_new" in screen_text(app)


async def test_failed_server_shows_stderr_tail_and_retries() -> None:
    app = make_app([raw_spec("exit", name="broken")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        assert app.session.state("broken").status == "exited"
        text = screen_text(app)
        assert "configuration missing, giving up" in text and "f5 to retry" in text
        assert "Traceback" not in text
        started = len(app.session.hosted("broken").connection.traffic)  # type: ignore[union-attr]
        await pilot.press("f5")
        await wait_for(pilot, lambda: len(app.session.hosted("broken").connection.traffic) > started, what="retry")  # type: ignore[union-attr]


async def test_narrow_terminal_switches_to_tabs_without_losing_state() -> None:
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        form = await open_prompt(pilot, app, "review_code")
        form.field("code").input.value = "x = 1"  # type: ignore[union-attr]
        await pilot.resize_terminal(100, 40)
        await pilot.pause(0.2)
        assert app.screen.has_class("-narrow")
        tabs = app.query_one("#pane-tabs", Tabs)
        assert tabs.display and tabs.active == "tab-form"
        assert app.query_one("#sidebar").display is False or not app.query_one("#sidebar").region.width
        await pilot.press("f6")
        assert app.main.pane == "workflow"
        await pilot.press("f6", "f6", "f6")
        assert app.main.pane == "form"
        await pilot.resize_terminal(160, 48)
        await pilot.pause(0.2)
        assert not app.screen.has_class("-narrow")
        assert form.field("code").value == "x = 1"  # type: ignore[union-attr]


async def test_protocol_log_and_completion_inspector_open_from_keys() -> None:
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        form = await open_prompt(pilot, app, "investigate")
        form.field("document").input.focus()  # type: ignore[union-attr]
        await wait_for(
            pilot,
            lambda: app.session.completion_log.records and app.session.completion_log.records[-1].outcome == "shown",
        )
        await pilot.press("ctrl+l")
        await pilot.pause(0.3)
        assert type(app.screen).__name__ == "ProtocolLogScreen"
        assert "completion/complete" in screen_text(app)
        await pilot.press("escape")
        await pilot.press("ctrl+o")
        await pilot.pause(0.3)
        assert type(app.screen).__name__ == "CompletionInspectorScreen"
        assert "document" in screen_text(app)


def test_every_binding_has_an_id_and_a_tooltip() -> None:
    from rea_tui.ui.screens.approval import ApprovalScreen
    from rea_tui.ui.screens.completion_inspector import CompletionInspectorScreen
    from rea_tui.ui.screens.config_input import ConfigInputScreen
    from rea_tui.ui.screens.discovered import DiscoveredServersScreen
    from rea_tui.ui.screens.elicitation import ElicitationScreen, SamplingScreen
    from rea_tui.ui.screens.main import MainScreen
    from rea_tui.ui.screens.narrowing import NarrowingScreen
    from rea_tui.ui.screens.notes import NotesScreen
    from rea_tui.ui.screens.protocol_log import ProtocolLogScreen
    from rea_tui.ui.screens.resource_view import ResourceViewScreen
    from rea_tui.ui.screens.roots import RootsScreen
    from rea_tui.ui.screens.row_actions import RowActionsScreen
    from rea_tui.ui.screens.server_details import ServerDetailsScreen
    from rea_tui.ui.screens.sign_in import SignInScreen
    from rea_tui.ui.screens.tasks import TasksScreen
    from rea_tui.ui.screens.tool_form import ToolFormScreen
    from rea_tui.ui.screens.trust_folder import TrustFolderScreen

    for owner in (
        ReaApp,
        MainScreen,
        ApprovalScreen,
        ElicitationScreen,
        SamplingScreen,
        NarrowingScreen,
        NotesScreen,
        ToolFormScreen,
        ProtocolLogScreen,
        CompletionInspectorScreen,
        ServerDetailsScreen,
        RootsScreen,
        TasksScreen,
        ResourceViewScreen,
        ConfigInputScreen,
        SignInScreen,
        DiscoveredServersScreen,
        TrustFolderScreen,
        RowActionsScreen,
    ):
        for binding in owner.BINDINGS:
            assert isinstance(binding, Binding), (owner, binding)
            assert binding.id and binding.tooltip, (owner, binding)


# Keys a browser keeps for itself: a page served by `rea-tui web` never sees them.
BROWSER_KEYS = {
    "ctrl+n",
    "ctrl+t",
    "ctrl+w",
    "ctrl+r",
    "ctrl+l",
    "ctrl+p",
    "ctrl+s",
    "ctrl+q",
    "f5",
    "f6",
    "f11",
    "f12",
}


def test_every_main_action_has_a_key_a_browser_passes_to_the_page() -> None:
    from rea_tui.ui.screens.main import MainScreen

    for binding in [*ReaApp.BINDINGS, *MainScreen.BINDINGS]:
        assert isinstance(binding, Binding)
        keys = {k.strip() for k in binding.key.split(",")}
        assert keys - BROWSER_KEYS, f"{binding.action}: only browser keys ({keys})"


async def test_an_alt_key_does_what_its_ctrl_twin_does() -> None:
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("alt+l")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ProtocolLogScreen", "the protocol log")
        await pilot.press("escape")
        form = await open_prompt(pilot, app, "review_code")
        code = form.field("code")
        assert code is not None
        code.input.value = "print(1)"
        await pilot.press("alt+r")
        await wait_for(pilot, lambda: sent(app, "sample", "prompts/get") == 1, "prompts/get")


async def test_command_palette_lists_every_action() -> None:
    app = make_app([sample_spec()])
    async with app.run_test(size=SIZE):
        from rea_tui.ui.screens.main import MainScreen

        titles = " ".join(command.title for command in app.get_system_commands(app.screen))
        for binding in [*ReaApp.BINDINGS, *MainScreen.BINDINGS]:
            assert isinstance(binding, Binding)
            if binding.action not in ("quit", "command_palette"):
                assert binding.description in titles, binding.description
        assert "Quit" in titles


@pytest.mark.parametrize("key", ["ctrl+p", "alt+x"])
async def test_the_palette_opens_from_ctrl_p_and_its_browser_twin(key: str) -> None:
    from textual.command import CommandPalette

    app = make_app([sample_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press(key)
        await wait_for(pilot, lambda: CommandPalette.is_open(app), "the command palette")


async def test_hostile_server_text_is_shown_literally() -> None:
    app = make_app([sample_spec("legacy", hostile=True)])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        form = await open_prompt(pilot, app, "review_code")
        description = str(form.query_one("#form-description").render())
        assert "[red]x[/red] [link=http://evil.example]click[/link]" in description
        assert "RED link" in description and "\x1b" not in description
        feature_form = await open_prompt(pilot, app, "investigate")
        feature = feature_form.field("feature")
        assert feature is not None
        feature.input.focus()
        await wait_for(pilot, lambda: len(feature.dropdown.values) == 2)
        # The values as the dropdown's list draws them: the markup as text, never interpreted. (Read from
        # the list, not the exported screen: on a loaded machine the form's own first focus can land after
        # this one and close the dropdown, its values kept.)
        options = feature.dropdown.options
        drawn = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert any("feat [red]x[/red] [link=http://evil.example]click[/link]" in line for line in drawn), drawn
        assert all("\x1b" not in line and "\x07" not in line for line in drawn), drawn
        svg = app.export_screenshot()
        assert "\x1b" not in svg and "\x07" not in svg
        assert "evil.example" not in "".join(a for a in svg.split('href="')[1:2])
        assert form is feature_form


def test_first_frame_paints_before_mcp_is_imported() -> None:
    script = """
import sys, asyncio
from rea_tui.host import ServerSpec, Session
from rea_tui.ui.app import ReaApp
from rea_tui.ui.screens.main import MainScreen
assert "mcp" not in sys.modules, "importing the app imported mcp"
seen = {}
class Probe(MainScreen):
    def on_mount(self):
        seen["mcp at mount"] = "mcp" in sys.modules
        super().on_mount()
class ProbeApp(ReaApp):
    def get_default_screen(self):
        return Probe(self.session, self.settings)
async def main():
    session = Session([ServerSpec(name="x", transport="stdio", command=sys.executable, args=("-c", "pass"))])
    app = ProbeApp(session)
    async with app.run_test() as pilot:
        await pilot.pause(0.01)
asyncio.run(main())
print(seen)
"""
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        env=os.environ.copy(),
    )
    assert result.returncode == 0, result.stderr
    assert "{'mcp at mount': False}" in result.stdout


async def test_several_servers_side_by_side() -> None:
    app = make_app([sample_spec("legacy", name="first"), raw_spec("lint", name="second")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app, "first")
        await ready(pilot, app, "second")
        text = screen_text(app)
        assert "first" in text and "second" in text
        tree = app.query_one(ServerTree)
        assert [n.data.name for n in tree.root.children if n.data] == ["first", "second"]


async def test_the_list_starts_on_the_first_prompt_and_keeps_its_place_when_the_lists_change() -> None:
    """Enter right away opens the first prompt; a refill (list_changed) leaves the cursor where it was."""
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=(160, 48)) as pilot:
        await ready(pilot, app)
        tree = app.query_one(ServerTree)
        hosted = app.session.hosted("sample")
        assert hosted is not None
        first = hosted.catalogs.prompts.items[0].name

        def on(kind: str, name: str) -> bool:
            data = tree.cursor_node.data if tree.cursor_node is not None else None
            return data is not None and (data.kind, data.name) == (kind, name)

        await wait_for(pilot, lambda: on("prompt", first), "the cursor on the first prompt")
        await pilot.press("down")
        second = hosted.catalogs.prompts.items[1].name
        assert on("prompt", second)
        tree.fill_server("sample", hosted.catalogs)  # as after prompts/list_changed
        await pilot.pause()
        assert on("prompt", second)
        await pilot.press("enter")
        form = app.query_one(ArgumentForm)
        await wait_for(pilot, lambda: form.target is not None and form.target.name == second, "its form")
