"""Widgets carry their own look: each, mounted alone in a bare App (none of rea-tui's stylesheets), is styled."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.color import Color
from textual.css.scalar import Unit
from textual.widget import Widget
from textual.widgets import Button, Input, ListView, Static

from rea_tui.host import (
    EvidenceLedger,
    ResourceLinkBlock,
    ResultTable,
    TextBlock,
    Workflow,
)
from rea_tui.host.features.workflow import WorkflowMessage, WorkflowStep
from rea_tui.ui.widgets.argument_form import ArgumentField, ArgumentForm, FieldSpec
from rea_tui.ui.widgets.dropdown import CompletionDropdown
from rea_tui.ui.widgets.entry_list import EntryList
from rea_tui.ui.widgets.evidence_pane import ChunkedText, EvidenceDetail, EvidencePane
from rea_tui.ui.widgets.header import ServerHeader
from rea_tui.ui.widgets.result_view import ViewTable, view_widgets
from rea_tui.ui.widgets.schema_form import FIELDS_PER_PAGE, SchemaField, SchemaForm, SuggestionChip
from rea_tui.ui.widgets.workflow_view import SafeMarkdown, WorkflowView

SIZE = (80, 30)


class BareApp(App[None]):
    """No CSS_PATH and no CSS: only the widgets' DEFAULT_CSS (and Textual's) apply."""

    def __init__(self, widget: Widget) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        yield self.widget


def is_muted(widget: Widget) -> bool:
    """Coloured `$text-muted` (`auto 60%`: the text's contrast colour at 60%)."""
    return widget.styles.auto_color and widget.styles.color.a == 0.6


async def test_completion_dropdown_is_a_bordered_overlay_shown_only_open() -> None:
    dropdown = CompletionDropdown()
    app = BareApp(dropdown)
    async with app.run_test(size=SIZE) as pilot:
        assert dropdown.styles.display == "none", "closed, the dropdown is hidden"
        assert dropdown.styles.overlay == "screen"
        assert dropdown.styles.border_top[0] == "tall"
        assert dropdown.styles.background == Color.parse(app.theme_variables["surface"])
        dropdown.open()
        await pilot.pause()
        assert dropdown.styles.display == "block", "open, it shows"
        # Its values: no border or padding of OptionList's own (the dropdown draws the border).
        assert dropdown.options.styles.border_top[0] == ""
        assert dropdown.options.styles.padding.left == 0
        # Its footer: one line, on the panel colour.
        assert dropdown.footer.styles.height is not None and dropdown.footer.styles.height.value == 1
        assert dropdown.footer.styles.padding.left == 1
        assert dropdown.footer.styles.background == Color.parse(app.theme_variables["panel"])
        # Nothing to suggest (opened before its first page): one line, no border, no value rows.
        assert dropdown.has_class("-empty")
        assert dropdown.styles.border_top[0] == ""
        assert dropdown.options.styles.display == "none"
        assert dropdown.region.height == 1


async def test_argument_field_has_its_spacing_muted_description_and_error_border() -> None:
    field = ArgumentField(FieldSpec("path", "Path", "The binary to read.", required=True), "", 0)
    app = BareApp(field)
    async with app.run_test(size=SIZE) as pilot:
        assert field.styles.height is not None and field.styles.height.is_auto, "as tall as its parts"
        assert field.styles.margin.bottom == 1
        description = field.query_one(".field-description", Static)
        assert is_muted(description)
        error = field.query_one(".field-error", Static)
        assert error.styles.color == Color.parse(app.theme_variables["error"])
        field.set_error("not a file")
        await pilot.pause()
        border_type, border_color = field.input.styles.border_top
        assert border_type == "tall" and border_color == Color.parse(app.theme_variables["error"])


async def test_argument_form_parts_are_spaced_and_leave_room_for_a_dropdown() -> None:
    form = ArgumentForm()
    app = BareApp(form)
    async with app.run_test(size=SIZE):
        heading, description = form.query_one("#form-heading"), form.query_one("#form-description")
        assert heading.styles.margin.top == 1
        assert description.styles.margin.bottom == 1
        assert is_muted(description)
        fields = form.query_one("#form-fields")
        assert fields.styles.height is not None and fields.styles.height.is_auto, "not Vertical's 1fr"
        assert form.query_one("#form-actions").styles.margin.top == 1
        room = form.query_one("#form-room")
        assert room.styles.height is not None and room.styles.height.value == 14


async def test_server_header_is_one_line_on_the_panel() -> None:
    header = ServerHeader()
    app = BareApp(header)
    async with app.run_test(size=SIZE):
        assert header.styles.height is not None and header.styles.height.value == 1
        assert header.region.height == 1
        assert header.styles.padding.left == 1
        assert header.styles.background == Color.parse(app.theme_variables["panel"])


async def test_workflow_view_parts_and_content_cards() -> None:
    view = WorkflowView()
    app = BareApp(view)
    async with app.run_test(size=SIZE) as pilot:
        workflow = Workflow(
            prompt="investigate",
            arguments={},
            description="",
            messages=(
                WorkflowMessage("assistant", (TextBlock("Look at **main** first."),)),
                WorkflowMessage("user", (ResourceLinkBlock(uri="file:///bin/ls", name="ls"),)),
            ),
            steps=(WorkflowStep("inspect_procedure", "read it", 1),),
        )
        await view.show("rea", workflow)
        await pilot.pause()
        steps = view.query_one("#workflow-steps", ListView)
        assert steps.styles.height is not None and steps.styles.height.is_auto
        assert steps.styles.margin.bottom == 1
        messages = view.query_one("#workflow-messages")
        assert messages.styles.height is not None and messages.styles.height.is_auto, "not Vertical's 1fr"
        role = view.query_one(".message-role", Static)
        assert role.styles.margin.top == 1
        assert role.styles.color == Color.parse(app.theme_variables["accent"])
        text = view.query_one(".message-text", SafeMarkdown)
        assert text.styles.padding.left == 0, "not Markdown's own padding"
        card = view.query_one(".content-card")
        assert card.styles.border_top[0] == "round"
        assert card.styles.height is not None and card.styles.height.is_auto


async def test_evidence_pane_parts() -> None:
    ledger = EvidenceLedger()
    pane = EvidencePane(ledger)
    app = BareApp(pane)
    async with app.run_test(size=SIZE) as pilot:
        search = pane.query_one("#evidence-filter", Input)
        assert search.styles.height is not None and search.styles.height.value == 1
        assert search.styles.border_top[0] == "", "no Input border"
        search.focus()
        await pilot.pause()
        assert search.styles.border_top[0] == "", "not even Input's :focus border"
        trail = pane.query_one("#evidence-trail", Static)
        assert trail.styles.display == "none", "no trail before there is somewhere to go"
        pane.add_class("-has-trail")
        await pilot.pause()
        assert trail.styles.display == "block"
        entries = pane.query_one(EntryList)
        entries.focus()
        await pilot.pause()
        assert entries.styles.max_height is not None and entries.styles.max_height.value == 6
        assert entries.styles.border_top[0] == "", "no EntryList border, even focused"
        assert entries.styles.border_bottom[0] == "hkey"
        detail = pane.query_one(EvidenceDetail)
        assert detail.styles.padding.left == 1


async def test_evidence_detail_parts_and_result_views() -> None:
    ledger = EvidenceLedger()
    detail = EvidenceDetail(ledger)
    app = BareApp(detail)
    async with app.run_test(size=SIZE) as pilot:
        entry = ledger.open("rea", "list_strings", {"binary": "/bin/ls"}, "interactive yes")
        entry.outcome, entry.error = "tool_error", "the file is gone"
        entry.content = [TextBlock("partial output")]
        entry.structured, entry.has_structured = {"odd": [1, 2]}, True
        ledger.changed(entry)
        await detail.show(entry)
        await detail.mount_all(view_widgets(ResultTable("strings", ("offset", "text"), (("0x10", "hello"),))))
        await pilot.pause()
        assert detail.query_one(".evidence-head").styles.margin.bottom == 1
        assert is_muted(detail.query_one(".evidence-args"))
        assert detail.query_one(".evidence-error").styles.margin.bottom == 1
        tree = detail.query_one(".structured-tree")
        assert tree.styles.max_height is not None and tree.styles.max_height.value == 30
        chunked = detail.query_one(ChunkedText)
        assert chunked.styles.height is not None and chunked.styles.height.is_auto, "not Vertical's 1fr"
        actions = detail.query_one(".evidence-actions")
        assert actions.styles.margin.top == 1
        assert actions.query(Button).first().styles.margin.right == 1
        assert detail.query_one(".view-title").styles.margin.top == 1
        table = detail.query_one(ViewTable)
        assert table.styles.max_height is not None and table.styles.max_height.value == 1200
        assert table.styles.margin.bottom == 1


async def test_schema_form_fields_pager_chips_and_error_line() -> None:
    properties: dict[str, Any] = {
        "tags": {"type": "array", "items": {"enum": ["a", "b"]}},
        "options": {"type": "object"},
        "name": {"type": "string"},
    }
    # More fields than a page: the pager shows.
    properties.update({f"extra_{n}": {"type": "string"} for n in range(FIELDS_PER_PAGE)})
    form = SchemaForm({"type": "object", "properties": properties}, {}, {"name": ["ls", "cat"]})
    app = BareApp(form)
    async with app.run_test(size=(100, 60)) as pilot:
        assert form.styles.height is not None and form.styles.height.is_auto, "not Vertical's 1fr"
        fields = form.query_one(".schema-fields")
        assert fields.styles.max_height is not None and fields.styles.max_height.unit == Unit.VIEW_HEIGHT
        pager = form.query_one(".schema-pager")
        assert pager.styles.margin.top == 1
        assert form.query_one(".schema-position").styles.content_align == ("center", "middle")
        field = form.query_one(SchemaField)
        assert field.styles.height is not None and field.styles.height.is_auto
        assert field.styles.margin.bottom == 1
        multi = form.query_one(".schema-multi")
        assert multi.styles.max_height is not None and multi.styles.max_height.value == 8
        json_editor = form.query_one(".schema-json")
        assert json_editor.styles.height is not None and json_editor.styles.height.value == 6, "not TextArea's 1fr"
        chip = form.query_one(SuggestionChip)
        assert chip.styles.margin.right == 1
        label = form.query_one(".suggestions-label")
        assert label.styles.width is not None and label.styles.width.is_auto
        error = field.query_one(".schema-error")
        assert error.styles.display == "none", "no problem, no error line"
        field.add_class("-invalid")
        await pilot.pause()
        assert error.styles.display == "block"
        assert error.styles.color == Color.parse(app.theme_variables["error"])
