"""The investigation loop in the TUI: tool form → approval → call → evidence → narrowing.

Nothing is sent without the approval dialog (or a session allowance the
analyst gave for a tool declared read-only). Choosing a narrowing candidate
reopens the same call's form with the value pinned.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from rich.text import Text

from rea_tui.host.narrowing import concerned_argument, pin
from rea_tui.ui.screens.approval import ApprovalScreen, Decision
from rea_tui.ui.screens.narrowing import NarrowingChoice, NarrowingScreen
from rea_tui.ui.screens.tool_form import ToolFormScreen, ToolRequest
from rea_tui.ui.text import notify_plain, plain_line

if TYPE_CHECKING:
    from rea_tui.host.models import Tool
    from rea_tui.ui.app import ReaApp


def prompt_arguments(app: ReaApp, server: str) -> dict[str, str]:
    """The non-empty arguments of the prompt the analyst is working with on `server`."""
    from rea_tui.ui.widgets.workflow_view import WorkflowView

    values: dict[str, str] = {}
    view = app.main.query_one(WorkflowView)
    if view.workflow is not None and view.server == server:
        values.update(view.workflow.arguments)
    from rea_tui.ui.widgets.argument_form import ArgumentForm

    form = app.main.query_one(ArgumentForm)
    if form.target is not None and form.target[1] == server:
        values.update({k: v for k, v in form.values().items() if v})
    return values


def suggestions_for(tool: Tool, prompt_values: dict[str, str]) -> dict[str, list[str]]:
    """Prompt argument values offered in every string-like field (evidence ids, procedure names...)."""
    offered = list(dict.fromkeys(v for v in prompt_values.values() if v))
    properties = tool.input_schema.get("properties")
    names = list(properties) if isinstance(properties, dict) else []
    return {str(name): offered for name in names}


def prefilled(tool: Tool, prompt_values: dict[str, str]) -> dict[str, Any]:
    """Prompt arguments whose names match the tool's parameters."""
    properties = tool.input_schema.get("properties")
    names = set(properties) if isinstance(properties, dict) else set()
    return {k: v for k, v in prompt_values.items() if k in names}


def open_tool_form(
    app: ReaApp,
    server: str,
    tool_name: str,
    arguments: dict[str, Any] | None = None,
    *,
    follows: str | None = None,
    note: Text | None = None,
) -> None:
    state = app.servers.get(server)
    if state is None or state.hosted is None or state.status != "ready":
        notify_plain(app, f"{server} is not connected (f5 reconnects).", severity="warning")
        return
    tool = state.hosted.catalogs.tools.get(tool_name)
    if tool is None:
        notify_plain(app, f"The server does not list the tool {tool_name}", severity="warning")
        return
    prompt_values = prompt_arguments(app, server)
    values = {**prefilled(tool, prompt_values), **(arguments or {})}
    screen = ToolFormScreen(server, tool, values, suggestions_for(tool, prompt_values), app.timeout, note)

    def reviewed(request: ToolRequest | None) -> None:
        if request is not None:
            ask_approval(app, server, tool, request, follows)

    app.push_screen(screen, callback=reviewed)


def ask_approval(app: ReaApp, server: str, tool: Tool, request: ToolRequest, follows: str | None) -> None:
    allowed = app.session_allowed.setdefault(server, set())
    if tool.name in allowed:
        app.recorder.approval(server, tool.name, request.arguments, "allowed for the session")
        start_call(app, server, tool, request, "allowed for the session", follows)
        return

    def decided(decision: Decision | None) -> None:
        app.recorder.approval(server, tool.name, request.arguments, decision or "deny")
        if decision == "session":
            allowed.add(tool.name)
            start_call(app, server, tool, request, "allowed for the session", follows)
        elif decision == "once":
            start_call(app, server, tool, request, "approved once", follows)
        else:
            notify_plain(app, f"Denied: nothing was sent for {tool.name}", severity="warning")

    app.push_screen(ApprovalScreen(server, tool.name, tool, request.arguments), callback=decided)


def start_call(app: ReaApp, server: str, tool: Tool, request: ToolRequest, approval: str, follows: str | None) -> None:
    from rea_tui.host.tool_call import run_tool_call

    state = app.servers[server]
    assert state.hosted is not None
    connection = state.hosted.connection
    key = f"call-{len(app._calls) + 1}"

    async def run() -> None:
        entry = await run_tool_call(
            connection,
            app.ledger,
            tool.name,
            request.arguments,
            tool=tool,
            approval=approval,
            timeout=request.timeout,
            follows=follows,
        )
        app.show_pane("evidence")
        if entry.narrowing is not None:
            answer_narrowing(app, entry.id)

    app._calls[key] = asyncio.create_task(run(), name=key)


def answer_narrowing(app: ReaApp, entry_id: str) -> None:
    entry = app.ledger.get(entry_id)
    if entry is None or entry.narrowing is None:
        return
    state = app.servers.get(entry.server)
    tool = state.hosted.catalogs.tools.get(entry.tool) if state and state.hosted else None
    properties = tool.input_schema.get("properties") if tool is not None else None
    names = [str(n) for n in properties] if isinstance(properties, dict) else sorted(entry.arguments)
    concerned = concerned_argument(entry.narrowing, tool, entry.arguments)
    if concerned is not None and concerned not in names:
        names.append(concerned)

    def chosen(choice: NarrowingChoice | None) -> None:
        if choice is None or entry.narrowing is None:
            return
        app.recorder.narrowing_answer(entry, choice.candidate.name, choice.argument)
        pinned = pin(entry.arguments, entry.narrowing, choice.candidate, tool, choice.argument)
        note = Text(f"Narrowing round {entry.narrowing_round + 1}: ", style="bold magenta")
        note.append_text(plain_line(f"{choice.argument} = {pinned[choice.argument]}", 200))
        note.append(f"  (answers {entry.id})", style="dim")
        open_tool_form(app, entry.server, entry.tool, pinned, follows=entry.id, note=note)

    app.push_screen(NarrowingScreen(entry, names, concerned), callback=chosen)
