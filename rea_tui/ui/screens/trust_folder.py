"""The folder's own config files, before anything in them is used: trust the folder, or not now.

It lists exactly what the folder's untrusted files would run (program,
arguments, working folder, environment names) and connect to (URL, header
names), as display-safe lines from the host (`rea_tui.host.folder_listing`).
Focus starts on "Not now", so one Enter runs nothing; escape is "Not now" too.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from rea_tui.host import TrustGate, folder_listing
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import plain, plain_line

# The listing is scrolled, not cut; this bounds only a pathological file (lines of the dialog).
LISTING_LINE_LIMIT = 2_000
FOLDER_LIMIT = 200


class TrustFolderScreen(ModalScreen[bool]):
    """Dismissed with True when the analyst trusts the folder, False for "Not now"."""

    CSS_PATH = stylesheet("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "not_now", "Not now", id="trust-folder-not-now", tooltip="Use nothing of this folder"),
    ]

    def __init__(self, gate: TrustGate) -> None:
        super().__init__()
        self.gate = gate

    def compose(self) -> ComposeResult:
        lines = folder_listing(self.gate, only_untrusted=True)
        shown = lines[:LISTING_LINE_LIMIT]
        if len(lines) > len(shown):
            shown.append(f"… {len(lines) - len(shown):,} more lines (`rea-tui trust` lists them all)")
        with Vertical(id="trust-folder", classes="dialog"):
            yield Static(Text("This folder has MCP config files of its own", style="bold"), classes="dialog-title")
            where = Text("folder  ", style="dim")
            where.append_text(plain_line(self.gate.folder, FOLDER_LIMIT, style="bold"))
            yield Static(where, id="trust-folder-path")
            yield Static(
                Text(
                    "Nothing in them runs, connects or reads your environment until you trust this folder. "
                    "Trusting it runs these commands and connects to these URLs:",
                    style="yellow",
                ),
                classes="dialog-description",
            )
            with VerticalScroll(id="trust-folder-listing"):
                yield Static(plain("\n".join(shown), None), id="trust-folder-text")
            yield Static(
                Text("A change to one of these files asks again. `rea-tui trust --revoke` undoes it.", style="dim"),
                classes="dialog-description",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Trust this folder", id="trust-folder-trust", variant="warning")
                yield Button("Not now", id="trust-folder-not-now-button", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#trust-folder-not-now-button", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "trust-folder-trust")

    def action_not_now(self) -> None:
        self.dismiss(False)
