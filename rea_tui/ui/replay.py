"""Walking a recorded session again in the app.

Offline, the recorded workflow, evidence and notes are shown read-only.
Online, the recorded prompt is rendered again and every recorded tool call
stops at its approval (so a demo goes at the presenter's pace); each new
result is compared with the recorded one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rea_tui.host.replay import ReplayPlan, compare, entry_from_record, workflow_from_record
from rea_tui.ui.interaction import ask
from rea_tui.ui.messages import NodeRef
from rea_tui.ui.screens.approval import ApprovalScreen
from rea_tui.ui.text import notify_plain
from rea_tui.ui.widgets.sidebar import ServerTree
from rea_tui.ui.widgets.workflow_view import WorkflowView

if TYPE_CHECKING:
    from rea_tui.ui.app import ReaApp


async def show_offline(app: ReaApp, plan: ReplayPlan) -> None:
    """The recorded session as it was: workflow, evidence, notes. Nothing is sent anywhere."""
    for record in plan.transcript.of_type("tool_call"):
        app.ledger.restore(entry_from_record(record))
    known = app.ledger.ids()
    for kind, text, cites in plan.notes:
        app.notebook.add(kind, text, [c for c in cites if c in known])
    if plan.workflows:
        last = plan.workflows[-1]
        await app.main.query_one(WorkflowView).show(str(last.get("server", "")), workflow_from_record(last))


async def run_online(app: ReaApp, plan: ReplayPlan) -> None:
    """Render the recorded prompt again, then offer each recorded call for approval."""
    from rea_tui.host.tool_call import run_resource_read, run_tool_call

    ids: dict[str, str] = {}
    for record in plan.workflows[:1]:
        await _render_again(app, record)
    for call in plan.calls:
        state = app.servers.get(call.server) or next(iter(app.servers.values()), None)
        if state is None or state.hosted is None or state.status != "ready":
            notify_plain(app, f"Replay stopped: {call.server} is not connected.", severity="error")
            return
        connection = state.hosted.connection
        recorded_id = str(call.entry.get("id", "?"))
        if call.tool == "resources/read":
            entry = await run_resource_read(connection, app.ledger, str(call.arguments.get("uri", "")))
        else:
            tool = state.hosted.catalogs.tools.get(call.tool)
            decision = await ask(app, ApprovalScreen(connection.name, call.tool, tool, call.arguments))
            app.recorder.approval(connection.name, call.tool, call.arguments, decision or "deny")
            if decision not in ("once", "session"):
                notify_plain(app, f"Skipped {call.tool} (recorded {recorded_id}): nothing was sent.")
                continue
            follows = ids.get(str(call.entry.get("follows", "")))
            entry = await run_tool_call(
                connection,
                app.ledger,
                call.tool,
                call.arguments,
                tool=tool,
                approval=f"approved in replay ({decision})",
                timeout=app.timeout,
                follows=follows,
            )
        ids[recorded_id] = entry.id
        entry.replay_of = recorded_id
        entry.replay_diff = compare(call.entry, entry)
        app.ledger.changed(entry)
    for kind, text, cites in plan.notes:
        app.notebook.add(kind, text, [ids[c] for c in cites if c in ids])
    notify_plain(app, f"Replay finished: {len(ids)} of {len(plan.calls)} recorded steps ran again.")


async def _render_again(app: ReaApp, record: dict[str, object]) -> None:
    """Select the recorded prompt, fill in the recorded arguments, and render it."""
    server, name = str(record.get("server", "")), str(record.get("prompt", ""))
    if server not in app.servers:
        server = next(iter(app.servers), server)
    state = app.servers.get(server)
    prompt = state.hosted.catalogs.prompts.get(name) if state and state.hosted else None
    if prompt is None:
        notify_plain(app, f"The server no longer offers the recorded prompt {name}.", severity="warning")
        return
    arguments = record.get("arguments")
    values = {str(k): str(v) for k, v in arguments.items()} if isinstance(arguments, dict) else {}
    app.forms.get(("prompt", server, name)).update(values)
    app.main.query_one(ServerTree).select_ref(NodeRef("prompt", server, name), move_only=True)
    await app.show_prompt(server, prompt)
    await app.render_prompt(server, name, values).wait()
