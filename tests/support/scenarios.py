"""Deterministic app states, shared by the snapshot tests and `screenshots/make.py`.

Each scenario is an async function `(pilot) -> None` that drives an app made
with `make_app([reference_spec()], settings=snapshot_settings())` (or
`[failing_spec()]` for `server_failed`) like an analyst would — selecting, typing, pressing keys and
buttons in the real dialogs — into one state, then waits until that state has
settled: the servers answered, no worker or tool call is running, every open
dropdown shows the page for the field's current value, no toast is up, and
the text cursors have stopped blinking.

The reference server runs `--synthetic N --seed 0`, so what it answers is the
same on every machine; the test settings hide times, latencies and durations.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from typing import Any

from textual import events
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, ListView, OptionList, Select, TextArea, Tree

from rea_tui.host import EvidenceEntry, FormTarget, ServerSpec
from rea_tui.ui.app import ReaApp
from rea_tui.ui.messages import NodeRef
from rea_tui.ui.screens.narrowing import NarrowingScreen
from rea_tui.ui.widgets.argument_form import ArgumentField, ArgumentForm
from rea_tui.ui.widgets.evidence_pane import EvidenceDetail, EvidencePane
from rea_tui.ui.widgets.sidebar import ServerTree
from rea_tui.ui.widgets.workflow_view import StepItem, WorkflowView
from tests.support.pilot import wait_for

SIZE = (160, 48)
NARROW = (100, 40)

SERVER = "rea (synthetic)"
FAILING_SERVER = "rea (missing target)"
MISSING_TARGET = "/nonexistent/path"
# A value the reference server rejects with -32602 naming the field (prompt arguments are capped at 4,096 characters).
TOO_LONG = "openDocument " * 320

Scenario = Callable[[Pilot[Any]], Awaitable[None]]


def reference_spec(procedures: int = 2000, *, open_first: bool = False) -> ServerSpec:
    """The bundled reference server over stdio on a deterministic synthetic target.

    `open_first`: the target is open before the first lists are answered, so no
    list_changed follows them, whatever the machine's speed (snapshots).
    """
    return ServerSpec(
        name=SERVER,
        transport="stdio",
        command=sys.executable,
        args=("-m", "rea_tui.server", "--synthetic", str(procedures), "--seed", "0")
        + (("--open-first",) if open_first else ()),
    )


def failing_spec() -> ServerSpec:
    """The reference server asked to open a target that does not exist: it exits with code 2."""
    return ServerSpec(
        name=FAILING_SERVER,
        transport="stdio",
        command=sys.executable,
        args=("-m", "rea_tui.server", "--target", MISSING_TARGET),
    )


# ---------------------------------------------------------------- waiting


def the_app(pilot: Pilot[Any]) -> ReaApp:
    app = pilot.app
    assert isinstance(app, ReaApp), "scenarios drive the rea-tui app"
    return app


def _open_dropdowns_answered(app: ReaApp) -> bool:
    """Every open dropdown shows what the server answered for its field's current value."""
    for field in app.main.query(ArgumentField):
        dropdown = field.dropdown
        if dropdown.is_open and (dropdown.expected is None or dropdown.shown_for != dropdown.expected):
            return False
    return True


def _quiet(app: ReaApp) -> bool:
    session = app.session
    if any(session.state(name).status == "connecting" for name in session.names):
        return False
    if any(worker.is_running for worker in app.workers):
        return False
    if any(not entry.finished for entry in session.ledger.entries):
        return False
    if session.completion_log.in_flight():
        return False
    # Asked again (a list change re-asks an open dropdown) but not sent yet: the log has no record of it.
    if any(hosted.completions.busy for name in session.names if (hosted := session.hosted(name)) is not None):
        return False
    return _open_dropdowns_answered(app)


def _freeze_cursors(screen: Screen[Any]) -> None:
    """A focused input's cursor blinks twice a second; a picture must not depend on when it is taken."""
    for editor in screen.query(Input):
        editor.cursor_blink = False
    for area in screen.query(TextArea):
        area.cursor_blink = False


