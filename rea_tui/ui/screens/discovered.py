"""The servers other MCP clients are set up with, to add to this session (when nothing is configured).

Each shows its name, the client and file it came from, and what it runs or
where it is; nothing starts until the analyst picks it. The bundled server
stays. A server from this folder's own files is listed with why it is not
used until the folder is trusted, and cannot be picked; nor can a server its
client turns off (listed as disabled, with the file that says so).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, SelectionList, Static
from textual.widgets.selection_list import Selection

from rea_tui.host import DiscoveredServer
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import plain_line

NAME_LIMIT = 60
TARGET_LIMIT = 100
SOURCE_LIMIT = 80
REASON_LIMIT = 120


def pickable(server: DiscoveredServer) -> bool:
    return not server.untrusted and not server.disabled


def server_label(server: DiscoveredServer) -> Text:
    label = Text()
    # First, so a narrow dialog still shows it.
    if server.untrusted:
        label.append("not used (folder not trusted)  ", style="bold yellow")
    elif server.disabled:
        label.append("disabled  ", style="bold yellow")
    label.append_text(plain_line(server.name, NAME_LIMIT, style="bold" if pickable(server) else "dim"))
    if server.disabled and not server.untrusted:
        # Before the rest: the setting and the file that turn it off are what a narrow dialog must still show.
        label.append("  ")
        label.append_text(plain_line(server.disabled, REASON_LIMIT, style="yellow"))
    label.append(f"  {server.client}", style="cyan")
    label.append("  ")
    label.append_text(plain_line(server.describe_target(), TARGET_LIMIT, style="dim"))
    label.append("  ")
    label.append_text(plain_line(str(server.source), SOURCE_LIMIT, style="dim italic"))
    if server.untrusted:
        label.append("  ")
        label.append_text(plain_line(server.untrusted, SOURCE_LIMIT, style="yellow"))
    return label


class DiscoveredServersScreen(ModalScreen[list[int] | None]):
    """Dismissed with the positions of the servers picked (a folder's untrusted server, or a disabled one,
    cannot be picked)."""

    CSS_PATH = stylesheet("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="discovered-cancel", tooltip="Add none"),
    ]

    def __init__(self, servers: list[DiscoveredServer]) -> None:
        super().__init__()
        self.servers = servers

    def compose(self) -> ComposeResult:
        with Vertical(id="discovered", classes="dialog"):
            yield Static(Text("Servers in other MCP clients' configs", style="bold"), classes="dialog-title")
            about = Text("Space picks; the ones picked are added to this session and started.", style="dim")
            if any(s.untrusted for s in self.servers):
                about.append(
                    "\nThis folder's own files are not used until you trust it (`rea-tui trust`, or start "
                    "rea-tui here again and choose Trust).",
                    style="yellow",
                )
            if any(s.disabled and not s.untrusted for s in self.servers):
                about.append(
                    "\nA disabled server is turned off by its own client's settings (`rea-tui servers --discover` "
                    "names the setting and the file); rea-tui does not start it.",
                    style="yellow",
                )
            yield Static(about, classes="dialog-description")
            yield SelectionList[int](
                *(Selection(server_label(s), index, disabled=not pickable(s)) for index, s in enumerate(self.servers)),
                id="discovered-list",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Add the picked servers", id="discovered-add", variant="primary")
                yield Button("Cancel", id="discovered-cancel-button")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id != "discovered-add":
            self.dismiss(None)
            return
        picked = self.query_one("#discovered-list", SelectionList).selected
        self.dismiss([i for i in picked if isinstance(i, int) and pickable(self.servers[i])])

    def action_cancel(self) -> None:
        self.dismiss(None)
