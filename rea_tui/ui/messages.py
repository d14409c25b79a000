"""Messages the UI posts: past-tense events, attributes down, messages up."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from textual.message import Message

if TYPE_CHECKING:
    from rich.text import Text

    from rea_tui.host import EvidenceEntry, HostEvent, ServerCatalogs, Workflow

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


class ServerMarked(Message):
    """A server's state as the sidebar marks it (connecting, ready, failed, exited, recorded), with its detail."""

    def __init__(self, server: str, status: str, detail: str = "") -> None:
        super().__init__()
        self.server = server
        self.status = status
        self.detail = detail


class ServerListed(Message):
    """A server's lists came (read early, on connecting, or again after a change): the sidebar shows them.
    `first`: the session's first lists, so the sidebar's cursor goes to the first entry."""

    def __init__(self, server: str, catalogs: ServerCatalogs, *, first: bool = False) -> None:
        super().__init__()
        self.server = server
        self.catalogs = catalogs
        self.first = first


class ConnectingSettled(Message):
    """No server is left connecting: no first entry is to come but one already listed (EntriesListed follows,
    after the refresh that places the cursor, if one does)."""


class ActiveServerDown(Message):
    """The active server failed or exited: the form says why, and what to press."""

    def __init__(self, server: str) -> None:
        super().__init__()
        self.server = server


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


class RecordedPromptRecalled(Message):
    """A replay renders a recorded prompt again: the sidebar's cursor goes to it (nothing is chosen)."""

    def __init__(self, ref: NodeRef) -> None:
        super().__init__()
        self.ref = ref


class ReplayTitled(Message):
    """An offline replay: the header names the recording in place of a server."""

    def __init__(self, title: Text) -> None:
        super().__init__()
        self.title = title


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


class RowsFocusRequested(Message):
    """The analyst goes on from the selected entry's rows ("Go to its rows", or the result of a row's call):
    they take the focus, at once or after the next refresh (a new result is laid out only then)."""

    def __init__(self, *, after_refresh: bool = False) -> None:
        super().__init__()
        self.after_refresh = after_refresh


class JobFailed(Message):
    """A background job failed in a way nothing expected; the error route says so."""

    def __init__(self, group: str, name: str, error: BaseException) -> None:
        super().__init__()
        self.group = group
        self.name = name
        self.error = error
