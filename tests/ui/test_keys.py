"""Keys an analyst relies on: tab after a completion goes on to the next field, and the alt twins of the
keys a browser keeps for itself work from every focus without typing their letter anywhere."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from rea_tui.ui.app import ReaApp
from rea_tui.ui.widgets.argument_form import ArgumentField
from tests.conftest import sample_spec
from tests.support.pilot import make_app, wait_for
from tests.ui.test_app import SIZE
from tests.ui.test_frame_hold import focused_field
from tests.ui.test_key_order import post_at_once, settle


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
