"""The investigation loop, driven like an analyst against real servers over stdio.

Tool form → approval → call → evidence → narrowing, against the reference
server (`--synthetic 2000`) and, for slow calls, crashes and huge results, the
sample server. Every test goes through the real dialogs (clicks on their
buttons, keys in their fields) and checks three things: the evidence ledger,
what the screen shows, and what actually went over the wire (the connection's
traffic log).
"""

from __future__ import annotations

import itertools
import json
import re
import time
from typing import Any

import pytest
from textual import events
from textual.widgets import Button, Input, ListView, OptionList, Select, Static, Tree
from textual.widgets._select import SelectCurrent

from rea_tui.host.evidence.evidence import EvidenceEntry, Progress
from rea_tui.host.transports.traffic import TrafficLog
from rea_tui.ui.app import ReaApp
from rea_tui.ui.widgets.argument_form import ArgumentForm
from rea_tui.ui.widgets.entry_list import EntryList
from rea_tui.ui.widgets.evidence_pane import EvidenceDetail, EvidencePane
from tests.conftest import raw_spec, sample_spec
from tests.support.pilot import make_app, screen_text, wait_for
from tests.support.scenarios import (
    SERVER,
    SIZE,
    answer_narrowing,
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
    run_tool,
    screen_named,
    select_evidence,
)

SAMPLE = "sample"


# ---------------------------------------------------------------- helpers


def traffic(app: ReaApp, server: str = SERVER) -> TrafficLog:
    hosted = app.session.hosted(server)
    assert hosted is not None
    return hosted.connection.traffic


def tool_calls(app: ReaApp, server: str = SERVER) -> list[dict[str, Any]]:
    """The `params` of every tools/call request sent to `server`, in order."""
    return [json.loads(e.payload)["params"] for e in traffic(app, server).requests_sent("tools/call")]


def sent_arguments(app: ReaApp, server: str = SERVER) -> list[tuple[str, dict[str, Any]]]:
    return [(p["name"], p.get("arguments", {})) for p in tool_calls(app, server)]


def field_editor(app: ReaApp, name: str) -> Any:
    """The editor of one field of the open tool form (or elicitation form)."""
    for field in app.screen.query(".schema-field"):
        if getattr(field, "key", None) == name:
            return field.query_one(".schema-input")
    raise AssertionError(f"no field {name} on {type(app.screen).__name__}")


def field_error(app: ReaApp, name: str) -> str:
    for field in app.screen.query(".schema-field"):
        if getattr(field, "key", None) == name:
            return str(field.query_one(".schema-error", Static).render())
    raise AssertionError(f"no field {name}")


def detail_text(app: ReaApp) -> str:
    """What the evidence detail shows (every Static in it, and every node of its JSON tree)."""
    detail = app.main.query_one(EvidenceDetail)
    texts = [str(static.render()) for static in detail.query(Static)]
    for tree in detail.query(Tree):
        nodes = [tree.root]
        while nodes:
            node = nodes.pop(0)
            texts.append(str(node.label))
            nodes.extend(node.children)
    return "\n".join(texts)


async def finished(pilot: Any, app: ReaApp, count: int) -> EvidenceEntry:
    await wait_for(
        pilot,
        lambda: len(app.session.ledger.entries) >= count and app.session.ledger.entries[count - 1].finished,
        f"E{count} to finish",
    )
    await pilot.pause()
    return app.session.ledger.entries[count - 1]


# ---------------------------------------------------------------- the reference server


