"""The approval dialog: nothing is sent to a server until the analyst says so here."""

from __future__ import annotations

import json
from typing import Any, ClassVar, Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from rea_tui.host import Tool
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import join, plain, plain_line

Decision = Literal["once", "session", "deny"]

HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def annotations_text(tool: Tool | None) -> Text:
    if tool is None:
        return Text("The server did not list this tool; nothing is declared about it.", style="yellow")
    text = Text("Declared by the server (not verified):\n", style="bold")
    annotations = tool.annotations
    shown = False
    for hint in HINTS:
        if hint in annotations:
            shown = True
            value = annotations[hint]
            style = "red" if hint == "destructiveHint" and value is True else ""
            text.append(f"  {hint}: ", style="dim")
            text.append_text(plain_line(json.dumps(value), 40, style=style))
            text.append("\n")
    if not shown:
        text.append("  no hints (the spec then assumes a tool may change things)\n", style="yellow")
    return text


class ApprovalScreen(ModalScreen[Decision]):
    """Server, tool, the exact JSON arguments, the declared annotations; run once, allow, or deny."""

    CSS_PATH = stylesheet("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "deny", "Deny", id="approval-deny", tooltip="Send nothing"),
    ]

    def __init__(self, server: str, tool_name: str, tool: Tool | None, arguments: dict[str, Any]) -> None:
        super().__init__()
        self.server = server
        self.tool_name = tool_name
        self.tool = tool
        self.arguments = arguments

    def compose(self) -> ComposeResult:
        with Vertical(id="approval", classes="dialog"):
            yield Static(Text("Approve this tool call?", style="bold"), classes="dialog-title")
            who = join(Text("server  ", style="dim"), plain_line(self.server, 80, style="bold"))
            who.append("\ntool    ", style="dim")
            who.append_text(plain_line(self.tool_name, 80, style="bold"))
            yield Static(who, id="approval-who")
            yield Static(Text("exact arguments (JSON):", style="bold"))
            with VerticalScroll(id="approval-arguments"):
                yield Static(plain(json.dumps(self.arguments, indent=2, ensure_ascii=False), 50_000))
            yield Static(annotations_text(self.tool), id="approval-annotations")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Run once", id="run-once", variant="primary")
                if self.tool is not None and self.tool.read_only:
                    allow = Button("Allow this tool for the session", id="allow-session")
                    allow.tooltip = "Offered because the server declares the tool read-only (declared, not verified)"
                    yield allow
                yield Button("Deny", id="deny", variant="error")

    def on_mount(self) -> None:
        self.query_one("#deny", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        decision: Decision = {"run-once": "once", "allow-session": "session"}.get(event.button.id or "", "deny")  # type: ignore[assignment]
        self.dismiss(decision)

    def action_deny(self) -> None:
        self.dismiss("deny")
