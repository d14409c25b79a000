"""Keys an analyst relies on: tab after a completion goes on to the next field, and the alt twins of the
keys a browser keeps for itself work from every focus without typing their letter anywhere."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.pilot import Pilot
from textual.widgets import Input

from rea_tui.ui.app import ReaApp
from rea_tui.ui.messages import NodeRef
from rea_tui.ui.widgets.argument_form import ArgumentField, ArgumentForm
from rea_tui.ui.widgets.evidence_pane import EvidencePane
from rea_tui.ui.widgets.sidebar import ServerTree
from rea_tui.ui.widgets.workflow_view import WorkflowView
from tests.conftest import sample_spec
from tests.support.pilot import make_app, ready, wait_for
from tests.ui.test_app import SIZE
from tests.ui.test_frame_hold import focused_field
from tests.ui.test_key_order import post_at_once, settle

SAMPLE = "sample"


async def document_and_procedure(pilot: Pilot[Any], app: ReaApp) -> tuple[ArgumentField, ArgumentField]:
    """The sample `investigate` form, the cursor in `document` (completed by the server), `procedure` next."""
    document = await focused_field(pilot, app, "document")
    form = document.form
    assert form is not None
    procedure = form.field("procedure")
    assert procedure is not None and form.fields.index(procedure) == form.fields.index(document) + 1
    await wait_for(pilot, lambda: document.dropdown.values == ("Helper", "Notes", "libsearch"), what="documents")
    return document, procedure


async def test_tab_fills_the_field_and_what_follows_goes_to_the_next_field() -> None:
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        document, procedure = await document_and_procedure(pilot, app)
        await pilot.press("N")
        await wait_for(pilot, lambda: document.dropdown.values == ("Notes",), what="Notes offered")
        # As a quick typist (or tmux send-keys) sends them: tab and the next value in one burst.
        post_at_once(app, ["tab", *"op"])
        await settle(pilot, app)
        assert (document.value, procedure.value) == ("Notes", "op")
        assert app.focused is procedure.input


async def test_tab_after_enter_filled_the_field_moves_on() -> None:
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        document, procedure = await document_and_procedure(pilot, app)
        await pilot.press("l", "i")
        await wait_for(pilot, lambda: document.dropdown.values == ("libsearch",), what="libsearch offered")
        await pilot.press("enter")
        await wait_for(pilot, lambda: document.value == "libsearch", what="the fill")
        assert app.focused is document.input
        # The accepted value's own suggestions may come up again: tab fills nothing more and moves on.
        await pilot.pause(0.3)
        post_at_once(app, ["tab", *"_Py"])
        await settle(pilot, app)
        assert (document.value, procedure.value) == ("libsearch", "_Py")
        assert app.focused is procedure.input


async def test_tab_through_a_field_not_typed_in_fills_nothing() -> None:
    app = make_app([sample_spec("legacy")])
    async with app.run_test(size=SIZE) as pilot:
        document, procedure = await document_and_procedure(pilot, app)
        post_at_once(app, ["tab", "x"])
        await settle(pilot, app)
        assert (document.value, procedure.value) == ("", "x")


def alt(letter: str) -> events.Key:
    """alt+letter as a terminal sends it (ESC letter): Textual names it `alt+letter`, with the letter as character."""
    return events.Key(f"alt+{letter}", letter)


async def press_alt(pilot: Pilot[Any], app: ReaApp, letter: str) -> None:
    app.post_message(alt(letter))
    await settle(pilot, app)


async def on_screen(pilot: Pilot[Any], app: ReaApp, name: str) -> None:
    await wait_for(pilot, lambda: type(app.screen).__name__ == name, what=name)
    await pilot.pause()


async def test_alt_twins_from_the_prompt_list_act_and_open_nothing() -> None:
    """On a prompt in the list a letter opens it and types; its alt twin only does what it is bound to."""
    app = make_app([sample_spec("legacy")], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        tree = app.main.query_one(ServerTree)
        tree.focus()
        assert tree.select_ref(NodeRef("prompt", SAMPLE, "investigate"), move_only=True)
        await pilot.pause()
        await press_alt(pilot, app, "n")
        await on_screen(pilot, app, "NotesScreen")
        assert app.main.query_one(ArgumentForm).target is None, "no prompt was opened"
        await pilot.press("escape")
        await on_screen(pilot, app, "MainScreen")
        tree.focus()
        await pilot.pause()
        await press_alt(pilot, app, "d")
        await on_screen(pilot, app, "ServerDetailsScreen")
        assert app.main.query_one(ArgumentForm).target is None
        await pilot.press("escape")
        await on_screen(pilot, app, "MainScreen")
        assert app.session.notebook.notes == []


async def test_alt_twins_from_a_field_type_nothing_into_it() -> None:
    app = make_app([sample_spec("legacy")], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        feature = await focused_field(pilot, app, "feature")
        await pilot.press(*"codec")
        await press_alt(pilot, app, "r")  # render
        await wait_for(pilot, lambda: app.main.query_one(WorkflowView).workflow is not None, what="the workflow")
        assert feature.value == "codec"
        assert app.main.query_one(WorkflowView).workflow.arguments["feature"] == "codec"  # type: ignore[union-attr]
        feature.input.focus()
        await pilot.pause()
        await press_alt(pilot, app, "n")  # notes, over the field
        await on_screen(pilot, app, "NotesScreen")
        await pilot.press("escape")
        await on_screen(pilot, app, "MainScreen")
        assert feature.value == "codec"


async def test_alt_twins_from_the_evidence_pane_type_nothing_into_its_filter() -> None:
    app = make_app([sample_spec("legacy")], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await press_alt(pilot, app, "g")  # the evidence ledger's filter
        pane = app.main.query_one(EvidencePane)
        focused = app.focused
        assert isinstance(focused, Input) and pane in focused.ancestors, "the filter has the focus"
        await press_alt(pilot, app, "j")  # f7's twin: the view toggles, nothing is typed
        await press_alt(pilot, app, "n")
        await on_screen(pilot, app, "NotesScreen")
        await pilot.press("escape")
        await on_screen(pilot, app, "MainScreen")
        assert focused.value == ""
