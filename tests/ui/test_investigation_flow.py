"""The investigation as the keyboard drives it, against the real reference server (`--synthetic 2000 --seed 0`).

Keys are never lost (typing right after choosing a prompt lands in its first
field), tab through a form fills nothing, f6 moves the focus to the next pane
(and, narrow, shows it), the evidence reads as a listing or tables with the
JSON a key away and f8 widens it, and the narrowing picker's filter narrows
the server's own list by asking it again.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Input, OptionList, Select, Static

from rea_tui.ui.app import ReaApp
from rea_tui.ui.messages import NodeRef
from rea_tui.ui.screens.main import MainScreen
from rea_tui.ui.widgets import dropdown as dropdown_module
from rea_tui.ui.widgets.argument_form import ArgumentForm, ArgumentInput
from rea_tui.ui.widgets.entry_list import EntryList
from rea_tui.ui.widgets.evidence_pane import EvidenceDetail
from rea_tui.ui.widgets.result_view import ViewTable
from rea_tui.ui.widgets.sidebar import ServerTree
from tests.support.pilot import make_app, screen_text, wait_for
from tests.support.scenarios import (
    NARROW,
    SERVER,
    SIZE,
    click,
    connected,
    focus_field,
    open_prompt,
    reference_spec,
    render,
    run_tool,
    screen_named,
    select_evidence,
)


def options_of(screen: Any) -> list[str]:
    options = screen.query_one("#narrowing-candidates", OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


def footer(app: ReaApp) -> str:
    """The footer line: the keys of the screen, then the palette's."""
    return [line for line in screen_text(app).splitlines() if line.strip()][-1]


def sent_procedures(app: ReaApp) -> list[object]:
    import json

    hosted = app.session.hosted(SERVER)
    assert hosted is not None
    calls = [json.loads(e.payload)["params"] for e in hosted.connection.traffic.requests_sent("tools/call")]
    return [c["arguments"].get("procedure") for c in calls]


# ---------------------------------------------------------------- keys are never lost


