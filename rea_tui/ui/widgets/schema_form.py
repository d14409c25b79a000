"""A form generated from a JSON Schema object: the tool form's and the elicitation dialog's fields.

Each property is a `FieldState` (what the analyst has typed or picked, and
where its first value came from: the analyst or prompt, the server's default,
or nothing). Only one page of fields is mounted at a time, so a schema with
thousands of properties opens as fast as a small one; values on other pages
stay in their states. A field shows the schema's `title` (the property name
dim beside it) and `description`; booleans say the value they send; enums,
titled enums (`oneOf`/`anyOf` of `{const, title}`) and multi-select arrays
are pickers that send the `const` values. Server text is shown only through
`plain`/`plain_line`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Select, SelectionList, Static, TextArea

from rea_tui.host import CHECKED_FORMATS, FieldDiagnostic, FormField, UnreadableValue, form_fields
from rea_tui.ui.text import join, plain, plain_line
from rea_tui.ui.widgets.completing_input import CompletingInput, FieldCompleter
from rea_tui.ui.widgets.field_state import FieldState, is_sensitive

# Fields on a page: only one page is mounted, whatever the size of the schema (a field costs about 5 ms).
FIELDS_PER_PAGE = 10
# Prompt values offered as chips under a field, at most.
SUGGESTIONS_SHOWN = 5
LABEL_LIMIT = 80
DESCRIPTION_LIMIT = 1_000
ERROR_LIMIT = 500
CHOICE_LIMIT = 80
SUGGESTION_LIMIT = 40


def field_label(prop: FormField) -> Text:
    """`Title  name * type (format)`: the title in bold with the name dim beside it, or the name alone."""
    label = plain_line(prop.title or prop.name, LABEL_LIMIT, style="bold")
    if prop.title:
        label.append_text(plain_line(f"  {prop.name}", LABEL_LIMIT, style="dim"))
    if prop.required:
        label.append(" *", style="bold red")
    shown = {"choice": "choice", "multi": "choices"}.get(prop.kind) or "/".join(prop.types) or "any"
    label.append_text(plain_line(f"  {shown}", LABEL_LIMIT, style="dim"))
    if prop.format:
        label.append_text(plain_line(f" ({prop.format})", LABEL_LIMIT, style="dim"))
    if prop.unfetched_ref:
        label.append_text(
            plain_line(f"  its schema is at {prop.unfetched_ref} (not fetched)", LABEL_LIMIT, style="dim")
        )
    return label


class BooleanToggle(Checkbox):
    """A checkbox whose label is the value it sends; an optional one can be left (or put back) unset."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("backspace,delete", "unset", "Unset", id="boolean-unset", tooltip="Send no value for this field"),
    ]

    def __init__(self, state: FieldState, on_change: Callable[[], None]) -> None:
        super().__init__(self._caption(state), value=state.picked is True, classes="schema-input")
        self.state = state
        self.on_change = on_change

    @staticmethod
    def _caption(state: FieldState) -> Text:
        if state.picked is None:
            return Text("not set: nothing is sent (space sets it)", style="dim")
        caption = Text("true" if state.picked else "false")
        if state.is_server_default(state.picked):
            caption.append("  default from the server", style="dim")
        return caption

    def _show(self, picked: bool | None) -> None:
        self.state.picked = picked
        self.state.touched = True
        self.value = picked is True
        self.label = self._caption(self.state)
        self.on_change()

    def toggle(self) -> BooleanToggle:
        self._show(not self.state.picked)
        return self

    def action_unset(self) -> None:
        if not self.state.prop.required:
            self._show(None)


