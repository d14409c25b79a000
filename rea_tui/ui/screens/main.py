"""The main screen: servers and prompts on the left, the form in the centre, workflow and evidence on the right.

It owns the layout, its bindings and the flows that run on it: connecting
servers (`ServerFlow`), filling and rendering a prompt (`FormFlow`), running
tool calls (`ToolCallFlow`) and replaying a recording (`ReplayFlow`). Flows do
the work and post past-tense messages; the screen's handlers show them.

The keyboard never loses the analyst's place: the pane that has the focus is
marked (its border), f6 moves the focus to the next pane (in the narrow
layout, the one it shows), choosing a prompt puts the cursor in its first
empty field (keys typed meanwhile land there), and f8 widens the evidence
detail to the whole screen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Input, Static, Tab, Tabs, Tree

from rea_tui.host import sanitize_line
from rea_tui.ui.flows.base import start_job
from rea_tui.ui.flows.evidence_actions import EvidenceActionFlow
from rea_tui.ui.flows.form import FormFlow
from rea_tui.ui.flows.replay import ReplayFlow
from rea_tui.ui.flows.servers import ServerFlow
from rea_tui.ui.flows.tool_call import ToolCallFlow
from rea_tui.ui.messages import (
    CatalogsRefreshed,
    EntriesListed,
    HostEventReceived,
    JobFailed,
    LedgerChanged,
    NarrowingAsked,
    NodeRef,
    NodeSelected,
    PromptRendered,
    RenderRequested,
    ResourceLinkOpened,
    ServerConnected,
    ServerConnectFailed,
    ServerStatusChanged,
    StepChosen,
    ToolCallFinished,
)
from rea_tui.ui.screens.main_keys import MAIN_SCREEN_BINDINGS, ONLINE_ACTIONS
from rea_tui.ui.screens.panes import PANE_IDS, PANES, Pane, focus_target, pane_of
from rea_tui.ui.text import NAME_LIMIT, notify_plain, plain_line
from rea_tui.ui.widgets.argument_form import ArgumentForm, ArgumentInput
from rea_tui.ui.widgets.evidence_pane import EvidenceDetail, EvidencePane
from rea_tui.ui.widgets.header import ServerHeader, server_details
from rea_tui.ui.widgets.result_view import ViewTable
from rea_tui.ui.widgets.sidebar import ServerTree
from rea_tui.ui.widgets.sidebar_filter import SidebarFilter
from rea_tui.ui.widgets.workflow_view import WorkflowView

if TYPE_CHECKING:
    from pathlib import Path

    from textual.widget import Widget

    from rea_tui.host import EvidenceEntry, ReplayPlan, Session, Workflow
    from rea_tui.ui.settings import AppSettings

# Under this many columns, one pane shows at a time (with tabs).
NARROW_WIDTH = 120
RESOURCE_GROUP = "resource"
# Keys held before the first entry is listed (enter and typed text), at most this many; more go on as typed.
HELD_KEYS_LIMIT = 256


class MainScreen(Screen[None]):
    """Prompts on the left, the form in the centre, workflow and evidence on the right."""

    BINDINGS: ClassVar[list[BindingType]] = MAIN_SCREEN_BINDINGS

    pane: reactive[Pane] = reactive("form")
    narrow: reactive[bool] = reactive(False)
    zoomed: reactive[bool] = reactive(False)
    # After rendering, the form is one summary line (wide layouts): the workflow and evidence get its room.
    form_collapsed: reactive[bool] = reactive(False)

    def __init__(
        self,
        session: Session,
        settings: AppSettings,
        *,
        replay: ReplayPlan | None = None,
        offline: bool = False,
    ) -> None:
        super().__init__(id="main-screen")
        self.session = session
        self.settings = settings
        self.offline = offline
        self.active_server: str | None = session.names[0] if session.names else None
        self.form_flow = FormFlow(self, session)
        self.calls = ToolCallFlow(self, session)
        self.evidence_actions = EvidenceActionFlow(self, session, self.calls, offline=offline)
        self.replay = ReplayFlow(self, session, replay, self.form_flow) if replay is not None else None
        self.servers = ServerFlow(
            self,
            session,
            offline=offline,
            active_server=lambda: self.active_server,
            prefill=replay.next_elicitation if replay is not None else None,
        )
        self._shown_entries: set[str] = set()
        # Set on mount; `detach` may come before it (an attached TUI that failed to start).
        self._ledger_unsubscribe: Callable[[], None] = lambda: None
        # Entries opened or changed since the last LedgerChanged was handled (by key; True: it is new).
        self._ledger_pending: dict[str, tuple[EvidenceEntry, bool]] = {}
        # Whether a tool call is running (ctrl+b is shown only then).
        self._call_running = False
        # Keys typed while a prompt's form opens (they went to the sidebar): they go to its first field.
        self._typed_ahead: list[str] | None = None
        # Enter and text typed before the first entry is listed (at once after starting, before any row
        # but a connecting server's): they are for the first prompt, and wait for EntriesListed.
        self._held_keys: list[tuple[str, str | None]] | None = [] if session.names and not offline else None

    def compose(self) -> ComposeResult:
        yield ServerHeader(id="server-header")
        yield Tabs(*(Tab(p.capitalize(), id=f"tab-{p}") for p in PANES), id="pane-tabs")
        with Horizontal(id="main"):
            yield Static("", id="notes-room")
            with Vertical(id="sidebar-column"):
                yield SidebarFilter(id="sidebar-filter")
                yield ServerTree(id="sidebar")
            yield ArgumentForm(id="form")
            with Vertical(id="right"):
                yield Static("", id="form-summary")
                yield WorkflowView(id="workflow")
                yield EvidencePane(self.session.ledger, id="evidence")
        yield Footer()

    def on_mount(self) -> None:
        # The tabs are for the mouse (f6 cycles panes from the keyboard); focus starts on the server list.
        self.query_one("#pane-tabs", Tabs).can_focus = False
        self.narrow = self.app.size.width < NARROW_WIDTH
        self._show_pane()
        self.query_one(ServerTree).focus()
        self.form_flow.attach(self.query_one(ArgumentForm))
        self.query_one(EvidencePane).border_subtitle = self._transcript_label()
        self._ledger_unsubscribe = self.session.ledger.subscribe(self._ledger_changed)
        if self.session.ledger.entries:
            # A live session's earlier work (`rea-tui session attach`): listed as it stands.
            self._shown_entries.update(entry.id for entry in self.session.ledger.entries)
            self.call_after_refresh(self.query_one(EvidencePane).refresh_list)
        if self.replay is not None and self.offline:
            self.replay.show_offline()
        self.servers.start_all()
        self.update_header()
        if getattr(self.app, "offer_discovered", False) and not self.offline:
            self.servers.offer_discovered()
        untrusted = getattr(self.app, "untrusted_folder", None)
        if untrusted is not None and not self.offline:
            self.servers.offer_trust(untrusted)

    def detach(self) -> None:
        """An attached TUI quits: the live session goes on without this screen's listeners and dialogs."""
        self._ledger_unsubscribe()
        self.servers.detach()

    def _transcript_label(self) -> str:
        transcript = self.session.recorder.path
        if transcript is None:
            return "offline replay: read-only"
        return f"transcript {transcript.name}" if self.settings.show_machine_details else "transcript (recording)"

    # ------------------------------------------------------------ panes and focus

    def on_resize(self, event: events.Resize) -> None:
        self.narrow = event.size.width < NARROW_WIDTH

    def watch_narrow(self, narrow: bool) -> None:
        self.set_class(narrow, "-narrow")
        self.refresh_bindings()

    def watch_pane(self, pane: Pane) -> None:
        self._show_pane()

    def watch_form_collapsed(self, collapsed: bool) -> None:
        self.set_class(collapsed, "-form-collapsed")

    def _summarize_form(self, workflow: Workflow) -> None:
        """`Investigate a feature  feature=unknown encoding  document=libpython3.11.so.1.0   f10 edits`."""
        summary = Text(no_wrap=True, overflow="ellipsis")
        summary.append_text(plain_line(workflow.prompt, NAME_LIMIT, style="bold"))
        for name, value in workflow.arguments.items():
            if value:
                summary.append(f"  {sanitize_line(name, NAME_LIMIT)}=", style="dim")
                summary.append_text(plain_line(value, NAME_LIMIT))
        summary.append("   f10 edits the arguments", style="dim")
        self.query_one("#form-summary", Static).update(summary)

    def action_toggle_form(self) -> None:
        if self.query_one(ArgumentForm).target is None:
            return
        self.form_collapsed = not self.form_collapsed
        if not self.form_collapsed:
            self.call_after_refresh(self.focus_pane, "form")

    def watch_zoomed(self, zoomed: bool) -> None:
        self.set_class(zoomed, "-zoom")
        self.refresh_bindings()

    def _show_pane(self) -> None:
        for pane in PANES:
            self.set_class(pane == self.pane, f"-pane-{pane}")
        if not self.is_mounted:
            return
        tabs = self.query_one("#pane-tabs", Tabs)
        if tabs.active != f"tab-{self.pane}":
            tabs.active = f"tab-{self.pane}"

    def pane_of(self, widget: Widget | None) -> Pane | None:
        return pane_of(self, widget)

    def show_pane(self, pane: Pane, *, focus: bool = False) -> None:
        """Move to `pane`: with `focus` (f6, a tab) the focus goes into it. Narrow, the pane is shown and always
        focused (the one before is hidden, and keys must not go to a hidden widget); wide, every pane is in view,
        so a pane that only has news (a result, a workflow) leaves the focus where the analyst is."""
        if self.narrow:
            self.pane = pane
            # After the refresh: the pane is displayed only then.
            self.call_after_refresh(self.focus_pane, pane)
        elif focus:
            self.pane = pane
            self.focus_pane(pane)

    def focus_pane(self, pane: Pane) -> bool:
        """Put the focus on the pane's main widget: the tree, a field, the steps, the evidence list.

        False when the pane has nothing to focus yet (no prompt chosen, nothing rendered)."""
        if pane == "form" and self.form_collapsed and not self.narrow:
            return False  # folded to its summary line: f10 opens it
        target = focus_target(self, pane)
        if target is not None and target.focusable:
            target.focus()
            return True
        if self.narrow and self.pane_of(self.focused) != pane:
            # Nothing to focus in the pane shown: no key goes to a pane that is hidden.
            self.set_focus(None)
        return False

    @on(Tabs.TabActivated, "#pane-tabs")
    def _tab_activated(self, event: Tabs.TabActivated) -> None:
        name = (event.tab.id or "tab-form").removeprefix("tab-")
        pane: Pane = next((p for p in PANES if p == name), "form")
        if pane != self.pane:
            self.show_pane(pane, focus=True)

    def action_next_pane(self) -> None:
        # From the current pane (which follows the focus), so quick presses each move one pane on.
        start = PANES.index(self.pane)
        if self.narrow:
            self.show_pane(PANES[(start + 1) % len(PANES)])
            return
        # Wide, every pane is in view: one with nothing to focus yet is passed over.
        for step in range(1, len(PANES)):
            pane = PANES[(start + step) % len(PANES)]
            if self.focus_pane(pane):
                self.pane = pane
                return

    def action_zoom(self) -> None:
        self.zoomed = not self.zoomed
        if self.zoomed:
            self.pane = "evidence"
            self.call_after_refresh(self.query_one(EvidenceDetail).focus)

    def action_unzoom(self) -> None:
        self.zoomed = False

    async def action_toggle_view(self) -> None:
        view = await self.query_one(EvidenceDetail).toggle_view()
        self.notify("The evidence as JSON" if view == "tree" else "The evidence as listing and tables", timeout=2)

    def on_key(self, event: events.Key) -> None:
        """A printable key no widget took: typed on a prompt in the sidebar (or while its form opened),
        it belongs to the prompt's first empty field. The sidebar passes such keys on before it
        reports the prompt chosen, so this also opens the prompt if that report is not on its way."""
        if self._hold(event):
            return
        if not event.is_printable or event.character is None:
            return
        focused = self.focused
        if isinstance(focused, ArgumentInput):
            event.stop()
            focused.insert_text_at_cursor(event.character)
            return
        if not isinstance(focused, ServerTree):
            return
        node = focused.cursor_node
        if node is None or node.data is None or node.data.kind not in ("prompt", "template"):
            return
        event.stop()
        if self._typed_ahead is None:
            self._typed_ahead = []
            self.post_message(NodeSelected(node.data))
        self._typed_ahead.append(event.character)

    def _hold(self, event: events.Key) -> bool:
        """Hold enter or typed text that came before the first entry was listed (see `_held_keys`)."""
        held = self._held_keys
        if held is None or len(held) >= HELD_KEYS_LIMIT or not (event.key == "enter" or event.is_printable):
            return False
        if self.focused is not None and not isinstance(self.focused, ServerTree):
            return False
        event.stop()
        event.prevent_default()  # enter on a connecting server's row selects nothing
        held.append((event.key, event.character))
        return True

    def on_entries_listed(self, message: EntriesListed) -> None:
        """The held keys go on: on the first prompt, enter and typed text alike open it, and the text goes
        to its first empty field (as typing on it does); on any other row, as if typed now. With the
        focus moved on meanwhile, they are dropped."""
        held, self._held_keys = self._held_keys, None
        tree = self.query_one(ServerTree)
        if not held or self.focused not in (None, tree):
            return
        node = tree.cursor_node
        if node is not None and node.data is not None and node.data.kind in ("prompt", "template"):
            self._typed_ahead = [character for key, character in held if key != "enter" and character]
            self.post_message(NodeSelected(node.data))
            return
        for key, character in held:
            self.app.post_message(events.Key(key, character))

    # ------------------------------------------------------------ servers

    def on_server_connected(self, message: ServerConnected) -> None:
        self.servers.connected(message.server)
        if self.replay is not None and not self.offline and self.servers.all_ready():
            self.replay.run_online()

    async def on_server_connect_failed(self, message: ServerConnectFailed) -> None:
        await self.servers.failed(message.server, message.message, exited=message.exited)

    async def on_host_event_received(self, message: HostEventReceived) -> None:
        self.servers.host_event(message.event)

    async def on_catalogs_refreshed(self, message: CatalogsRefreshed) -> None:
        self.servers.refreshed(message.server, message.withdrawn)
        await self.form_flow.definitions_changed(message.server)

    def on_server_status_changed(self, message: ServerStatusChanged) -> None:
        if message.server == self.active_server:
            self.update_header()

    def action_reconnect(self) -> None:
        if self.active_server is not None:
            self.servers.connect(self.active_server)

    async def show_server_details(self, name: str) -> None:
        """In the form pane: the server's whole command (the sidebar shows its short name), protocol and target."""
        await self.query_one(ArgumentForm).clear(*server_details(self.session.state(name)))

    def update_header(self) -> None:
        if self.active_server is None:
            return
        state = self.session.state(self.active_server)
        hosted = state.hosted
        connection = hosted.connection if hosted is not None and state.status == "ready" else None
        self.query_one(ServerHeader).show(
            state.spec.name,
            status=state.status,
            protocol=connection.protocol_version if connection else "",
            capabilities=connection.capabilities if connection else None,
            target=hosted.target if hosted is not None else None,
        )

    # ------------------------------------------------------------ selection

    def action_filter_sidebar(self) -> None:
        self.pane = "prompts"
        self.query_one(SidebarFilter).focus()

    @on(Input.Changed, "#sidebar-filter")
    def _sidebar_filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.query_one(ServerTree).filter(event.value)

    @on(SidebarFilter.Left)
    def _sidebar_filter_left(self, message: SidebarFilter.Left) -> None:
        tree = self.query_one(ServerTree)
        tree.focus()
        if message.to_first_match:
            tree.move_to_first_entry()

    @on(Tree.NodeSelected, "#sidebar")
    def _tree_selected(self, event: Tree.NodeSelected[NodeRef]) -> None:
        if event.node.data is not None:
            if event.node.data.kind in ("prompt", "template") and self._typed_ahead is None:
                self._typed_ahead = []
            self.post_message(NodeSelected(event.node.data))

    async def on_node_selected(self, message: NodeSelected) -> None:
        ref = message.ref
        if ref.server != self.active_server:
            self.active_server = ref.server
            self.update_header()
        state = self.session.state(ref.server)
        if state.status in ("failed", "exited") and ref.kind == "server":
            await self.servers.show_failure(ref.server)
            return
        if ref.kind == "server" and self.query_one(ArgumentForm).target is None:
            await self.show_server_details(ref.server)
            return
        if self.session.browsable(ref.server) is None:
            self._typed_ahead = None
            return
        if ref.kind in ("prompt", "template"):
            typed, self._typed_ahead = self._typed_ahead, None
            form = self.query_one(ArgumentForm)
            # Chosen twice (a key typed on it, then its report): the form is already there.
            shown = form.target is not None and (form.target.server, form.target.name) == (ref.server, ref.name)
            if shown or await self.form_flow.select(ref):
                self.form_collapsed = False
                self.show_pane("form")
                field = form.first_empty_field()
                if field is not None:
                    # Not scrolled to: the fields were just laid out, and the form opens at its top.
                    field.focus(scroll_visible=False)
                    if typed:
                        field.type_ahead("".join(typed))
        elif ref.kind == "tool":
            self.calls.open(ref.server, ref.name)
        elif ref.kind == "resource":
            self.read_resource(ref.server, ref.name)

    # ------------------------------------------------------------ the form

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self.form_flow.focus_changed(event.widget)
        # The current pane follows the focus (a click, tab): f6 goes on from there.
        pane = self.pane_of(event.widget)
        if pane == "form" and self.form_collapsed:
            self.form_collapsed = False  # a field took the focus (a server's diagnostic): it is shown
        if pane is not None and pane != self.pane and not self.narrow:
            self.pane = pane
        # The focused pane's border changes colour: repaint the borders now, not with the next unrelated refresh.
        for pane_id in PANE_IDS:
            self.query_one(f"#{pane_id}").refresh()

    def on_argument_input_accepted(self, message: ArgumentInput.Accepted) -> None:
        self.form_flow.accept(message.field, message.value)

    @on(Input.Submitted, ".argument-input")
    def _argument_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(RenderRequested())

    def action_render(self) -> None:
        self.post_message(RenderRequested())

    def on_render_requested(self, _message: RenderRequested) -> None:
        self.form_flow.render()

    async def on_prompt_rendered(self, message: PromptRendered) -> None:
        await self.query_one(WorkflowView).show(message.server, message.workflow)
        self._summarize_form(message.workflow)
        if not self.narrow:
            was_in_form = self.pane_of(self.focused) == "form"
            self.form_collapsed = True
            if was_in_form:
                # The form is folded away: the focus goes on to the steps (hidden widgets take no keys).
                self.show_pane("workflow", focus=True)
        else:
            self.show_pane("workflow")

    # ------------------------------------------------------------ evidence and tool calls

    def _ledger_changed(self, entry: EvidenceEntry) -> None:
        """One message for what changed until it is handled: a replay restoring 1,000 entries (or a
        burst of progress) is listed once, not in 2,000 messages that each update the list."""
        # Whether it is new is decided now, not when the message is handled: a quick call may be finished by then.
        new = entry.id not in self._shown_entries
        self._shown_entries.add(entry.id)
        pending = self._ledger_pending
        if not pending:
            self.post_message(LedgerChanged())
        # In the order they were first changed, so the last new one is the newest.
        pending[entry.id] = (entry, new or pending.get(entry.id, (entry, False))[1])

    def _update_call_keys(self, entry: EvidenceEntry) -> None:
        """The footer is rebuilt only when a call starts running or the last one ends: a rebuild takes
        a frame's time, and a burst of entries or progress updates rebuilt it for every one."""
        if not entry.finished:
            running = True
        elif self._call_running:
            running = any(not other.finished for other in self.session.ledger.entries)
        else:
            return
        if running != self._call_running:
            self._call_running = running
            self.refresh_bindings()

    async def on_ledger_changed(self, _message: LedgerChanged) -> None:
        pending, self._ledger_pending = self._ledger_pending, {}
        for entry, _new in pending.values():
            self._update_call_keys(entry)
        # The newest new entry is selected, so its progress (or its result) shows.
        newest = next((entry for entry, new in reversed(pending.values()) if new), None)
        await self.query_one(EvidencePane).entries_changed([entry for entry, _new in pending.values()], newest)
        if newest is not None:
            self.show_pane("evidence")

    @on(ResourceLinkOpened)
    def _open_link(self, message: ResourceLinkOpened) -> None:
        self.read_resource(message.server, message.uri)

    def read_resource(self, server: str, uri: str) -> None:
        async def read() -> None:
            entry = await self.session.read_resource(server, uri)
            await self.query_one(EvidencePane).select(entry.id)
            self.show_pane("evidence")

        start_job(self, read(), RESOURCE_GROUP, server)

    def action_focus_evidence(self) -> None:
        self.pane = "evidence"
        self.call_after_refresh(self.query_one("#evidence-filter", Input).focus)

    @on(StepChosen)
    def _step_chosen(self, message: StepChosen) -> None:
        if self.offline:
            self.notify("An offline replay runs nothing: replay the session online to run its steps again.")
            return
        self.calls.open(message.server, message.tool)

    def on_tool_call_finished(self, message: ToolCallFinished) -> None:
        self.show_pane("evidence")
        self.evidence_actions.result_came(message.entry)

    @on(ViewTable.RowChosen)
    def _row_chosen(self, message: ViewTable.RowChosen) -> None:
        entry = self.query_one(EvidenceDetail).entry
        if entry is not None:
            self.evidence_actions.row_chosen(entry, message.facts)

    @on(EvidencePane.EntryChosen)
    def _entry_chosen(self, message: EvidencePane.EntryChosen) -> None:
        entry = self.session.ledger.get(message.entry_id)
        if entry is not None:
            has_rows = bool(self.query_one(EvidenceDetail).tables)
            self.evidence_actions.entry_chosen(entry, has_rows)

    def on_narrowing_asked(self, message: NarrowingAsked) -> None:
        self.calls.answer_narrowing(message.entry.id)

    @on(EvidenceDetail.AnswerRequested)
    def _answer_requested(self, message: EvidenceDetail.AnswerRequested) -> None:
        if self.offline:
            self.notify("An offline replay shows the recorded question; it asks nothing.")
            return
        self.calls.answer_narrowing(message.entry_id)

    def action_cancel_call(self) -> None:
        if not self.calls.cancel_all():
            self.notify("No tool call is running.")

    def on_job_failed(self, message: JobFailed) -> None:
        """The error route's second half: mark what the failed job was doing."""
        if message.group == "connect":
            error = message.error
            self.post_message(ServerConnectFailed(message.name, f"unexpected error: {type(error).__name__}: {error}"))
        elif message.group == "render":
            self.form_flow.render_failed(message.error)

    # ------------------------------------------------------------ other screens

    def action_protocol_log(self) -> None:
        from rea_tui.ui.screens.protocol_log import ProtocolLogScreen

        connections = [h.connection for h in map(self.session.hosted, self.session.names) if h is not None]
        if not connections:
            self.notify("No server has been started yet.")
            return
        active = self.session.hosted(self.active_server or "")
        if active is not None:
            connections.remove(active.connection)
            connections.insert(0, active.connection)
        self.app.push_screen(ProtocolLogScreen(connections))

    def action_completion_inspector(self) -> None:
        from rea_tui.ui.screens.completion_inspector import CompletionInspectorScreen

        server = self.session.ready(self.active_server) if self.active_server is not None else None
        self.app.push_screen(CompletionInspectorScreen(self.session.completion_log, server=server))

    def action_server_details(self) -> None:
        from rea_tui.ui.screens.server_details import ServerDetailsScreen

        if self.active_server is not None:
            self.app.push_screen(ServerDetailsScreen(self.session.state(self.active_server)))

    def action_tasks(self) -> None:
        from rea_tui.ui.screens.tasks import TasksScreen

        self.app.push_screen(TasksScreen(self.session))

    def action_resource_view(self) -> None:
        from rea_tui.ui.screens.resource_view import ResourceViewScreen

        node = self.query_one(ServerTree).cursor_node
        ref = node.data if node is not None else None
        if ref is not None and ref.kind == "resource":
            server, uri = ref.server, ref.name
        else:
            read = [e for e in self.session.ledger.entries if e.tool == "resources/read" and e.arguments.get("uri")]
            if not read:
                self.notify("Select a resource on the left (or read one) first.")
                return
            server, uri = read[-1].server, str(read[-1].arguments["uri"])
        self.app.push_screen(ResourceViewScreen(self.session, server, uri))

    def action_sign_in(self) -> None:
        if self.active_server is not None:
            self.servers.sign_in(self.active_server)

    def action_discovered_servers(self) -> None:
        self.servers.add_discovered()

    def action_notes(self) -> None:
        from rea_tui.ui.screens.notes import NotesScreen

        beside = not self.narrow
        notes = NotesScreen(self.session.notebook, self.session.ledger.refs, read_only=self.offline, beside=beside)
        # Beside: the left of this screen makes room for the notes panel; the evidence stays in view on the right.
        self.set_class(beside, "-notes-open")

        def closed(_result: None) -> None:
            self.remove_class("-notes-open")

        self.app.push_screen(notes, callback=closed)

    def action_export_report(self) -> None:
        replayed = self.replay.plan.transcript.path if self.replay is not None else None
        source = self.session.recorder.path or replayed
        if source is None or not source.is_file():
            self.notify("There is no transcript to report on yet.", severity="warning")
            return
        # Read and written in a thread: a long session's transcript takes seconds, and the screen goes on.
        self.run_worker(self._write_report(source), group="report", exclusive=True, exit_on_error=False)

    async def _write_report(self, source: Path) -> None:
        from rea_tui.host import read_transcript, render_markdown

        target = source.with_suffix(".md")

        def write() -> None:
            target.write_text(render_markdown(read_transcript(source)), encoding="utf-8")

        try:
            await asyncio.to_thread(write)
        except OSError as exc:
            notify_plain(self.app, f"Could not write the report: {exc}", severity="error")
            return
        notify_plain(self.app, f"Report written to {target}", title="Report", timeout=10)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.offline and action in ONLINE_ACTIONS:
            return False
        if action == "unzoom":
            return self.zoomed
        if action == "cancel_call":
            # Shown (and taken) only while a call runs: the footer has room for what can be done now.
            return self._call_running
        if action == "next_pane":
            # Zoomed, there is one pane; wide, f6 still moves the focus (not shown: the footer is full).
            return not self.zoomed
        return True