async def settle(pilot: Pilot[Any]) -> None:
    """Wait until nothing is in flight, then make the screen still (toasts, cursors, mouse)."""
    app = the_app(pilot)
    await wait_for(pilot, lambda: _quiet(app), "the app to settle")
    await pilot.pause()
    await wait_for(pilot, lambda: _quiet(app), "the app to settle")
    app.clear_notifications()
    # Clicking leaves the pointer over a button (hover colour, tooltip after a delay): park it on the header row.
    await pilot.hover(None, offset=(0, 0))
    for screen in app.screen_stack:
        _freeze_cursors(screen)
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()


async def connected(pilot: Pilot[Any]) -> ReaApp:
    """Wait for every server to connect (or to fail)."""
    app = the_app(pilot)
    await wait_for(
        pilot,
        lambda: all(
            app.session.state(name).status != "connecting" and not app.session.reading_target(name)
            for name in app.session.names
        ),
        "the servers to connect (and their targets to be read)",
    )
    await pilot.pause()
    return app


async def screen_named(pilot: Pilot[Any], name: str) -> Screen[Any]:
    app = the_app(pilot)
    await wait_for(pilot, lambda: type(app.screen).__name__ == name, name)
    await pilot.pause()
    return app.screen


# ---------------------------------------------------------------- analyst steps


async def click(pilot: Pilot[Any], selector: str) -> None:
    """Click a widget of the current screen, as the mouse does.

    A button ignores clicks for a moment after it was pressed (its "active"
    effect); a second click on the same button waits for that to pass.
    """
    widget = the_app(pilot).screen.query_one(selector)
    await wait_for(pilot, lambda: not widget.has_class("-active"), f"{selector} to be clickable")
    await pilot.click(selector)


async def open_prompt(pilot: Pilot[Any], name: str, server: str = SERVER) -> ArgumentForm:
    """Pick a prompt in the sidebar; its form opens in the centre."""
    app = the_app(pilot)
    tree = app.main.query_one(ServerTree)
    assert tree.select_ref(NodeRef("prompt", server, name)), f"no prompt {name} in the sidebar"
    form = app.main.query_one(ArgumentForm)
    await wait_for(pilot, lambda: form.target == FormTarget("prompt", server, name), f"the form of {name}")
    await pilot.pause()
    return form


def field_of(form: ArgumentForm, name: str) -> ArgumentField:
    field = form.field(name)
    assert field is not None, f"the form has no field {name}"
    return field


async def focus_field(pilot: Pilot[Any], form: ArgumentForm, name: str) -> ArgumentField:
    """Move the focus into a field; its dropdown opens with the server's answer for what it holds."""
    field = field_of(form, name)
    field.input.focus()
    await wait_for(
        pilot,
        lambda: field.dropdown.is_open and field.dropdown.shown_for == field.value,
        f"completions for {name}={field.value!r}",
    )
    return field


async def type_into(pilot: Pilot[Any], form: ArgumentForm, name: str, text: str) -> ArgumentField:
    """Focus a field and type `text` a key at a time, waiting for the dropdown to follow each key.

    Waiting keeps one completion request in flight at a time, so the requests,
    their ids and the logs are the same on every run.
    """
    field = await focus_field(pilot, form, name)
    for key in text:
        await pilot.press("space" if key == " " else key)
        await wait_for(
            pilot,
            lambda: field.dropdown.shown_for == field.value,
            f"completions for {name}={field.value!r}",
        )
    return field


async def paste_into(pilot: Pilot[Any], form: ArgumentForm, name: str, text: str) -> ArgumentField:
    """Focus a field and paste `text` into it (one change, one completion request)."""
    field = await focus_field(pilot, form, name)
    field.input.post_message(events.Paste(text))
    await wait_for(
        pilot,
        lambda: field.value.endswith(text) and field.dropdown.shown_for == field.value,
        f"completions for the pasted {name}",
    )
    return field