async def test_typing_right_after_choosing_a_prompt_lands_in_its_first_empty_field() -> None:
    app = make_app([reference_spec()], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        tree = app.main.query_one(ServerTree)
        tree.focus()
        assert tree.select_ref(NodeRef("prompt", SERVER, "investigate_feature"), move_only=True)
        # Enter and the first letters in one go, as a fast typist does: none of them is lost.
        await pilot.press("enter", *"offline")
        form = app.main.query_one(ArgumentForm)
        await wait_for(pilot, lambda: form.values().get("feature") == "offline", "the letters in the feature field")
        assert isinstance(app.focused, ArgumentInput) and app.focused.field.spec.name == "feature"
        # With the first field filled, choosing the prompt again puts the cursor in the next empty one.
        tree.focus()
        await pilot.press("enter", *"x")
        await wait_for(pilot, lambda: form.values().get("input_path") == "x", "the next empty field")
        assert form.values()["feature"] == "offline"


async def test_tab_through_the_form_fills_nothing_unless_the_analyst_chose() -> None:
    app = make_app([reference_spec()], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        form = await open_prompt(pilot, "investigate_feature")
        document = await focus_field(pilot, form, "document")
        assert document.dropdown.values, "the document field has suggestions"
        # The highlighted suggestion's rest is shown dimmed after the cursor (ghost text).
        assert document.input._suggestion == document.dropdown.values[0]
        await pilot.press("tab")
        await wait_for(pilot, lambda: not document.input.has_focus, "the focus to move on")
        assert document.value == "", "tab through a field left it as it was"
        procedure = form.field("procedure")
        assert procedure is not None and procedure.input.has_focus
        # Moving the highlight is a choice: tab then fills the field with it.
        await focus_field(pilot, form, "document")
        await pilot.press("down", "tab")
        await wait_for(pilot, lambda: document.value == document.dropdown.values[1], "the highlighted value")
        # Typed in a field, tab takes the highlighted suggestion as before.
        await focus_field(pilot, form, "procedure")
        await pilot.press(*"openDoc")
        await wait_for(pilot, lambda: procedure.dropdown.shown_for == "openDoc", "completions for openDoc")
        ghost = procedure.input._suggestion
        assert ghost.startswith("openDoc") and len(ghost) > len("openDoc")
        await pilot.press("tab")
        await wait_for(pilot, lambda: procedure.value == ghost, "the suggestion taken")


async def test_the_dropdown_is_sized_to_what_it_shows() -> None:
    app = make_app([reference_spec()], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        form = await open_prompt(pilot, "investigate_feature")
        # A free-text argument with no suggestions: one line, in the gap above the next field's label.
        feature = await focus_field(pilot, form, "feature")
        assert feature.dropdown.region.height == 1
        following = form.field("input_path")
        assert following is not None
        title = following.query_one(".field-title")
        assert feature.dropdown.region.bottom <= title.region.y
        # Five documents: five rows, the footer and the border, not ten rows.
        document = await focus_field(pilot, form, "document")
        await pilot.pause()
        assert len(document.dropdown.values) == 5
        assert document.dropdown.options.region.height == 5
        # Many values: ten rows, and the dropdown stays inside the form's border.
        procedure = await focus_field(pilot, form, "procedure")
        await pilot.pause()
        assert procedure.dropdown.options.region.height == 10
        assert procedure.dropdown.region.bottom <= form.scrollable_content_region.bottom


async def test_typing_that_narrows_keeps_the_dropdowns_size_until_typing_pauses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A new size is a layout pass of the screen: not on every keystroke that narrows the list.
    monkeypatch.setattr(dropdown_module, "SHRINK_DELAY", 1.0)
    app = make_app([reference_spec()], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        form = await open_prompt(pilot, "investigate_feature")
        procedure = await focus_field(pilot, form, "procedure")
        await wait_for(pilot, lambda: procedure.dropdown.options.region.height == 10, "ten rows")
        name = procedure.dropdown.values[0]
        await pilot.press(*name)
        await wait_for(pilot, lambda: procedure.dropdown.shown_for == name, "the typed name's values")
        few = len(procedure.dropdown.values)
        assert few < 10
        assert procedure.dropdown.options.region.height == 10, "narrowed while typing: the rows stay"
        await wait_for(pilot, lambda: procedure.dropdown.options.region.height == few, "fitted after the pause")
        # Typing again brings the rows it needs at once.
        await pilot.press("ctrl+u")
        await wait_for(pilot, lambda: procedure.dropdown.shown_for == "", "the whole list again")
        height = procedure.dropdown.options.styles.height
        assert height is not None and height.value == 10


# ---------------------------------------------------------------- panes


async def test_f6_moves_the_focus_to_the_next_pane_and_the_pane_is_marked() -> None:
    app = make_app([reference_spec()], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        main = app.main
        form = await open_prompt(pilot, "investigate_feature")
        await focus_field(pilot, form, "feature")
        await pilot.press(*"offline")
        await render(pilot)
        main.query_one(ServerTree).focus()
        await pilot.pause()
        visited = []
        for _ in range(4):
            await pilot.press("f6")
            await pilot.pause()
            visited.append(main.pane_of(app.focused))
        # Rendered, the form is folded to its summary line: f6 passes it; f10 opens it, the cursor in it.
        assert visited == ["workflow", "evidence", "prompts", "workflow"]
        await pilot.press("f10")
        await wait_for(pilot, lambda: main.pane_of(app.focused) == "form", "the form opened")
        # The pane holding the focus has the accent border; the others do not.
        form = main.query_one("#form")
        sidebar = main.query_one("#sidebar")
        assert form.styles.border_top[1] != sidebar.styles.border_top[1]


async def test_narrow_f6_shows_the_next_pane_and_focuses_it() -> None:
    app = make_app([reference_spec()], transcript=None)
    async with app.run_test(size=NARROW) as pilot:
        await connected(pilot)
        main = app.main
        assert main.narrow
        assert "f6 Next pane" in footer(app), "the footer shows the pane key"
        main.show_pane("prompts", focus=True)
        await pilot.pause()
        for expected in ("form", "workflow", "evidence", "prompts"):
            await pilot.press("f6")
            await pilot.pause()
            assert main.pane == expected
            focused = app.focused
            # The focus is in the pane shown (the form has no field before a prompt is chosen: nothing then).
            assert focused is None or main.pane_of(focused) == expected
            assert focused is None or focused.region.width > 0


# ---------------------------------------------------------------- evidence


async def test_evidence_reads_as_a_listing_the_json_is_f7_away_and_f8_widens_it() -> None:
    app = make_app([reference_spec()], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        entry = await run_tool(pilot, "inspect_procedure", {"procedure": "openDocument", "document": "Notes"})
        assert entry.ref == "E-0001"
        await select_evidence(pilot, entry.id)
        detail = app.main.query_one(EvidenceDetail)
        listing = "\n".join(detail.query_one(".disassembly-listing", ViewTable).rows_text)
        first = entry.structured["disassembly"]["instructions"][0]
        assert first["address"] in listing.splitlines()[0] and first["mnemonic"] in listing.splitlines()[0]
        assert "openDocument+0x" in listing or "<" in listing  # jump targets named where the server knows them
        assert not detail.query(".structured-tree")
        width = detail.region.width
        await pilot.press("f8")
        await wait_for(pilot, lambda: detail.region.width > width, "the detail to widen")
        assert not app.main.query_one("#sidebar").display or app.main.query_one("#sidebar").region.width == 0
        assert "f8" in footer(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: detail.region.width == width, "the detail back in its pane")
        await pilot.press("f7")
        await wait_for(pilot, lambda: bool(detail.query(".structured-tree")), "the JSON tree")


async def test_documents_and_strings_read_as_tables() -> None:
    app = make_app([reference_spec()], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        documents = await run_tool(pilot, "list_documents")
        await select_evidence(pilot, documents.id)
        detail = app.main.query_one(EvidenceDetail)
        assert detail.query(".result-table")
        shown = screen_text(app)
        for document in documents.structured["documents"]:
            assert document["name"] in shown
        assert "documents" in str(detail.query_one(".view-title", Static).render())
        entries = app.main.query_one(EntryList)
        assert "E-0001" in str(entries.line_at(0))


# ---------------------------------------------------------------- the narrowing picker's filter


async def test_typing_in_the_narrowing_filter_asks_the_server_again() -> None:
    """25 of 1,684 matches listed: typing filters them and, after a pause, asks the server (allowed)."""
    app = make_app([reference_spec()], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await run_tool(pilot, "inspect_procedure", {"procedure": "o"}, button="#allow-session")
        first = app.session.ledger.entries[0]
        assert first.narrowing is not None and len(first.narrowing.candidates) == 25
        picker = await screen_named(pilot, "NarrowingScreen")
        assert isinstance(app.focused, Input) and app.focused.id == "narrowing-filter"
        assert "the server has more: type to narrow" in str(picker.query_one("#narrowing-status", Static).render())
        await pilot.press(*"openDoc")
        await wait_for(pilot, lambda: "openDoc" in sent_procedures(app), "the filter sent as the value")
        await wait_for(pilot, lambda: picker.entry is not first and not picker.in_flight, "the server's new question")
        assert all(str(v).startswith("o") for v in sent_procedures(app))
        asked = picker.entry
        assert asked.follows is not None and asked.arguments["procedure"] == "openDoc"
        assert asked.narrowing is not None and asked.narrowing.argument == "document"
        # The value is settled; the question is now which document: a fresh filter, the argument switched.
        assert options_of(picker) == [
            f"{d} (id {i})" for i, d in ((1, "Notes"), (2, "NotesHelper"), (4, "libsync.dylib"))
        ]
        assert picker.query_one("#narrowing-argument", Select).value == "document"
        assert picker.typed == ""
        await pilot.press(*"helper", "enter")
        form = await screen_named(pilot, "ToolFormScreen")
        note = str(form.query_one(".dialog-note", Static).render())
        assert "document = NotesHelper" in note and "(answers the server's question)" in note


async def test_without_an_allowance_the_filter_asks_through_the_approval_dialog() -> None:
    app = make_app([reference_spec()], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await run_tool(pilot, "inspect_procedure", {"procedure": "Search"})
        picker = await screen_named(pilot, "NarrowingScreen")
        await pilot.press(*"searchIndex21")
        await pilot.pause(0.8)
        assert sent_procedures(app) == ["Search"], "nothing is sent without approval"
        assert "enter asks it (needs approval)" in str(picker.query_one("#narrowing-status", Static).render())
        await pilot.press("enter")  # no listed candidate matches: enter asks the server
        await screen_named(pilot, "ApprovalScreen")
        assert '"procedure": "searchIndex21"' in screen_text(app)
        await click(pilot, "#run-once")
        # The value named one procedure: the call ran, the picker closed, the result is the evidence.
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), "the picker to close")
        await wait_for(pilot, lambda: app.session.ledger.entries[-1].finished, "the call")
        ran = app.session.ledger.entries[-1]
        assert ran.narrowing is None and ran.structured["procedure"]["names"] == ["searchIndex212"]
        assert sent_procedures(app) == ["Search", "searchIndex21"]
        assert ran.follows == app.session.ledger.entries[0].id


async def test_rendering_folds_the_form_wide_and_the_cursor_goes_on_to_the_steps() -> None:
    app = make_app([reference_spec()], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        form = await open_prompt(pilot, "investigate_feature")
        await focus_field(pilot, form, "feature")
        await pilot.press(*"offline search")
        await render(pilot)
        # Wide, the form folds to its summary line: the cursor goes on to the steps, never into a hidden field.
        await wait_for(pilot, lambda: app.main.pane_of(app.focused) == "workflow", "the steps")
        # f10 gives the form back, what was typed in it and the cursor.
        await pilot.press("f10")
        await wait_for(pilot, lambda: isinstance(app.focused, ArgumentInput), "the form")
        assert form.values()["feature"] == "offline search"


# ---------------------------------------------------------------- names and space


async def test_at_160_columns_labels_keep_their_marks_and_the_server_shows_its_whole_command() -> None:
    app = make_app([reference_spec()], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        # The target opens in the background (below the server's requests): named once it is open.
        await wait_for(pilot, lambda: "target: synthetic:2000:0" in screen_text(app), "the target in the header")
        shown = screen_text(app)
        # Long titles give way; their argument counts and required marks do not.
        assert "8 args, 2*" in shown and "4 args, 1*" in shown and "Compare application" in shown
        assert "rea (synthetic)  ready" in shown
        header = next(line for line in shown.splitlines() if "rea-tui" in line)
        assert "target: synthetic:2000:0 (synthetic)" in header and header.index("target") < header.index("prompts")
        tree = app.main.query_one(ServerTree)
        tree.select_ref(NodeRef("server", SERVER, SERVER))
        await wait_for(pilot, lambda: "started as" in screen_text(app), "the server's details")
        details = str(app.main.query_one("#form-message", Static).render())
        assert "-m rea_tui.server --synthetic 2000 --seed 0" in details
        assert "target synthetic:2000:0" in details
