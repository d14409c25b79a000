"""Schema-driven forms in the real app, against a server whose schemas attack the host.

The tool form, the approval dialog and the elicitation dialog are driven by
keys and clicks (tests.support.schema_server over stdio): nothing a schema
names is fetched (a listener counts the hits), a schema that loops or a
pattern that backtracks is a message in the form while the app runs on, a
2,000-field schema opens without stalling the loop, the approval shows every
byte that is sent with the server's defaults marked, and the forms read like
their schema (titles, booleans that say what they send, pickers that send
the consts).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from rich.table import Table
from textual.widgets import Button, Input, Select, SelectionList, Static

from rea_tui.host import ServerSpec
from rea_tui.host.schemas.guard import CHECK_BUDGET
from rea_tui.ui.app import ReaApp
from rea_tui.ui.screens.approval import ApprovalScreen
from rea_tui.ui.screens.elicitation import ElicitationScreen
from rea_tui.ui.screens.tool_form import ToolFormScreen
from rea_tui.ui.widgets.schema_form import FIELDS_PER_PAGE, BooleanToggle, SchemaField, SchemaForm
from tests.conftest import REPO
from tests.support.listeners import CountingListener, LoopWatch
from tests.support.pilot import make_app, screen_text, wait_for
from tests.support.scenarios import (
    SIZE,
    approve,
    click,
    connected,
    fill_investigation,
    fill_tool_form,
    open_step,
    open_tool,
    reference_spec,
    render,
    review,
    screen_named,
)
from tests.support.schema_server import LONG_DEFAULT, WIDE_FIELDS

SERVER = "schemas"
# The longest the event loop may go without running while a form opens or a check works.
LOOP_STALL_LIMIT = 0.1
# Opening a form is measured this many times; the best is compared (a shared machine's scheduler adds noise).
ATTEMPTS = 3
# Even on a busy machine, a dialog opens with no wall-clock gap longer than this (it was 20 s for 2,000 fields).
DIALOG_STALL_LIMIT = 1.0
# A 2,000-field schema's form costs at most this many times one page of its fields (the pager's row comes
# on top; mounting every field would be some 200 times).
PAGED_COST_RATIO = 2.0


def schema_spec(ref: str = "", file: str = "") -> ServerSpec:
    options = [f"--{name}={value}" for name, value in (("ref", ref), ("file", file)) if value]
    return ServerSpec(
        name=SERVER,
        transport="stdio",
        command=sys.executable,
        args=("-m", "tests.support.schema_server", *options),
        cwd=str(REPO),
        protocol="legacy",
    )


def field(app: ReaApp, name: str) -> SchemaField:
    found = [f for f in app.screen.query(SchemaField) if f.key == name]
    assert found, f"no field {name} on {type(app.screen).__name__}"
    return found[0]


def sent_calls(app: ReaApp) -> list[dict[str, Any]]:
    hosted = app.session.hosted(SERVER)
    assert hosted is not None
    return [json.loads(e.payload)["params"] for e in hosted.connection.traffic.requests_sent("tools/call")]


async def pick(pilot: Any, app: ReaApp, name: str, label: str) -> None:
    """Choose the choice labelled `label` in a field's Select by keyboard: focus, open, move to it, Enter."""
    chosen = field(app, name)
    select = chosen.query_one(Select)
    target = [c.label for c in chosen.state.prop.choices].index(label) + 1  # the blank "choose…" comes first
    start = 0 if select.value is Select.NULL else int(select.value) + 1  # type: ignore[call-overload]
    select.focus()
    await pilot.press("enter")
    await pilot.press(*(["down"] * (target - start) if target >= start else ["up"] * (start - target)), "enter")
    await wait_for(pilot, lambda: select.value == target - 1, f"{label} chosen")


async def ask(pilot: Any, app: ReaApp, form: str) -> ElicitationScreen:
    """Run the `ask` tool with `form`: its elicitation dialog opens."""
    await open_tool(pilot, "ask", SERVER)
    await pick(pilot, app, "form", form)
    await review(pilot)
    await click(pilot, "#run-once")
    screen = await screen_named(pilot, "ElicitationScreen")
    assert isinstance(screen, ElicitationScreen)
    return screen


async def answered(pilot: Any, app: ReaApp, count: int) -> dict[str, Any]:
    await wait_for(
        pilot,
        lambda: len(app.session.ledger.entries) >= count and app.session.ledger.entries[count - 1].finished,
        f"E{count}",
    )
    structured = app.session.ledger.entries[count - 1].structured
    assert isinstance(structured, dict)
    return structured


