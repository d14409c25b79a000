"""The rea-tui application: prompts on the left, the form in the centre, workflow and evidence on the right.

The first frame paints before `mcp` is imported or any server starts: host
modules that need the SDK are imported in a worker thread once the app runs.
The UI never speaks JSON-RPC itself; everything goes through `rea_tui.host`.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import json
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Tab, Tabs, Tree

from rea_tui.host.completion import (
    CompletionFailure,
    CompletionLog,
    CompletionPage,
    CompletionRef,
    context_for,
)
from rea_tui.host.evidence import EvidenceEntry, EvidenceLedger
from rea_tui.host.notes import Note, Notebook
from rea_tui.host.sanitize import sanitize
from rea_tui.host.transcript import SessionRecorder, TranscriptWriter, new_transcript_path
from rea_tui.ui.messages import (
    HostEventReceived,
    NodeRef,
    NodeSelected,
    RenderRequested,
    ResourceLinkOpened,
    ServerConnected,
    ServerFailed,
    StepChosen,
)
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import join, notify_plain, plain, plain_line
from rea_tui.ui.widgets.argument_form import ArgumentField, ArgumentForm, ArgumentInput, FieldSpec
from rea_tui.ui.widgets.evidence_pane import EvidenceDetail, EvidencePane
from rea_tui.ui.widgets.header import ServerHeader
from rea_tui.ui.widgets.sidebar import ServerTree
from rea_tui.ui.widgets.workflow_view import WorkflowView

if TYPE_CHECKING:
    from rea_tui.host.config import ServerSpec
    from rea_tui.host.errors import HostError
    from rea_tui.host.events import HostEvent
    from rea_tui.host.hosted import HostedServer
    from rea_tui.host.models import Prompt, ResourceTemplate
    from rea_tui.host.replay import ReplayPlan

NARROW_WIDTH = 120
PANES = ("prompts", "form", "workflow", "evidence")
SESSION_RESOURCE = "rea://session"


@dataclass
class ServerState:
    """What the app knows about one configured server."""

    spec: ServerSpec
    status: str = "connecting"
    hosted: HostedServer | None = None
    error: HostError | None = None
    target: str | None = None
    unsubscribe: Any = None


@dataclass
class FormState:
    """Values typed per prompt/template, kept across selections and list changes."""

    values: dict[tuple[str, str, str], dict[str, str]] = field(default_factory=dict)

    def get(self, key: tuple[str, str, str]) -> dict[str, str]:
        return self.values.setdefault(key, {})


class MainScreen(Screen[None]):
    """Prompts on the left, the form in the centre, workflow and evidence on the right."""

    def __init__(self, ledger: EvidenceLedger, *, stable: bool) -> None:
        super().__init__(id="main-screen")
        self.ledger = ledger
        self.stable = stable

    def compose(self) -> ComposeResult:
        yield ServerHeader(id="server-header")
        yield Tabs(*(Tab(p.capitalize(), id=f"tab-{p}") for p in PANES), id="pane-tabs")
        with Horizontal(id="main"):
            yield ServerTree(id="sidebar")
            yield ArgumentForm(id="form")
            with Vertical(id="right"):
                yield WorkflowView(id="workflow")
                yield EvidencePane(self.ledger, stable=self.stable, id="evidence")
        yield Footer()

    def on_mount(self) -> None:
        app = self.app
        if isinstance(app, ReaApp):
            app.start_session()

    def on_resize(self, event: events.Resize) -> None:
        app = self.app
        if isinstance(app, ReaApp):
            app._apply_width(event.size.width)


class ReaApp(App[int]):
    """The terminal MCP host."""

    CSS_PATH = stylesheet("app.tcss")
    TITLE = "rea-tui"
    ENABLE_COMMAND_PALETTE = True

    # Keys chosen so none is taken by a focused Input or TextArea (ctrl+e/k/x/u/w are editing keys there).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "ctrl+r",
            "render",
            "Render",
            id="render",
            tooltip="Render the prompt (prompts/get) into a workflow",
        ),
        Binding("f5", "reconnect", "Reconnect", id="reconnect", tooltip="Retry or reconnect the selected server"),
        Binding("ctrl+l", "protocol_log", "Protocol log", id="protocol-log", tooltip="Show the JSON-RPC traffic"),
        Binding(
            "ctrl+o",
            "completion_inspector",
            "Completions",
            id="completion-inspector",
            tooltip="Show every completion request and how the server answered",
        ),
        Binding("ctrl+g", "focus_evidence", "Evidence", id="focus-evidence", tooltip="Filter the evidence ledger"),
        Binding("ctrl+n", "notes", "Notes", id="notes", tooltip="Observations, inferences and unknowns"),
        Binding("ctrl+b", "cancel_call", "Cancel call", id="cancel-call", tooltip="Cancel the running tool call"),
        Binding(
            "ctrl+t",
            "export_report",
            "Report",
            id="export-report",
            tooltip="Write a Markdown report of this session next to its transcript",
        ),
        Binding(
            "ctrl+s", "save_screenshot", "Screenshot", id="screenshot", tooltip="Save an SVG screenshot of this screen"
        ),
        Binding("f6", "next_pane", "Next pane", id="next-pane", tooltip="Show the next pane (narrow terminals)"),
        Binding("ctrl+q", "quit", "Quit", id="quit", tooltip="Leave rea-tui"),
    ]

    def __init__(
        self,
        specs: Iterable[ServerSpec],
        *,
        timeout: float = 30.0,
        stable: bool = False,
        transcript: Path | None = None,
        replay: ReplayPlan | None = None,
        offline: bool = False,
        started: dict[str, subprocess.Popen[bytes]] | None = None,
    ) -> None:
        """`started`: stdio server processes already running, by server name (started before the first frame)."""
        super().__init__()
        self._started = dict(started or {})
        self.replay = replay
        self.offline = offline
        self._replay_started = False
        self.specs = list(specs)
        self.timeout = timeout
        self.stable = stable
        self.servers: dict[str, ServerState] = {s.name: ServerState(s) for s in self.specs}
        self.ledger = EvidenceLedger()
        self.notebook = Notebook()
        self.session_allowed: dict[str, set[str]] = {}
        # An offline replay only shows what was recorded, so it writes no transcript of its own.
        self.recorder = SessionRecorder(TranscriptWriter(None if offline else transcript or new_transcript_path()))
        self.notebook.subscribe(self._note_changed)
        self._recorded_entries: set[str] = set()
        self._shown_entries: set[str] = set()
        self.screenshot_folder = Path.cwd()
        self._heap_frozen = False
        self.completion_log = CompletionLog()
        self.forms = FormState()
        self.active_server: str | None = self.specs[0].name if self.specs else None
        self.pane = "form"
        self._calls: dict[str, asyncio.Task[Any]] = {}
        self.ledger.subscribe(self._ledger_changed)
        self.main = MainScreen(self.ledger, stable=stable)

    # ------------------------------------------------------------ layout

    def get_default_screen(self) -> Screen[Any]:
        return self.main

    def start_session(self) -> None:
        """Once the main screen is up: list the servers and start connecting to each."""
        tree = self.main.query_one(ServerTree)
        for spec in self.specs:
            tree.set_server(spec.name, "connecting")
        self._update_header()
        self._apply_width(self.size.width)
        # The tabs are for the mouse (f6 cycles panes from the keyboard); focus starts on the server list.
        self.main.query_one("#pane-tabs", Tabs).can_focus = False
        tree.focus()
        self.main.query_one(ArgumentForm).on_edit = self.field_edited
        evidence = self.main.query_one(EvidencePane)
        transcript = self.recorder.path
        if transcript is None:
            evidence.border_subtitle = "offline replay: read-only"
        else:
            # Stable mode (snapshots) shows no timestamp or pid.
            evidence.border_subtitle = "transcript (recording)" if self.stable else f"transcript {transcript.name}"
        if self.offline and self.replay is not None:
            self._show_recorded(self.replay)
        for spec in self.specs:
            self.connect_server(spec.name)

    @work(group="replay", exit_on_error=False)
    async def _show_recorded(self, plan: ReplayPlan) -> None:
        from rea_tui.ui.replay import show_offline

        tree = self.main.query_one(ServerTree)
        for event in plan.transcript.of_type("server"):
            tree.set_server(str(event.get("name", "?")), "recorded", "offline replay")
        await show_offline(self, plan)
        self.main.query_one(ServerHeader).update(
            join(Text("rea-tui  replay (offline, read-only)  ", style="bold"), plain_line(plan.transcript.path.name))
        )

    @work(group="replay", exit_on_error=False)
    async def _replay_online(self, plan: ReplayPlan) -> None:
        from rea_tui.ui.replay import run_online

        await run_online(self, plan)

    def _apply_width(self, width: int) -> None:
        narrow = width < NARROW_WIDTH
        self.main.set_class(narrow, "-narrow")
        for pane in PANES:
            self.main.set_class(pane == self.pane, f"-pane-{pane}")

    def show_pane(self, pane: str) -> None:
        self.pane = pane
        tabs = self.main.query_one("#pane-tabs", Tabs)
        if tabs.active != f"tab-{pane}":
            tabs.active = f"tab-{pane}"
        self._apply_width(self.size.width)

    @on(Tabs.TabActivated, "#pane-tabs")
    def _tab_activated(self, event: Tabs.TabActivated) -> None:
        pane = (event.tab.id or "tab-form").removeprefix("tab-")
        if pane != self.pane:
            self.pane = pane
            self._apply_width(self.size.width)

    def action_next_pane(self) -> None:
        self.show_pane(PANES[(PANES.index(self.pane) + 1) % len(PANES)])

    # ------------------------------------------------------------ connecting

    @work(group="connect", exit_on_error=False)
    async def connect_server(self, name: str) -> None:
        state = self.servers[name]
        state.status = "connecting"
        self.main.query_one(ServerTree).set_server(name, "connecting")
        self._update_header()
        if state.hosted is None:
            # The SDK import (~0.5 s) happens off the event loop, after the first frame.
            hosted_module = await asyncio.to_thread(importlib.import_module, "rea_tui.host.hosted")
            memory_module = importlib.import_module("rea_tui.host.protocol_memory")
            state.hosted = hosted_module.HostedServer(
                state.spec,
                timeout=self.timeout,
                memory=memory_module.ProtocolMemory(),
                started=self._started.pop(name, None),
            )
            state.hosted.completions.log = self.completion_log
            state.unsubscribe = state.hosted.connection.subscribe(self._host_event)
            self._install_handlers(state.hosted)
        from rea_tui.host.errors import HostError

        try:
            if state.hosted.connection.state in ("exited", "failed", "closed"):
                await state.hosted.reconnect()
            else:
                await state.hosted.start()
        except HostError as exc:
            self.post_message(ServerFailed(name, exc))
            return
        await self._read_target(state)
        self.post_message(ServerConnected(name))

    def _host_event(self, event: HostEvent) -> None:
        self.post_message(HostEventReceived(event))

    def _install_handlers(self, hosted: HostedServer) -> None:
        """Elicitation and sampling requests from this server go to dialogs."""
        from rea_tui.ui.interaction import install_interaction_handlers

        prefill = self.replay.next_elicitation if self.replay is not None else None
        install_interaction_handlers(self, hosted.connection, self.recorder, prefill)

    async def _read_target(self, state: ServerState) -> None:
        """The REA convention: a `rea://session` resource names the current target."""
        hosted = state.hosted
        if hosted is None or not any(r.uri == SESSION_RESOURCE for r in hosted.catalogs.resources.items):
            state.target = None
            return
        from rea_tui.host.errors import HostError

        try:
            result = await hosted.connection.request("resources/read", {"uri": SESSION_RESOURCE})
            contents = result.get("contents") or []
            data = json.loads(contents[0].get("text", "{}")) if contents else {}
        except (HostError, ValueError, AttributeError, TypeError):
            state.target = None
            return
        target = data.get("target") if isinstance(data, dict) else None
        kind = data.get("kind") if isinstance(data, dict) else None
        state.target = " ".join(str(p) for p in (target, f"({kind})" if kind else None) if p) or None

    def on_server_connected(self, message: ServerConnected) -> None:
        state = self.servers[message.server]
        state.status = "ready"
        state.error = None
        hosted = state.hosted
        assert hosted is not None
        if not self._heap_frozen:
            # What exists now (Textual, the SDK, the catalogs) lives as long as the app: keep it out
            # of full garbage collections, which otherwise stall keystrokes for 100 ms or more.
            gc.freeze()
            self._heap_frozen = True
        self.recorder.server_connected(hosted.connection)
        tree = self.main.query_one(ServerTree)
        connection = hosted.connection
        tree.set_server(message.server, "ready", connection.protocol_version)
        tree.fill_server(message.server, hosted.catalogs)
        self._update_header()
        form = self.main.query_one(ArgumentForm)
        if form.target is None and message.server == self.active_server:
            self.call_later(self._show_placeholder)
        ready = all(s.status == "ready" for s in self.servers.values())
        if self.replay is not None and not self.offline and ready and not self._replay_started:
            self._replay_started = True
            self._replay_online(self.replay)

    async def on_server_failed(self, message: ServerFailed) -> None:
        state = self.servers[message.server]
        error = message.error
        state.status = "exited" if getattr(error, "exit_code", None) is not None else "failed"
        state.error = error
        self.recorder.server_failed(message.server, error.describe() if hasattr(error, "describe") else str(error))
        self.main.query_one(ServerTree).set_server(message.server, state.status)
        self._update_header()
        if message.server == self.active_server:
            await self._show_failure(state)

    async def _show_failure(self, state: ServerState) -> None:
        heading = join(Text("Server ", style="bold red"), plain_line(state.spec.name, 80, style="bold"))
        heading.append(" could not start" if state.status == "failed" else " exited", style="bold red")
        body = plain(state.error.describe() if state.error else "", 6_000)
        body.append("\n\nPress f5 to retry.", style="bold")
        await self.main.query_one(ArgumentForm).clear(heading, body)

    async def _show_placeholder(self) -> None:
        form = self.main.query_one(ArgumentForm)
        if form.target is None:
            await form.clear(Text("Select a prompt on the left.", style="dim"))

    def action_reconnect(self) -> None:
        if self.active_server is not None:
            self.connect_server(self.active_server)

    def _update_header(self) -> None:
        header = self.main.query_one(ServerHeader)
        if self.active_server is None:
            return
        state = self.servers[self.active_server]
        connection = state.hosted.connection if state.hosted else None
        ready = state.status == "ready" and connection is not None
        header.show(
            state.spec.name,
            status=state.status,
            protocol=connection.protocol_version if ready and connection else "",
            capabilities=connection.capabilities if ready and connection else None,
            target=state.target,
        )

    # ------------------------------------------------------------ host events

    async def on_host_event_received(self, message: HostEventReceived) -> None:
        from rea_tui.host.events import BadOutputReceived, ConnectionLost, ListChanged, LogMessageReceived

        event: HostEvent = message.event
        if isinstance(event, ListChanged):
            self.refresh_catalogs(event.server, event)
        elif isinstance(event, ConnectionLost):
            state = self.servers[event.server]
            state.status = "exited"
            from rea_tui.host.errors import ServerExited

            state.error = ServerExited(event.message, event.exit_code, event.stderr_tail)
            self.main.query_one(ServerTree).set_server(event.server, "exited", f"code {event.exit_code}")
            self._update_header()
            notify_plain(
                self,
                f"{event.server} exited (code {event.exit_code}). f5 reconnects.",
                severity="error",
                timeout=8,
            )
        elif isinstance(event, BadOutputReceived):
            notify_plain(self, event.message, title="Server output problem", severity="warning")
        elif isinstance(event, LogMessageReceived) and event.level in (
            "warning",
            "error",
            "critical",
            "alert",
        ):
            notify_plain(self, event.data, title=f"{event.server} log", severity="warning")

    @work(group="catalogs", exit_on_error=False)
    async def refresh_catalogs(self, server: str, event: HostEvent) -> None:
        from rea_tui.host.errors import HostError

        state = self.servers[server]
        if state.hosted is None:
            return
        try:
            await state.hosted.on_event(event)
            await self._read_target(state)
        except HostError as exc:
            notify_plain(self, exc.describe(), title="Refreshing the lists failed", severity="warning")
            return
        self.main.query_one(ServerTree).fill_server(server, state.hosted.catalogs)
        self._update_header()
        await self._refresh_form_definition(server)

    async def _refresh_form_definition(self, server: str) -> None:
        """After a list change, keep the selected prompt (and what was typed) if it still exists."""
        form = self.main.query_one(ArgumentForm)
        if form.target is None or form.target[1] != server:
            return
        kind, _, name = form.target
        state = self.servers[server]
        assert state.hosted is not None
        if kind == "prompt":
            prompt = state.hosted.catalogs.prompts.get(name)
            if prompt is None:
                form.set_message(Text("This prompt is no longer offered by the server.", style="yellow"))
            elif [f.spec for f in form.fields] != self._prompt_fields(prompt):
                await self.show_prompt(server, prompt)

    # ------------------------------------------------------------ selection

    @on(Tree.NodeSelected, "#sidebar")
    def _tree_selected(self, event: Tree.NodeSelected[NodeRef]) -> None:
        if event.node.data is not None:
            self.post_message(NodeSelected(event.node.data))

    async def on_node_selected(self, message: NodeSelected) -> None:
        ref = message.ref
        if ref.server != self.active_server:
            self.active_server = ref.server
            self._update_header()
        state = self.servers[ref.server]
        if state.status in ("failed", "exited") and ref.kind == "server":
            await self._show_failure(state)
            return
        hosted = state.hosted
        if hosted is None or state.status != "ready":
            return
        if ref.kind == "prompt":
            prompt = hosted.catalogs.prompts.get(ref.name)
            if prompt is not None:
                self.recorder.prompt_selected(ref.server, prompt.name)
                await self.show_prompt(ref.server, prompt)
                self.show_pane("form")
        elif ref.kind == "template":
            template = hosted.catalogs.templates.get(ref.name)
            if template is not None:
                await self._show_template(ref.server, template)
                self.show_pane("form")
        elif ref.kind == "tool":
            self.open_tool(ref.server, ref.name)
        elif ref.kind == "resource":
            self.read_resource(ref.server, ref.name)

    @staticmethod
    def _prompt_fields(prompt: Prompt) -> list[FieldSpec]:
        return [FieldSpec(a.name, a.label, a.description, a.required) for a in prompt.arguments]

    async def show_prompt(self, server: str, prompt: Prompt) -> None:
        heading = join(Text("Prompt  ", style="dim"), plain_line(prompt.label, 100, style="bold"))
        if prompt.title:
            heading.append_text(plain_line(f"  ({prompt.name})", 100, style="dim"))
        await self.main.query_one(ArgumentForm).show(
            "prompt",
            server,
            prompt.name,
            heading,
            prompt.description,
            self._prompt_fields(prompt),
            self.forms.get(("prompt", server, prompt.name)),
            "Render  ctrl+r",
        )

    async def _show_template(self, server: str, template: ResourceTemplate) -> None:
        heading = join(Text("Resource template  ", style="dim"), plain_line(template.uri_template, 200, style="bold"))
        specs = [FieldSpec(v, v, "", True) for v in template.variables]
        await self.main.query_one(ArgumentForm).show(
            "template",
            server,
            template.uri_template,
            heading,
            template.description,
            specs,
            self.forms.get(("template", server, template.uri_template)),
            "Read  ctrl+r",
        )

    # ------------------------------------------------------------ completion

    def _completion_ref(self) -> tuple[HostedServer, CompletionRef] | None:
        form = self.main.query_one(ArgumentForm)
        if form.target is None:
            return None
        kind, server, name = form.target
        hosted = self.servers[server].hosted
        if hosted is None or self.servers[server].status != "ready" or not hosted.completions.supported:
            return None
        return hosted, CompletionRef("prompt" if kind == "prompt" else "template", name)

    def request_completion(self, field: ArgumentField) -> None:
        target = self._completion_ref()
        if target is None:
            return
        hosted, ref = target
        value = field.value
        form = self.main.query_one(ArgumentForm)
        if not field.dropdown.is_open:
            form.make_room_for(field)
        field.dropdown.expect(value)

        def deliver(page: CompletionPage | CompletionFailure) -> None:
            if not field.is_attached:
                return
            if isinstance(page, CompletionPage):
                field.dropdown.show_page(page, field.value)
            else:
                field.dropdown.show_failure(page, field.value)

        hosted.completions.submit(ref, field.spec.name, value, context_for(field.spec.name, form.values()), deliver)

    def field_edited(self, field: ArgumentField) -> None:
        """Called by the field's input as soon as its value changes (not via a bubbled message: latency)."""
        form = self.main.query_one(ArgumentForm)
        if form.target is not None:
            self.forms.get(form.target)[field.spec.name] = field.value
        field.set_error(None)
        if field.input.has_focus:
            self.request_completion(field)

    def on_descendant_focus(self, event: Any) -> None:
        widget = event.widget
        for other in self.main.query(ArgumentField):
            if other.dropdown.is_open and (not isinstance(widget, ArgumentInput) or widget.field is not other):
                other.dropdown.close()
        if isinstance(widget, ArgumentInput):
            self.request_completion(widget.field)

    def on_argument_input_accepted(self, message: ArgumentInput.Accepted) -> None:
        field = message.field
        field.dropdown.close()
        # Accepting only fills the field: no new completion request, nothing runs.
        with field.input.accepting():
            field.input.value = sanitize(message.value, None)
            field.input.cursor_position = len(field.input.value)
        form = self.main.query_one(ArgumentForm)
        if form.target is not None:
            self.forms.get(form.target)[field.spec.name] = field.input.value
            self.recorder.completion_accepted(form.target[1], form.target[2], field.spec.name, field.input.value)
        field.set_error(None)

    @on(Input.Submitted, ".argument-input")
    def _argument_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(RenderRequested())

    @on(Button.Pressed, "#render-button")
    def _render_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(RenderRequested())

    def action_render(self) -> None:
        self.post_message(RenderRequested())

    def on_render_requested(self, _message: RenderRequested) -> None:
        form = self.main.query_one(ArgumentForm)
        if form.target is None:
            return
        for argument in form.fields:
            argument.dropdown.close()
            argument.set_error(None)
        missing = form.missing_required()
        if missing:
            for argument in missing:
                argument.set_error("required")
            form.set_message(
                Text(f"Fill the required field(s): {', '.join(f.spec.name for f in missing)}", style="red")
            )
            missing[0].input.focus()
            return
        form.set_message(None)
        kind, server, name = form.target
        if kind == "prompt":
            self.render_prompt(server, name, form.values())
        else:
            state = self.servers[server]
            assert state.hosted is not None
            template = state.hosted.catalogs.templates.get(name)
            if template is not None:
                self.read_resource(server, template.expand(form.values()))

    @work(group="render", exclusive=True, exit_on_error=False)
    async def render_prompt(self, server: str, name: str, values: dict[str, str]) -> None:
        from rea_tui.host.errors import HostError, ProtocolError
        from rea_tui.host.workflow import render_prompt

        state = self.servers[server]
        if state.hosted is None:
            return
        form = self.main.query_one(ArgumentForm)
        view = self.main.query_one(WorkflowView)
        form.set_message(Text("rendering…", style="dim"))
        try:
            workflow = await render_prompt(state.hosted.connection, name, values, state.hosted.catalogs.tools.items)
        except ProtocolError as exc:
            self._mark_fields(exc)
            form.set_message(join(Text("The server rejected the arguments: ", style="red"), plain(str(exc), 500)))
            return
        except HostError as exc:
            form.set_message(join(Text("Render failed: ", style="red"), plain(exc.describe(), 2_000)))
            return
        if form.target != ("prompt", server, name):
            return  # the analyst moved on while this rendered
        form.set_message(None)
        self.recorder.workflow(server, workflow)
        await view.show(server, workflow)
        self.show_pane("workflow")

    def _mark_fields(self, error: Any) -> None:
        """Put each field diagnostic the server sent under the field it names."""
        form = self.main.query_one(ArgumentForm)
        names = [f.spec.name for f in form.fields]
        first: ArgumentField | None = None
        for diagnostic in getattr(error, "fields", []):
            path = diagnostic.field.replace("/", ".").split(".")
            match = next((part for part in reversed(path) if part in names), None)
            field = form.field(match) if match else None
            if field is not None:
                field.set_error(diagnostic.message)
                first = first or field
        if first is not None:
            first.input.focus()

    # ------------------------------------------------------------ evidence

    def _ledger_changed(self, entry: EvidenceEntry) -> None:
        if entry.finished and entry.id not in self._recorded_entries:
            self._recorded_entries.add(entry.id)
            self.recorder.tool_call(entry)
        # Decided now, not when the callback runs: a quick call may be finished by then.
        new = entry.id not in self._shown_entries
        self._shown_entries.add(entry.id)
        self.call_later(self._entry_changed, entry, new)

    async def _entry_changed(self, entry: EvidenceEntry, new: bool) -> None:
        # A new entry is selected, so its progress (or its result) shows.
        for pane in self.main.query(EvidencePane):
            await pane.entry_changed(entry, select=new)
        if new:
            self.show_pane("evidence")

    @on(ResourceLinkOpened)
    def _open_link(self, message: ResourceLinkOpened) -> None:
        self.read_resource(message.server, message.uri)

    @work(group="resource", exit_on_error=False)
    async def read_resource(self, server: str, uri: str) -> None:
        from rea_tui.host.tool_call import run_resource_read

        state = self.servers[server]
        if state.hosted is None:
            return
        entry = await run_resource_read(state.hosted.connection, self.ledger, uri)
        await self.main.query_one(EvidencePane).select(entry.id)
        self.show_pane("evidence")

    def action_focus_evidence(self) -> None:
        self.show_pane("evidence")
        self.main.query_one("#evidence-filter", Input).focus()

    # ------------------------------------------------------------ tools (the investigation loop)

    @on(StepChosen)
    def _step_chosen(self, message: StepChosen) -> None:
        self.open_tool(message.server, message.tool)

    def open_tool(self, server: str, tool_name: str, arguments: dict[str, Any] | None = None) -> None:
        from rea_tui.ui.investigation import open_tool_form

        open_tool_form(self, server, tool_name, arguments)

    def _note_changed(self, note: Note, removed: bool) -> None:
        if removed:
            self.recorder.note_removed(note.number)
        else:
            self.recorder.note(note)

    @on(EvidenceDetail.AnswerRequested)
    def _answer_requested(self, message: EvidenceDetail.AnswerRequested) -> None:
        from rea_tui.ui.investigation import answer_narrowing

        answer_narrowing(self, message.entry_id)

    def action_cancel_call(self) -> None:
        running = [task for task in self._calls.values() if not task.done()]
        if not running:
            self.notify("No tool call is running.")
            return
        for task in running:
            task.cancel()

    # ------------------------------------------------------------ other screens

    def action_protocol_log(self) -> None:
        from rea_tui.ui.screens.protocol_log import ProtocolLogScreen

        connections = [s.hosted.connection for s in self.servers.values() if s.hosted is not None]
        if not connections:
            self.notify("No server has been started yet.")
            return
        active = self.servers.get(self.active_server or "")
        if active is not None and active.hosted is not None:
            connections.remove(active.hosted.connection)
            connections.insert(0, active.hosted.connection)
        self.push_screen(ProtocolLogScreen(connections, stable=self.stable))

    def action_export_report(self) -> None:
        from rea_tui.host.report import render_markdown
        from rea_tui.host.transcript import read_transcript

        source = self.recorder.path or (self.replay.transcript.path if self.replay else None)
        if source is None or not source.is_file():
            self.notify("There is no transcript to report on yet.", severity="warning")
            return
        target = source.with_suffix(".md")
        try:
            target.write_text(render_markdown(read_transcript(source)), encoding="utf-8")
        except OSError as exc:
            notify_plain(self, f"Could not write the report: {exc}", severity="error")
            return
        notify_plain(self, f"Report written to {target}", title="Report", timeout=10)

    def action_save_screenshot(self) -> None:
        from rea_tui.ui.screens.screenshot import ScreenshotScreen

        def save(folder: Path | None) -> None:
            # Called once the dialog is gone, so the screenshot is of the screen behind it.
            if folder is None:
                return
            self.screenshot_folder = folder
            try:
                folder.mkdir(parents=True, exist_ok=True)
                path = self.save_screenshot(path=str(folder))
            except OSError as exc:
                notify_plain(self, f"Could not save the screenshot: {exc}", severity="error")
                return
            notify_plain(self, f"Screenshot saved to {path}", title="Screenshot", timeout=10)

        self.push_screen(ScreenshotScreen(self.screenshot_folder), callback=save)

    def action_notes(self) -> None:
        from rea_tui.ui.screens.notes import NotesScreen

        self.push_screen(NotesScreen(self.notebook, self.ledger.ids))

    def action_completion_inspector(self) -> None:
        from rea_tui.ui.screens.completion_inspector import CompletionInspectorScreen

        self.push_screen(CompletionInspectorScreen(self.completion_log, stable=self.stable))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for binding in self.BINDINGS:
            assert isinstance(binding, Binding)
            if binding.action == "quit":
                continue
            action = binding.action
            yield SystemCommand(
                f"{binding.description} ({binding.key})", binding.tooltip, lambda a=action: self.run_action(a)
            )

    async def action_quit(self) -> None:
        for task in self._calls.values():
            task.cancel()
        for state in self.servers.values():
            if state.hosted is not None:
                await state.hosted.close()
        self.recorder.close()
        self.exit(0)


def create_app(
    specs: Iterable[ServerSpec],
    *,
    timeout: float = 30.0,
    stable: bool = False,
    transcript: Path | None = None,
    replay: ReplayPlan | None = None,
    offline: bool = False,
    started: dict[str, subprocess.Popen[bytes]] | None = None,
) -> ReaApp:
    """The app factory used by `rea-tui`, the tests and the screenshot script."""
    return ReaApp(
        specs, timeout=timeout, stable=stable, transcript=transcript, replay=replay, offline=offline, started=started
    )
