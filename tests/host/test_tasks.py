"""Task-augmented tool calls (MCP 2025-11-25 tasks) against server-everything, pinned from npm.

Its `simulate-research-query` requires task augmentation (`execution.taskSupport`
"required"): called plainly it fails with -32601; rea-tui calls it as a task,
polls `tasks/get`, answers the elicitation that `input_required` brings on
`tasks/result`, cancels it with `tasks/cancel`, and lists it with `tasks/list`,
over stdio, streamable HTTP and the legacy SSE transport.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from rea_tui.host import (
    ElicitationAnswer,
    ElicitationRequest,
    EvidenceLedger,
    HostedServer,
    ServerSpec,
    get_task,
    list_tasks,
    run_tool_call,
    task_result,
    task_support,
)
from tests.support.everything_http import everything_url
from tests.support.npm_servers import everything_command

RESEARCH = "simulate-research-query"


def everything_spec() -> ServerSpec:
    command, *args = everything_command()
    return ServerSpec(name="everything", transport="stdio", command=command, args=tuple(args))


async def started(spec: ServerSpec) -> HostedServer:
    hosted = HostedServer(spec, timeout=30)
    await hosted.start()
    return hosted


@pytest.fixture
async def everything() -> AsyncIterator[HostedServer]:
    hosted = await started(everything_spec())
    try:
        yield hosted
    finally:
        await hosted.close()


def sent(hosted: HostedServer, method: str) -> list[dict[str, Any]]:
    return [json.loads(e.payload).get("params", {}) for e in hosted.connection.traffic.requests_sent(method)]


async def call(hosted: HostedServer, name: str, arguments: dict[str, Any], **kwargs: Any) -> Any:
    return await run_tool_call(
        hosted.connection,
        EvidenceLedger(),
        name,
        arguments,
        tool=hosted.catalogs.tools.get(name),
        approval="test",
        **kwargs,
    )


async def test_the_tool_declares_it_runs_as_a_task_and_rea_tui_reads_it(everything: HostedServer) -> None:
    research = everything.catalogs.tools.get(RESEARCH)
    assert research is not None and research.execution == {"taskSupport": "required"}
    assert research.raw["execution"] == {"taskSupport": "required"}
    capabilities = everything.connection.capabilities
    assert task_support(research, capabilities) == "required"
    assert task_support(everything.catalogs.tools.get("echo"), capabilities) == "forbidden"
    # Without the server's tasks.requests.tools.call capability, no tool runs as a task.
    assert task_support(research, {k: v for k, v in capabilities.items() if k != "tasks"}) == "forbidden"


async def test_a_required_task_is_started_polled_and_its_result_fetched(everything: HostedServer) -> None:
    statuses: list[str] = []
    entry = await call(everything, RESEARCH, {"topic": "tasks"}, on_update=lambda e: statuses.append(e.task_status))
    assert entry.outcome == "ok", entry.error
    assert "Research Report: tasks" in entry.text()
    [started_call] = sent(everything, "tools/call")
    assert started_call["task"]["ttl"] > 0 and started_call["arguments"] == {"topic": "tasks"}
    assert len(sent(everything, "tasks/get")) >= 2  # four 1 s stages, polled at the server's pollInterval
    assert [p["taskId"] for p in sent(everything, "tasks/result")] == [entry.task_id]
    assert entry.task_status == "completed" and statuses[0] == "working"
    tracked = everything.connection.tasks.tasks[entry.task_id]
    assert (tracked.tool, tracked.entry_id, tracked.state.status) == (RESEARCH, entry.id, "completed")
    # The stage names come as progress while it runs.
    assert entry.progress is not None and entry.progress.message


async def test_input_required_brings_the_elicitation_on_tasks_result(everything: HostedServer) -> None:
    asked: list[ElicitationRequest] = []

    async def answer(request: ElicitationRequest) -> ElicitationAnswer:
        asked.append(request)
        return ElicitationAnswer("accept", {"interpretation": "snake"})

    everything.connection.elicitation_handler = answer
    entry = await call(everything, RESEARCH, {"topic": "python", "ambiguous": True})
    assert entry.outcome == "ok", entry.error
    assert [r.mode for r in asked] == ["form"] and "python" in asked[0].message
    assert "Research Report: python (snake)" in entry.text()


async def test_cancelling_the_call_cancels_the_task_on_the_server(everything: HostedServer) -> None:
    ledger = EvidenceLedger()
    running = asyncio.ensure_future(
        run_tool_call(
            everything.connection,
            ledger,
            RESEARCH,
            {"topic": "long"},
            tool=everything.catalogs.tools.get(RESEARCH),
            approval="test",
        )
    )
    board = everything.connection.tasks
    for _ in range(200):
        await asyncio.sleep(0.02)
        if board.running:
            break
    [task] = board.running
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert [p["taskId"] for p in sent(everything, "tasks/cancel")] == [task.task_id]
    assert board.tasks[task.task_id].state.status == "cancelled"
    assert ledger.entries[0].outcome == "cancelled"
    # The server says so too, and lists it.
    assert (await get_task(everything.connection, task.task_id)).status == "cancelled"
    assert task.task_id in [t.task_id for t in await list_tasks(everything.connection)]


async def test_not_waiting_leaves_the_task_to_fetch_later(everything: HostedServer) -> None:
    entry = await call(everything, RESEARCH, {"topic": "later"}, wait=False)
    assert entry.outcome == "task_submitted" and entry.task_id
    assert entry.result == {"task": everything.connection.tasks.tasks[entry.task_id].state.raw}
    assert not sent(everything, "tasks/get")
    result = await task_result(everything.connection, entry.task_id)  # it blocks until the task ends
    assert "Research Report: later" in result["content"][0]["text"]


@pytest.mark.parametrize("mode", ["streamableHttp", "sse"])
async def test_tasks_over_http_transports(mode: str) -> None:
    with everything_url(mode) as url:
        hosted = await started(
            ServerSpec(name=f"everything-{mode}", transport="http" if mode != "sse" else "sse", url=url)
        )
        try:
            entry = await call(hosted, RESEARCH, {"topic": mode})
            assert entry.outcome == "ok", entry.error
            assert f"Research Report: {mode}" in entry.text()
            assert sent(hosted, "tasks/get") and sent(hosted, "tasks/result")
        finally:
            await hosted.close()
