"""The tasks of every server (tools that run as tasks, MCP 2025-11-25): status, message, and a cancel key.

A row per task rea-tui started (or found with tasks/list), updated as its
call polls it. `c` cancels the selected task (`tasks/cancel`, when the server
declares it; the call waiting on it ends as cancelled), `l` asks every
server that can for its task list.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.coordinate import Coordinate
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from rea_tui.host import Session, TrackedTask
from rea_tui.ui.flows.base import start_job
from rea_tui.ui.settings import settings_of
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import LINE_LIMIT, NAME_LIMIT, notify_plain, plain, plain_line

TASKS_GROUP = "tasks"
COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("server", "server", 16),
    ("task", "task id", 18),
    ("tool", "tool", 22),
    ("status", "status", 15),
    ("message", "message", 40),
    ("age", "age", 8),
    ("entry", "evidence", 8),
)
STATUS_STYLES = {
    "working": "yellow",
    "input_required": "bold magenta",
    "completed": "green",
    "failed": "bold red",
    "cancelled": "dim",
}
DETAIL_LIMIT = 8_000


class TasksChanged(Message, bubble=False):
    """Tracked tasks changed; the screen's queue has them."""


def _age(task: TrackedTask) -> str:
    seconds = time.monotonic() - task.started
    return f"{seconds:,.0f} s" if seconds < 120 else f"{seconds / 60:,.0f} min"


def task_cells(task: TrackedTask, show_timings: bool = True) -> dict[str, Text]:
    state = task.state
    status = state.status + (" (asked)" if task.cancel_requested and task.running else "")
    return {
        "server": plain_line(task.server, NAME_LIMIT),
        "task": plain_line(state.task_id, NAME_LIMIT),
        "tool": plain_line(task.tool or ("(listed)" if task.listed else ""), NAME_LIMIT),
        "status": Text(status, style=STATUS_STYLES.get(state.status, "")),
        "message": plain_line(state.status_message or "", LINE_LIMIT),
        "age": Text(_age(task) if show_timings else "•", justify="right"),
        "entry": Text(task.entry_id or ""),
    }


def task_key(task: TrackedTask) -> str:
    return f"{task.server}\x00{task.task_id}"


class TasksScreen(Screen[None]):
    CSS_PATH = stylesheet("tasks.tcss")
    AUTO_FOCUS = "#tasks-table"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="close-tasks", tooltip="Back to the main screen"),
        Binding("c", "cancel_task", "Cancel task", id="cancel-task", tooltip="Cancel the selected task (tasks/cancel)"),
        Binding("l", "list_tasks", "Ask servers", id="list-tasks", tooltip="Ask every server for its tasks/list"),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self._tasks: dict[str, TrackedTask] = {}
        self._pending: dict[str, TrackedTask] = {}
        self._unsubscribe: list[Callable[[], None]] = []

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="tasks-body"):
            table: DataTable[Text] = DataTable(id="tasks-table", cursor_type="row")
            yield table
            yield Static(id="tasks-detail")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Tasks"
        table = self.query_one("#tasks-table", DataTable)
        for key, label, width in COLUMNS:
            table.add_column(label, key=key, width=width)
        for board in self.session.task_boards():
            self._unsubscribe.append(board.subscribe(self._changed))
            for task in board.tasks.values():
                self._show(task)
        self._detail()
        self._subtitle()

    def on_unmount(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()

    def _changed(self, task: TrackedTask) -> None:
        first = not self._pending
        self._pending[task_key(task)] = task
        if first:
            self.post_message(TasksChanged())

    @on(TasksChanged)
    def _apply(self) -> None:
        pending, self._pending = list(self._pending.values()), {}
        for task in pending:
            self._show(task)
        self._detail()
        self._subtitle()

    def _show(self, task: TrackedTask) -> None:
        table = self.query_one("#tasks-table", DataTable)
        key = task_key(task)
        cells = task_cells(task, settings_of(self).show_timings)
        if key in self._tasks:
            for column, cell in cells.items():
                table.update_cell(key, column, cell)
        else:
            table.add_row(*(cells[c] for c, _, _ in COLUMNS), key=key)
        self._tasks[key] = task

    def _selected(self) -> TrackedTask | None:
        table = self.query_one("#tasks-table", DataTable)
        if table.row_count == 0:
            return None
        row_key, _ = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0))
        return self._tasks.get(row_key.value or "")

    @on(DataTable.RowHighlighted, "#tasks-table")
    def _detail(self) -> None:
        task = self._selected()
        detail = self.query_one("#tasks-detail", Static)
        if task is None:
            detail.update(Text("No task yet: tools that run as tasks show here while they run.", style="dim"))
            return
        detail.update(plain(_describe(task), DETAIL_LIMIT))

    def _subtitle(self) -> None:
        running = sum(1 for t in self._tasks.values() if t.running)
        self.sub_title = f"{len(self._tasks)} tasks, {running} running"

    # ------------------------------------------------------------ actions

    def action_cancel_task(self) -> None:
        from rea_tui.host import HostError, cancel_task

        task = self._selected()
        if task is None or not task.running:
            notify_plain(self.app, "Select a running task to cancel.")
            return
        hosted = self.session.ready(task.server)
        capabilities = hosted.connection.capabilities.get("tasks") if hosted is not None else None
        if hosted is None or not isinstance(capabilities, dict) or not isinstance(capabilities.get("cancel"), dict):
            notify_plain(self.app, f"{task.server} cannot cancel tasks (no tasks.cancel).", severity="warning")
            return
        task.cancel_requested = True
        self._show(task)

        async def cancel() -> None:
            try:
                state = await cancel_task(hosted.connection, task.task_id)
            except HostError as exc:
                notify_plain(self.app, exc.describe(), title="The task was not cancelled", severity="warning")
                return
            hosted.connection.tasks.update(state)

        start_job(self, cancel(), TASKS_GROUP, task.task_id)

    def action_list_tasks(self) -> None:
        from rea_tui.host import HostError, list_tasks

        async def ask_each() -> None:
            asked = 0
            for name in self.session.names:
                hosted = self.session.ready(name)
                capabilities = hosted.connection.capabilities.get("tasks") if hosted is not None else None
                if hosted is None or not isinstance(capabilities, dict) or "list" not in capabilities:
                    continue
                asked += 1
                try:
                    states = await list_tasks(hosted.connection)
                except HostError as exc:
                    notify_plain(self.app, exc.describe(), title=f"{name}: tasks/list", severity="warning")
                    continue
                for state in states:
                    hosted.connection.tasks.update(state, listed=True)
            if not asked:
                notify_plain(self.app, "No connected server lists its tasks (tasks.list).")

        start_job(self, ask_each(), TASKS_GROUP, "list")

    def action_close(self) -> None:
        self.dismiss(None)


def _describe(task: TrackedTask) -> str:
    state = task.state
    lines = [f"{task.server}  task {state.task_id}", f"status {state.status}"]
    if state.status_message:
        lines.append(state.status_message)
    for label, value in (("created", state.created_at), ("updated", state.last_updated_at)):
        if value:
            lines.append(f"{label} {value}")
    if state.ttl is not None:
        lines.append(f"kept {state.ttl:,} ms after creation")
    if state.poll_interval is not None:
        lines.append(f"polled every {state.poll_interval:,} ms")
    if task.entry_id:
        lines.append(f"evidence {task.entry_id} ({task.tool})")
    return "\n".join(lines)