async def choose_completion(pilot: Pilot[Any], form: ArgumentForm, name: str, value: str, typed: int = 1) -> None:
    """Paste the first letters of a value, move to it in the dropdown and accept it with enter."""
    field = await paste_into(pilot, form, name, value[:typed])
    index = field.dropdown.values.index(value)
    await pilot.press(*(["down"] * index), "enter")
    await wait_for(pilot, lambda: field.value == value, f"{name} = {value}")


async def fill_investigation(
    pilot: Pilot[Any], feature: str = "offline search", document: str = "Notes", procedure: str = ""
) -> ArgumentForm:
    """investigate_feature: the feature pasted, the document (and procedure) chosen from their dropdowns."""
    form = await open_prompt(pilot, "investigate_feature")
    await paste_into(pilot, form, "feature", feature)
    await pilot.press("escape")
    await choose_completion(pilot, form, "document", document)
    if procedure:
        await choose_completion(pilot, form, "procedure", procedure, typed=5)
    return form


async def render(pilot: Pilot[Any]) -> WorkflowView:
    """ctrl+r: render the prompt into a workflow."""
    app = the_app(pilot)
    view = app.main.query_one(WorkflowView)
    before = view.workflow
    await pilot.press("ctrl+r")
    await wait_for(pilot, lambda: view.workflow is not None and view.workflow is not before, "the workflow")
    await pilot.pause()
    return view


async def open_step(pilot: Pilot[Any], tool: str) -> Screen[Any]:
    """Click a workflow step: the tool's form opens, prefilled from the prompt."""
    app = the_app(pilot)
    steps = app.main.query_one("#workflow-steps", ListView)
    item = next(i for i in steps.query(StepItem) if i.tool == tool)
    steps.index = steps.children.index(item)
    steps.focus()
    await pilot.press("enter")
    return await screen_named(pilot, "ToolFormScreen")


async def fill_tool_form(pilot: Pilot[Any], values: dict[str, str]) -> None:
    """Type values into the open tool form (the field is focused and typed into, like an analyst does)."""
    screen = the_app(pilot).screen
    for name, value in values.items():
        for field in screen.query(".schema-field"):
            if getattr(field, "key", None) == name:
                editor = field.query_one(".schema-input")
                assert isinstance(editor, Input), f"{name} is not a text field"
                editor.focus()
                editor.value = ""
                await pilot.press(*value)
                break
        else:
            raise AssertionError(f"the tool form has no field {name}")
    await pilot.pause()


async def review(pilot: Pilot[Any]) -> Screen[Any]:
    """Review and approve…: the approval dialog opens."""
    await click(pilot, "#review")
    return await screen_named(pilot, "ApprovalScreen")


async def approve(pilot: Pilot[Any], button: str = "#run-once") -> EvidenceEntry:
    """Press a button of the approval dialog and wait for the call it starts to finish."""
    app = the_app(pilot)
    before = len(app.session.ledger.entries)
    await click(pilot, button)
    await wait_for(
        pilot,
        lambda: len(app.session.ledger.entries) > before and app.session.ledger.entries[-1].finished,
        "the tool call to finish",
    )
    await pilot.pause()
    return app.session.ledger.entries[-1]


async def open_tool(pilot: Pilot[Any], tool: str, server: str = SERVER) -> Screen[Any]:
    """Pick a tool in the sidebar: its form opens."""
    app = the_app(pilot)
    tree = app.main.query_one(ServerTree)
    assert tree.select_ref(NodeRef("tool", server, tool)), f"no tool {tool} in the sidebar"
    return await screen_named(pilot, "ToolFormScreen")


async def run_tool(
    pilot: Pilot[Any],
    tool: str,
    values: dict[str, str] | None = None,
    button: str = "#run-once",
    server: str = SERVER,
) -> EvidenceEntry:
    """Pick a tool in the sidebar, fill its form, review, approve and wait for the evidence."""
    await open_tool(pilot, tool, server)
    await fill_tool_form(pilot, values or {})
    await review(pilot)
    return await approve(pilot, button)


