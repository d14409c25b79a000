"""The tasks of one connection (MCP 2025-11-25 tasks): what the server said of each, for the TUI to list.

`TaskState` is a `Task` as the server sent it; `TrackedTask` adds what
rea-tui knows (the tool, the evidence entry, when it was polled); a
connection's `TaskBoard` holds them and tells its listeners of every change.
The methods that start, poll and cancel tasks are in `rea_tui.host.features.tasks`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rea_tui.host.protocol.observers import Listeners, Unsubscribe

TERMINAL_STATUSES = ("completed", "failed", "cancelled")
# Polling bounds (seconds) when the server suggests no `pollInterval`, or an unreasonable one.
DEFAULT_POLL_SECONDS = 1.0
MIN_POLL_SECONDS = 0.05
MAX_POLL_SECONDS = 30.0


@dataclass(frozen=True)
class TaskState:
    """What the server said of one task (`Task`), as it said it."""

    task_id: str
    status: str
    status_message: str | None = None
    created_at: str | None = None
    last_updated_at: str | None = None
    ttl: int | None = None
    poll_interval: int | None = None
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    @property
    def poll_seconds(self) -> float:
        if self.poll_interval is None:
            return DEFAULT_POLL_SECONDS
        return min(max(self.poll_interval / 1000.0, MIN_POLL_SECONDS), MAX_POLL_SECONDS)

    @classmethod
    def parse(cls, raw: Any) -> TaskState | None:
        if not isinstance(raw, dict):
            return None
        if not isinstance(raw.get("taskId"), str) or not isinstance(raw.get("status"), str):
            return None

        def text(key: str) -> str | None:
            value = raw.get(key)
            return value if isinstance(value, str) else None

        def number(key: str) -> int | None:
            value = raw.get(key)
            return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None

        return cls(
            task_id=raw["taskId"],
            status=raw["status"],
            status_message=text("statusMessage"),
            created_at=text("createdAt"),
            last_updated_at=text("lastUpdatedAt"),
            ttl=number("ttl"),
            poll_interval=number("pollInterval"),
            raw=dict(raw),
        )


@dataclass
class TrackedTask:
    """A task rea-tui started (or found in `tasks/list`), and what it last heard of it."""

    server: str
    state: TaskState
    tool: str = ""
    entry_id: str | None = None
    started: float = field(default_factory=time.monotonic)
    polled: float = field(default_factory=time.monotonic)
    # Found through tasks/list rather than started here.
    listed: bool = False
    cancel_requested: bool = False

    @property
    def task_id(self) -> str:
        return self.state.task_id

    @property
    def running(self) -> bool:
        return not self.state.terminal


class TaskBoard:
    """The tasks of one connection, newest last; listeners hear of every change."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.tasks: dict[str, TrackedTask] = {}
        self.listeners: Listeners[TrackedTask] = Listeners()

    def subscribe(self, listener: Callable[[TrackedTask], None]) -> Unsubscribe:
        return self.listeners.subscribe(listener)

    def update(
        self, state: TaskState, *, tool: str = "", entry_id: str | None = None, listed: bool = False
    ) -> TrackedTask:
        tracked = self.tasks.get(state.task_id)
        if tracked is None:
            tracked = TrackedTask(self.server, state, tool=tool, entry_id=entry_id, listed=listed)
            self.tasks[state.task_id] = tracked
        else:
            tracked.state = state
            tracked.polled = time.monotonic()
            tracked.tool = tracked.tool or tool
            tracked.entry_id = tracked.entry_id or entry_id
        self.listeners.emit(tracked)
        return tracked

    @property
    def running(self) -> list[TrackedTask]:
        return [t for t in self.tasks.values() if t.running]
