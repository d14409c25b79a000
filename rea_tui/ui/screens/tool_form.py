"""A form generated from a tool's `inputSchema`, validated before anything is sent."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Select, Static, TextArea

from rea_tui.host import Tool, UnreadableValue, coerce, sanitize, schema_types, validate_arguments
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import join, plain, plain_line

# A schema's `type` is the server's text too: shown safe and short.
TYPE_LABEL_LIMIT = 60
FORMAT_HINTS = {
    "email": "name@example.org",
    "uri": "https://…",
    "date": "YYYY-MM-DD",
    "date-time": "YYYY-MM-DDThh:mm:ssZ",
}


@dataclass(frozen=True)
class ToolRequest:
    """What the analyst filled in: the exact arguments and the timeout for this call."""

    arguments: dict[str, Any]
    timeout: float


def is_sensitive(schema: dict[str, Any]) -> bool:
    """A value the form marks as secret: typed masked, and redacted from transcripts."""
    return schema.get("format") == "password" or schema.get("writeOnly") is True or schema.get("x-sensitive") is True


def property_kind(schema: dict[str, Any]) -> str:
    """How to edit a property: enum, boolean, integer, number, string, array or json."""
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return "enum"
    types = [t for t in schema_types(schema) if t != "null"]
    if types in (["boolean"], ["integer"], ["number"], ["string"], ["array"]):
        return types[0]
    return "json" if types else "string"


class SchemaField(Vertical):
    """One property of the input schema."""

    def __init__(self, name: str, schema: dict[str, Any], required: bool, value: Any, suggestions: list[str]) -> None:
        super().__init__(classes="schema-field")
        self.key = name
        self.schema = schema
        self.required = required
        self.kind = property_kind(schema)
        self.initial = value if value is not None else schema.get("default")
        self.suggestions = suggestions

    def compose(self) -> ComposeResult:
        label = plain_line(self.key, 80, style="bold")
        if self.required:
            label.append(" *", style="bold red")
        types = "/".join(schema_types(self.schema)) or "any"
        label.append_text(plain_line(f"  {types}", TYPE_LABEL_LIMIT, style="dim"))
        if isinstance(self.schema.get("format"), str):
            label.append_text(plain_line(f" ({self.schema['format']})", 40, style="dim"))
        yield Static(label, classes="schema-label")
        if isinstance(self.schema.get("description"), str):
            yield Static(plain(self.schema["description"], 1_000), classes="schema-description")
        yield self._editor()
        if self.suggestions and self.kind in ("string", "json", "array", "integer", "number"):
            with Horizontal(classes="suggestions"):
                yield Static(Text("from the prompt:", style="dim"), classes="suggestions-label")
                for value in self.suggestions[:5]:
                    button = Button(plain_line(value, 40), classes="suggestion", compact=True)
                    button.tooltip = "fill this field with the value"
                    yield button
        yield Static("", classes="schema-error")

    def _editor(self) -> Widget:
        initial = self.initial
        if self.kind == "enum":
            options = [(plain_line(json.dumps(v) if not isinstance(v, str) else v, 80), v) for v in self.schema["enum"]]
            select: Select[Any] = Select(options, allow_blank=not self.required, classes="schema-input")
            if initial in self.schema["enum"]:
                select.value = initial
            return select
        if self.kind == "boolean":
            return Checkbox("true", value=bool(initial), classes="schema-input")
        # A prefilled value (often the server's default) is shown, edited and sent as the analyst sees it.
        if self.kind == "json":
            text = sanitize(json.dumps(initial, indent=2), None) if initial is not None else ""
            return TextArea(text, language="json", classes="schema-input schema-json")
        if self.kind == "array" and isinstance(initial, list):
            text = sanitize(json.dumps(initial), None)
        else:
            text = "" if initial is None else sanitize(str(initial), None)
        input_type = {"integer": "integer", "number": "number"}.get(self.kind, "text")
        placeholder = FORMAT_HINTS.get(str(self.schema.get("format")), "")
        if self.kind == "array":
            placeholder = "JSON array, or a, b, c"
        return Input(
            text,
            type=input_type,  # type: ignore[arg-type]
            placeholder=placeholder,
            password=is_sensitive(self.schema),
            classes="schema-input",
        )

    def raw_value(self) -> tuple[bool, Any]:
        """(present, value) as typed; raises UnreadableValue."""
        editor = self.query_one(".schema-input")
        if isinstance(editor, Checkbox):
            return True, editor.value
        if isinstance(editor, Select):
            if editor.is_blank():
                return False, None
            return True, editor.value
        text = editor.text if isinstance(editor, TextArea) else editor.value  # type: ignore[attr-defined]
        if not str(text).strip():
            return False, None
        if self.kind == "json":
            try:
                return True, json.loads(text)
            except ValueError as exc:
                raise UnreadableValue(f"not valid JSON: {exc}") from None
        return True, coerce(str(text), self.schema)

    def set_error(self, message: str | None) -> None:
        self.query_one(".schema-error", Static).update(
            join(Text("✗ ", style="bold red"), plain(message, 500)) if message else ""
        )
        self.set_class(bool(message), "-invalid")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.has_class("suggestion"):
            event.stop()
            editor = self.query_one(".schema-input")
            value = str(event.button.label)
            if isinstance(editor, Input):
                editor.value = value
            elif isinstance(editor, TextArea):
                editor.text = json.dumps(value)


def collect_fields(fields: list[SchemaField], schema: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The typed values of `fields`, checked against `schema`.

    Each problem is shown under its field; the ones that name no field are returned.
    The values are only usable when every field is free of errors.
    """
    values: dict[str, Any] = {}
    for field in fields:
        field.set_error(None)
        try:
            present, value = field.raw_value()
        except UnreadableValue as exc:
            field.set_error(str(exc))
            continue
        if present:
            values[field.key] = value
    unplaced: list[str] = []
    for diagnostic in validate_arguments(schema, values):
        target = next((f for f in fields if f.key == diagnostic.field.split(".")[0]), None)
        if target is not None:
            target.set_error(diagnostic.message)
        else:
            unplaced.append(diagnostic.message)
    return values, unplaced