async def answer_narrowing(pilot: Pilot[Any], candidate: str) -> Screen[Any]:
    """In the narrowing picker, highlight `candidate` and choose it: the tool form opens again."""
    app = the_app(pilot)
    screen = await screen_named(pilot, "NarrowingScreen")
    options = screen.query_one("#narrowing-candidates", OptionList)
    labels = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
    index = next(i for i, label in enumerate(labels) if label == candidate or label.startswith(f"{candidate} "))
    options.focus()
    await pilot.press("home", *(["down"] * index))
    await click(pilot, "#choose")
    await wait_for(pilot, lambda: type(app.screen).__name__ == "ToolFormScreen", "the tool form")
    await pilot.pause()
    return app.screen


async def select_evidence(pilot: Pilot[Any], entry_id: str) -> None:
    app = the_app(pilot)
    pane = app.main.query_one(EvidencePane)
    await pane.select(entry_id)
    detail = app.main.query_one(EvidenceDetail)
    await wait_for(pilot, lambda: detail.entry is not None and detail.entry.id == entry_id, entry_id)
    await pilot.pause()


# ---------------------------------------------------------------- scenarios


async def prompt_list(pilot: Pilot[Any]) -> None:
    """The server's prompts in the sidebar, investigate_feature selected and its arguments in the form."""
    await connected(pilot)
    await open_prompt(pilot, "investigate_feature")
    the_app(pilot).main.query_one(ServerTree).focus()
    await settle(pilot)


async def dropdown_has_more(pilot: Pilot[Any]) -> None:
    """document = Notes, the focus in an empty procedure field: 100 of many - keep typing to narrow."""
    await connected(pilot)
    form = await fill_investigation(pilot)
    # Scroll the form so the field is near the top and its dropdown has room to open below it.
    form.scroll_to_widget(field_of(form, "procedure"), animate=False, top=True)
    await pilot.pause()
    await focus_field(pilot, form, "procedure")
    await settle(pilot)


async def dropdown_empty(pilot: Pilot[Any]) -> None:
    """The feature field has no completions: the footer says that empty does not mean none."""
    await connected(pilot)
    form = await open_prompt(pilot, "investigate_feature")
    await paste_into(pilot, form, "feature", "offline search")
    await settle(pilot)


async def field_diagnostics(pilot: Pilot[Any]) -> None:
    """Rendering with a value the server rejects (-32602): its message under the field it names."""
    app = await connected(pilot)
    form = await fill_investigation(pilot)
    procedure = field_of(form, "procedure")
    # An over-long value, as if pasted; the field is not focused, so nothing is asked of the server yet.
    app.main.query_one(ServerTree).focus()
    await pilot.pause()
    procedure.input.value = TOO_LONG
    await pilot.press("ctrl+r")
    await wait_for(pilot, lambda: procedure.has_class("-invalid"), "the server's diagnostic on procedure")
    # The failed render focuses the field, which asks for completions; the analyst closes the dropdown to read.
    await wait_for(pilot, lambda: _open_dropdowns_answered(app), "the dropdown")
    await pilot.press("escape")
    await settle(pilot)


async def workflow_with_steps(pilot: Pilot[Any]) -> None:
    """investigate_feature rendered: its text as Markdown and the tools it suggests as steps."""
    await connected(pilot)
    await fill_investigation(pilot, procedure="openDocument")
    await render(pilot)
    await settle(pilot)


async def _inspect_from_workflow(pilot: Pilot[Any]) -> EvidenceEntry:
    await fill_investigation(pilot, procedure="openDocument")
    await render(pilot)
    await open_step(pilot, "inspect_procedure")
    await fill_tool_form(pilot, {"max_instructions": "6"})
    await review(pilot)
    entry = await approve(pilot)
    assert entry.outcome == "ok", entry.error
    return entry