async def test_open_a_target_list_procedures_and_inspect_one() -> None:
    app = make_app([reference_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        # The target opens in the background (below the server's requests): named once it is open.
        await wait_for(pilot, lambda: app.session.hosted(SERVER).target == "synthetic:2000:0 (synthetic)", "the target")

        # open_binary is not declared read-only: the dialog shows the exact JSON and offers no session allowance.
        await open_tool(pilot, "open_binary")
        await fill_tool_form(pilot, {"path": "synthetic:500"})
        approval = await review(pilot)
        assert not approval.query("#allow-session")
        assert '"path": "synthetic:500"' in screen_text(app)
        assert "readOnlyHint: false" in screen_text(app)
        opened = await approve(pilot)
        # The ID the analyst sees is the one the server gave the result.
        assert (opened.id, opened.ref, opened.tool, opened.outcome) == ("E1", "E-0001", "open_binary", "ok")
        assert opened.structured["target"] == "synthetic:500:0"
        await wait_for(
            pilot,
            lambda: app.session.hosted(SERVER).target == "synthetic:500:0 (synthetic)",
            "the new target in the header",
        )
        assert "target: synthetic:500:0" in screen_text(app)

        listed = await run_tool(pilot, "list_procedures", {"document": "Notes"})
        assert (listed.ref, listed.outcome) == ("E-0002", "ok")
        assert listed.structured["total"] == 200  # Notes has 200 of the 500 procedures
        names = [n for p in listed.structured["procedures"] for n in p["names"]]
        assert "openDocument" in names

        inspected = await run_tool(pilot, "inspect_procedure", {"procedure": "openDocument", "document": "Notes"})
        assert (inspected.ref, inspected.outcome, inspected.narrowing) == ("E-0003", "ok", None)
        assert inspected.structured["procedure"]["names"] == ["openDocument"]
        assert inspected.structured["disassembly"]["instructions"]
        assert inspected.schema_check == "valid against the output schema"

        # The pane shows the newest entry, the disassembly as a listing (f7: as JSON); the wire carried
        # exactly what was approved.
        await select_evidence(pilot, "E3")
        text = screen_text(app)
        assert "E-0001 ✓ ok  open_binary" in text and "E-0003 ✓ ok  inspect_procedure" in text
        detail = app.main.query_one(EvidenceDetail)
        assert detail.query(".disassembly-listing") and not detail.query(".structured-tree")
        await pilot.press("f7")
        await wait_for(pilot, lambda: bool(detail.query(".structured-tree")), "the JSON tree")
        assert not detail.query(".disassembly-listing")
        assert sent_arguments(app) == [
            ("open_binary", {"path": "synthetic:500"}),
            ("list_procedures", {"document": "Notes", "offset": 0, "limit": 100}),
            ("inspect_procedure", {"procedure": "openDocument", "document": "Notes", "max_instructions": 64}),
        ]


async def test_deny_sends_nothing() -> None:
    app = make_app([reference_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await open_tool(pilot, "inspect_procedure")
        await fill_tool_form(pilot, {"procedure": "openDocument"})
        await review(pilot)
        assert '"procedure": "openDocument"' in screen_text(app)
        logged = len(traffic(app))
        await click(pilot, "#deny")
        await wait_for(pilot, lambda: app.screen is app.main, "the dialog to close")
        await pilot.pause(0.2)
        assert app.session.ledger.entries == []
        assert traffic(app).requests_sent("tools/call") == []
        assert traffic(app).entries()[logged:] == []  # not a single message went out
        # Escape in the dialog denies too.
        await open_tool(pilot, "inspect_procedure")
        await review(pilot)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.main, "the dialog to close")
        await pilot.pause(0.2)
        assert app.session.ledger.entries == [] and traffic(app).requests_sent("tools/call") == []


async def test_allow_for_session_is_offered_only_for_read_only_tools_and_skips_the_dialog() -> None:
    app = make_app([reference_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await open_tool(pilot, "list_documents")
        approval = await review(pilot)
        assert approval.query_one("#allow-session", Button).display
        assert "readOnlyHint: true" in screen_text(app)
        first = await approve(pilot, "#allow-session")
        assert (first.outcome, first.approval) == ("ok", "allowed for the session")

        # The second call of the same tool goes straight through: no dialog.
        await open_tool(pilot, "list_documents")
        await click(pilot, "#review")
        second = await finished(pilot, app, 2)
        assert app.screen is app.main
        assert (second.tool, second.outcome, second.approval) == ("list_documents", "ok", "allowed for the session")
        assert len(tool_calls(app)) == 2

        # Another read-only tool still asks: the allowance is per tool.
        await open_tool(pilot, "list_unknowns")
        approval = await review(pilot)
        assert approval.query("#allow-session")
        await click(pilot, "#deny")
        await wait_for(pilot, lambda: app.screen is app.main, "the dialog to close")

        # Tools not declared read-only never offer it.
        for tool in ("run_process_capture",):
            await open_tool(pilot, tool)
            approval = await review(pilot)
            assert not approval.query("#allow-session"), tool
            assert [b.id for b in approval.query(Button)] == ["run-once", "deny"], tool
            await click(pilot, "#deny")
            await wait_for(pilot, lambda: app.screen is app.main, "the dialog to close")
        assert len(tool_calls(app)) == 2


async def test_the_tool_form_validates_against_the_input_schema_before_anything_is_sent() -> None:
    app = make_app([reference_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        form = await open_tool(pilot, "inspect_procedure")
        assert field_editor(app, "max_instructions").value == "64"  # the schema's default
        await fill_tool_form(pilot, {"procedure": "openDocument", "max_instructions": "9999"})
        await click(pilot, "#review")
        await wait_for(pilot, lambda: field_error(app, "max_instructions"), "the inline error")
        assert app.screen is form  # still the form: no approval dialog, nothing sent
        assert "512" in field_error(app, "max_instructions")
        assert field_error(app, "procedure") == ""
        assert "9999" in screen_text(app) and "512" in screen_text(app)
        # Letters cannot even be typed into an integer field.
        editor = field_editor(app, "max_instructions")
        editor.focus()
        await pilot.press("end", "x", "y")
        assert editor.value == "9999"
        # A bad timeout is caught too.
        await fill_tool_form(pilot, {"max_instructions": "8"})
        timeout = app.screen.query_one("#tool-timeout", Input)
        timeout.value = "0"
        await click(pilot, "#review")
        message = form.query_one("#tool-form-message", Static)
        await wait_for(pilot, lambda: "positive" in str(message.render()), "the timeout message")
        assert app.screen is form
        assert "The timeout must be a positive number." in screen_text(app)
        assert field_error(app, "max_instructions") == ""
        assert traffic(app).requests_sent("tools/call") == [] and app.session.ledger.entries == []
        # Fixed, it goes to approval with the coerced integer.
        timeout.value = "30"
        await review(pilot)
        assert '"max_instructions": 8' in screen_text(app)
        await approve(pilot)
        assert sent_arguments(app) == [("inspect_procedure", {"procedure": "openDocument", "max_instructions": 8})]


async def test_a_step_form_is_prefilled_from_the_prompt_arguments() -> None:
    app = make_app([reference_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await fill_investigation(pilot, procedure="openDocument")
        view = await render(pilot)
        assert view.workflow is not None
        assert view.workflow.arguments["procedure"] == "openDocument"
        assert [s.tool for s in view.workflow.steps] == [
            "search_strings",
            "find_references",
            "callers",
            "callees",
            "inspect_procedure",
            "record_unknown",
        ]
        await open_step(pilot, "inspect_procedure")
        assert field_editor(app, "procedure").value == "openDocument"
        assert field_editor(app, "document").value == "Notes"
        assert field_editor(app, "provider").value == ""
        # The prompt's values are also offered as one-click suggestions.
        suggestions = [str(b.label) for b in app.screen.query(".suggestion").results(Button)]
        assert "offline search" in suggestions and "openDocument" in suggestions
        assert traffic(app).requests_sent("tools/call") == []
        await review(pilot)
        entry = await approve(pilot)
        assert entry.outcome == "ok" and entry.structured["procedure"]["names"] == ["openDocument"]
        assert sent_arguments(app) == [
            ("inspect_procedure", {"procedure": "openDocument", "document": "Notes", "max_instructions": 64})
        ]


async def test_three_round_narrowing_through_the_picker() -> None:
    app = make_app([reference_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        # Round 1: no procedure at all.
        await run_tool(pilot, "inspect_procedure", button="#allow-session")
        first = app.session.ledger.entries[0]
        assert first.narrowing is not None and "procedure" not in first.arguments
        assert (first.narrowing.reason, len(first.narrowing.candidates)) == ("missing_required", 25)
        picker = await screen_named(pilot, "NarrowingScreen")
        crumb = str(picker.query_one("#narrowing-breadcrumb", Static).render())
        assert crumb == "round 1 · missing_required · nothing pinned yet"
        assert picker.query_one("#narrowing-candidates", OptionList).option_count == 25
        assert picker.query_one("#narrowing-argument", Select).value == "procedure"

        form = await answer_narrowing(pilot, "openDocument")
        note = str(form.query_one(".dialog-note", Static).render())
        # A narrowing reply is the server's question, not evidence: it has no evidence ID.
        assert note == "Narrowing round 2: procedure = openDocument  (answers the server's question)"
        assert field_editor(app, "procedure").value == "openDocument"
        await click(pilot, "#review")  # allowed for the session: straight to the call

        # Round 2: the name is in three documents.
        second = await finished(pilot, app, 2)
        assert second.narrowing is not None
        assert second.narrowing.reason == "ambiguous"
        assert [c.name for c in second.narrowing.candidates] == ["Notes", "NotesHelper", "libsync.dylib"]
        assert second.narrowing.scoped_by == {"procedure": "openDocument"}
        assert (second.follows, second.narrowing_round) == ("E1", 2)
        picker = await screen_named(pilot, "NarrowingScreen")
        crumb = str(picker.query_one("#narrowing-breadcrumb", Static).render())
        assert crumb == 'round 2 · ambiguous · scoped by procedure="openDocument"'
        assert picker.query_one("#narrowing-argument", Select).value == "document"
        form = await answer_narrowing(pilot, "Notes")
        note = str(form.query_one(".dialog-note", Static).render())
        assert note == "Narrowing round 3: document = Notes  (answers the server's question)"
        assert field_editor(app, "document").value == "Notes"
        await click(pilot, "#review")

        # Round 3: it runs.
        third = await finished(pilot, app, 3)
        assert (third.outcome, third.narrowing, third.follows, third.narrowing_round) == ("ok", None, "E2", 3)
        assert third.ref == "E-0001"  # the server's first evidence: the questions before it were not evidence
        assert third.structured["document"]["name"] == "Notes"
        assert third.structured["procedure"]["names"] == ["openDocument"]
        # The candidates only narrowed: 25, then 3, then none.
        assert [len(e.narrowing.candidates) if e.narrowing else 0 for e in app.session.ledger.entries] == [25, 3, 0]
        assert [e.follows for e in app.session.ledger.entries] == [None, "E1", "E2"]
        assert sent_arguments(app) == [
            ("inspect_procedure", {"max_instructions": 64}),
            ("inspect_procedure", {"max_instructions": 64, "procedure": "openDocument"}),
            ("inspect_procedure", {"max_instructions": 64, "procedure": "openDocument", "document": "Notes"}),
        ]
        await select_evidence(pilot, "E3")
        assert "follows the server's question (narrowing round 3)" in detail_text(app)
        entries = app.main.query_one(EntryList)
        lines = [str(entries.line_at(index)) for index in range(entries.entry_count)]
        listed = [re.sub(r"  [\d,.]+ m?s$", "", line) for line in lines]
        assert listed == [
            "question ✓ ok  inspect_procedure  ? round 1",
            "question ✓ ok  inspect_procedure  ? round 2",
            "E-0001   ✓ ok  inspect_procedure",
        ]


async def test_process_capture_asks_through_elicitation_accept_runs_decline_does_not() -> None:
    app = make_app([reference_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await open_tool(pilot, "run_process_capture")
        # No argument can skip the confirmation: the form has none that would.
        assert "confirm" not in [getattr(f, "key", None) for f in app.screen.query(".schema-field")]
        await review(pilot)
        assert not app.screen.query("#allow-session")  # destructive, open-world: never allowed for a session
        await click(pilot, "#run-once")
        dialog = await screen_named(pilot, "ElicitationScreen")
        keys = [getattr(f, "key", None) for f in dialog.query(".schema-field")]
        assert keys == ["arguments", "timeout_seconds", "capture_environment"]
        assert "rea (synthetic) asks for input" in screen_text(app)
        asked = str(dialog.query_one(".dialog-description").render())
        assert "without a shell" in asked and "Adjust the parameters or decline." in asked
        assert app.session.ledger.entries[-1].outcome == "running"
        editor = field_editor(app, "arguments")
        editor.focus()
        editor.post_message(events.Paste("--offline"))
        await wait_for(pilot, lambda: editor.value == "--offline", "the pasted arguments")
        await click(pilot, "#accept")
        accepted = await finished(pilot, app, 1)
        assert accepted.outcome == "ok", accepted.error
        assert accepted.structured["status"] == "completed" and accepted.structured["simulated"] is True
        assert accepted.structured["argv"] == ["Notes", "--offline"]
        await select_evidence(pilot, "E1")
        assert "simulated: true" in detail_text(app)

        await open_tool(pilot, "run_process_capture")
        await review(pilot)
        await click(pilot, "#run-once")
        await screen_named(pilot, "ElicitationScreen")
        await click(pilot, "#decline")
        declined = await finished(pilot, app, 2)
        assert declined.outcome == "ok"
        assert declined.structured == {"status": "not_run", "reason": "the user chose decline", "ran": False}
        await select_evidence(pilot, "E2")
        assert "not_run" in detail_text(app)
        assert [name for name, _ in sent_arguments(app)].count("run_process_capture") >= 2


# ---------------------------------------------------------------- the sample server: slow, crashing, huge


async def test_ctrl_b_cancels_a_running_call_and_tells_the_server() -> None:
    app = make_app([sample_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await open_tool(pilot, "slow_task", SAMPLE)
        await fill_tool_form(pilot, {"seconds": "20", "steps": "40"})
        await review(pilot)
        rebuilds: list[object] = []
        app.main.bindings_updated_signal.subscribe(app.main, rebuilds.append)
        await click(pilot, "#run-once")
        entries = app.session.ledger.entries
        await wait_for(
            pilot, lambda: entries and (entries[0].progress or Progress(0, None, None)).progress >= 3, "3 steps"
        )
        assert "ctrl+b cancels the call" in screen_text(app)
        assert "^b Cancel call" in screen_text(app)  # in the footer only while a call runs
        # The footer is rebuilt when the call starts, not for each progress update (a rebuild takes a frame).
        footer_rebuilds = len(rebuilds)
        assert footer_rebuilds <= 3, rebuilds
        started = time.monotonic()
        await pilot.press("ctrl+b")
        entry = await finished(pilot, app, 1)
        await wait_for(pilot, lambda: "^b Cancel call" not in screen_text(app), "ctrl+b gone from the footer")
        assert time.monotonic() - started < 5
        assert entry.outcome == "cancelled"
        assert "notifications/cancelled" in entry.error
        cancelled = [e for e in traffic(app, SAMPLE).entries() if e.method == "notifications/cancelled"]
        assert [(e.direction, e.kind) for e in cancelled] == [("out", "notification")]
        request_id = traffic(app, SAMPLE).requests_sent("tools/call")[0].id
        assert str(json.loads(cancelled[0].payload)["params"]["requestId"]) == request_id
        assert "⊘ cancelled" in screen_text(app)


async def test_a_timeout_set_in_the_tool_form_times_the_call_out() -> None:
    app = make_app([sample_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await open_tool(pilot, "slow_task", SAMPLE)
        await fill_tool_form(pilot, {"seconds": "10"})
        timeout = app.screen.query_one("#tool-timeout", Input)
        timeout.focus()
        timeout.value = ""
        await pilot.press(*"0.5")
        await review(pilot)
        started = time.monotonic()
        entry = await approve(pilot)
        assert time.monotonic() - started < 5
        assert entry.outcome == "timed_out"
        assert "timed out after 0.5 s" in entry.error
        assert "⌛ timed out" in screen_text(app)


async def test_the_server_exiting_mid_call_then_f5_reconnects_and_the_call_runs_again() -> None:
    app = make_app([sample_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await open_tool(pilot, "crash", SAMPLE)
        await fill_tool_form(pilot, {"code": "3"})
        approval = await review(pilot)
        assert "destructiveHint: true" in screen_text(app) and not approval.query("#allow-session")
        entry = await approve(pilot)
        assert entry.outcome == "server_exited"
        assert entry.exit_code == 3
        assert "sample-server: crashing on purpose with code 3" in entry.stderr_tail
        await wait_for(pilot, lambda: app.session.state(SAMPLE).status == "exited", "the server to be marked exited")
        await select_evidence(pilot, "E1")
        assert "crashing on purpose with code 3" in detail_text(app)
        assert "⏏ server exited" in screen_text(app)

        await pilot.press("f5")
        await wait_for(pilot, lambda: app.session.state(SAMPLE).status == "ready", "the server to reconnect")
        assert any(e.method == "reconnect" for e in traffic(app, SAMPLE).entries())
        again = await run_tool(pilot, "crash", {"code": "3"}, server=SAMPLE)
        assert (again.id, again.outcome, again.exit_code) == ("E2", "server_exited", 3)
        assert [p["arguments"] for p in tool_calls(app, SAMPLE)] == [{"code": 3}, {"code": 3}]


async def test_a_5_mb_result_keeps_the_app_responsive_and_is_shown_in_parts() -> None:
    app = make_app([sample_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await open_tool(pilot, "big_result", SAMPLE)
        await fill_tool_form(pilot, {"kilobytes": "5120"})
        await review(pilot)
        # A heartbeat on the event loop: the longest gap between beats is how long the app was frozen.
        beats: list[float] = [time.monotonic()]
        heart = app.set_interval(0.02, lambda: beats.append(time.monotonic()))
        entry = await approve(pilot)
        await select_evidence(pilot, entry.id)
        await pilot.pause(0.2)
        heart.stop()
        longest = max(b - a for a, b in itertools.pairwise(beats))
        assert entry.outcome == "ok" and entry.result_size > 5_000_000
        assert longest < 1.0, f"the event loop was blocked for {longest:.2f} s"

        detail = app.main.query_one(EvidenceDetail)
        chunks = detail.query(".chunk").results(Static)
        first = next(iter(chunks))
        assert len(str(first.render())) <= 21_000  # only the first part is rendered
        more = detail.query_one(".show-more", Button)
        left = int(str(more.label).split("(")[1].split(" ")[0].replace(",", ""))
        assert left > 5_000_000
        started = time.monotonic()
        await pilot.press("ctrl+g")  # the app still answers keys at once
        assert app.focused is not None and app.focused.id == "evidence-filter"
        assert time.monotonic() - started < 1.0
        more.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(detail.query(".chunk")) == 2, "the next part")
        left_after = int(str(more.label).split("(")[1].split(" ")[0].replace(",", ""))
        assert left_after == left - 200_000


# ---------------------------------------------------------------- notes


async def test_notes_keep_observations_inferences_and_unknowns_apart_and_check_citations() -> None:
    app = make_app([reference_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await run_tool(pilot, "list_documents")
        await pilot.press("ctrl+n")
        screen = await screen_named(pilot, "NotesScreen")
        kind = screen.query_one("#note-kind", Select)
        text = screen.query_one("#note-text", Input)
        lists_before: list[str] = []
        for note_kind, note in (
            ("observation", "E-0001 lists five documents"),
            ("inference", "search lives in libsearch"),
            ("unknown", "who syncs offline?"),
        ):
            kind.value = note_kind
            text.focus()
            text.post_message(events.Paste(note))
            await pilot.press("enter")
            await wait_for(pilot, lambda: len(app.session.notebook.notes) == len(lists_before) + 1, note)
            lists_before.append(note)
        lists = {k: screen.query_one(f"#notes-{k}", ListView) for k in ("observation", "inference", "unknown")}
        await wait_for(pilot, lambda: all(len(v.children) == 1 for v in lists.values()), "three lists of one")
        assert [n.kind for n in app.session.notebook.notes] == ["observation", "inference", "unknown"]
        assert app.session.notebook.notes[0].cites == ["E-0001"]
        shown = screen_text(app)
        assert "E-0001 lists five documents  [E-0001]" in shown
        assert "search lives in libsearch" in shown and "who syncs offline?" in shown

        # Citing evidence that does not exist is refused.
        kind.value = "observation"
        text.focus()
        await pilot.press(*"see E99", "enter")
        await pilot.pause(0.2)
        assert len(app.session.notebook.notes) == 3
        assert "E99" in str(screen.query_one("#note-message", Static).render())
        assert text.value == "see E99"  # kept, to be corrected
        assert len(lists["observation"].children) == 1


# ---------------------------------------------------------------- product bugs found by these tests


async def test_the_narrowing_picker_shows_the_argument_the_choice_is_pinned_to() -> None:
    """The "pin the choice to" select holds `document` but paints its blank prompt ("Select")."""
    app = make_app([reference_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await run_tool(pilot, "inspect_procedure", {"procedure": "openDocument"})
        picker = await screen_named(pilot, "NarrowingScreen")
        select = picker.query_one("#narrowing-argument", Select)
        assert select.value == "document"
        shown = str(select.query_one(SelectCurrent).query_one("#label", Static).render())
        assert shown == "document"


async def test_a_call_that_finishes_at_once_is_still_selected_in_the_evidence_pane() -> None:
    """A new entry is selected only if it is still running when the UI hears of it."""
    app = make_app([reference_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await run_tool(pilot, "list_documents")
        pane = app.main.query_one(EvidencePane)
        assert pane.selected_id == "E1"
        # What a fast call does: the ledger opens the entry and fills it before the UI handles the first change.
        entry = app.session.ledger.open(SERVER, "list_documents", {}, "approved once")
        entry.outcome = "ok"
        app.session.ledger.changed(entry)
        await pilot.pause(0.2)
        assert pane.selected_id == "E2"
        assert app.main.query_one(EvidenceDetail).entry is entry


async def test_the_completion_dropdown_covers_neither_its_field_nor_the_servers_diagnostic() -> None:
    """The dropdown is an overlay kept inside the screen: near the bottom of the form it is pushed up over
    the very input being typed in, and after a failed render (which focuses the field it names) it opens
    right over the server's diagnostic under that field."""
    app = make_app([reference_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        form = await fill_investigation(pilot)
        assert isinstance(form, ArgumentForm) and form.scroll_offset.y == 0
        procedure = form.field("procedure")
        assert procedure is not None
        dropdown = procedure.dropdown
        problems: list[str] = []

        procedure.input.focus()
        await wait_for(pilot, lambda: dropdown.shown_for == "", "the procedure dropdown")
        await pilot.pause(0.2)
        if dropdown.is_open and dropdown.region.overlaps(procedure.input.region):
            problems.append(f"the dropdown {dropdown.region} covers its input {procedure.input.region}")

        app.main.query_one("#sidebar").focus()
        await pilot.pause()
        procedure.input.value = "x" * 5000
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: procedure.has_class("-invalid"), "the diagnostic")
        await pilot.pause(0.5)
        error = procedure.query_one(".field-error", Static)
        assert "longer than 4096 characters" in str(error.render())
        if dropdown.is_open and dropdown.region.overlaps(error.region):
            problems.append(f"the dropdown {dropdown.region} covers the diagnostic {error.region}")
        assert not problems, "; ".join(problems)


@pytest.mark.parametrize("url, openable", [("https://\u0430pple.com/signin", True), ("javascript:alert(1)", False)])
async def test_a_url_elicitation_shows_the_real_host_and_never_opens_a_javascript_url(url: str, openable: bool) -> None:
    from rea_tui.ui.screens.elicitation import ElicitationScreen

    app = make_app([raw_spec("urlelicit", url=url)])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session.state("raw-urlelicit").status == "ready", "the server")
        app.main.calls.open("raw-urlelicit", "probe")
        await screen_named(pilot, "ToolFormScreen")
        await review(pilot)
        await click(pilot, "#run-once")
        dialog = await screen_named(pilot, "ElicitationScreen")
        assert isinstance(dialog, ElicitationScreen)
        shown = str(dialog.query_one("#elicitation-host", Static).render())
        opener = dialog.query_one("#accept", Button)
        assert opener.disabled is not openable
        if openable:
            assert "xn--pple-43d.com" in shown and "mixes Cyrillic and Latin" in shown
        else:
            assert "never opened" in shown
        await click(pilot, "#decline")
        entry = await finished(pilot, app, 1)
        assert entry.text() == "the client chose decline"