def has_errors(fields: list[SchemaField]) -> bool:
    return any(f.has_class("-invalid") for f in fields)


class ToolFormScreen(ModalScreen[ToolRequest | None]):
    """Fill in a tool's arguments; "Review" leads to the approval dialog."""

    CSS_PATH = stylesheet("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="tool-form-cancel", tooltip="Close without running anything"),
        Binding(
            "ctrl+r",
            "review",
            "Review",
            id="tool-form-review",
            tooltip="Check the arguments and ask for approval",
        ),
    ]

    def __init__(
        self,
        server: str,
        tool: Tool,
        values: dict[str, Any],
        suggestions: dict[str, list[str]],
        timeout: float,
        note: Text | None = None,
    ) -> None:
        super().__init__()
        self.server = server
        self.tool = tool
        self.values = values
        self.suggestions = suggestions
        self.timeout = timeout
        self.note = note

    def compose(self) -> ComposeResult:
        schema = self.tool.input_schema
        raw_properties = schema.get("properties")
        properties: dict[str, Any] = raw_properties if isinstance(raw_properties, dict) else {}
        required = [r for r in schema.get("required", []) if isinstance(r, str)] if schema else []
        with Vertical(id="tool-form", classes="dialog"):
            title = join(Text("Run tool  ", style="dim"), plain_line(self.tool.name, 80, style="bold"))
            title.append("  on ", style="dim")
            title.append_text(plain_line(self.server, 60))
            yield Static(title, classes="dialog-title")
            if self.tool.description:
                yield Static(plain(self.tool.description, 2_000), classes="dialog-description")
            if self.note is not None:
                yield Static(self.note, classes="dialog-note")
            with VerticalScroll(id="tool-fields"):
                for name, prop in properties.items():
                    yield SchemaField(
                        str(name),
                        prop if isinstance(prop, dict) else {},
                        name in required,
                        self.values.get(name),
                        self.suggestions.get(str(name), []),
                    )
                if not properties:
                    yield Static(Text("This tool takes no arguments.", style="dim"))
                with Horizontal(id="timeout-row"):
                    yield Static(Text("timeout (s)", style="bold"), id="timeout-label")
                    yield Input(f"{self.timeout:g}", type="number", id="tool-timeout")
            yield Static("", id="tool-form-message")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Review and approve…", id="review", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        first = self.query(".schema-input").first() if self.query(".schema-input") else None
        if first is not None:
            first.focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "review":
            event.stop()
            self.action_review()
        elif event.button.id == "cancel":
            event.stop()
            self.action_cancel()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_review()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def collect(self) -> ToolRequest | None:
        """The arguments, or None after marking what is wrong."""
        fields = list(self.query(SchemaField))
        arguments, unplaced = collect_fields(fields, self.tool.input_schema)
        message = self.query_one("#tool-form-message", Static)
        message.update(plain("; ".join(unplaced), 500, style="red") if unplaced else "")
        problems = len(unplaced) + has_errors(fields)
        try:
            timeout = float(self.query_one("#tool-timeout", Input).value or self.timeout)
        except ValueError:
            timeout = -1
        if timeout <= 0:
            self.query_one("#tool-form-message", Static).update(
                Text("The timeout must be a positive number.", style="red")
            )
            problems += 1
        if problems:
            return None
        return ToolRequest(arguments, timeout)

    def action_review(self) -> None:
        request = self.collect()
        if request is not None:
            self.dismiss(request)
