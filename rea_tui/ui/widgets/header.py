"""The header: server name, protocol version, current target, capabilities (in that order: what a narrow
terminal cuts off first comes last)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from rea_tui.ui.text import LINE_LIMIT, MESSAGE_LIMIT, NAME_LIMIT, PARAGRAPH_LIMIT, join, plain, plain_line

if TYPE_CHECKING:
    from rea_tui.host import ServerState

CAPABILITIES = ("prompts", "completions", "tools", "resources")


class ServerHeader(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(Text("rea-tui", style="bold"), id=id)

    def show(
        self,
        server: str,
        *,
        status: str,
        protocol: str = "",
        capabilities: dict[str, object] | None = None,
        target: str | None = None,
    ) -> None:
        text = Text("rea-tui  ", style="bold")
        text.append_text(plain_line(server, NAME_LIMIT, style="bold"))
        if protocol:
            text.append(f"  protocol {protocol}", style="")
        elif status != "ready":
            text.append(f"  {status}", style="yellow" if status == "connecting" else "red")
        if target:
            text.append("  target: ", style="dim")
            text.append_text(plain_line(target, NAME_LIMIT))
        if capabilities is not None:
            text.append(" ")
            for name in CAPABILITIES:
                declared = isinstance(capabilities.get(name), dict)
                text.append(" ")
                text.append(f"{'✓' if declared else '✗'} {name}", style="green" if declared else "dim strike")
        self.update(text)


def server_details(state: ServerState) -> tuple[Text, Text]:
    """A heading and the details of a server: its whole command or URL (the sidebar has a short name), its
    name and version as it says, its protocol and its target."""
    spec, hosted = state.spec, state.hosted
    heading = join(Text("Server ", style="dim"), plain_line(spec.name, NAME_LIMIT, style="bold"))
    body = Text("started as " if spec.transport == "stdio" else f"{spec.transport} at ", style="dim")
    body.append_text(plain(spec.display_target(), PARAGRAPH_LIMIT))
    if hosted is not None and state.status == "ready":
        connection = hosted.connection
        body.append("\nserver ", style="dim")
        body.append_text(plain_line(f"{connection.server_name} {connection.server_version}", LINE_LIMIT))
        body.append(f"\nprotocol {connection.protocol_version}", style="dim")
        if hosted.target:
            body.append("\ntarget ", style="dim")
            body.append_text(plain_line(hosted.target, MESSAGE_LIMIT))
    body.append("\n\nChoose one of its prompts to fill its arguments.", style="dim")
    return heading, body