async def test_a_remote_ref_is_never_fetched_before_or_after_declining() -> None:
    with CountingListener() as listener:
        app = make_app([schema_spec(ref=listener.url)])
        async with app.run_test(size=SIZE) as pilot:
            await connected(pilot)
            await open_tool(pilot, "remote_ref", SERVER)
            await fill_tool_form(pilot, {"target": "x"})
            approval = await review(pilot)
            warning = str(approval.query_one("#approval-unchecked", Static).render())
            assert f"the schema refers to '{listener.url}', which rea-tui does not fetch" in warning
            assert listener.hits == 0
            await click(pilot, "#deny")
            await wait_for(pilot, lambda: app.screen is app.main, "the dialog to close")
            assert sent_calls(app) == [] and listener.hits == 0

            # An elicitation form that refers to it: Accept warns first; Decline sends no answer and fetches nothing.
            dialog = await ask(pilot, app, "remote")
            await fill_tool_form(pilot, {"name": "n", "ref": "r"})
            await click(pilot, "#accept")
            await wait_for(pilot, lambda: "Not checked:" in screen_text(app), "the warning")
            assert str(dialog.query_one("#accept", Button).label) == "Accept anyway"
            await click(pilot, "#decline")
            assert await answered(pilot, app, 1) == {"action": "decline"}

            # An output schema that refers to it: the result is checked as far as it can be, and says so.
            await open_tool(pilot, "remote_output", SERVER)
            await review(pilot)
            entry = await approve(pilot)
            assert entry.schema_check.startswith("valid against the output schema, except what was not checked")
            assert listener.url in entry.schema_check
            await pilot.pause(0.2)
            assert listener.hits == 0


async def test_a_file_ref_is_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text('{"type": "integer", "description": "SECRET-FILE-CONTENT-0a9e"}', encoding="utf-8")
    app = make_app([schema_spec(file=secret.as_uri())])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await open_tool(pilot, "file_ref", SERVER)
        assert "SECRET-FILE-CONTENT" not in screen_text(app)
        await fill_tool_form(pilot, {"path": "not an integer"})
        approval = await review(pilot)  # the file's schema (an integer) was never applied
        assert "SECRET-FILE-CONTENT" not in screen_text(app)
        assert "which rea-tui does not fetch" in str(approval.query_one("#approval-unchecked", Static).render())
        await click(pilot, "#deny")
        dialog = await ask(pilot, app, "file")
        await fill_tool_form(pilot, {"path": "p"})
        await click(pilot, "#accept")
        await wait_for(pilot, lambda: "Not checked:" in screen_text(app), "the warning")
        assert "SECRET-FILE-CONTENT" not in screen_text(app)
        await click(pilot, "#accept")
        assert await answered(pilot, app, 1) == {"action": "accept", "content": {"path": "p"}}
        assert dialog.is_attached is False


