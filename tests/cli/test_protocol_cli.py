"""The CLI on protocol features: tasks, --log-level, instructions, MCP-shaped --json, content summaries.

Against server-everything (pinned, from npm), the FastMCP test server and the
log server of tests/support, each run as a real `rea-tui` subprocess.
"""

from __future__ import annotations

from tests.cli import PYTHON, assert_terminal_safe, rea, rea_many
from tests.support.npm_servers import everything_command

RESEARCH = "simulate-research-query"
FLOOD = ("--", PYTHON, "-m", "tests.support.log_flood_server")
FASTMCP = ("--protocol", "legacy", "--", PYTHON, "-m", "tests.support.fastmcp_server")


def everything() -> tuple[str, ...]:
    return ("--", *everything_command())


def test_tools_json_keeps_execution_and_the_text_says_it_runs_as_a_task() -> None:
    human, machine = rea_many(("tools", *everything()), ("tools", "--json", *everything()))
    assert f"{RESEARCH}  [destructiveHint=false" in human.expect(0).out
    assert "(runs as a task: required)" in human.out
    tools = {t["name"]: t for t in machine.expect(0).json()["tools"]}
    assert tools[RESEARCH]["execution"] == {"taskSupport": "required"}
    # As listed: no key the server did not send.
    assert "outputSchema" not in tools["echo"] and tools["echo"]["title"] == "Echo Tool"


def test_a_task_is_waited_for_with_progress_or_only_started() -> None:
    waited, submitted = rea_many(
        ("call", RESEARCH, "topic=cli", "--yes", *everything()),
        ("call", RESEARCH, "topic=later", "--yes", "--no-wait", "--json", *everything()),
    )
    waited.expect(0)
    assert "Research Report: cli" in waited.out
    assert "task: " in waited.out and "(completed)" in waited.out
    # Not a terminal: the task's stages come as progress lines on stderr.
    assert "simulate-research-query  Gathering sources..." in waited.err
    assert "Research Report" not in waited.err

    result = submitted.expect(0).json()
    task = result["rea"]["task"]
    assert result["task"]["taskId"] == task["taskId"] and task["status"] == "working"
    assert result["rea"]["outcome"] == "task_submitted" and "content" not in result
    assert f"task {task['taskId']} started" in submitted.err
    assert "stops with this command" in submitted.err  # a stdio server's tasks end with it


def test_tasks_command_checks_capabilities_and_reports_errors_as_json() -> None:
    listed, unknown, no_tasks = rea_many(
        ("tasks", "list", *everything()),
        ("tasks", "get", "no-such-task", "--json", *everything()),
        ("tasks", "list", "--json", *FLOOD),
    )
    assert listed.expect(0).out.strip() == "0 tasks"
    failure = unknown.expect(4).json()
    assert failure["error"]["code"] == -32602 and "Task not found" in failure["error"]["message"]
    assert failure["rea"]["exitCode"] == 4
    assert no_tasks.expect(2).json()["rea"]["kind"] == "CapabilityMissing"
    assert "does not offer tasks" in no_tasks.err


def test_log_level_asks_the_server_and_prints_its_messages() -> None:
    run = rea("call", "flood", "count=3", "level=error", "--yes", "--log-level", "warning", "--trace", *FLOOD)
    run.expect(0)
    assert run.trace_methods().count("logging/setLevel") == 1
    lines = [line for line in run.err.splitlines() if " log error flood: " in line]
    assert [line.rsplit(": ", 1)[1] for line in lines] == [f"error message {n} of 3" for n in (1, 2, 3)]
    quiet = rea("call", "flood", "count=3", "level=info", "--yes", "--log-level", "warning", *FLOOD)
    assert "sent 0 log messages" in quiet.expect(0).out  # the server honoured the level
    assert " log " not in quiet.err


def test_servers_show_instructions() -> None:
    human, machine = rea_many(("servers", *FASTMCP), ("servers", "--json", *FASTMCP))
    assert "  instructions:\n    Use ask_reason before anything else." in human.expect(0).out
    [row] = machine.expect(0).json()["servers"]
    assert row["instructions"].startswith("Use ask_reason")
    assert row["serverInfo"]["name"] == "fastmcp-test"
    assert isinstance(row["capabilities"]["tools"], dict)


def test_every_content_type_is_summarised_and_json_keeps_blocks_whole() -> None:
    image, links, reference, image_json = rea_many(
        ("call", "get-tiny-image", "--yes", *everything()),
        ("call", "get-resource-links", "count=2", "--yes", *everything()),
        ("call", "get-resource-reference", "resourceType=Text", "resourceId=2", "--yes", *everything()),
        ("call", "get-tiny-image", "--yes", "--json", *everything()),
    )
    assert "<image image/png, 4,033 bytes>" in image.expect(0).out
    assert "<resource_link demo://resource/dynamic/text/2 text/plain 'Text Resource 2'>" in links.expect(0).out
    assert "<resource demo://resource/dynamic/text/2 (text/plain, " in reference.expect(0).out
    blocks = image_json.expect(0).json()["content"]
    [picture] = [b for b in blocks if b["type"] == "image"]
    assert picture["mimeType"] == "image/png" and len(picture["data"]) > 5_000  # the data, as sent
    for run in (image, links, reference):
        assert_terminal_safe(run)


def test_get_and_read_check_the_capability_first() -> None:
    get, read = rea_many(("get", "anything", "--trace", *FLOOD), ("read", "x://y", "--trace", *FLOOD))
    assert "does not offer prompts" in get.expect(2).err
    assert "does not offer resources" in read.expect(2).err
    assert "prompts/get" not in get.trace_methods() and "resources/read" not in read.trace_methods()


def test_help_names_the_new_options() -> None:
    help_text = rea("call", "--help").expect(0).out
    assert "--no-wait" in help_text and "--log-level" in help_text
    assert "tasks" in rea("--help").expect(0).out
