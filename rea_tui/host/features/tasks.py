"""Task-augmented tool calls (MCP 2025-11-25 tasks): start, poll, fetch the result, cancel, list.

A tool that declares `execution.taskSupport` "required" or "optional", on a
server whose capabilities include `tasks.requests.tools.call`, is called with
a `task` field: the server answers at once with a task (`CreateTaskResult`),
and the call's result comes later from `tasks/result`. rea-tui polls
`tasks/get` at the server's `pollInterval`; when the task needs input
(`input_required`) it asks `tasks/result` at once, since the server delivers
its elicitation requests on that stream. Cancelling the caller sends
`tasks/cancel`. Every task rea-tui started is on its connection's
`TaskBoard`, which the TUI lists.

The SDK defines the task types but not the methods (its tables leave tasks
out), so these go through `Connection.request` as raw requests.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from rea_tui.host.features.task_board import TaskState
from rea_tui.host.protocol.errors import MALFORMED_RESULT, HostError, ProtocolError, RequestTimedOut

if TYPE_CHECKING:
    from rea_tui.host.protocol.connection import Connection
    from rea_tui.host.protocol.models import Tool

TaskSupport = Literal["required", "optional", "forbidden"]
# `_meta` key that ties a message to its task (the spec's "related task").
RELATED_TASK_META = "io.modelcontextprotocol/related-task"
# How long the server is asked to keep a task (ms): long enough to fetch the result of a slow one.
REQUESTED_TTL_MS = 30 * 60 * 1000
# Bound on the tasks/cancel sent while the caller is being cancelled.
CANCEL_TIMEOUT_SECONDS = 5.0
LIST_PAGE_LIMIT = 20


class TaskTimedOut(RequestTimedOut):
    """A task did not end within the time its caller gave it; it was cancelled (`tasks/cancel`)."""

    def __init__(self, task_id: str, timeout: float) -> None:
        HostError.__init__(
            self,
            f"the task {task_id} did not end within {timeout:g} s and was cancelled "
            "(a longer wait: --task-timeout SECONDS)",
        )
        self.method = "tools/call"
        self.timeout = timeout
        self.task_id = task_id


def task_support(tool: Tool | None, capabilities: dict[str, Any]) -> TaskSupport:
    """How a tool may be called: as a task ("required"/"optional") or not ("forbidden").

    The server must declare `tasks.requests.tools.call`; then the tool's own
    `execution.taskSupport` decides (absent means "forbidden").
    """
    tasks = capabilities.get("tasks")
    requests = tasks.get("requests") if isinstance(tasks, dict) else None
    tools = requests.get("tools") if isinstance(requests, dict) else None
    if not isinstance(tools, dict) or not isinstance(tools.get("call"), dict) or tool is None:
        return "forbidden"
    declared = tool.execution.get("taskSupport")
    return declared if declared in ("required", "optional") else "forbidden"


def declares(capabilities: dict[str, Any], operation: Literal["list", "cancel"]) -> bool:
    tasks = capabilities.get("tasks")
    return isinstance(tasks, dict) and isinstance(tasks.get(operation), dict)


def _state(method: str, raw: Any) -> TaskState:
    state = TaskState.parse(raw)
    if state is None:
        message = f"{method}: the reply is not a task (taskId and status are needed)"
        raise ProtocolError(MALFORMED_RESULT, message, reply=raw if isinstance(raw, dict) else None)
    return state


# ---------------------------------------------------------------- the task methods


async def start_task(
    connection: Connection,
    name: str,
    arguments: dict[str, Any],
    *,
    timeout: float | None = None,
    ttl_ms: int | None = REQUESTED_TTL_MS,
) -> TaskState:
    """`tools/call` with a `task` field: the server's task, not yet the result."""
    params: dict[str, Any] = {"name": name, "arguments": arguments, "task": {"ttl": ttl_ms} if ttl_ms else {}}
    raw = await connection.request("tools/call", params, timeout=timeout)
    task = raw.get("task")
    if not isinstance(task, dict):
        # A server may run the call at once despite the task field (it did not accept the augmentation).
        raise TaskNotCreated(raw)
    return _state("tools/call", task)


class TaskNotCreated(Exception):
    """The server answered a task-augmented call with its result directly."""

    def __init__(self, result: dict[str, Any]) -> None:
        super().__init__("the server returned the result instead of a task")
        self.result = result


async def get_task(connection: Connection, task_id: str, *, timeout: float | None = None) -> TaskState:
    return _state("tasks/get", await connection.request("tasks/get", {"taskId": task_id}, timeout=timeout))


async def task_result(connection: Connection, task_id: str, *, timeout: float | None = None) -> dict[str, Any]:
    """`tasks/result`: the underlying call's result (it blocks until the task ends). Clock stops for dialogs."""
    return await connection.request("tasks/result", {"taskId": task_id}, timeout=timeout, pausable=True)


async def cancel_task(connection: Connection, task_id: str, *, timeout: float | None = None) -> TaskState:
    return _state("tasks/cancel", await connection.request("tasks/cancel", {"taskId": task_id}, timeout=timeout))


async def list_tasks(connection: Connection, *, timeout: float | None = None) -> list[TaskState]:
    """Every task the server lists (`tasks/list`, all pages)."""
    found: list[TaskState] = []
    cursor: str | None = None
    for _ in range(LIST_PAGE_LIMIT):
        raw = await connection.request("tasks/list", {"cursor": cursor} if cursor else None, timeout=timeout)
        items = raw.get("tasks")
        found += [s for s in map(TaskState.parse, items if isinstance(items, list) else []) if s is not None]
        following = raw.get("nextCursor")
        if not isinstance(following, str) or not following or following == cursor:
            break
        cursor = following
    return found


StatusListener = Callable[[TaskState], None]


async def wait_for_task(
    connection: Connection,
    state: TaskState,
    *,
    timeout: float | None = None,
    on_status: StatusListener | None = None,
) -> dict[str, Any] | None:
    """Poll until the task ends; its result (None when it was cancelled).

    `timeout` bounds each request, not the task. While the task needs input,
    `tasks/result` is asked at once (the server's questions come on it); if
    that request times out, polling goes on.
    """
    while True:
        if state.status == "cancelled":
            return None
        if state.terminal:
            return await task_result(connection, state.task_id, timeout=timeout)
        if state.status == "input_required":
            try:
                return await task_result(connection, state.task_id, timeout=timeout)
            except RequestTimedOut:
                pass  # the task went on working after the input: keep polling
        await asyncio.sleep(state.poll_seconds)
        state = await get_task(connection, state.task_id, timeout=timeout)
        if on_status is not None:
            on_status(state)


async def cancel_quietly(connection: Connection, task_id: str) -> TaskState | None:
    """`tasks/cancel` while the caller is itself being cancelled (shielded, bounded); None if it failed."""
    if not declares(connection.capabilities, "cancel"):
        return None
    with contextlib.suppress(HostError, TimeoutError, asyncio.CancelledError):
        return await asyncio.shield(
            asyncio.wait_for(cancel_task(connection, task_id, timeout=CANCEL_TIMEOUT_SECONDS), CANCEL_TIMEOUT_SECONDS)
        )
    return None
