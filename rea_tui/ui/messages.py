"""Messages the UI posts: past-tense events, attributes down, messages up."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from rea_tui.host.events import HostEvent


@dataclass
class NodeRef:
    """What a sidebar entry stands for."""

    kind: str  # "server", "prompt", "tool", "resource", "template", "section"
    server: str
    name: str = ""


class ServerConnected(Message):
    def __init__(self, server: str) -> None:
        super().__init__()
        self.server = server


class ServerFailed(Message):
    def __init__(self, server: str, error: Any) -> None:
        super().__init__()
        self.server = server
        self.error = error


class HostEventReceived(Message):
    def __init__(self, event: HostEvent) -> None:
        super().__init__()
        self.event = event


class CatalogsRefreshed(Message):
    def __init__(self, server: str) -> None:
        super().__init__()
        self.server = server


class NodeSelected(Message):
    """The analyst picked a server, prompt, tool, resource or template in the sidebar."""

    def __init__(self, ref: NodeRef) -> None:
        super().__init__()
        self.ref = ref


class RenderRequested(Message):
    """Enter on the argument form (or ctrl+r): render the prompt or read the template."""


class StepChosen(Message):
    def __init__(self, server: str, tool: str) -> None:
        super().__init__()
        self.server = server
        self.tool = tool


class ResourceLinkOpened(Message):
    def __init__(self, server: str, uri: str) -> None:
        super().__init__()
        self.server = server
        self.uri = uri