class SuggestionChip(Button):
    """A prompt value under a field: not a Tab stop (tabbing goes field to field), reached with ctrl+down from
    the field; left and right move between the chips, enter fills the field, escape goes back to it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "Previous", id="chip-previous", tooltip="The chip before", show=False),
        Binding("right", "step(1)", "Next", id="chip-next", tooltip="The next chip", show=False),
        Binding("escape,up", "leave", "Back", id="chip-leave", tooltip="Back to the field", show=False),
    ]

    def __init__(self, value: str) -> None:
        super().__init__(plain_line(value, SUGGESTION_LIMIT), classes="suggestion", compact=True)
        self.can_focus = False
        self.tooltip = "fill this field with the value"
        self.suggestion = value

    def on_blur(self) -> None:
        self.can_focus = False

    def action_step(self, by: int) -> None:
        chips = list(self.parent.query(SuggestionChip)) if self.parent is not None else [self]
        target = chips[(chips.index(self) + by) % len(chips)]
        target.can_focus = True
        target.focus()

    def action_leave(self) -> None:
        field = next((a for a in self.ancestors if isinstance(a, SchemaField)), None)
        if field is not None:
            field.query_one(".schema-input").focus()


class SchemaField(Vertical):
    """One property: its label, description, editor, suggestions and error."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+down", "to_chips", "Prompt values", id="schema-field-chips", tooltip="The prompt's values"),
    ]

    def __init__(
        self,
        state: FieldState,
        on_change: Callable[[], None],
        completer: FieldCompleter | None = None,
        others: Callable[[], Mapping[str, str]] | None = None,
    ) -> None:
        super().__init__(classes="schema-field")
        self.state = state
        self.key = state.prop.name
        self.on_change = on_change
        # The server completes this field (as a prompt argument or template variable of the same name).
        self.completer = completer
        self.others = others or dict

    def compose(self) -> ComposeResult:
        prop = self.state.prop
        heading = field_label(prop)
        if prop.description:
            # One widget for the label and the description: a page of fields mounts in one frame.
            heading.append("\n")
            heading.append_text(plain(prop.description, DESCRIPTION_LIMIT, style="dim"))
        yield Static(heading, classes="schema-label")
        editor = self._editor()
        yield editor
        if isinstance(editor, CompletingInput):
            yield editor.dropdown  # right under the field: an overlay over what follows
        if self.state.suggestions:
            with Horizontal(classes="suggestions"):
                yield Static(Text("from the prompt (ctrl+↓):", style="dim"), classes="suggestions-label")
                for value in self.state.suggestions[:SUGGESTIONS_SHOWN]:
                    yield SuggestionChip(value)
        yield Static(self._error_text(), classes="schema-error")

    def on_mount(self) -> None:
        self.set_class(bool(self.state.error), "-invalid")

    def _editor(self) -> Widget:
        state, prop = self.state, self.state.prop
        if prop.kind == "boolean":
            return BooleanToggle(state, self.changed)
        if prop.kind == "choice":
            options = [(self._choice_label(c.label, c.value), i) for i, c in enumerate(prop.choices)]
            picked = state.picked if state.picked is not None else Select.NULL
            return Select(options, value=picked, allow_blank=True, prompt="choose…", classes="schema-input")
        if prop.kind == "multi":
            selections = [
                (self._choice_label(c.label, c.value), i, i in state.picked) for i, c in enumerate(prop.choices)
            ]
            return SelectionList[int](*selections, classes="schema-input schema-multi")
        if prop.kind == "json":
            return TextArea(state.text, language="json", classes="schema-input schema-json")
        placeholder = CHECKED_FORMATS.get(prop.format or "", "")
        if prop.kind == "array":
            placeholder = "JSON array, or a, b, c"
        input_type = {"integer": "integer", "number": "number"}.get(prop.kind, "text")
        if self.completer is not None and prop.kind == "string" and not is_sensitive(prop.schema):
            return CompletingInput(
                state.text, self.completer, self.others, placeholder=placeholder, classes="schema-input"
            )
        return Input(
            state.text,
            type=input_type,  # type: ignore[arg-type]
            placeholder=placeholder,
            password=is_sensitive(prop.schema),
            classes="schema-input",
        )

    @staticmethod
    def _choice_label(label: str, value: Any) -> Text:
        text = plain_line(label, CHOICE_LIMIT)
        shown = value if isinstance(value, str) else json.dumps(value)
        if shown != label:
            text.append_text(plain_line(f"  {shown}", CHOICE_LIMIT, style="dim"))
        return text

    def _error_text(self) -> Text | str:
        message = self.state.error
        return join(Text("✗ ", style="bold red"), plain(message, ERROR_LIMIT)) if message else ""

    def show_error(self) -> None:
        self.query_one(".schema-error", Static).update(self._error_text())
        self.set_class(bool(self.state.error), "-invalid")

    def changed(self) -> None:
        self.state.touched = True
        if self.state.error:
            self.state.error = None
            self.show_error()
        self.on_change()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.state.text = event.value
        self.changed()
        if isinstance(event.input, CompletingInput):
            event.input.typed()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self.state.text = event.text_area.text
        self.changed()

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        self.state.picked = None if event.value is Select.NULL else event.value
        self.changed()

    def on_selection_list_selected_changed(self, event: SelectionList.SelectedChanged[int]) -> None:
        event.stop()
        self.state.picked = list(event.selection_list.selected)
        self.changed()

    def action_to_chips(self) -> None:
        chips = list(self.query(SuggestionChip))
        if chips:
            chips[0].can_focus = True
            chips[0].focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if not isinstance(event.button, SuggestionChip):
            return
        event.stop()
        value = event.button.suggestion
        editor = self.query_one(".schema-input")
        if isinstance(editor, Input):
            editor.value = value
        elif isinstance(editor, TextArea):
            editor.text = value
        editor.focus()


