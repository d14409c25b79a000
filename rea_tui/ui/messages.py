"""Messages the UI posts: past-tense events, attributes down, messages up."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from textual.message import Message

if TYPE_CHECKING:
    from rea_tui.host import EvidenceEntry, HostEvent, Workflow

NodeKind = Literal["server", "prompt", "tool", "resource", "template", "section"]


@dataclass(frozen=True)
class NodeRef:
    """What a sidebar entry stands for."""

    kind: NodeKind
    server: str
    name: str = ""


class ServerConnected(Message):
    def __init__(self, server: str) -> None:
        super().__init__()
        self.server = server


class EntriesListed(Message):
    """The sidebar's cursor is on the first entry listed, or no server is left connecting to list one:
    the keys typed before that go on now (MainScreen holds them)."""


class ServerStatusChanged(Message):
    """A server started connecting, connected, failed or exited (the header shows the active one)."""

    def __init__(self, server: str) -> None:
        super().__init__()
        self.server = server


class ServerConnectFailed(Message):
    """Connecting failed: a host error (with its message), or an unexpected one caught by the error route."""

    def __init__(self, server: str, message: str, *, exited: bool = False) -> None:
        super().__init__()
        self.server = server
        self.message = message
        self.exited = exited


class HostEventReceived(Message):
    def __init__(self, event: HostEvent) -> None:
        super().__init__()
        self.event = event


class CatalogsRefreshed(Message):
    def __init__(self, server: str, withdrawn: list[str]) -> None:
        super().__init__()
        self.server = server
        self.withdrawn = withdrawn


class NodeSelected(Message):
    """The analyst picked a server, prompt, tool, resource or template in the sidebar."""

    def __init__(self, ref: NodeRef) -> None:
        super().__init__()
        self.ref = ref


class RenderRequested(Message):
    """Enter on the argument form (or ctrl+r): render the prompt or read the template."""


class PromptRendered(Message):
    def __init__(self, server: str, workflow: Workflow) -> None:
        super().__init__()
        self.server = server
        self.workflow = workflow


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


class LedgerChanged(Message):
    """Entries of the ledger were opened (a tool call or a resource read under way) or changed (progress,
    a result): the screen keeps which, and one message stands for all of them until it is handled."""


class ToolCallFinished(Message):
    def __init__(self, entry: EvidenceEntry) -> None:
        super().__init__()
        self.entry = entry


class NarrowingAsked(Message):
    """A call's result is a narrowing question: the analyst picks a candidate to pin."""

    def __init__(self, entry: EvidenceEntry) -> None:
        super().__init__()
        self.entry = entry


class JobFailed(Message):
    """A background job failed in a way nothing expected; the error route says so."""

    def __init__(self, group: str, name: str, error: BaseException) -> None:
        super().__init__()
        self.group = group
        self.name = name
        self.error = error
