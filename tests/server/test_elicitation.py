"""run_process_capture: always confirmed through form elicitation, only the startup target, whole group killed.

On both protocol generations: the user is asked on every run (no argument
skips it), a client without form elicitation gets a tool error and nothing
runs, only the executable the server was started with may run (opening
/bin/sh later does not make a shell runnable), and every process the capture
started is dead when it ends.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
import pytest_asyncio

from tests.server.live import REPO, LiveServer

CHILDREN_SCRIPT = str(REPO / "tests" / "support" / "capture_children.py")
DEATH_TIMEOUT_SECONDS = 10.0

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=["legacy", "2026-07-28"])
async def server(request: pytest.FixtureRequest) -> AsyncIterator[LiveServer]:
    """The default target: the running interpreter is the main executable."""
    live = await LiveServer(mode=request.param).start()
    yield live
    await live.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=["legacy", "2026-07-28"])
async def no_elicitation(request: pytest.FixtureRequest) -> AsyncIterator[LiveServer]:
    live = await LiveServer("--synthetic", "100", mode=request.param, elicit=False).start()
    yield live
    await live.stop()


async def capture(server: LiveServer, arguments: dict[str, Any]) -> tuple[dict[str, Any], list[float]]:
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    result = await server.client.call_tool("run_process_capture", arguments, progress_callback=on_progress)
    assert result.is_error is not True, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content, seen


async def test_accept_runs_with_the_elicited_parameters(server: LiveServer) -> None:
    server.elicited.clear()
    server.elicit_answer = types.ElicitResult(
        action="accept",
        content={"arguments": "-c 'print(6 * 7)'", "timeout_seconds": 10, "capture_environment": True},
    )
    result, progress = await capture(server, {"arguments": "--version"})
    assert len(server.elicited) == 1
    form = server.elicited[0]
    assert form.mode == "form" and form.requested_schema["properties"]["arguments"]["default"] == "--version"
    assert set(form.requested_schema["properties"]) == {"arguments", "timeout_seconds", "capture_environment"}
    assert result["schema"] == "rea.process_capture.v4" and result["status"] == "completed"
    assert result["argv"][1:] == ["-c", "print(6 * 7)"] and result["stdout"]["text"] == "42\n"
    assert result["executable"] == os.path.realpath(sys.executable)
    assert result["environment"]["captured"] is True and "PATH" in result["environment"]["keys"]
    assert result["evidence_id"].startswith("E-")
    assert progress, "progress notifications while the process runs"
    captures = await server.complete("capture", "", prompt="trace_crash")
    assert result["evidence_id"] in captures.values


@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_decline_or_cancel_does_not_run(server: LiveServer, action: str) -> None:
    server.elicit_answer = types.ElicitResult(action=action)  # type: ignore[arg-type]
    before = await server.complete("evidence", "")
    result, progress = await capture(server, {"arguments": "-c 'print(1)'"})
    assert result["status"] == "not_run" and result["ran"] is False and action in result["reason"]
    assert "evidence_id" not in result and progress == []
    assert (await server.complete("evidence", "")).values == before.values


async def test_time_and_output_are_capped(server: LiveServer) -> None:
    server.elicit_answer = types.ElicitResult(action="accept", content={})
    slow, _ = await capture(
        server, {"arguments": "-c 'import time; print(1, flush=True); time.sleep(20)'", "timeout_seconds": 1}
    )
    assert slow["status"] == "timed_out" and 900 <= slow["duration_ms"] < 5000
    assert slow["stdout"]["text"] == "1\n"
    loud, _ = await capture(server, {"arguments": "-c \"print('x' * 200000)\"", "timeout_seconds": 10})
    assert loud["stdout"]["truncated"] is True and loud["stdout"]["bytes"] == 200001
    assert len(loud["stdout"]["text"]) == 64 * 1024


async def test_no_shell_is_involved(server: LiveServer) -> None:
    server.elicit_answer = types.ElicitResult(action="accept", content={})
    result, _ = await capture(server, {"arguments": "-c 'import sys; print(sys.argv[1:])' '$HOME; echo hi'"})
    assert result["stdout"]["text"] == "['$HOME; echo hi']\n"


def text_of(result: types.CallToolResult) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


async def test_a_client_without_elicitation_gets_a_tool_error_and_nothing_runs(no_elicitation: LiveServer) -> None:
    before = (await no_elicitation.complete("evidence", "")).values
    refused = await no_elicitation.tool("run_process_capture", {})
    assert refused.is_error is True and "elicitation" in text_of(refused) and "nothing was run" in text_of(refused)
    # There is no argument that skips the question.
    confirm = await no_elicitation.tool("run_process_capture", {"confirm": True})
    assert confirm.is_error is True and "arguments.confirm: unknown argument" in text_of(confirm)
    assert (await no_elicitation.complete("evidence", "")).values == before
    assert (await no_elicitation.complete("capture", "", prompt="trace_crash")).values == []


async def test_targets_opened_later_are_never_run(server: LiveServer, tmp_path: Path) -> None:
    shell = shutil.which("sh")
    assert shell is not None
    copy = tmp_path / "python-copy"
    shutil.copy(os.path.realpath(sys.executable), copy)
    server.elicit_answer = types.ElicitResult(action="accept", content={"arguments": "-c 'echo shell ran'"})
    try:
        for path in (shell, str(copy)):
            opened = await server.structured("open_binary", {"path": path})
            assert opened["main_executable"] == os.path.realpath(path)
            server.elicited.clear()
            refused = await server.tool("run_process_capture", {"arguments": "-c 'echo shell ran'"})
            assert refused.is_error is True and "opened later with open_binary" in text_of(refused), path
            assert server.elicited == [], "a refused capture does not even ask"
    finally:
        await server.structured("open_binary", {"path": "default:"})
    # The interpreter the server started with is the same file again: it may run.
    server.elicit_answer = types.ElicitResult(action="accept", content={"arguments": "-c 'print(1)'"})
    again, _ = await capture(server, {})
    assert again["status"] == "completed" and again["stdout"]["text"] == "1\n"


def dead(pid: int) -> bool:
    """Gone, or a zombie nobody has reaped yet (it runs no code either way)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


async def wait_dead(pid: int) -> bool:
    deadline = time.monotonic() + DEATH_TIMEOUT_SECONDS
    while not dead(pid):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize(("wait", "status"), [(30, "timed_out"), (0, "completed")])
async def test_every_process_the_capture_started_is_killed(server: LiveServer, wait: int, status: str) -> None:
    server.elicit_answer = types.ElicitResult(action="accept", content={})
    result, _ = await capture(server, {"arguments": f"{CHILDREN_SCRIPT} {wait}", "timeout_seconds": 2})
    assert result["status"] == status, result
    found = re.fullmatch(r"child=(\d+) group=(\d+) leader=(\d+)\n", result["stdout"]["text"])
    assert found is not None, result["stdout"]
    child, group, leader = (int(g) for g in found.groups())
    assert group == leader != os.getpgid(0), "the capture runs in a process group of its own"
    assert await wait_dead(child), f"the capture's child {child} outlived it"


async def test_the_tool_declares_itself_destructive(no_elicitation: LiveServer) -> None:
    tools = {t.name: t for t in (await no_elicitation.client.list_tools()).tools}
    annotations = tools["run_process_capture"].annotations
    assert annotations is not None and annotations.destructive_hint is True and annotations.read_only_hint is False
    assert tools["inspect_procedure"].annotations.read_only_hint is True  # type: ignore[union-attr]
