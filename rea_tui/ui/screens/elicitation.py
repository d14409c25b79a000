"""Answering a server's questions: elicitation forms, URL elicitation, and sampling requests.

Which server asks is always shown. A URL is shown in full with its domain
highlighted, and nothing is opened without the analyst's consent. Sampling
never calls a model: the analyst writes the reply or declines.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static, TextArea

from rea_tui.host import ElicitationAnswer, ElicitationRequest, SamplingAnswer, SamplingRequest, view_url
from rea_tui.ui.screens.tool_form import SchemaField, collect_fields, has_errors
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import join, plain, plain_line


def asked_by(server: str, what: str) -> Text:
    return join(plain_line(server, 80, style="bold"), Text(f" {what}", style="bold"))


def highlighted_url(url: str) -> Text:
    """The whole URL; then the host as the browser will resolve it (punycode), and every warning."""
    view = view_url(url)
    text = Text(view.text)
    if view.host:
        text.append("\nhost  ", style="dim")
        text.append(view.host, style="bold reverse")
    for warning in view.warnings:
        text.append("\n⚠ ", style="bold yellow")
        text.append(warning, style="yellow")
    return text


class ElicitationScreen(ModalScreen[ElicitationAnswer]):
    CSS_PATH = stylesheet("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="elicitation-cancel", tooltip="Dismiss without answering"),
    ]

    def __init__(self, request: ElicitationRequest, initial: dict[str, Any] | None = None) -> None:
        """`initial` fills the form (a replay offers the recorded answer; the analyst still accepts)."""
        super().__init__()
        self.request = request
        self.initial = initial or {}

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="elicitation", classes="dialog"):
            yield Static(asked_by(request.server, "asks for input"), classes="dialog-title")
            yield Static(plain(request.message, 4_000), classes="dialog-description")
            if request.mode == "url":
                yield Static(Text("It wants you to open this address:", style="bold"))
                yield Static(highlighted_url(request.url), id="elicitation-url")
                yield Static(Text("Nothing is opened unless you choose Open.", style="dim"))
                with Horizontal(classes="dialog-buttons"):
                    opener = Button("Open in browser", id="accept", variant="warning")
                    opener.disabled = not view_url(request.url).openable
                    yield opener
                    yield Button("Decline", id="decline")
                    yield Button("Cancel", id="cancel")
                return
            schema = request.requested_schema
            raw_properties = schema.get("properties")
            properties: dict[str, Any] = raw_properties if isinstance(raw_properties, dict) else {}
            required = [r for r in schema.get("required", []) if isinstance(r, str)]
            with VerticalScroll(id="elicitation-fields"):
                for name, prop in properties.items():
                    yield SchemaField(
                        str(name), prop if isinstance(prop, dict) else {}, name in required, self.initial.get(name), []
                    )
            yield Static("", id="elicitation-message")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Accept", id="accept", variant="primary")
                yield Button("Decline", id="decline")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        editors = self.query(".schema-input")
        if editors:
            editors.first().focus()

    def _collect(self) -> dict[str, Any] | None:
        fields = list(self.query(SchemaField))
        content, unplaced = collect_fields(fields, self.request.requested_schema)
        self.query_one("#elicitation-message", Static).update(
            plain("; ".join(unplaced), 500, style="red") if unplaced else ""
        )
        return None if unplaced or has_errors(fields) else content

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "accept":
            if self.request.mode == "url":
                if not view_url(self.request.url).openable:
                    return  # only http(s) URLs are ever opened
                self.app.open_url(self.request.url)
                self.dismiss(ElicitationAnswer("accept"))
                return
            content = self._collect()
            if content is not None:
                self.dismiss(ElicitationAnswer("accept", content))
        elif event.button.id == "decline":
            self.dismiss(ElicitationAnswer("decline"))
        else:
            self.dismiss(ElicitationAnswer("cancel"))

    def action_cancel(self) -> None:
        self.dismiss(ElicitationAnswer("cancel"))


class SamplingScreen(ModalScreen[SamplingAnswer]):
    CSS_PATH = stylesheet("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "decline", "Decline", id="sampling-decline", tooltip="Decline; no model is called"),
    ]

    def __init__(self, request: SamplingRequest) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="sampling", classes="dialog"):
            yield Static(asked_by(request.server, "asks for a model reply (sampling)"), classes="dialog-title")
            yield Static(
                Text("rea-tui calls no model: write the reply yourself, or decline.", style="dim"),
                classes="dialog-description",
            )
            with VerticalScroll(id="sampling-messages"):
                if request.system_prompt:
                    yield Static(join(Text("system: ", style="bold"), plain(request.system_prompt, 4_000)))
                for message in request.messages:
                    yield Static(
                        join(plain_line(message.role, 20, style="bold"), Text(": "), plain(message.text, 8_000))
                    )
            yield TextArea("", id="sampling-reply")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Send reply", id="send", variant="primary")
                yield Button("Decline", id="decline")

    def on_mount(self) -> None:
        self.query_one("#sampling-reply", TextArea).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "send":
            self.dismiss(SamplingAnswer(self.query_one("#sampling-reply", TextArea).text))
        else:
            self.dismiss(SamplingAnswer(None))

    def action_decline(self) -> None:
        self.dismiss(SamplingAnswer(None))