async def evidence_pane(pilot: Pilot[Any]) -> None:
    """A completed inspect_procedure call, run from the workflow's step, selected in the evidence pane."""
    await connected(pilot)
    entry = await _inspect_from_workflow(pilot)
    await select_evidence(pilot, entry.id)
    await settle(pilot)


async def workflow_and_evidence(pilot: Pilot[Any]) -> None:
    """The rendered workflow above, the evidence of its inspect_procedure step below."""
    await evidence_pane(pilot)


async def protocol_log(pilot: Pilot[Any]) -> None:
    """ctrl+l after completions and a render, filtered to completion traffic, the last answer selected.

    Unfiltered, the log starts with connection events whose size depends on the
    interpreter's path and the pid, and with messages whose order depends on
    timing; the filter keeps the picture the same everywhere.
    """
    app = await connected(pilot)
    await fill_investigation(pilot)
    form = app.main.query_one(ArgumentForm)
    await type_into(pilot, form, "procedure", "open")
    await pilot.press("escape")
    await pilot.press("ctrl+l")
    screen = await screen_named(pilot, "ProtocolLogScreen")
    await settle(pilot)
    await pilot.press("slash", *"completion", "enter")
    table = screen.query_one("#traffic-table")
    await wait_for(pilot, lambda: table.has_focus, "the filtered table")
    await settle(pilot)


async def completion_inspector(pilot: Pilot[Any]) -> None:
    """ctrl+o after typing in several fields: every request, its context, total and hasMore."""
    app = await connected(pilot)
    form = await fill_investigation(pilot)
    await type_into(pilot, form, "procedure", "open")
    await pilot.press("escape")
    app.main.query_one(ServerTree).focus()
    await settle(pilot)
    await pilot.press("ctrl+o")
    await screen_named(pilot, "CompletionInspectorScreen")
    await settle(pilot)


async def server_details(pilot: Pilot[Any]) -> None:
    """f2: the selected server's identity, instructions, capabilities, log level and roots."""
    await connected(pilot)
    await pilot.press("f2")
    await screen_named(pilot, "ServerDetailsScreen")
    await settle(pilot)


async def completion_audit(pilot: Pilot[Any]) -> None:
    """ctrl+o, then a: the completion audit of the selected server, finished."""
    await connected(pilot)
    await pilot.press("ctrl+o")
    screen = await screen_named(pilot, "CompletionInspectorScreen")
    await pilot.press("a")
    panel = screen.query_one("#audit-panel")
    await wait_for(pilot, lambda: getattr(panel, "report", None) is not None, "the audit to finish", 120)
    await settle(pilot)


async def server_failed(pilot: Pilot[Any]) -> None:
    """A server that exits at start: the tail of its stderr and how to retry (app made with failing_spec())."""
    app = await connected(pilot)
    states = [app.session.state(name).status for name in app.session.names]
    assert all(status in ("failed", "exited") for status in states), "the server started"
    await settle(pilot)


async def narrow_layout(pilot: Pilot[Any]) -> None:
    """Under 120 columns: one pane at a time with tabs; here the rendered workflow (snapshot at NARROW)."""
    await connected(pilot)
    await fill_investigation(pilot)
    await render(pilot)
    await settle(pilot)


async def approval_dialog(pilot: Pilot[Any]) -> None:
    """The approval dialog for inspect_procedure: the exact JSON arguments and the declared annotations."""
    await connected(pilot)
    await fill_investigation(pilot, procedure="openDocument")
    await render(pilot)
    await open_step(pilot, "inspect_procedure")
    await review(pilot)
    await settle(pilot)


