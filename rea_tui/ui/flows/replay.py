"""Walking a recorded session again on the main screen.

Offline, the recorded workflow, evidence and notes are shown read-only.
Online, the recorded prompt is rendered again and every recorded tool call
stops at its approval (so a demo goes at the presenter's pace), unless the
analyst allowed that tool for the session during the replay; each new result
is compared with the recorded one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from rea_tui.ui.flows.base import Flow
from rea_tui.ui.flows.dialogs import ask
from rea_tui.ui.flows.form import RENDER_GROUP, FormFlow
from rea_tui.ui.flows.tool_call import SESSION_APPROVAL
from rea_tui.ui.messages import NodeRef
from rea_tui.ui.text import join, notify_plain, plain_line
from rea_tui.ui.widgets.header import ServerHeader
from rea_tui.ui.widgets.sidebar import ServerTree
from rea_tui.ui.widgets.workflow_view import WorkflowView

if TYPE_CHECKING:
    from textual.screen import Screen

    from rea_tui.host import ReplayPlan, Session

REPLAY_GROUP = "replay"
NAME_LIMIT = 120


class ReplayFlow(Flow):
    def __init__(self, screen: Screen[Any], session: Session, plan: ReplayPlan, form_flow: FormFlow) -> None:
        super().__init__(screen, session)
        self.plan = plan
        self.form_flow = form_flow
        self._started = False

    def show_offline(self) -> None:
        self.run_job(self._show_offline(), REPLAY_GROUP)

    async def _show_offline(self) -> None:
        """The recorded session as it was: workflow, evidence, notes. Nothing is sent anywhere."""
        from rea_tui.host import entry_from_record, workflow_from_record

        plan, session = self.plan, self.session
        tree = self.screen.query_one(ServerTree)
        for event in plan.transcript.of_type("server"):
            tree.set_server(str(event.get("name", "?")), "recorded", "offline replay")
        for record in plan.transcript.of_type("tool_call"):
            session.ledger.restore(entry_from_record(record))
        known = session.ledger.refs()
        for kind, text, cites in plan.notes:
            session.notebook.add(kind, text, [c for c in cites if c in known])
        if plan.workflows:
            last = plan.workflows[-1]
            await self.screen.query_one(WorkflowView).show(str(last.get("server", "")), workflow_from_record(last))
        self.screen.query_one(ServerHeader).update(
            join(
                Text("rea-tui  replay (offline, read-only)  ", style="bold"),
                plain_line(plan.transcript.path.name, NAME_LIMIT),
            )
        )

    def run_online(self) -> None:
        """Once every server is ready: walk the recording (once)."""
        if self._started:
            return
        self._started = True
        self.run_job(self._run_online(), REPLAY_GROUP)

    async def _run_online(self) -> None:
        """Render the recorded prompt again, then offer each recorded call for approval."""
        from rea_tui.host import compare
        from rea_tui.ui.screens.approval import ApprovalScreen

        session, app = self.session, self.screen.app
        # Recorded key -> new key (what a narrowing round follows); recorded ID -> new ID (what a note cites).
        ids: dict[str, str] = {}
        refs: dict[str, str] = {}
        session.recorder.replay_started(self.plan.transcript.path)
        for record in self.plan.workflows[:1]:
            await self._render_again(record)
        for call in self.plan.calls:
            server = call.server if call.server in session.names else next(iter(session.names), call.server)
            if session.ready(server) is None:
                notify_plain(app, f"Replay stopped: {call.server} is not connected.", severity="error")
                return
            recorded_id = str(call.entry.get("id", "?"))
            if call.tool == "resources/read":
                entry = await session.read_resource(server, str(call.arguments.get("uri", "")))
            else:
                tool = session.tool(server, call.tool)
                if session.allowances.allows(server, tool):
                    # Allowed for the session earlier in this replay (as the server declares the tool now).
                    session.approve(server, tool, call.tool, call.arguments, SESSION_APPROVAL)
                    approval = f"{SESSION_APPROVAL} (replay)"
                else:
                    decision = await ask(app, ApprovalScreen(server, call.tool, tool, call.arguments))
                    session.approve(server, tool, call.tool, call.arguments, decision or "deny")
                    if decision not in ("once", "session"):
                        notify_plain(app, f"Skipped {call.tool} (recorded {call.label}): nothing was sent.")
                        continue
                    approval = f"approved in replay ({decision})"
                entry = await session.call_tool(
                    server,
                    call.tool,
                    call.arguments,
                    approval=approval,
                    follows=ids.get(str(call.entry.get("follows", ""))),
                )
            ids[recorded_id] = entry.id
            if call.ref and entry.ref:
                refs[call.ref] = entry.ref
            entry.replay_of = call.label
            entry.replay_diff = compare(call.entry, entry)
            session.recorder.replay_compared(entry)
            session.ledger.changed(entry)
        for kind, text, cites in self.plan.notes:
            session.notebook.add(kind, text, [refs[c] for c in cites if c in refs])
        notify_plain(app, f"Replay finished: {len(ids)} of {len(self.plan.calls)} recorded steps ran again.")

    async def _render_again(self, record: dict[str, object]) -> None:
        """Select the recorded prompt, fill in the recorded arguments, and render it."""
        from rea_tui.host import FormTarget

        session = self.session
        server, name = str(record.get("server", "")), str(record.get("prompt", ""))
        if server not in session.names:
            server = next(iter(session.names), server)
        hosted = session.ready(server)
        prompt = hosted.catalogs.prompts.get(name) if hosted is not None else None
        if prompt is None:
            notify_plain(
                self.screen.app, f"The server no longer offers the recorded prompt {name}.", severity="warning"
            )
            return
        arguments = record.get("arguments")
        values = {str(k): str(v) for k, v in arguments.items()} if isinstance(arguments, dict) else {}
        session.forms.of(FormTarget("prompt", server, name)).update(values)
        self.screen.query_one(ServerTree).select_ref(NodeRef("prompt", server, name), move_only=True)
        await self.form_flow.show_prompt(server, prompt)
        self.form_flow.render()
        for worker in self.jobs(RENDER_GROUP):
            await worker.wait()
