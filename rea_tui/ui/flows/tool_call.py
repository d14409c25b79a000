"""The investigation loop: tool form → approval → call → evidence → narrowing.

Nothing is sent without the approval dialog, or a session allowance the
analyst gave for the tool as the server declared it (read-only). Choosing a
narrowing candidate reopens the same call's form with the value pinned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from rea_tui.host import prompt_prefill
from rea_tui.ui.flows.base import Flow
from rea_tui.ui.messages import NarrowingAsked, ToolCallFinished
from rea_tui.ui.text import notify_plain, plain_line
from rea_tui.ui.widgets.argument_form import ArgumentForm
from rea_tui.ui.widgets.workflow_view import WorkflowView

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from rea_tui.host import CompletionFailure, CompletionPage, CompletionRef, Tool
    from rea_tui.ui.screens.narrowing import NarrowingScreen
    from rea_tui.ui.screens.tool_form import ToolRequest
    from rea_tui.ui.widgets.completing_input import FieldCompleter

CALL_GROUP = "call"
PINNED_LIMIT = 200
SESSION_APPROVAL = "allowed for the session"


def suggestions_for(tool: Tool, prompt_values: dict[str, str]) -> dict[str, list[str]]:
    """Prompt argument values offered in every string-like field (evidence ids, procedure names...)."""
    offered = list(dict.fromkeys(v for v in prompt_values.values() if v))
    properties = tool.input_schema.get("properties")
    names = list(properties) if isinstance(properties, dict) else []
    return {str(name): offered for name in names}


class ToolCallFlow(Flow):
    """The calls of one screen (each a worker in the "call" group, so ctrl+b can cancel them)."""

    def prompt_arguments(self, server: str) -> dict[str, str]:
        """The non-empty arguments of the prompt the analyst is working with on `server`."""
        values: dict[str, str] = {}
        view = self.screen.query_one(WorkflowView)
        if view.workflow is not None and view.server == server:
            values.update(view.workflow.arguments)
        form = self.screen.query_one(ArgumentForm)
        if form.target is not None and form.target.server == server:
            values.update({k: v for k, v in form.values().items() if v})
        return values

    def completers(self, server: str, tool: Tool) -> dict[str, FieldCompleter]:
        """The tool's arguments the server completes (as a prompt argument or template variable of the same
        name, the prompt in use first), each asking through the server's one completion feed."""
        from rea_tui.host import context_for, tool_completion_refs

        hosted = self.session.browsable(server)
        if hosted is None or not hosted.completions.supported:
            return {}
        view = self.screen.query_one(WorkflowView)
        preferred = view.workflow.prompt if view.workflow is not None and view.server == server else None
        catalogs = hosted.catalogs
        refs = tool_completion_refs(tool, catalogs.prompts.items, catalogs.templates.items, preferred)
        feed = hosted.completions

        def completer(name: str, ref: CompletionRef) -> FieldCompleter:
            def ask(
                value: str, others: Mapping[str, str], deliver: Callable[[CompletionPage | CompletionFailure], None]
            ) -> None:
                feed.submit(ref, name, value, context_for(name, others), deliver)

            return ask

        return {name: completer(name, ref) for name, ref in refs.items()}

    def open(
        self,
        server: str,
        tool_name: str,
        arguments: dict[str, Any] | None = None,
        *,
        follows: str | None = None,
        note: Text | None = None,
        from_prompt: bool = True,
        review_at_once: bool = False,
    ) -> None:
        """The tool's form, prefilled from the prompt (unless `from_prompt` is off: a row's action names all it
        means) and `arguments`; `review_at_once` checks them and goes on to the approval dialog at once."""
        from rea_tui.ui.screens.tool_form import ToolFormScreen

        app = self.screen.app
        if self.session.browsable(server) is None:
            notify_plain(app, f"{server} is not connected (f5 reconnects).", severity="warning")
            return
        tool = self.session.tool(server, tool_name)
        if tool is None:
            notify_plain(app, f"The server does not list the tool {tool_name}", severity="warning")
            return
        prompt_values = self.prompt_arguments(server)
        values = {**(prompt_prefill(tool, prompt_values) if from_prompt else {}), **(arguments or {})}
        timeout = self.session.timeout
        screen = ToolFormScreen(
            server,
            tool,
            values,
            suggestions_for(tool, prompt_values),
            timeout,
            note,
            review_at_once=review_at_once,
            completers=self.completers(server, tool),
        )

        def reviewed(request: ToolRequest | None) -> None:
            if request is not None:
                self.ask_approval(server, tool, request, follows)

        app.push_screen(screen, callback=reviewed)

    def ask_approval(self, server: str, tool: Tool, request: ToolRequest, follows: str | None) -> None:
        from rea_tui.ui.screens.approval import ApprovalScreen, Decision

        if self.session.allowances.allows(server, tool):
            self.session.approve(server, tool, tool.name, request.arguments, SESSION_APPROVAL)
            self.start(server, tool, request, SESSION_APPROVAL, follows)
            return

        def decided(decision: Decision | None) -> None:
            self.session.approve(server, tool, tool.name, request.arguments, decision or "deny")
            if decision == "session":
                self.start(server, tool, request, SESSION_APPROVAL, follows)
            elif decision == "once":
                self.start(server, tool, request, "approved once", follows)
            else:
                notify_plain(self.screen.app, f"Denied: nothing was sent for {tool.name}", severity="warning")

        dialog = ApprovalScreen(
            server, tool.name, tool, request.arguments, defaults=request.defaults, unchecked=request.unchecked
        )
        self.screen.app.push_screen(dialog, callback=decided)

    def start(self, server: str, tool: Tool, request: ToolRequest, approval: str, follows: str | None) -> None:
        async def call() -> None:
            entry = await self.session.call_tool(
                server, tool.name, request.arguments, approval=approval, timeout=request.timeout, follows=follows
            )
            self.screen.post_message(ToolCallFinished(entry))
            if entry.narrowing is not None:
                self.screen.post_message(NarrowingAsked(entry))

        self.run_job(call(), CALL_GROUP, f"{server}/{tool.name}")

    def cancel_all(self) -> bool:
        """Cancel every running call (each sends notifications/cancelled); False when none ran."""
        running = self.jobs(CALL_GROUP)
        for worker in running:
            worker.cancel()
        return bool(running)

    def answer_narrowing(self, entry_id: str) -> None:
        from rea_tui.host import concerned_argument, pin
        from rea_tui.ui.screens.narrowing import NarrowingChoice, NarrowingScreen

        entry = self.session.ledger.get(entry_id)
        if entry is None or entry.narrowing is None:
            return
        tool = self.session.tool(entry.server, entry.tool)
        properties = tool.input_schema.get("properties") if tool is not None else None
        names = [str(n) for n in properties] if isinstance(properties, dict) else sorted(entry.arguments)
        concerned = concerned_argument(entry.narrowing, tool, entry.arguments)
        if concerned is not None and concerned not in names:
            names.append(concerned)
        picker: NarrowingScreen

        def reask(argument: str, value: str) -> None:
            self.run_job(self._reask(picker, argument, value), CALL_GROUP, f"{entry.server}/{entry.tool}")

        def chosen(choice: NarrowingChoice | None) -> None:
            # The question answered is the picker's latest (typing may have narrowed it since).
            asked = picker.entry
            if choice is None or asked.narrowing is None:
                return
            self.session.recorder.narrowing_answer(asked, choice.candidate.name, choice.argument)
            pinned = pin(asked.arguments, asked.narrowing, choice.candidate, tool, choice.argument)
            note = Text(f"Narrowing round {asked.narrowing_round + 1}: ", style="bold magenta")
            note.append_text(plain_line(f"{choice.argument} = {pinned[choice.argument]}", PINNED_LIMIT))
            note.append("  (answers the server's question)", style="dim")
            self.open(asked.server, asked.tool, pinned, follows=asked.id, note=note)

        picker = NarrowingScreen(
            entry,
            names,
            concerned,
            reask=reask if tool is not None else None,
            asks_freely=lambda: self.session.allowances.allows(entry.server, tool),
        )
        self.screen.app.push_screen(picker, callback=chosen)

    async def _reask(self, picker: NarrowingScreen, argument: str, value: str) -> None:
        """The picker's question again, with what the analyst typed as the value: the server narrows (seed 003)."""
        from rea_tui.ui.flows.dialogs import ask
        from rea_tui.ui.screens.approval import ApprovalScreen

        asked = picker.entry
        tool = self.session.tool(asked.server, asked.tool)
        arguments = {**asked.arguments, argument: value}
        if self.session.allowances.allows(asked.server, tool):
            approval = SESSION_APPROVAL
        else:
            decision = await ask(self.screen.app, ApprovalScreen(asked.server, asked.tool, tool, arguments))
            if decision not in ("once", "session"):
                self.session.approve(asked.server, tool, asked.tool, arguments, "deny")
                picker.reask_failed(value, "denied: nothing was sent")
                return
            approval = SESSION_APPROVAL if decision == "session" else "approved once"
        self.session.approve(
            asked.server, tool, asked.tool, arguments, "session" if approval == SESSION_APPROVAL else "once"
        )
        entry = await self.session.call_tool(asked.server, asked.tool, arguments, approval=approval, follows=asked.id)
        if entry.narrowing is not None:
            picker.narrowed(value, entry)
            return
        picker.reask_failed(value, entry.error or entry.outcome_label)
        if entry.outcome == "ok" and picker.is_attached:
            # The value named one: the call ran, and its result is the evidence.
            picker.dismiss(None)
            notify_plain(self.screen.app, f"{value} named one {argument}: the call ran ({entry.ref}).")
        self.screen.post_message(ToolCallFinished(entry))
