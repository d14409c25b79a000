"""The approval dialog: nothing is sent to a server until the analyst says so here.

It shows all of what would be sent, never cut: the exact JSON arguments in a
scroll view with their size, each value that is the server's own default
(not typed by the analyst or given by the prompt) marked, the parts of the
schema that were not checked, and the annotations the server declares.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, ClassVar, Literal

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from rea_tui.host import Tool
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import WORD_LIMIT, join, plain, plain_line

Decision = Literal["once", "session", "deny"]

HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
DEFAULT_MARK = "◆"
DEFAULT_STYLE = "yellow"
NAME_LIMIT = 80
NOTE_LIMIT = 2_000


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
            text.append_text(plain_line(json.dumps(value), WORD_LIMIT, style=style))
            text.append("\n")
    if not shown:
        text.append("  no hints (the spec then assumes a tool may change things)\n", style="yellow")
    return text


def size_text(arguments: dict[str, Any]) -> Text:
    """How much is sent: values, characters and UTF-8 bytes of the compact JSON."""
    compact = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
    text = Text("exact arguments (JSON)", style="bold")
    values = len(arguments)
    text.append(
        f"  {values:,} value{'s' if values != 1 else ''} · {len(compact):,} characters · "
        f"{len(compact.encode('utf-8')):,} bytes sent",
        style="dim",
    )
    return text


def entries(arguments: dict[str, Any]) -> Iterable[tuple[str | None, str]]:
    """`json.dumps(arguments, indent=2)` cut into its lines' groups: one per top-level argument."""
    if not arguments:
        yield None, "{}"
        return
    yield None, "{"
    last = len(arguments) - 1
    for index, (name, value) in enumerate(arguments.items()):
        body = json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  ")
        yield name, f"  {json.dumps(name, ensure_ascii=False)}: {body}{',' if index < last else ''}"
    yield None, "}"


def arguments_view(arguments: dict[str, Any], defaults: frozenset[str]) -> Table:
    """The exact JSON, whole; the entries that are server defaults marked in a gutter and coloured."""
    grid = Table.grid(padding=(0, 1, 0, 0))
    grid.add_column(width=1, no_wrap=True)
    grid.add_column(overflow="fold")
    for name, text in entries(arguments):
        marked = name is not None and name in defaults
        grid.add_row(
            Text(DEFAULT_MARK, style=DEFAULT_STYLE) if marked else Text(" "),
            plain(text, None, style=DEFAULT_STYLE if marked else ""),
        )
    return grid


def defaults_text(arguments: dict[str, Any], defaults: frozenset[str]) -> Text:
    names = [name for name in arguments if name in defaults]
    text = Text(f"{DEFAULT_MARK} default from the server", style=f"bold {DEFAULT_STYLE}")
    text.append(" (you did not type these; they are sent): ", style=DEFAULT_STYLE)
    text.append_text(plain(", ".join(names), NOTE_LIMIT, style=DEFAULT_STYLE))
    return text


def key_label(label: str, key: str) -> Text:
    """A button's label with the one-letter key that presses it: `Run once  o`."""
    return Text(f"{label}  ").append(key, style="bold underline")


class ApprovalScreen(ModalScreen[Decision]):
    """Server, tool, the exact JSON arguments, the declared annotations; run once, allow, or deny.

    It opens on the safe choice (Deny), so Enter sends nothing; each choice has a one-letter key.
    """

    CSS_PATH = stylesheet("dialogs.tcss")
    AUTO_FOCUS = "#deny"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "decide('deny')", "Deny", id="approval-escape", tooltip="Send nothing"),
        Binding("d", "decide('deny')", "Deny", show=False, id="approval-deny", tooltip="Send nothing"),
        Binding("o", "decide('once')", "Run once", show=False, id="approval-once", tooltip="Send this call once"),
        Binding(
            "a",
            "decide('session')",
            "Allow for the session",
            show=False,
            id="approval-session",
            tooltip="Run this tool without asking again this session (read-only tools only)",
        ),
    ]

    def __init__(
        self,
        server: str,
        tool_name: str,
        tool: Tool | None,
        arguments: dict[str, Any],
        *,
        defaults: frozenset[str] = frozenset(),
        unchecked: tuple[str, ...] = (),
    ) -> None:
        super().__init__()
        self.server = server
        self.tool_name = tool_name
        self.tool = tool
        self.arguments = arguments
        self.defaults = frozenset(name for name in defaults if name in arguments)
        self.unchecked = unchecked

    def compose(self) -> ComposeResult:
        with Vertical(id="approval", classes="dialog"):
            yield Static(Text("Approve this tool call?", style="bold"), classes="dialog-title")
            who = join(Text("server  ", style="dim"), plain_line(self.server, NAME_LIMIT, style="bold"))
            who.append("\ntool    ", style="dim")
            who.append_text(plain_line(self.tool_name, NAME_LIMIT, style="bold"))
            yield Static(who, id="approval-who")
            yield Static(size_text(self.arguments), id="approval-size")
            with VerticalScroll(id="approval-arguments"):
                yield Static(arguments_view(self.arguments, self.defaults), id="approval-json")
            if self.defaults:
                yield Static(defaults_text(self.arguments, self.defaults), id="approval-defaults")
            if self.unchecked:
                warning = Text("Not checked against the schema: ", style="bold yellow")
                warning.append_text(plain("; ".join(self.unchecked), NOTE_LIMIT, style="yellow"))
                yield Static(warning, id="approval-unchecked")
            yield Static(annotations_text(self.tool), id="approval-annotations")
            with Horizontal(classes="dialog-buttons"):
                yield Button(key_label("Run once", "o"), id="run-once", variant="primary")
                if self.allows_session:
                    allow = Button(key_label("Allow this tool for the session", "a"), id="allow-session")
                    allow.tooltip = "Offered because the server declares the tool read-only (declared, not verified)"
                    yield allow
                yield Button(key_label("Deny", "d"), id="deny", variant="error")

    @property
    def allows_session(self) -> bool:
        """ "Allow for the session" is offered for a tool the server declares read-only."""
        return self.tool is not None and self.tool.read_only

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        decision: Decision = {"run-once": "once", "allow-session": "session"}.get(event.button.id or "", "deny")  # type: ignore[assignment]
        self.dismiss(decision)

    def action_decide(self, decision: Decision) -> None:
        if decision == "session" and not self.allows_session:
            self.app.bell()
            return
        self.dismiss(decision)
