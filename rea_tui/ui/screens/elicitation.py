"""Answering a server's questions: elicitation forms, URL elicitation, and sampling requests.

Which server asks is always shown, and how many more questions wait behind
this one, with "Decline all" (alt+a) to answer every one of them with decline.
A URL dialog shows the host the browser would go to and every warning first,
then the URL in a box of bounded height, and its focus starts on Decline:
nothing is opened without the analyst choosing Open. Sampling never calls a
model: the analyst writes the reply or declines.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol, TypeVar

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
# How often the count of questions waiting behind the dialog is read again (seconds): a flood of
# requests costs a few label updates a second, not one per request.
QUEUED_REFRESH_SECONDS = 0.25

AnswerT = TypeVar("AnswerT")


class QueuedQuestions(Protocol):
    """The queue the dialog's question came through (ui.flows.dialogs.QuestionQueue)."""

    @property
    def waiting(self) -> int: ...

    def decline_all(self) -> int: ...


def asked_by(server: str, what: str) -> Text:
    return join(plain_line(server, NAME_LIMIT, style="bold"), Text(f" {what}", style="bold"))


def url_host_lines(url: str) -> Text:
    """The host the browser would go to (punycode), and every warning: shown before the URL itself."""
    view = view_url(url)
    text = Text()
    if view.host:
        text.append("host  ", style="dim")
        text.append(view.host, style="bold reverse")
    else:
        text.append("no host rea-tui can name", style="bold yellow")
    for warning in view.warnings:
        text.append("\n⚠ ", style="bold yellow")
        text.append(warning, style="yellow")
    return text


def highlighted_url(url: str) -> Text:
    """The host and warnings first (`url_host_lines`), then the URL as display-safe text (cut at a limit)."""
    text = url_host_lines(url)
    text.append("\n")
    text.append(view_url(url).text)
    return text


class QuestionDialog(ModalScreen[AnswerT]):
    """What every server question's dialog has: the count of questions queued behind it, and Decline all."""

    CSS_PATH = stylesheet("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "alt+a",
            "decline_all",
            "Decline all",
            id="decline-all",
            tooltip="Decline this question and every one queued behind it",
            priority=True,  # also from a field of the form
        ),
    ]

    def __init__(self, queue: QueuedQuestions | None) -> None:
        super().__init__()
        self.queue = queue
        self._shown_queued = -1

    def declined(self) -> AnswerT:
        raise NotImplementedError

    def compose_queued(self) -> ComposeResult:
        yield Static("", id="questions-queued", classes="questions-queued")

    def decline_all_button(self) -> Button:
        button = Button("Decline all", id="decline-all")
        button.display = False
        return button

    def on_mount(self) -> None:
        self._show_queued()
        if self.queue is not None:
            self.set_interval(QUEUED_REFRESH_SECONDS, self._show_queued)

    def _show_queued(self) -> None:
        queued = self.queue.waiting if self.queue is not None else 0
        if queued == self._shown_queued:
            return
        self._shown_queued = queued
        note = self.query_one("#questions-queued", Static)
        button = self.query_one("#decline-all", Button)
        note.display = button.display = queued > 0
        note.update(Text(f"{queued:,} more question(s) queued after this one (alt+a declines them all)", style="bold"))
        button.label = f"Decline all ({queued:,} queued)"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "decline_all":
            return self.queue is not None
        return True

    def action_decline_all(self) -> None:
        if self.queue is not None:
            self.queue.decline_all()
        self.dismiss(self.declined())


class ElicitationScreen(QuestionDialog[ElicitationAnswer]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="elicitation-cancel", tooltip="Dismiss without answering"),
    ]

    def __init__(
        self,
        request: ElicitationRequest,
        initial: dict[str, Any] | None = None,
        *,
        queue: QueuedQuestions | None = None,
    ) -> None:
        """`initial` fills the form (a replay offers the recorded answer; the analyst still accepts)."""
        super().__init__(queue)
        self.request = request
        self.initial = initial or {}
        # The answer the analyst was told is not fully checked; accepting it again sends it.
        self.warned: dict[str, Any] | None = None

    def declined(self) -> ElicitationAnswer:
        return ElicitationAnswer("decline")

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="elicitation", classes="dialog"):
            yield Static(asked_by(request.server, "asks for input"), classes="dialog-title")
            yield from self.compose_queued()
            if request.mode == "url":
                # The host and the warnings first: a long URL or message cannot push them out of sight.
                yield Static(Text("It wants you to open a page on:", style="bold"))
                yield Static(url_host_lines(request.url), id="elicitation-host")
                with VerticalScroll(id="elicitation-message-box"):
                    yield Static(plain(request.message, DOCUMENT_LIMIT), classes="dialog-description")
                with VerticalScroll(id="elicitation-url-box"):
                    yield Static(Text(view_url(request.url).text), id="elicitation-url")
                yield Static(Text("Nothing is opened unless you choose Open.", style="dim"))
                with Horizontal(classes="dialog-buttons"):
                    opener = Button("Open in browser", id="accept", variant="warning")
                    opener.disabled = not view_url(request.url).openable
                    yield opener
                    yield Button("Decline", id="decline")
                    yield Button("Cancel", id="cancel")
                    yield self.decline_all_button()
                return
            yield Static(plain(request.message, DOCUMENT_LIMIT), classes="dialog-description")
            # The form's defaults are filled in, so accepting sends them (SEP-1034).
            yield SchemaForm(request.requested_schema, self.initial, id="elicitation-fields")
            yield Static("", id="elicitation-message")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Accept", id="accept", variant="primary")
                yield Button("Decline", id="decline")
                yield Button("Cancel", id="cancel")
                yield self.decline_all_button()

    def on_mount(self) -> None:
        super().on_mount()
        if self.request.mode == "url":
            # The safe choice has the focus: one Enter declines, it never opens the server's URL.
            self.query_one("#decline", Button).focus()
            return
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
        if event.button.id not in ("accept", "decline", "cancel", "decline-all"):
            return  # the form's own buttons (pages, suggestions)
        event.stop()
        if event.button.id == "decline-all":
            self.action_decline_all()
        elif event.button.id == "accept":
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


class SamplingScreen(QuestionDialog[SamplingAnswer]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "decline", "Decline", id="sampling-decline", tooltip="Decline; no model is called"),
    ]

    def __init__(self, request: SamplingRequest, *, queue: QueuedQuestions | None = None) -> None:
        super().__init__(queue)
        self.request = request

    def declined(self) -> SamplingAnswer:
        return SamplingAnswer(None)

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="sampling", classes="dialog"):
            yield Static(asked_by(request.server, "asks for a model reply (sampling)"), classes="dialog-title")
            yield from self.compose_queued()
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
                yield self.decline_all_button()

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#sampling-reply", TextArea).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "decline-all":
            self.action_decline_all()
        elif event.button.id == "send":
            self.dismiss(SamplingAnswer(self.query_one("#sampling-reply", TextArea).text))
        else:
            self.dismiss(SamplingAnswer(None))

    def action_decline(self) -> None:
        self.dismiss(SamplingAnswer(None))
