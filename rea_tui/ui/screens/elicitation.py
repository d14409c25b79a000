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
from textual.widgets import Button, Input, Static, TextArea

from rea_tui.host import (
    ElicitationAnswer,
    ElicitationRequest,
    SamplingAnswer,
    SamplingRequest,
    check_against_schema,
    view_url,
)
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import DOCUMENT_LIMIT, NAME_LIMIT, WORD_LIMIT, join, plain, plain_line
from rea_tui.ui.widgets.schema_form import SchemaForm

MESSAGE_LIMIT = 1_000
CHECK_GROUP = "elicitation-check"


def asked_by(server: str, what: str) -> Text:
    return join(plain_line(server, NAME_LIMIT, style="bold"), Text(f" {what}", style="bold"))


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
        # The answer the analyst was told is not fully checked; accepting it again sends it.
        self.warned: dict[str, Any] | None = None

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="elicitation", classes="dialog"):
            yield Static(asked_by(request.server, "asks for input"), classes="dialog-title")
            yield Static(plain(request.message, DOCUMENT_LIMIT), classes="dialog-description")
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
            # The form's defaults are filled in, so accepting sends them (SEP-1034).
            yield SchemaForm(request.requested_schema, self.initial, id="elicitation-fields")
            yield Static("", id="elicitation-message")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Accept", id="accept", variant="primary")
                yield Button("Decline", id="decline")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        editors = self.query(".schema-input")
        if editors:
            editors.first().focus()

    def say(self, message: Text | str) -> None:
        self.query_one("#elicitation-message", Static).update(message)

    def accept_form(self) -> None:
        """Check the answer off the event loop; send it when it passes (Enter in a field does this too)."""
        self.run_worker(self._accept(), group=CHECK_GROUP, exclusive=True, exit_on_error=False)

    async def _accept(self) -> None:
        form = self.query_one("#elicitation-fields", SchemaForm)
        content, _defaults, unreadable = form.collect()
        if unreadable:
            self.say(plain(await form.present(()), MESSAGE_LIMIT, style="red"))
            return
        if self.warned is not None and self.warned == content:
            self.dismiss(ElicitationAnswer("accept", content))
            return
        self.say(Text("checking the answer against the form's schema…", style="dim"))
        edits = form.edits
        verdict = await check_against_schema(self.request.requested_schema, content)
        if not self.is_attached or form.edits != edits:
            return
        if verdict.refusal is not None:
            self.say(
                join(Text("Cannot be answered: ", style="bold red"), plain(verdict.refusal, MESSAGE_LIMIT, style="red"))
            )
            return
        if verdict.problems:
            self.say(plain(await form.present(verdict.problems), MESSAGE_LIMIT, style="red"))
            return
        if verdict.unchecked:
            self.warned = content
            self.query_one("#accept", Button).label = "Accept anyway"
            self.say(
                join(
                    Text("Not checked: ", style="bold yellow"),
                    plain("; ".join(verdict.unchecked), MESSAGE_LIMIT, style="yellow"),
                    Text("  Accept again to send it as it is.", style="dim"),
                )
            )
            return
        self.dismiss(ElicitationAnswer("accept", content))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.request.mode == "form":
            self.accept_form()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id not in ("accept", "decline", "cancel"):
            return  # the form's own buttons (pages, suggestions)
        event.stop()
        if event.button.id == "accept":
            if self.request.mode == "url":
                if not view_url(self.request.url).openable:
                    return  # only http(s) URLs are ever opened
                self.app.open_url(self.request.url)
                self.dismiss(ElicitationAnswer("accept"))
                return
            self.accept_form()
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
                    yield Static(join(Text("system: ", style="bold"), plain(request.system_prompt, DOCUMENT_LIMIT)))
                for message in request.messages:
                    yield Static(
                        join(
                            plain_line(message.role, WORD_LIMIT, style="bold"),
                            Text(": "),
                            plain(message.text, DOCUMENT_LIMIT),
                        )
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
