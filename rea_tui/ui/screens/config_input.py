"""The dialog that asks for a config's `${input:NAME}` value (VS Code's `inputs`) before a server starts.

The value is never shown again or recorded (it is redacted from the traffic
log like a header value); a password input is typed hidden. Cancel leaves
the server unstarted.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Select, Static

from rea_tui.host import InputSpec
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import join, plain, plain_line

NAME_LIMIT = 80
DESCRIPTION_LIMIT = 1_000


class ConfigInputScreen(ModalScreen[str | None]):
    CSS_PATH = stylesheet("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="config-input-cancel", tooltip="Do not start this server"),
    ]

    def __init__(self, spec: InputSpec, server: str) -> None:
        super().__init__()
        self.spec = spec
        self.server = server

    def compose(self) -> ComposeResult:
        spec = self.spec
        with Vertical(id="config-input", classes="dialog"):
            title = join(plain_line(self.server, NAME_LIMIT, style="bold"), Text(" needs a value for ", style="bold"))
            title.append_text(plain_line(f"${{input:{spec.id}}}", NAME_LIMIT, style="bold cyan"))
            yield Static(title, classes="dialog-title")
            if spec.description:
                yield Static(plain(spec.description, DESCRIPTION_LIMIT), classes="dialog-description")
            if spec.options:
                options = [(plain_line(o, NAME_LIMIT), o) for o in spec.options]
                initial = spec.default if spec.default in spec.options else spec.options[0]
                yield Select(options, value=initial, allow_blank=False, id="config-input-choice")
            else:
                yield Input(
                    value="" if spec.password else spec.default or "",
                    password=spec.password,
                    placeholder="hidden as you type" if spec.password else "",
                    id="config-input-value",
                )
            note = "It is kept for this session only and never recorded."
            yield Static(Text(note, style="dim"))
            with Horizontal(classes="dialog-buttons"):
                yield Button("Use it", id="config-input-ok", variant="primary")
                yield Button("Cancel", id="config-input-cancel-button")

    def on_mount(self) -> None:
        self.query_one("#config-input-choice" if self.spec.options else "#config-input-value").focus()

    def _value(self) -> str:
        if self.spec.options:
            choice = self.query_one("#config-input-choice", Select).value
            return choice if isinstance(choice, str) else ""
        value = self.query_one("#config-input-value", Input).value
        return value or (self.spec.default or "" if self.spec.password else value)

    @on(Input.Submitted, "#config-input-value")
    def _submitted(self) -> None:
        self.dismiss(self._value())

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(self._value() if event.button.id == "config-input-ok" else None)

    def action_cancel(self) -> None:
        self.dismiss(None)
