"""The centre column: a form for the selected prompt's arguments (or a template's variables).

Each field has its own completion dropdown. The form never talks to a server
itself: it posts what the analyst did (typed, focused, accepted, asked to
render) and the app asks the host.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.geometry import Size
from textual.message import Message
from textual.reactive import Reactive
from textual.widgets import Button, Input, Static
from textual.widgets.input import Selection

from rea_tui.host import sanitize_line
from rea_tui.ui.text import LINE_LIMIT, MESSAGE_LIMIT, PARAGRAPH_LIMIT, join, plain, plain_line
from rea_tui.ui.widgets.dropdown import CompletionDropdown

if TYPE_CHECKING:
    from rea_tui.host import FormTarget

# Keys the dropdown takes while it is open, mapped to OptionList actions.
_DROPDOWN_KEYS = {
    "up": "cursor_up",
    "down": "cursor_down",
    "pageup": "page_up",
    "pagedown": "page_down",
    "home": "first",
    "end": "last",
}


@dataclass(frozen=True)
class FieldSpec:
    """One argument (or template variable) as the form shows it."""

    name: str
    title: str
    description: str
    required: bool


class ArgumentInput(Input):
    """An Input whose navigation keys drive the dropdown while it is open.

    Enter fills the field with the highlighted suggestion; tab does only once
    the analyst has typed in the field or moved the highlight since focusing
    it (tabbing through a form fills nothing), and goes on to the next field
    as tab always does. The highlighted suggestion's remainder shows dimmed
    after the cursor; right arrow at the end takes it. After a fill, tab only
    moves on (the field counts as not typed in again).
    """

    # Input sets its virtual size to the text's width on every keystroke, and Widget declares that
    # reactive with layout=True: a reflow and full repaint of the screen per key, before the completion
    # request could go out. The field's own size never depends on it (width 100%, height 3), so a
    # repaint is enough (Input scrolls to its cursor itself, against the new virtual size).
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    class Accepted(Message):
        def __init__(self, field: ArgumentField, value: str) -> None:
            super().__init__()
            self.field = field
            self.value = value

    def __init__(self, field: ArgumentField, value: str, *, id: str) -> None:
        # Set first: Input's constructor assigns the value, which runs watch_value.
        self.field = field
        self._accepting = False
        # Typed in, or moved the highlight, since the field was focused: only then does tab fill it.
        self.engaged = False
        # Text went in before the focus arrived (type_ahead): the focus must not select it.
        self._typed_ahead = False
        super().__init__(value=value, id=id, classes="argument-input")

    @contextmanager
    def accepting(self) -> Iterator[None]:
        """Set the value from an accepted suggestion without treating it as typing."""
        self._accepting = True
        try:
            yield
        finally:
            self._accepting = False

    def watch_value(self, value: str) -> None:
        form = self.field.form
        if not self._accepting and form is not None and form.on_edit is not None and self.is_mounted:
            self.engaged = self.has_focus
            form.on_edit(self.field)

    def type_ahead(self, text: str) -> None:
        """Text typed while the field's form opened: in at once, and, when the focus (asked for, still on
        its way) arrives, left unselected and counted as typing. Input's focus selects what the field
        holds, and the next key replaced the typed text."""
        self.insert_text_at_cursor(text)
        self._typed_ahead = not self.has_focus

    def on_focus(self) -> None:
        self.engaged = self._typed_ahead
        if self._typed_ahead:
            self._typed_ahead = False
            # Input's own focus handler runs after this one, and selects everything: undone after it.
            self.call_later(self._cursor_to_end)

    def _cursor_to_end(self) -> None:
        self.selection = Selection.cursor(len(self.value))

    def show_ghost(self, suggestion: str | None) -> None:
        """Dim the rest of `suggestion` after the cursor, when it continues what is typed (any letter case)."""
        # Input draws its suggester's text this way; here the dropdown's highlight is the suggestion.
        typed = self.value
        fits = (
            suggestion is not None
            and len(suggestion) > len(typed)
            and suggestion.casefold().startswith(typed.casefold())
        )
        ghost = sanitize_line(suggestion, None) if fits else ""
        if self._suggestion != ghost:
            self._suggestion = ghost

    def action_cursor_right(self, select: bool = False) -> None:
        # At the end of what is typed, right arrow takes the highlighted suggestion, as a choice.
        value = self.field.dropdown.highlighted_value()
        if not select and self.cursor_at_end and self._suggestion and value is not None:
            self.post_message(self.Accepted(self.field, value))
            return
        super().action_cursor_right(select)

    async def _on_key(self, event: events.Key) -> None:
        dropdown = self.field.dropdown
        if dropdown.is_open:
            if event.key in _DROPDOWN_KEYS:
                event.stop()
                event.prevent_default()
                self.engaged = True
                dropdown.move(_DROPDOWN_KEYS[event.key])
                self.show_ghost(dropdown.highlighted_value())
                return
            value = dropdown.highlighted_value()
            if value is not None and event.key == "enter":
                event.stop()
                event.prevent_default()
                self.post_message(self.Accepted(self.field, value))
                return
            if value is not None and event.key == "tab" and self.engaged:
                # Filled, and tab goes on up to the focus binding: the next key lands in the next field.
                self.post_message(self.Accepted(self.field, value))
            if event.key == "escape":
                event.stop()
                event.prevent_default()
                dropdown.close()
                self.show_ghost(None)
                return
        await super()._on_key(event)


class ArgumentField(Vertical):
    """Title, description, input, inline diagnostics and the dropdown for one argument."""

    def __init__(self, spec: FieldSpec, value: str, index: int) -> None:
        super().__init__(classes="argument-field", id=f"field-{index}")
        self.spec = spec
        self.initial = value
        self.index = index
        # Kept, not queried: every keystroke reads them several times.
        self.input = ArgumentInput(self, value, id=f"input-{index}")
        self.dropdown = CompletionDropdown(id=f"dropdown-{index}")

    @property
    def form(self) -> ArgumentForm | None:
        return next((a for a in self.ancestors if isinstance(a, ArgumentForm)), None)

    def compose(self) -> ComposeResult:
        mark = Text(" *", style="bold red") if self.spec.required else Text("")
        title = join(plain_line(self.spec.title, LINE_LIMIT, style="bold"), mark)
        if self.spec.title != self.spec.name:
            title.append(Text(f"  ({self.spec.name})", style="dim"))
        yield Static(title, classes="field-title")
        if self.spec.description:
            yield Static(plain(self.spec.description, PARAGRAPH_LIMIT), classes="field-description")
        # Above the input: the dropdown opens below it and must never cover the server's message.
        yield Static("", classes="field-error")
        yield self.input
        # Right under the input: the dropdown is an overlay, so it covers what follows.
        yield self.dropdown

    @property
    def value(self) -> str:
        return self.input.value

    def set_error(self, message: str | None) -> None:
        if not message and not self.has_class("-invalid"):
            return  # nothing shown: clearing it again would cost a layout pass on every keystroke
        error = self.query_one(".field-error", Static)
        if message:
            error.update(join(Text("✗ ", style="bold red"), plain(message, MESSAGE_LIMIT)))
            self.add_class("-invalid")
        else:
            error.update("")
            self.remove_class("-invalid")


class ArgumentForm(VerticalScroll):
    """The fields of one prompt or template, plus the render button."""

    can_focus = False

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.target: FormTarget | None = None
        # Called whenever a field's value changes (typed, pasted or set).
        self.on_edit: Callable[[ArgumentField], None] | None = None
        self._fields_box = Vertical(id="form-fields")

    def compose(self) -> ComposeResult:
        yield Static(Text("Select a prompt on the left.", style="dim"), id="form-heading")
        yield Static("", id="form-description")
        yield self._fields_box
        yield Static("", id="form-message")
        with Horizontal(id="form-actions"):
            render = Button("Render  ctrl+r", id="render-button", variant="primary", disabled=True)
            render.display = False
            yield render
        yield Static("", id="form-room")

    @property
    def fields(self) -> list[ArgumentField]:
        # Its children, not a query of the whole form: every keystroke reads the fields.
        return [child for child in self._fields_box.children if isinstance(child, ArgumentField)]

    def field(self, name: str) -> ArgumentField | None:
        return next((f for f in self.fields if f.spec.name == name), None)

    def values(self) -> dict[str, str]:
        return {f.spec.name: f.value for f in self.fields}

    async def show(
        self,
        target: FormTarget,
        heading: Text,
        description: str,
        specs: Sequence[FieldSpec],
        values: dict[str, str],
        action_label: str,
    ) -> None:
        """Replace the form's fields; `values` restores what the analyst typed before."""
        self.target = target
        self.set_heading(heading, description)
        self.set_message(None)
        container = self.query_one("#form-fields", Vertical)
        await container.remove_children()
        await container.mount_all(
            [ArgumentField(spec, values.get(spec.name, ""), index) for index, spec in enumerate(specs)]
        )
        self.scroll_home(animate=False, immediate=True)
        button = self.query_one("#render-button", Button)
        button.label = action_label
        button.disabled = False
        button.display = True

    async def clear(self, heading: Text, message: Text | None = None) -> None:
        self.target = None
        self.set_heading(heading, "")
        await self.query_one("#form-fields", Vertical).remove_children()
        self.set_message(message)
        button = self.query_one("#render-button", Button)
        button.disabled = True
        button.display = False

    def set_heading(self, heading: Text, description: str) -> None:
        """The form's heading and the server's description of what it fills (kept when the fields are)."""
        self.query_one("#form-heading", Static).update(heading)
        self.query_one("#form-description", Static).update(plain(description, PARAGRAPH_LIMIT) if description else "")

    def set_message(self, message: Text | None) -> None:
        self.query_one("#form-message", Static).update(message or "")

    def make_room_for(self, field: ArgumentField) -> None:
        """Scroll so the field's dropdown fits below it (else the screen edge pushes it over the field)."""
        # Measured in the form's own space, not on the screen: screen regions follow a scroll only at the
        # next refresh, and a page shown before it (under load, one right after another) scrolled again.
        input_bottom = field.input.virtual_region.bottom + field.virtual_region.y + self._fields_box.virtual_region.y
        # Inside the pane's border: the dropdown never covers it.
        overflow = input_bottom + field.dropdown.height - (self.scroll_y + self.scrollable_content_region.height)
        if overflow > 0:
            self.scroll_relative(y=overflow, animate=False, immediate=True)

    def first_empty_field(self) -> ArgumentInput | None:
        """Where the cursor goes when the form opens: the first empty field (else the first)."""
        fields = self.fields
        if not fields:
            return None
        return next((f for f in fields if not f.value.strip()), fields[0]).input

    def missing_required(self) -> list[ArgumentField]:
        return [f for f in self.fields if f.spec.required and not f.value.strip()]
