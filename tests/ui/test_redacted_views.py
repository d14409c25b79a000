"""A configured secret that a server echoes is redacted in every view of it.

The raw server's `echolog` mode writes the secret env value to stderr and in
two log messages (as text, in the logger's name, and nested in JSON data).
Each view is read as it is shown: the protocol log's Traffic, Logs and Server
stderr tabs in the real app, and `--log-level` output of the real CLI. A view
that skips the redaction fails here.
"""

from __future__ import annotations

from textual.widgets import RichLog, TabbedContent

from rea_tui.host import ServerSpec
from rea_tui.host.transports.traffic import REDACTED
from rea_tui.ui.screens.protocol_log import traffic_detail
from tests.cli import PYTHON, REPO, rea, write_config
from tests.conftest import raw_spec
from tests.support.pilot import make_app, ready, wait_for
from tests.support.scenarios import SIZE, screen_named

SECRET = "s3cr3t-token-value"


def echo_spec() -> ServerSpec:
    base = raw_spec("echolog")
    return ServerSpec(**{**base.__dict__, "env": {"API_TOKEN": SECRET}})


def lines_of(log: RichLog) -> str:
    return "\n".join(strip.text for strip in log.lines)


async def test_the_traffic_logs_and_stderr_tabs_show_the_secret_redacted() -> None:
    app = make_app([echo_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        hosted = app.session.hosted("raw-echolog")
        assert hosted is not None
        connection = hosted.connection
        await wait_for(pilot, lambda: connection.log.total >= 2, "the log messages")
        await pilot.press("ctrl+l")
        screen = await screen_named(pilot, "ProtocolLogScreen")
        tabs = screen.query_one("#protocol-tabs", TabbedContent)
        shown: dict[str, str] = {}

        # Traffic: the detail the tab shows for each log notification.
        entries = [e for e in connection.traffic.entries() if e.method == "notifications/message"]
        assert len(entries) == 2
        shown["traffic"] = "\n".join(traffic_detail(e).plain for e in entries)

        tabs.active = "logs-pane"
        logs = screen.query_one("#logs-log", RichLog)
        await wait_for(pilot, lambda: "using token" in lines_of(logs), "the Logs tab")
        await wait_for(pilot, lambda: "Authorization" in lines_of(logs), "the second message")
        shown["logs tab"] = lines_of(logs)
        shown["log records"] = "\n".join(f"{r.logger} {r.text}" for r in connection.log.records)

        tabs.active = "stderr-pane"
        stderr = screen.query_one("#stderr-log", RichLog)
        await wait_for(pilot, lambda: "using token" in lines_of(stderr), "the stderr tab")
        shown["stderr tab"] = lines_of(stderr)

        for view, text in shown.items():
            assert SECRET not in text, f"{view} shows the secret:\n{text}"
            assert REDACTED in text, f"{view} shows no redaction mark:\n{text}"


def test_log_level_output_of_the_cli_shows_the_secret_redacted(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    entry = {
        "command": PYTHON,
        "args": ["-m", "tests.support.raw_server", "echolog"],
        "cwd": str(REPO),
        "env": {"API_TOKEN": SECRET},
    }
    config = write_config(tmp_path / "servers.json", {"mcpServers": {"echo": entry}})
    run = rea("--config", str(config), "--server", "echo", "--log-level", "debug", "--trace", "tools").expect(0)
    log_lines = [line for line in run.err.splitlines() if " log warning " in line]
    assert len(log_lines) == 2, run.err
    assert "using token" in log_lines[0] and "Authorization" in log_lines[1], run.err
    assert SECRET not in run.err + run.out
    assert all(line.count(REDACTED) == 2 for line in log_lines), log_lines
