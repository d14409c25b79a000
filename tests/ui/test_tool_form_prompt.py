"""A tool form opened from a workflow step: prefilled from the prompt (by name and a few aliases), and its
"from the prompt:" chips reached by keyboard, against the real reference server (`--synthetic 2000 --seed 0`)."""

from __future__ import annotations

import json

from textual.widgets import Input

from rea_tui.host import Tool, prompt_prefill
from rea_tui.ui.widgets.completing_input import CompletingInput
from rea_tui.ui.widgets.schema_form import SchemaField, SuggestionChip
from tests.support.pilot import make_app, wait_for
from tests.support.scenarios import SERVER, SIZE, connected, fill_investigation, open_step, reference_spec, render


def test_prompt_values_fill_arguments_of_the_same_name_and_feature_fills_query() -> None:
    tool = Tool(
        "search_strings",
        input_schema={
            "type": "object",
            "properties": {"query": {"type": "string"}, "document": {}, "limit": {"type": "integer"}},
        },
    )
    values = {"feature": "unknown encoding", "document": "libpython3.11.so.1.0", "limit": "5", "other": "x"}
    assert prompt_prefill(tool, values) == {
        "query": "unknown encoding",
        "document": "libpython3.11.so.1.0",
        "limit": "5",
    }
    # The alias fills only an argument that takes text, and never over a value of the argument's own name.
    numeric = Tool("t", input_schema={"type": "object", "properties": {"query": {"type": "integer"}}})
    assert prompt_prefill(numeric, {"feature": "unknown encoding"}) == {}
    assert prompt_prefill(tool, {"feature": "a", "query": "b"})["query"] == "b"


async def test_a_step_form_takes_the_feature_as_query_and_its_chips_are_reached_by_keyboard() -> None:
    app = make_app([reference_spec()], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await fill_investigation(pilot, feature="offline search", document="Notes")
        await render(pilot)
        form = await open_step(pilot, "search_strings")
        fields = {f.key: f for f in form.query(SchemaField)}
        query = fields["query"].query_one(".schema-input", Input)
        assert query.value == "offline search" and fields["document"].query_one(Input).value == "Notes"
        # ctrl+down from the field to its chips, right to the second, enter fills the field and goes back to it.
        query.focus()
        await pilot.press("ctrl+down")
        assert isinstance(app.focused, SuggestionChip) and app.focused.suggestion == "offline search"
        await pilot.press("right")
        assert isinstance(app.focused, SuggestionChip) and app.focused.suggestion == "Notes"
        await pilot.press("enter")
        await wait_for(pilot, lambda: query.value == "Notes", "the chip's value in the field")
        assert app.focused is query
        # The chips are not Tab stops: tab goes on to the next field.
        await pilot.press("tab")
        assert app.focused is fields["document"].query_one(Input)
        assert not any(chip.can_focus for chip in form.query(SuggestionChip))


async def test_a_tool_argument_a_prompt_completes_gets_the_live_dropdown() -> None:
    """inspect_procedure's `procedure` is completed as investigate_feature's `procedure`, the form's document as
    context; enter takes a value, tab after it goes on to the next field; nothing is called."""
    app = make_app([reference_spec()], transcript=None)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await fill_investigation(pilot, document="Notes")
        await render(pilot)
        form = await open_step(pilot, "inspect_procedure")
        fields = {f.key: f for f in form.query(SchemaField)}
        procedure = fields["procedure"].query_one(".schema-input")
        assert isinstance(procedure, CompletingInput)
        assert not isinstance(fields["max_instructions"].query_one(".schema-input"), CompletingInput)
        procedure.focus()
        await pilot.press(*"openDoc")
        dropdown = procedure.dropdown
        await wait_for(pilot, lambda: dropdown.is_open and dropdown.shown_for == "openDoc", "the dropdown")
        assert dropdown.values and all(v.lower().startswith("opendoc") for v in dropdown.values)
        hosted = app.session.hosted(SERVER)
        assert hosted is not None
        asked = [
            json.loads(e.payload)["params"] for e in hosted.connection.traffic.requests_sent("completion/complete")
        ]
        last = asked[-1]
        assert last["ref"] == {"type": "ref/prompt", "name": "investigate_feature"}
        assert last["argument"] == {"name": "procedure", "value": "openDoc"}
        assert last["context"]["arguments"]["document"] == "Notes"
        await pilot.press("down")
        chosen = dropdown.highlighted_value()
        assert chosen is not None
        await pilot.press("tab")
        await wait_for(pilot, lambda: procedure.value == chosen, "the value taken")
        assert app.focused is not procedure and not dropdown.is_open
        assert hosted.connection.traffic.requests_sent("tools/call") == []
