"""Things a connection reports on its own, outside any request.

Named as past-tense events; delivered to listeners registered with
`Connection.subscribe`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

ListKind = Literal["prompts", "tools", "resources"]


@dataclass(frozen=True)
class ListChanged:
    """The server said its prompt, tool or resource list changed."""

    server: str
    kind: ListKind


@dataclass(frozen=True)
class LogMessageReceived:
    server: str
    level: str
    logger: str | None
    data: Any


@dataclass(frozen=True)
class ResourceUpdated:
    """The server said a resource the analyst subscribed to changed (`notifications/resources/updated`)."""

    server: str
    uri: str


@dataclass(frozen=True)
class BadOutputReceived:
    """The server wrote something that is not a JSON-RPC message; the connection goes on."""

    server: str
    message: str


@dataclass(frozen=True)
class ConnectionLost:
    """The server exited or the connection closed while it was in use."""

    server: str
    exit_code: int | None
    stderr_tail: str
    message: str


@dataclass(frozen=True)
class ListsPreviewed:
    """The server's lists were read while the connection was still coming up (`Connection.early`)."""

    server: str


@dataclass(frozen=True)
class TargetRead:
    """The target a REA server names in `rea://session` was read after it connected (`HostedServer.target`)."""

    server: str


HostEvent = (
    ListChanged
    | LogMessageReceived
    | ResourceUpdated
    | BadOutputReceived
    | ConnectionLost
    | ListsPreviewed
    | TargetRead
)
