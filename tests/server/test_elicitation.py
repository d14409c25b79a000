"""run_process_capture asks for confirmation with form elicitation, on both protocol generations."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from typing import Any

import mcp_types as types
import pytest
import pytest_asyncio

from tests.server.live import LiveServer

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


async def test_a_client_without_elicitation_gets_a_not_run_result(no_elicitation: LiveServer) -> None:
    result, _ = await capture(no_elicitation, {})
    assert result["status"] == "not_run" and "confirm=true" in result["reason"]
    confirmed, progress = await capture(no_elicitation, {"confirm": True})
    assert confirmed["status"] == "completed" and confirmed["simulated"] is True and progress


async def test_the_tool_declares_itself_destructive(no_elicitation: LiveServer) -> None:
    tools = {t.name: t for t in (await no_elicitation.client.list_tools()).tools}
    annotations = tools["run_process_capture"].annotations
    assert annotations is not None and annotations.destructive_hint is True and annotations.read_only_hint is False
    assert tools["inspect_procedure"].annotations.read_only_hint is True  # type: ignore[union-attr]
