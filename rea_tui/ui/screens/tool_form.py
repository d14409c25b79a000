"""A form generated from a tool's `inputSchema`, checked against it before anything is sent.

The check runs off the event loop (`check_against_schema`); a schema that
cannot be used (it loops, is too large, has a pattern that never finishes)
is a message in the form and nothing goes on to the approval dialog. Parts
of the schema rea-tui does not check (a `$ref` it does not fetch) go on to
the approval dialog as a warning, with the values that are the server's own
defaults.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from rea_tui.host import Tool, check_against_schema
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import join, plain, plain_line
from rea_tui.ui.widgets.completing_input import FieldCompleter
from rea_tui.ui.widgets.schema_form import SchemaForm

TITLE_LIMIT = 80
SERVER_LIMIT = 60
DESCRIPTION_LIMIT = 2_000
MESSAGE_LIMIT = 1_000
CHECK_GROUP = "tool-form-check"


@dataclass(frozen=True)
class ToolRequest:
    """What the analyst filled in: the exact arguments and the timeout for this call."""

    arguments: dict[str, Any]
    timeout: float
    # Arguments whose value is the server's default, not something the analyst or the prompt gave.
    defaults: frozenset[str] = frozenset()
    # Parts of the schema that were not checked (a $ref rea-tui does not fetch), for the approval dialog.
    unchecked: tuple[str, ...] = ()


class ToolFormScreen(ModalScreen[ToolRequest | None]):
    """Fill in a tool's arguments; "Review" checks them and leads to the approval dialog."""

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
        *,
        review_at_once: bool = False,
        completers: Mapping[str, FieldCompleter] | None = None,
    ) -> None:
        super().__init__()
        self.completers = completers
        # Filled from a row's action: checked and on to the approval at once; the form stays when it fails.
        self.review_at_once = review_at_once
        self.server = server
        self.tool = tool
        self.values = values
        self.suggestions = suggestions
        self.timeout = timeout
        self.note = note

    @property
    def form(self) -> SchemaForm:
        return self.query_one("#tool-fields", SchemaForm)

    def compose(self) -> ComposeResult:
        with Vertical(id="tool-form", classes="dialog"):
            title = join(Text("Run tool  ", style="dim"), plain_line(self.tool.name, TITLE_LIMIT, style="bold"))
            title.append("  on ", style="dim")
            title.append_text(plain_line(self.server, SERVER_LIMIT))
            yield Static(title, classes="dialog-title")
            if self.tool.description:
                yield Static(plain(self.tool.description, DESCRIPTION_LIMIT), classes="dialog-description")
            if self.note is not None:
                yield Static(self.note, classes="dialog-note")
            yield SchemaForm(
                self.tool.input_schema, self.values, self.suggestions, completers=self.completers, id="tool-fields"
            )
            with Horizontal(id="timeout-row"):
                yield Static(Text("timeout (s)", style="bold"), id="timeout-label")
                yield Input(f"{self.timeout:g}", type="number", id="tool-timeout")
            yield Static("", id="tool-form-message")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Review and approve…", id="review", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        editor = self.form.first_editor()
        if editor is not None:
            editor.focus()
        if self.review_at_once:
            self.call_after_refresh(self.action_review)

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

    def say(self, message: Text | str) -> None:
        self.query_one("#tool-form-message", Static).update(message)

    def _timeout(self) -> float | None:
        try:
            timeout = float(self.query_one("#tool-timeout", Input).value or self.timeout)
        except ValueError:
            return None
        return timeout if timeout > 0 else None

    def action_review(self) -> None:
        self.run_worker(self._review(), group=CHECK_GROUP, exclusive=True, exit_on_error=False)

    async def _review(self) -> None:
        """Read the fields, check them against the schema off the event loop, then go on to approval."""
        form = self.form
        arguments, defaults, unreadable = form.collect()
        if unreadable:
            self.say(plain(await form.present(()), MESSAGE_LIMIT, style="red"))
            return
        timeout = self._timeout()
        if timeout is None:
            self.say(Text("The timeout must be a positive number.", style="red"))
            return
        self.say(Text("checking the arguments against the tool's inputSchema…", style="dim"))
        edits = form.edits
        verdict = await check_against_schema(self.tool.input_schema, arguments)
        if not self.is_attached or form.edits != edits:
            return  # closed, or edited while the check ran: the next Review checks what is there now
        if verdict.refusal is not None:
            self.say(join(Text("Not sent: ", style="bold red"), plain(verdict.refusal, MESSAGE_LIMIT, style="red")))
            return
        if verdict.problems:
            self.say(plain(await form.present(verdict.problems), MESSAGE_LIMIT, style="red"))
            return
        self.dismiss(ToolRequest(arguments, timeout, defaults, verdict.unchecked))