async def evidence_detail(pilot: Pilot[Any]) -> None:
    """An entry's structuredContent as a tree (f7), scrolled into view in the evidence detail."""
    app = await connected(pilot)
    entry = await _inspect_from_workflow(pilot)
    await select_evidence(pilot, entry.id)
    detail = app.main.query_one(EvidenceDetail)
    await pilot.press("f7")
    await wait_for(pilot, lambda: bool(detail.query(".structured-tree")), "the JSON tree")
    tree = detail.query_one(".structured-tree", Tree)
    # Open the "procedure" object of structuredContent and put the tree's cursor on it.
    (content,) = tree.root.children
    procedure = next(n for n in content.children if str(n.label).startswith("procedure"))
    procedure.expand()
    tree.focus()
    tree.move_cursor(procedure)
    await settle(pilot)
    # The tree ends the detail: scrolling to the end (once the layout is still) shows it the same way every run.
    detail.scroll_end(animate=False, immediate=True)
    await settle(pilot)


async def narrowing_picker(pilot: Pilot[Any]) -> None:
    """Round 2 of inspect_procedure: openDocument is in three documents; the breadcrumb says what is pinned."""
    app = await connected(pilot)
    await run_tool(pilot, "inspect_procedure", button="#allow-session")
    await answer_narrowing(pilot, "openDocument")
    await click(pilot, "#review")  # allowed for the session: no approval dialog this time
    await wait_for(
        pilot,
        lambda: len(app.session.ledger.entries) == 2 and app.session.ledger.entries[-1].finished,
        "round 2",
    )
    await screen_named(pilot, "NarrowingScreen")
    # Behind the picker, the evidence pane shows the entry that asks (a fast call is not always selected by itself).
    await select_evidence(pilot, app.session.ledger.entries[-1].id)
    await settle(pilot)


async def evidence_listing(pilot: Pilot[Any]) -> None:
    """f8: openDocument's disassembly as a listing over the whole screen, branch targets named."""
    app = await connected(pilot)
    entry = await run_tool(pilot, "inspect_procedure", {"procedure": "openDocument", "document": "Notes"})
    await select_evidence(pilot, entry.id)
    await pilot.press("f8")
    await wait_for(pilot, lambda: app.main.zoomed, "the widened evidence")
    await settle(pilot)


async def evidence_tables(pilot: Pilot[Any]) -> None:
    """list_documents, then a page of Notes' procedures, read as a table in the evidence pane."""
    app = await connected(pilot)
    await run_tool(pilot, "list_documents", button="#allow-session")
    entry = await run_tool(pilot, "list_procedures", {"document": "Notes"}, button="#allow-session")
    await select_evidence(pilot, entry.id)
    app.main.query_one(EvidencePane).query_one("#evidence-list").focus()
    await settle(pilot)


async def narrowing_filter(pilot: Pilot[Any]) -> None:
    """Typing in the picker's filter asked the server again: "openDoc" is in three documents."""
    app = await connected(pilot)
    await run_tool(pilot, "inspect_procedure", {"procedure": "o"}, button="#allow-session")
    screen = await screen_named(pilot, "NarrowingScreen")
    assert isinstance(screen, NarrowingScreen)
    first = app.session.ledger.entries[0]
    # Pasted, one change: typed a key at a time, a loaded machine's pauses between keys would ask the
    # server for each prefix (a pause asks), and the ledger would differ from run to run.
    screen.query_one("#narrowing-filter", Input).post_message(events.Paste("openDoc"))
    await wait_for(
        pilot,
        lambda: screen.entry is not first and not screen.in_flight,
        "the server's narrower question",
    )
    await settle(pilot)


async def act_on_row(pilot: Pilot[Any], row: int, action: str, button: str = "#allow-session") -> EvidenceEntry:
    """Enter on a row of the shown entry's first table, choose the action that starts with `action`, approve."""
    from rea_tui.ui.widgets.result_view import ViewTable

    app = the_app(pilot)
    detail = app.main.query_one(EvidenceDetail)
    await wait_for(pilot, lambda: bool(detail.query(ViewTable)), "the rows")
    table = detail.query(ViewTable).first()
    await wait_for(pilot, lambda: table.row_count > row, "the row")
    table.focus()
    table.move_cursor(row=row)
    await pilot.pause()
    await pilot.press("enter")
    menu = await screen_named(pilot, "RowActionsScreen")
    options = menu.query_one(OptionList)
    labels = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
    index = next(i for i, label in enumerate(labels) if label.startswith(action))
    await pilot.press(*(["down"] * index), "enter")
    before = len(app.session.ledger.entries)
    if button:
        await screen_named(pilot, "ApprovalScreen")
        await click(pilot, button)
    await wait_for(
        pilot,
        lambda: len(app.session.ledger.entries) > before and app.session.ledger.entries[-1].finished,
        "the row's call",
    )
    await pilot.pause()
    return app.session.ledger.entries[-1]


