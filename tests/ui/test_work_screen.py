"""The screen for the work at 160x48, against the real reference server (`--synthetic 2000 --seed 0`): after
rendering the form folds to one line and the evidence gets the room; notes open beside the evidence and
complete an evidence ID after any character."""

from __future__ import annotations

from textual.widgets import Input, Static

from rea_tui.ui.screens.notes import EvidenceIdSuggester, NotesScreen
from rea_tui.ui.widgets.argument_form import ArgumentForm, ArgumentInput
from rea_tui.ui.widgets.evidence_pane import EvidencePane
from rea_tui.ui.widgets.workflow_view import WorkflowView
from tests.support.pilot import make_app, wait_for
from tests.support.scenarios import (
    SIZE,
    connected,
    fill_investigation,
    reference_spec,
    render,
    run_tool,
    screen_named,
)

# At 160x48, the evidence pane's rows at least (the measure).
EVIDENCE_ROWS = 30


async def test_after_rendering_the_form_folds_to_a_line_and_the_evidence_gets_the_room() -> None:
    app = make_app([reference_spec()], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await fill_investigation(pilot, feature="offline search", document="Notes")
        await render(pilot)
        main = app.main
        form = main.query_one(ArgumentForm)
        await wait_for(pilot, lambda: main.form_collapsed and form.region.width == 0, "folded")
        summary = str(main.query_one("#form-summary", Static).render())
        assert "feature=offline search" in summary and "document=Notes" in summary and "f10" in summary
        assert main.pane_of(app.focused) == "workflow"  # the focus went on to the steps
        # The heading and the steps' title stay in view over the scroller of the steps and the guidance.
        assert "investigate_feature" in str(main.query_one("#workflow-empty", Static).render())
        assert main.query_one("#workflow-empty").region.height > 0
        assert main.query_one("#workflow-steps-title").region.height > 0
        assert main.query_one(EvidencePane).region.height >= EVIDENCE_ROWS
        # The guidance is one scroller: the steps are inside it, with no scroller of their own.
        workflow = main.query_one(WorkflowView)
        scroller = workflow.query_one("#workflow-scroll")
        assert main.query_one("#workflow-steps").parent is scroller
        assert main.query_one("#workflow-messages").parent is scroller
        assert "user" not in [str(s.render()) for s in workflow.query(".message-role").results(Static)]
        # f10 opens the form again, the cursor in it; f10 folds it.
        await pilot.press("f10")
        await wait_for(pilot, lambda: form.region.width > 0 and isinstance(app.focused, ArgumentInput), "the form")
        await pilot.press("f10")
        await wait_for(pilot, lambda: main.form_collapsed, "folded again")


async def test_notes_open_beside_the_evidence() -> None:
    app = make_app([reference_spec()], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await run_tool(pilot, "list_documents")
        await pilot.press("ctrl+n")
        notes = await screen_named(pilot, "NotesScreen")
        assert isinstance(notes, NotesScreen)
        panel = notes.query_one("#notes-panel")
        evidence = app.main.query_one(EvidencePane)
        await wait_for(pilot, lambda: evidence.region.x >= panel.region.right, "the evidence beside the notes")
        assert evidence.region.width > SIZE[0] // 3 and evidence.region.height >= EVIDENCE_ROWS
        note = notes.query_one("#note-text", Input)
        assert app.focused is note
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.main.has_class("-notes-open"), "the room given back")


async def test_an_evidence_id_completes_after_any_character() -> None:
    suggester = EvidenceIdSuggester(lambda: ["E-0001", "E-0002", "rea:E-0003"])
    assert await suggester.get_suggestion("loads it (E-00") == "loads it (E-0002"
    assert await suggester.get_suggestion("see [E-0001") is None  # whole already
    assert await suggester.get_suggestion('"rea:E') == '"rea:E-0003'
    assert await suggester.get_suggestion("the code") is None  # prose is left alone
    assert await suggester.get_suggestion("(E") == "(E-0002"
