"""Widgets carry their own look: each, mounted alone in a bare App (none of rea-tui's stylesheets), is styled."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.color import Color
from textual.widget import Widget
from textual.widgets import Static

from rea_tui.ui.widgets.argument_form import ArgumentField, ArgumentForm, FieldSpec
from rea_tui.ui.widgets.dropdown import CompletionDropdown

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