async def test_a_looping_schema_and_a_backtracking_pattern_are_messages_and_the_app_runs_on() -> None:
    app = make_app([schema_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        form = await open_tool(pilot, "recursive_ref", SERVER)
        await fill_tool_form(pilot, {"x": "1"})
        await click(pilot, "#review")
        message = form.query_one("#tool-form-message", Static)
        await wait_for(pilot, lambda: "Not sent:" in str(message.render()), "the refusal")
        assert "refers to itself without end" in str(message.render())
        assert app.screen is form and app.failures == []
        await pilot.press("escape")

        form = await open_tool(pilot, "stuck_pattern", SERVER)
        await fill_tool_form(pilot, {"text": "a" * 40 + "!"})
        message = form.query_one("#tool-form-message", Static)
        watch = LoopWatch()
        with watch.running():
            started = time.monotonic()
            await pilot.press("enter")  # Enter in a field reviews
            await wait_for(pilot, lambda: "Not sent:" in str(message.render()), "the refusal")
            elapsed = time.monotonic() - started
        assert "the schema's pattern '(a|a)+$' took longer than" in str(message.render())
        assert elapsed < CHECK_BUDGET, elapsed
        assert watch.longest_busy < LOOP_STALL_LIMIT, (watch.longest_busy, watch.longest)
        await pilot.press("escape")

        dialog = await ask(pilot, app, "recursive")
        await fill_tool_form(pilot, {"x": "1"})
        await pilot.press("enter")
        note = dialog.query_one("#elicitation-message", Static)
        await wait_for(pilot, lambda: "Cannot be answered:" in str(note.render()), "the refusal")
        await click(pilot, "#cancel")
        assert await answered(pilot, app, 1) == {"action": "cancel"}
        assert sent_calls(app)[-1]["name"] == "ask" and app.failures == []


async def test_a_2000_field_schema_opens_as_one_page_of_it_does_and_pages() -> None:
    app = make_app([schema_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        # The longest the loop is busy while the form opens (its thread's CPU time: what the app's work costs,
        # whatever else the machine runs), and the wall-clock gap. Measured against a schema of one page of
        # the same fields: styling and laying out a dialog with a page of fields (and the screen under it)
        # is Textual's 70-90 ms here, and more on a loaded machine, whatever the schema's size.
        watches: dict[str, list[LoopWatch]] = {"one_page": [], "wide": []}
        for _ in range(ATTEMPTS):
            for tool, found in watches.items():
                watch = LoopWatch()  # it settles the test worker's heap first (see LoopWatch.running)
                with watch.running():
                    await open_tool(pilot, tool, SERVER)
                    await pilot.pause(0.3)
                found.append(watch)
                await pilot.press("escape")
                await wait_for(pilot, lambda: app.screen is app.main, "the form to close")
        busy = {tool: min(w.longest_busy for w in found) for tool, found in watches.items()}
        wall = {tool: min(w.longest for w in found) for tool, found in watches.items()}
        assert busy["wide"] < PAGED_COST_RATIO * busy["one_page"], (busy, wall)
        assert wall["wide"] < DIALOG_STALL_LIMIT, (busy, wall)

        form = await open_tool(pilot, "wide", SERVER)
        schema_form = form.query_one(SchemaForm)
        assert len(schema_form.fields) == WIDE_FIELDS
        assert len(form.query(SchemaField)) == FIELDS_PER_PAGE
        assert f"fields 1–{FIELDS_PER_PAGE} of 2,000" in screen_text(app)
        await fill_tool_form(pilot, {"field_0001": "first page"})
        await pilot.press("ctrl+pagedown")
        await wait_for(pilot, lambda: bool([f for f in form.query(SchemaField) if f.key == "field_0011"]), "page 2")
        await fill_tool_form(pilot, {"field_0011": "second page"})
        await pilot.press("ctrl+pageup")
        await wait_for(pilot, lambda: bool([f for f in form.query(SchemaField) if f.key == "field_0001"]), "page 1")
        assert field(app, "field_0001").query_one(Input).value == "first page"  # kept while off screen
        approval = await review(pilot)
        assert isinstance(approval, ApprovalScreen)
        assert approval.arguments == {"field_0001": "first page", "field_0011": "second page"}


async def test_the_approval_shows_a_long_default_and_a_hidden_one_marked() -> None:
    app = make_app([schema_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await open_tool(pilot, "defaults", SERVER)
        await fill_tool_form(pilot, {"query": "q"})
        approval = await review(pilot)
        assert isinstance(approval, ApprovalScreen)
        arguments = {"query": "q", "template": LONG_DEFAULT, "hidden_flag": "exfiltrate=yes"}
        assert approval.arguments == arguments
        assert approval.defaults == {"template", "hidden_flag"}
        shown = approval.query_one("#approval-json", Static).content
        assert isinstance(shown, Table)
        marks, lines = ([str(cell) for cell in column.cells] for column in shown.columns)
        assert json.dumps(LONG_DEFAULT) in lines[2]  # all 57,000 characters, not cut
        assert lines[3] == '  "hidden_flag": "exfiltrate=yes"'
        assert marks == [" ", " ", "◆", "◆", " "]  # {, query, template, hidden_flag, }
        legend = str(approval.query_one("#approval-defaults", Static).render())
        assert "default from the server" in legend and legend.endswith("template, hidden_flag")
        compact = len(json.dumps(arguments, separators=(",", ":")))
        assert f"3 values · {compact:,} characters · {compact:,} bytes sent" in screen_text(app)
        entry = await approve(pilot)
        assert entry.outcome == "ok"
        assert sent_calls(app)[-1]["arguments"] == arguments  # what was shown is what was sent


async def test_allow_for_the_session_is_withdrawn_when_the_tool_is_redeclared() -> None:
    app = make_app([schema_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await open_tool(pilot, "flip", SERVER)
        approval = await review(pilot)
        assert approval.query("#allow-session")
        first = await approve(pilot, "#allow-session")
        assert first.approval == "allowed for the session"
        # The server now declares the tool destructive and announces a list change.
        await wait_for(pilot, lambda: (app.session.tool(SERVER, "flip") or first).destructive, "the re-declaration")
        await wait_for(pilot, lambda: app.session.allowances.allowed(SERVER) == [], "the allowance withdrawn")
        await open_tool(pilot, "flip", SERVER)
        again = await review(pilot)  # asks again: the allowance was for the read-only declaration
        assert isinstance(again, ApprovalScreen) and not again.query("#allow-session")
        assert "destructiveHint: true" in screen_text(app)
        await click(pilot, "#deny")
        assert len(sent_calls(app)) == 1


async def test_the_tool_form_reads_like_its_schema_and_sends_what_it_shows() -> None:
    app = make_app([schema_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        form = await open_tool(pilot, "showcase", SERVER)
        assert isinstance(form, ToolFormScreen)
        text = screen_text(app)
        assert "Reason  reason *  string" in text and "Why the run is needed" in text
        assert "plain  string" in text  # no title: the name alone
        verbose = field(app, "verbose").query_one(BooleanToggle)
        assert str(verbose.label) == "not set: nothing is sent (space sets it)"
        assert str(field(app, "dry_run").query_one(BooleanToggle).label) == "true  default from the server"
        level = field(app, "level").query_one(Select)
        assert level.value == 1  # the enum's default, "medium", shown selected
        assert field(app, "sizes").query_one(SelectionList).selected == [1]  # default ["l"]

        # Tab moves from field to field.
        field(app, "reason").query_one(Input).focus()
        await pilot.press(*"why")
        order = []
        for _ in range(5):
            await pilot.press("tab")
            order.append(next(f.key for f in form.query(SchemaField) if app.focused in f.query(".schema-input")))
        assert order == ["plain", "verbose", "dry_run", "level", "colour"]

        verbose.focus()
        await pilot.press("space")
        assert str(verbose.label) == "true"
        await pick(pilot, app, "colour", "Green")
        tags = field(app, "tags").query_one(SelectionList)
        tags.focus()
        await pilot.press("space")  # the highlighted first choice, "fast"
        approval = await review(pilot)
        assert isinstance(approval, ApprovalScreen)
        assert approval.arguments == {
            "reason": "why",
            "verbose": True,
            "dry_run": True,
            "level": "medium",
            "colour": "#0f0",
            "tags": ["fast"],
            "sizes": ["l"],
        }
        assert approval.defaults == {"dry_run", "level", "sizes"}
        await click(pilot, "#deny")

        # An optional boolean can be put back to "not set", and is then not sent.
        await open_tool(pilot, "showcase", SERVER)
        await fill_tool_form(pilot, {"reason": "r"})
        toggle = field(app, "verbose").query_one(BooleanToggle)
        toggle.focus()
        await pilot.press("space", "space")
        assert str(toggle.label) == "false"
        await pilot.press("backspace")
        assert toggle.state.picked is None
        approval = await review(pilot)
        assert isinstance(approval, ApprovalScreen) and "verbose" not in approval.arguments


async def test_prompt_suggestions_fit_the_field_and_are_not_tab_stops() -> None:
    app = make_app([reference_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await fill_investigation(pilot, procedure="openDocument")
        await render(pilot)
        form = await open_step(pilot, "inspect_procedure")
        chips = {f.key: [str(b.label) for b in f.query(".suggestion")] for f in form.query(SchemaField)}
        assert "openDocument" in chips["procedure"]
        assert chips["max_instructions"] == []  # no prompt value reads as an integer
        assert all(not b.can_focus for b in form.query(".suggestion"))
        field(app, "procedure").query_one(Input).focus()
        await pilot.press("tab")
        assert app.focused is field(app, "document").query_one(Input)


async def test_elicitation_enter_accepts_with_defaults_and_formats_are_checked() -> None:
    app = make_app([schema_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await ask(pilot, app, "defaults")
        await pilot.press("enter")  # in the first field, prefilled with its default
        assert await answered(pilot, app, 1) == {
            "action": "accept",
            "content": {"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": True},
        }

        dialog = await ask(pilot, app, "formats")
        await fill_tool_form(pilot, {"email": "nobody", "day": "2023-02-29"})
        await pilot.press("enter")
        await wait_for(pilot, lambda: field(app, "email").has_class("-invalid"), "the email marked")
        assert "is not a valid email" in str(field(app, "email").query_one(".schema-error", Static).render())
        assert "is not a valid date" in str(field(app, "day").query_one(".schema-error", Static).render())
        assert app.screen is dialog
        await fill_tool_form(pilot, {"email": "a@example.org", "day": "2024-02-29"})
        await pilot.press("enter")
        assert await answered(pilot, app, 2) == {
            "action": "accept",
            "content": {"email": "a@example.org", "day": "2024-02-29"},
        }

        await ask(pilot, app, "choices")
        await fill_tool_form(pilot, {"name": "Ann"})
        await pick(pilot, app, "colour", "Red")
        tags = field(app, "tags").query_one(SelectionList)
        tags.focus()
        await pilot.press("down", "space")  # Beta
        await click(pilot, "#accept")
        assert await answered(pilot, app, 3) == {
            "action": "accept",
            "content": {"name": "Ann", "level": "high", "colour": "#f00", "tags": ["b"]},
        }
