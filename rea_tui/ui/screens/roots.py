"""Editing the roots offered to a server: one path or file:// URI per line, optionally `PATH  # name`.

Saving checks every line (a bad one is named and nothing changes), then the
server is told (`notifications/roots/list_changed`) and asks `roots/list`
again. The edit lasts for this session; the config file is not written.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static, TextArea

from rea_tui.host import Root, RootError, root_from
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import NAME_LIMIT, join, plain, plain_line

NAME_SEPARATOR = "  # "
ERROR_LIMIT = 500


def roots_text(roots: tuple[Root, ...]) -> str:
    return "\n".join(r.uri + (NAME_SEPARATOR + r.name if r.name else "") for r in roots)


def parse_lines(text: str) -> list[Root]:
    """Each non-empty line as a root; RootError names the first line that is not one."""
    roots: list[Root] = []
    for number, line in enumerate(text.splitlines(), 1):
        value, _, name = line.partition(" # ")
        if not value.strip():
            continue
        try:
            roots.append(root_from({"uri": value.strip(), "name": name.strip()}))
        except RootError as exc:
            raise RootError(f"line {number}: {exc}") from None
    return roots


class RootsScreen(ModalScreen[list[Root] | None]):
    CSS_PATH = stylesheet("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="roots-cancel", tooltip="Keep the roots as they are"),
        Binding("ctrl+s", "save", "Save", id="roots-save", tooltip="Offer these roots and tell the server"),
    ]

    def __init__(self, server: str, roots: tuple[Root, ...]) -> None:
        super().__init__()
        self.server = server
        self.roots = roots

    def compose(self) -> ComposeResult:
        with Vertical(id="roots", classes="dialog"):
            title = join(Text("Roots offered to ", style="bold"), plain_line(self.server, NAME_LIMIT, style="bold"))
            yield Static(title, classes="dialog-title")
            yield Static(
                Text(
                    "One folder per line: a path or a file:// URI, and optionally '  # name'. The server may "
                    "work in these (roots/list); it is told when they change.",
                    style="dim",
                ),
                classes="dialog-description",
            )
            yield TextArea(roots_text(self.roots), id="roots-text")
            yield Static("", id="roots-message")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save  ctrl+s", id="roots-save-button", variant="primary")
                yield Button("Cancel", id="roots-cancel-button")

    def on_mount(self) -> None:
        self.query_one("#roots-text", TextArea).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "roots-save-button":
            self.action_save()
        else:
            self.dismiss(None)

    def action_save(self) -> None:
        try:
            roots = parse_lines(self.query_one("#roots-text", TextArea).text)
        except RootError as exc:
            self.query_one("#roots-message", Static).update(plain(str(exc), ERROR_LIMIT, style="red"))
            return
        self.dismiss(roots)

    def action_cancel(self) -> None:
        self.dismiss(None)
