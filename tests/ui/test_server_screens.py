"""The TUI's screens for a server: details (f2), the Logs tab, the live resource view (f4), sign-in (f9),
`${input:NAME}` dialogs, discovered servers (f12) and the completion audit, driven by keyboard against real
servers (the FastMCP test server, server-everything, the log server, the OAuth server, the audit server).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Input, Select, Static, TabbedContent, TextArea

from rea_tui.host import ServerSpec
from tests.conftest import REPO
from tests.host.test_protocol_features import flood_spec
from tests.host.test_tasks import everything_spec
from tests.support.pilot import make_app, screen_text, wait_for
from tests.support.scenarios import SIZE, click, connected, screen_named
from tests.ui.test_protocol_ui import fastmcp_app, traffic_methods


async def test_server_details_show_instructions_set_the_log_level_and_edit_roots(tmp_path: Path) -> None:
    app = fastmcp_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await pilot.press("f2")
        screen = await screen_named(pilot, "ServerDetailsScreen")
        shown = screen_text(app)
        assert "Use ask_reason before anything else." in shown
        assert "fastmcp-test 4.2.3" in shown and "none offered" in shown
        level = screen.query_one("#server-details-level", Select)
        level.value = "warning"
        await wait_for(pilot, lambda: "logging/setLevel" in traffic_methods(app, "fastmcp"), "logging/setLevel")
        hosted = app.session.hosted("fastmcp")
        assert hosted is not None and hosted.connection.log.level == "warning"

        await pilot.press("r")
        roots = await screen_named(pilot, "RootsScreen")
        editor = roots.query_one("#roots-text", TextArea)
        editor.text = f"{tmp_path}  # work\nhttps://example.com/not-a-folder"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "file:// URIs" in screen_text(app), "the bad line named")
        editor.text = f"{tmp_path}  # work"
        await pilot.press("ctrl+s")
        await screen_named(pilot, "ServerDetailsScreen")
        await wait_for(
            pilot, lambda: "notifications/roots/list_changed" in traffic_methods(app, "fastmcp"), "the roots change"
        )
        assert [r.to_json() for r in hosted.connection.roots.items] == [{"uri": tmp_path.as_uri(), "name": "work"}]
        await wait_for(pilot, lambda: tmp_path.as_uri() in screen_text(app), "the roots in the details")
        # The server asks for them (roots/list) and gets the new ones.
        entry = await app.session.call_tool("fastmcp", "show_roots", {}, approval="test")
        assert entry.structured == {"result": [f"{tmp_path.as_uri()} work"]}


async def test_the_logs_tab_lists_every_level() -> None:
    app = make_app([flood_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        hosted = app.session.hosted("flood")
        assert hosted is not None
        for level, count in (("debug", 2), ("warning", 1), ("critical", 1)):
            await app.session.call_tool("flood", "flood", {"count": count, "level": level}, approval="test")
        await pilot.press("ctrl+l")
        screen = await screen_named(pilot, "ProtocolLogScreen")
        screen.query_one("#protocol-tabs", TabbedContent).active = "logs-pane"
        await wait_for(pilot, lambda: "critical message 1 of 1" in screen_text(app), "the Logs tab")
        shown = screen_text(app)
        assert "debug message 2 of 2" in shown and "warning message 1 of 1" in shown
        assert "4 messages: 2 debug, 1 warning, 1 critical" in shown
        level = screen.query_one("#logs-level", Select)
        level.value = "warning"
        await wait_for(pilot, lambda: "debug message" not in screen_text(app), "debug messages filtered out")
        assert "critical message 1 of 1" in screen_text(app)


async def test_the_resource_view_subscribes_and_reads_again_on_each_update() -> None:
    from rea_tui.ui.messages import NodeRef
    from rea_tui.ui.widgets.sidebar import ServerTree

    document = "demo://resource/static/document/features.md"
    app = make_app([everything_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        tree = app.main.query_one(ServerTree)
        ref = NodeRef("resource", "everything", document)
        assert tree.select_ref(ref, move_only=True)  # expands the Resources section
        await pilot.pause()
        assert tree.select_ref(ref, move_only=True)  # now its lines are laid out: the cursor goes there
        await wait_for(pilot, lambda: tree.cursor_node is not None and tree.cursor_node.data == ref, "the cursor")
        await pilot.press("f4")
        screen = await screen_named(pilot, "ResourceViewScreen")
        await wait_for(pilot, lambda: "read 1 time" in screen_text(app), "the first read")
        assert "not subscribed" in screen_text(app) and "<resource demo://resource/static/document/features.md" in (
            screen_text(app)
        )
        await pilot.press("s")
        await wait_for(pilot, lambda: "   subscribed" in screen_text(app), "the subscription")
        assert "resources/subscribe" in traffic_methods(app, "everything")
        await app.session.call_tool("everything", "toggle-subscriber-updates", {}, approval="test")
        await wait_for(pilot, lambda: "1 update from the server" in screen_text(app), "the update")
        await wait_for(pilot, lambda: "read 2 times" in screen_text(app), "the second read")
        # Closed, the view misses nothing: the session counts the next update and reads the resource again.
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.main, "the main screen")
        watched = app.session.resources.get("everything", document)
        # server-everything sends an update every 5 s while its updates are on.
        await wait_for(pilot, lambda: watched.updates >= 2 and watched.reads >= 3, "an update while closed", 30)
        tree.select_ref(ref, move_only=True)  # the cursor on it again, as above
        await pilot.pause()
        await pilot.press("f4")
        await screen_named(pilot, "ResourceViewScreen")
        await wait_for(pilot, lambda: f"{watched.updates} updates from the server" in screen_text(app), "the count")
        assert "   subscribed" in screen_text(app) and "0 updates" not in screen_text(app)
        screen = app.screen
        await pilot.press("s")
        await wait_for(pilot, lambda: "not subscribed" in screen_text(app), "the unsubscription")
        assert "resources/unsubscribe" in traffic_methods(app, "everything")
        assert screen is app.screen


@pytest.fixture
def protected_url(monkeypatch: pytest.MonkeyPatch) -> Any:
    from tests.conftest import start_http_server

    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    # The person at the browser: it follows the authorization server's redirect back to rea-tui.
    monkeypatch.setenv("BROWSER", f"{sys.executable} {REPO / 'tests' / 'support' / 'headless_signin.py'} %s")
    process, url = start_http_server(
        ["-m", "tests.support.oauth_server", "--http", "127.0.0.1:0"], r"listening on (http://\S+)"
    )
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


async def test_a_server_that_needs_oauth_says_so_and_f9_signs_in_and_reconnects(protected_url: str) -> None:
    app = make_app([ServerSpec(name="protected", transport="http", url=protected_url)])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        assert app.session.state("protected").status == "failed"
        await wait_for(pilot, lambda: "Press f9 to sign in" in screen_text(app), "the sign-in hint")
        assert "authorization needed" in screen_text(app)
        await pilot.press("f9")
        await wait_for(pilot, lambda: app.session.state("protected").status == "ready", "signed in and connected", 60)
        assert type(app.screen).__name__ == "MainScreen"
        entry = await app.session.call_tool("protected", "whoami", {}, approval="test")
        assert entry.outcome == "ok", entry.error


async def test_f9_with_no_browser_says_so_and_shows_the_url(
    protected_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import webbrowser

    monkeypatch.setenv("BROWSER", "/nonexistent/browser")
    # webbrowser reads $BROWSER once per process: forget what an earlier test's sign-in registered.
    monkeypatch.setattr(webbrowser, "_tryorder", None)
    monkeypatch.setattr(webbrowser, "_browsers", {})
    app = make_app([ServerSpec(name="protected", transport="http", url=protected_url)])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await wait_for(pilot, lambda: "Press f9 to sign in" in screen_text(app), "the sign-in hint")
        await pilot.press("f9")
        await wait_for(pilot, lambda: "No browser was found" in screen_text(app), "no browser said", 30)
        assert "/authorize?" in screen_text(app) and "Your browser was sent here" not in screen_text(app)


async def test_an_input_variable_is_asked_in_a_dialog_before_its_server_starts(tmp_path: Path) -> None:
    from rea_tui.host import DeferredInputs, Session
    from rea_tui.host.config.config import parse_config
    from rea_tui.ui.app import create_app
    from rea_tui.ui.settings import AppSettings

    inputs = DeferredInputs()
    config = {
        "inputs": [{"type": "promptString", "id": "sample-token", "description": "Sample token", "password": True}],
        "servers": {
            "sample": {
                "command": sys.executable,
                "args": ["-m", "tests.support.sample_server"],
                "cwd": str(REPO),
                "env": {"SAMPLE_API_TOKEN": "${input:sample-token}"},
            }
        },
    }
    [spec] = parse_config(config, resolver=inputs)
    session = Session([spec], transcript=None, inputs=inputs)
    app = create_app(session, settings=AppSettings())
    async with app.run_test(size=SIZE) as pilot:
        dialog = await screen_named(pilot, "ConfigInputScreen")
        shown = screen_text(app)
        assert "sample needs a value for ${input:sample-token}" in shown and "Sample token" in shown
        value = dialog.query_one("#config-input-value", Input)
        assert value.password
        await pilot.press(*"s3cret-value", "enter")
        await connected(pilot)
        assert app.session.state("sample").status == "ready"
        started = app.session.spec("sample")
        assert started.env["SAMPLE_API_TOKEN"] == "s3cret-value"
        assert "s3cret-value" in started.secret_values()
        assert "s3cret-value" not in screen_text(app)


async def test_cancelling_the_input_dialog_leaves_the_server_unstarted() -> None:
    from rea_tui.host import DeferredInputs, Session
    from rea_tui.host.config.config import parse_config
    from rea_tui.ui.app import create_app
    from rea_tui.ui.settings import AppSettings

    inputs = DeferredInputs()
    [spec] = parse_config(
        {
            "servers": {
                "sample": {"command": sys.executable, "args": ["-m", "tests.support.sample_server", "${input:flag}"]}
            }
        },
        resolver=inputs,
    )
    app = create_app(Session([spec], transcript=None, inputs=inputs), settings=AppSettings())
    async with app.run_test(size=SIZE) as pilot:
        await screen_named(pilot, "ConfigInputScreen")
        await pilot.press("escape")
        await connected(pilot)
        assert app.session.state("sample").status == "failed"
        assert app.session.hosted("sample") is None  # nothing was started
        await wait_for(pilot, lambda: "needs ${input:flag}" in screen_text(app), "why it did not start")


async def test_servers_of_other_clients_are_offered_when_nothing_is_configured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rea_tui.host import bundled_server_spec

    home = tmp_path / "home"
    (home / ".cursor").mkdir(parents=True)
    entry = {"command": sys.executable, "args": ["-m", "tests.support.sample_server"], "cwd": str(REPO)}
    (home / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": {"cursor-sample": entry}}))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    app = make_app([bundled_server_spec()])
    app.offer_discovered = True
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: any("Press f12" in str(n.message) for n in app._notifications), "the offer")
        await pilot.press("f12")
        dialog = await screen_named(pilot, "DiscoveredServersScreen")
        assert "cursor-sample" in screen_text(app) and "Cursor" in screen_text(app)
        dialog.query_one("#discovered-list").focus()
        await pilot.press("space")
        await click(pilot, "#discovered-add")
        await wait_for(pilot, lambda: "cursor-sample" in app.session.names, "the server added")
        await wait_for(pilot, lambda: app.session.state("cursor-sample").status == "ready", "it to connect")
        assert app.session.names[0] == "rea (bundled)"  # the bundled server stays


async def test_a_server_its_client_turns_off_is_listed_as_disabled_and_never_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.widgets import SelectionList

    from rea_tui.host import bundled_server_spec
    from tests.support.hostile_folder import MARKING_SERVER

    home, marker = tmp_path / "home", tmp_path / "cursor-off-ran"
    (home / ".cursor").mkdir(parents=True)
    entry = {"command": sys.executable, "args": ["-m", "tests.support.sample_server"], "cwd": str(REPO)}
    off = {"command": sys.executable, "args": ["-c", MARKING_SERVER, str(marker)], "cwd": str(REPO), "disabled": True}
    servers = {"cursor-sample": entry, "cursor-off": off}
    (home / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    app = make_app([bundled_server_spec()])
    app.offer_discovered = True
    async with app.run_test(size=SIZE) as pilot:
        # Offered: only the one that can run.
        await wait_for(
            pilot, lambda: any("1 servers are set up" in str(n.message) for n in app._notifications), "offer"
        )
        await pilot.press("f12")
        dialog = await screen_named(pilot, "DiscoveredServersScreen")
        await wait_for(pilot, lambda: "cursor-off" in screen_text(app), "the list")
        shown = screen_text(app)
        # The screenshot's text drops the spaces between styled runs: compared without whitespace.
        compact = "".join(shown.split())
        assert 'disabledcursor-off"disabled":truein' in compact and "rea-tuidoesnotstartit" in compact
        # Even every row selected at once, the disabled one is not added.
        dialog.query_one("#discovered-list", SelectionList).select_all()
        await click(pilot, "#discovered-add")
        await wait_for(pilot, lambda: app.session.state("cursor-sample").status == "ready", "the enabled one")
        assert "cursor-off" not in app.session.names
    assert not marker.exists()


async def test_the_completion_inspector_audits_the_selected_server_and_opens_a_finding() -> None:
    app = make_app([everything_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await pilot.press("ctrl+o")
        screen = await screen_named(pilot, "CompletionInspectorScreen")
        await pilot.press("a")
        panel = screen.query_one("#audit-panel")
        await wait_for(pilot, lambda: getattr(panel, "report", None) is not None, "the audit to finish", 60)
        shown = screen_text(app)
        assert "done: " in shown and "1 info" in shown
        assert "info" in shown and "prompt.render" in shown
        table = screen.query_one("#audit-table", DataTable)
        assert table.row_count == 1
        table.focus()
        await pilot.press("home")
        await wait_for(pilot, lambda: "request:" in screen_text(app), "the finding's exchange")
        detail = str(screen.query_one("#audit-detail-text", Static).render())
        assert '"method": "prompts/get"' in detail and '"code": -32603' in detail
        assert "reply:" in detail


async def test_an_audit_is_cancelled_with_c_and_marked_partial() -> None:
    hanging = ServerSpec(
        name="hangs",
        transport="stdio",
        command=sys.executable,
        args=("-m", "tests.support.audit_server", "--hang-all"),
        cwd=str(REPO),
        protocol="legacy",
    )
    app = make_app([hanging])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await pilot.press("ctrl+o")
        screen = await screen_named(pilot, "CompletionInspectorScreen")
        await pilot.press("a")
        await wait_for(pilot, lambda: "c cancels" in screen_text(app) or "auditing" in screen_text(app), "the audit")
        await pilot.pause(0.5)
        started = time.monotonic()
        await pilot.press("c")
        panel = screen.query_one("#audit-panel")
        await wait_for(pilot, lambda: getattr(panel, "report", None) is not None, "the partial report", 15)
        assert time.monotonic() - started < 5
        assert "partial: " in screen_text(app)
        assert "notifications/cancelled" in traffic_methods(app, "hangs")