async def _trace_to_references(pilot: Pilot[Any]) -> EvidenceEntry:
    """investigate_feature rendered; search_strings from its step (the feature as query), then the string's row
    to find_references: the procedure that loads it."""
    await connected(pilot)
    await fill_investigation(pilot, feature="offline search", document="Notes")
    await render(pilot)
    await open_step(pilot, "search_strings")
    await review(pilot)
    await approve(pilot, "#allow-session")
    return await act_on_row(pilot, 0, "find_references")


async def trace_references(pilot: Pilot[Any]) -> None:
    """The rendered prompt (folded to its summary line) and a references table reached from a string's row."""
    app = the_app(pilot)
    entry = await _trace_to_references(pilot)
    await wait_for(pilot, lambda: app.main.query_one(EvidenceDetail).entry is entry, "the references shown")
    await settle(pilot)


async def trace_listing(pilot: Pilot[Any]) -> None:
    """From the references table's row to inspect_procedure: the procedure's listing, the breadcrumb above."""
    app = the_app(pilot)
    await _trace_to_references(pilot)
    entry = await act_on_row(pilot, 0, "inspect_procedure")
    await wait_for(pilot, lambda: app.main.query_one(EvidenceDetail).entry is entry, "the listing shown")
    await settle(pilot)


def _notes_written(app: ReaApp, count: int) -> Callable[[], bool]:
    return lambda: len(app.session.notebook.notes) >= count


async def notes(pilot: Pilot[Any]) -> None:
    """ctrl+n: an observation citing E-0001, an inference and an unknown, in three separate lists."""
    app = await connected(pilot)
    await run_tool(pilot, "list_documents")
    await pilot.press("ctrl+n")
    screen = await screen_named(pilot, "NotesScreen")
    kind = screen.query_one("#note-kind", Select)
    entry = screen.query_one("#note-text", Input)
    for count, (note_kind, text) in enumerate(
        (
            ("observation", "E-0001 lists five documents; Notes is the main executable"),
            ("inference", "search is probably done in libsearch.dylib (E-0001)"),
            ("unknown", "which document handles offline sync?"),
        ),
        start=1,
    ):
        kind.value = note_kind
        entry.focus()
        entry.post_message(events.Paste(text))
        await wait_for(pilot, lambda: bool(entry.value), "the pasted note")
        await pilot.press("enter")
        await wait_for(pilot, _notes_written(app, count), f"the note {text!r}")
    await settle(pilot)


SCENARIOS: dict[str, Scenario] = {
    "prompt_list": prompt_list,
    "dropdown_has_more": dropdown_has_more,
    "dropdown_empty": dropdown_empty,
    "field_diagnostics": field_diagnostics,
    "workflow_with_steps": workflow_with_steps,
    "evidence_pane": evidence_pane,
    "protocol_log": protocol_log,
    "completion_inspector": completion_inspector,
    "server_failed": server_failed,
    "narrow_layout": narrow_layout,
    "approval_dialog": approval_dialog,
    "evidence_detail": evidence_detail,
    "narrowing_picker": narrowing_picker,
    "notes": notes,
    "evidence_listing": evidence_listing,
    "evidence_tables": evidence_tables,
    "narrowing_filter": narrowing_filter,
    "trace_references": trace_references,
    "trace_listing": trace_listing,
}
