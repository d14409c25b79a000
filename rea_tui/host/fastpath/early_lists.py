"""A stdio server's lists, asked for raw while the SDK is still loading, to show them sooner.

Loading the MCP SDK takes about half a second of CPU, and in the TUI it
shares the process with Textual: the prompt list used to wait for it. A
2026-07-28 request stands on its own (its `_meta` carries the version, the
client's identity and capabilities), so the host can send `server/discover`
and the four lists itself, as the SDK would send them, and read the replies
before the SDK's session exists (`StdioProcess.early_request`).

The result is a preview only: the catalogs show it while the connection comes
up, and the SDK's session asks for every list again once it is ready, so
nothing the analyst acts on rests on it. Anything unexpected (a legacy server,
an error, a malformed page) ends the preview with no effect on the connection.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rea_tui import __version__
from rea_tui.host.protocol.errors import HostError
from rea_tui.host.protocol.pagination import PAGE_LIMIT, next_cursor

if TYPE_CHECKING:
    from rea_tui.host.transports.transport import StdioProcess

# The revision whose requests stand on their own (each carries its version, client and capabilities).
MODERN_VERSION = "2026-07-28"
# The request ids of the preview, apart from the SDK's integers (a late reply is never the session's).
EARLY_ID_PREFIX = "rea-early-"

# The list methods: method, the result's item key, the capability that declares it.
LIST_METHODS = (
    ("prompts/list", "prompts", "prompts"),
    ("tools/list", "tools", "tools"),
    ("resources/list", "resources", "resources"),
    ("resources/templates/list", "resourceTemplates", "resources"),
)


@dataclass(frozen=True)
class EarlyLists:
    """What a server's discover reply declared, and the raw items of each list it answered."""

    capabilities: dict[str, Any]
    items: dict[str, list[Any]] = field(default_factory=dict)


# What the SDK's client advertises for the callbacks a `Connection` registers (sampling, form and URL
# elicitation, roots with list changes), and its client info: requests sent apart from the SDK (these,
# and the lean HTTP client's) say the same (tests compare them on the wire).
CLIENT_CAPABILITIES: dict[str, Any] = {
    "sampling": {},
    "elicitation": {"form": {}, "url": {}},
    "roots": {"listChanged": True},
}
CLIENT_INFO = {"name": "rea-tui", "version": __version__}
_META_PREFIX = "io.modelcontextprotocol/"


def request_meta(version: str) -> dict[str, Any]:
    """The `_meta` the SDK stamps on each request at `version` (2026-07-28): the version, client and capabilities."""
    return {
        f"{_META_PREFIX}protocolVersion": version,
        f"{_META_PREFIX}clientInfo": CLIENT_INFO,
        f"{_META_PREFIX}clientCapabilities": CLIENT_CAPABILITIES,
    }


class EarlyRequests:
    """Requests sent on a stdio process apart from any SDK session, each with the SDK's `_meta`."""

    def __init__(self, process: StdioProcess, meta: Mapping[str, Any]) -> None:
        self._process = process
        self._meta = dict(meta)
        self._ids = itertools.count(1)
        # The discover reply, once asked.
        self.discovered: dict[str, Any] | None = None

    async def result(self, method: str, params: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
        """The request's result; None for an error reply or a result that is not an object."""
        request = {
            "jsonrpc": "2.0",
            "id": f"{EARLY_ID_PREFIX}{next(self._ids)}",
            "method": method,
            "params": {**(params or {}), "_meta": self._meta},
        }
        reply = await self._process.early_request(request)
        result = reply.get("result")
        return result if isinstance(result, dict) else None

    async def discover(self, version: str) -> dict[str, Any] | None:
        """`server/discover`: the server's capabilities, or None unless it speaks `version`."""
        self.discovered = await self.result("server/discover")
        if self.discovered is None:
            return None
        versions = self.discovered.get("supportedVersions")
        capabilities = self.discovered.get("capabilities")
        if not isinstance(versions, list) or version not in versions or not isinstance(capabilities, dict):
            return None
        return capabilities

    async def items(self, method: str, key: str, page_limit: int = PAGE_LIMIT) -> list[Any] | None:
        """Every page's items, following `nextCursor` as the catalogs do; None if a page failed."""
        items: list[Any] = []
        cursor: str | None = None
        for _ in range(page_limit):
            result = await self.result(method, {"cursor": cursor} if cursor else None)
            page = result.get(key) if result is not None else None
            if not isinstance(page, list):
                return None
            items.extend(page)
            cursor = next_cursor(result, cursor) if result is not None else None
            if cursor is None:
                break
        return items


async def fetch_early_lists(process: StdioProcess, meta: Mapping[str, Any], version: str) -> EarlyLists | None:
    """Discover, then each declared list; None unless the server speaks `version` (2026-07-28).

    `meta`: the `_meta` the SDK stamps on every request of that version (the same version, client
    info and capabilities), so the server answers as it will answer the session.
    """
    requests = EarlyRequests(process, meta)
    try:
        capabilities = await requests.discover(version)
        if capabilities is None:
            return None
        declared = [(method, key) for method, key, needs in LIST_METHODS if isinstance(capabilities.get(needs), dict)]
        pages = await asyncio.gather(*(requests.items(method, key) for method, key in declared))
    except HostError:
        return None
    found = {method: items for (method, _key), items in zip(declared, pages, strict=True) if items is not None}
    return EarlyLists(capabilities, found)