class SchemaForm(Vertical):
    """The fields of an object schema, one page mounted at a time."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # alt+ twins for `rea-tui web`: a browser keeps ctrl+page up/down (tab switching) for itself.
        Binding("ctrl+pagedown,alt+pagedown", "page(1)", "Next fields", id="schema-form-next", tooltip="The next page"),
        Binding(
            "ctrl+pageup,alt+pageup",
            "page(-1)",
            "Previous fields",
            id="schema-form-previous",
            tooltip="The page before",
        ),
    ]

    def __init__(
        self,
        schema: dict[str, Any],
        given: dict[str, Any],
        suggestions: dict[str, list[str]] | None = None,
        *,
        completers: Mapping[str, FieldCompleter] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id, classes="schema-form")
        offered = suggestions or {}
        self._completers = completers or {}
        self.fields = form_fields(schema)
        self._given = given
        self._offered = offered
        self._states: dict[int, FieldState] = {}  # made as their page is shown, or when all are read
        self.page = 0
        self.edits = 0  # how many changes the analyst made (a check that raced one is not used)

    def state(self, index: int) -> FieldState:
        found = self._states.get(index)
        if found is None:
            prop = self.fields[index]
            found = self._states[index] = FieldState.create(prop, self._given, self._offered.get(prop.name, []))
        return found

    @property
    def states(self) -> list[FieldState]:
        """Every field's state (reading the schema's remaining fields the first time)."""
        return [self.state(i) for i in range(len(self.fields))]

    @property
    def pages(self) -> int:
        return max(1, -(-len(self.fields) // FIELDS_PER_PAGE))

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="schema-fields"):
            yield from self._page_fields()
            if not self.fields:
                yield Static(Text("No fields to fill.", style="dim"))
        if self.pages > 1:
            with Horizontal(classes="schema-pager"):
                previous = Button("◀ Previous", classes="schema-previous", compact=True)
                previous.tooltip = "The fields before these (ctrl+pgup)"
                yield previous
                yield Static(self._position(), classes="schema-position")
                following = Button("Next ▶", classes="schema-next", compact=True)
                following.tooltip = "The fields after these (ctrl+pgdn)"
                yield following

    def _page_fields(self) -> list[SchemaField]:
        start = self.page * FIELDS_PER_PAGE
        end = min(start + FIELDS_PER_PAGE, len(self.fields))
        return [
            SchemaField(self.state(i), self._edited, self._completers.get(self.fields[i].name), self.texts)
            for i in range(start, end)
        ]

    def texts(self) -> dict[str, str]:
        """What the text fields hold now, by name (the context of a completion request)."""
        return {state.prop.name: state.text for state in self._states.values() if state.text}

    def _position(self) -> Text:
        start = self.page * FIELDS_PER_PAGE
        end = min(start + FIELDS_PER_PAGE, len(self.fields))
        text = Text(f"fields {start + 1:,}–{end:,} of {len(self.fields):,}", style="bold")
        text.append(f"  page {self.page + 1:,}/{self.pages:,} · ctrl+pgdn next, ctrl+pgup back", style="dim")
        return text

    def _edited(self) -> None:
        self.edits += 1

    def first_editor(self) -> Widget | None:
        editors = self.query(".schema-input")
        return editors.first() if editors else None

    async def show_page(self, page: int) -> None:
        page = min(max(page, 0), self.pages - 1)
        if page == self.page and self.query(SchemaField):
            return
        self.page = page
        scroll = self.query_one(".schema-fields", VerticalScroll)
        await scroll.remove_children()
        await scroll.mount_all(self._page_fields())
        scroll.scroll_home(animate=False)
        for position in self.query(".schema-position"):
            if isinstance(position, Static):
                position.update(self._position())
        editor = self.first_editor()
        if editor is not None:
            editor.focus()

    async def action_page(self, step: int) -> None:
        await self.show_page(self.page + step)

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.has_class("schema-next"):
            event.stop()
            await self.show_page(self.page + 1)
        elif event.button.has_class("schema-previous"):
            event.stop()
            await self.show_page(self.page - 1)

    def collect(self) -> tuple[dict[str, Any], frozenset[str], list[str]]:
        """The values to send, the names whose value is the server's default, and unreadable fields."""
        values: dict[str, Any] = {}
        defaults: set[str] = set()
        unreadable: list[str] = []
        for state in self.states:
            state.error = None
            try:
                present, value = state.read()
            except UnreadableValue as exc:
                state.error = str(exc)
                unreadable.append(state.prop.name)
                continue
            if present:
                values[state.prop.name] = value
                if state.is_server_default(value):
                    defaults.add(state.prop.name)
        self._show_errors()
        return values, frozenset(defaults), unreadable

    def show_problems(self, problems: Sequence[FieldDiagnostic]) -> list[str]:
        """Put each problem under its field; return the ones that name no field."""
        by_name = {s.prop.name: s for s in self.states}
        unplaced: list[str] = []
        for problem in problems:
            state = by_name.get(problem.field.split(".")[0])
            if state is None:
                unplaced.append(
                    problem.message if problem.field == "(value)" else f"{problem.field}: {problem.message}"
                )
                continue
            state.error = problem.message if state.error is None else f"{state.error}; {problem.message}"
        self._show_errors()
        return unplaced

    def errors_elsewhere(self) -> list[str]:
        """The problems of fields on other pages than the one shown."""
        mounted = {f.key for f in self.query(SchemaField)}
        return [f"{s.prop.name}: {s.error}" for s in self.states if s.error and s.prop.name not in mounted]

    def first_error_page(self) -> int | None:
        return next((i // FIELDS_PER_PAGE for i, s in enumerate(self.states) if s.error), None)

    async def present(self, problems: Sequence[FieldDiagnostic]) -> str:
        """Show a check's problems: under their fields, on the first such field's page, focused there.

        Returns the message for the form: what names no field, what is on other pages, and which fields.
        """
        unplaced = self.show_problems(problems)
        page = self.first_error_page()
        if page is not None and page != self.page:
            await self.show_page(page)
        widget = next((f for f in self.query(SchemaField) if f.state.error), None)
        if widget is not None:
            editors = widget.query(".schema-input")
            if editors:
                editors.first().focus()
            widget.scroll_visible(animate=False)
        invalid = [s.prop.name for s in self.states if s.error]
        messages = ([f"Fix the marked field(s): {', '.join(invalid)}"] if invalid else []) + unplaced
        return "; ".join(messages + self.errors_elsewhere())

    def _show_errors(self) -> None:
        for widget in self.query(SchemaField):
            widget.show_error()
