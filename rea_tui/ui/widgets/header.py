"""The header: server name, protocol version, capabilities, current target."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from rea_tui.ui.text import plain_line

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
        text.append_text(plain_line(server, 60, style="bold"))
        if protocol:
            text.append(f"  protocol {protocol}", style="")
        elif status != "ready":
            text.append(f"  {status}", style="yellow" if status == "connecting" else "red")
        if capabilities is not None:
            text.append("  ")
            for name in CAPABILITIES:
                declared = isinstance(capabilities.get(name), dict)
                text.append(f"{'✓' if declared else '✗'} {name}", style="green" if declared else "dim strike")
                text.append(" ")
        if target:
            text.append("  target: ", style="dim")
            text.append_text(plain_line(target, 80))
        self.update(text)
