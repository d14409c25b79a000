"""A stdio server's lists for the CLI's list commands, asked for directly (2026-07-28), with no SDK.

`rea-tui prompts` and `rea-tui tools` on a stdio server used to wait for the
SDK to load (about half a second) before asking, then for the server to
answer. A 2026-07-28 request stands on its own (early_lists), so for a server
that spoke 2026-07-28 before (protocol memory), the command asks
`server/discover` and its list through `StdioProcess.early_request` and its
own body prints the result, as it prints the full path's.

Only lists are asked, and they can be asked again: anything unexpected (the
server no longer speaks 2026-07-28, an error reply, a malformed page, an exit,
no answer in time) raises `LeanFallback` after the process is stopped, and the
command runs on the full path from the start.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

from rea_tui.host.config.config import ServerSpec
from rea_tui.host.fastpath.early_lists import MODERN_VERSION, EarlyRequests, request_meta
from rea_tui.host.protocol.errors import HostError
from rea_tui.host.protocol.observers import hears_nothing
from rea_tui.host.protocol.pagination import PAGE_LIMIT
from rea_tui.host.protocol.protocol_memory import ProtocolMemory
from rea_tui.host.transports.traffic import TrafficLog
from rea_tui.host.transports.transport import StderrBuffer, StdioProcess

T = TypeVar("T")


class LeanStdioFallback(Exception):
    """The lean path cannot answer as the full path would; nothing but lists was asked."""


class LeanStdio:
    """What a list command reads of a connection, answered with no SDK (see the module's docstring)."""

    def __init__(self, spec: ServerSpec, timeout: float, *, memory: ProtocolMemory | None = None) -> None:
        self.spec = spec
        self.timeout = timeout
        self.memory = memory
        self.traffic = TrafficLog(spec.secret_values())
        self.stderr = StderrBuffer(secrets=spec.secret_values())
        self.protocol_version = ""
        self.capabilities: dict[str, Any] = {}
        self._process = StdioProcess(spec, self.traffic, self.stderr)
        self._requests = EarlyRequests(self._process, request_meta(MODERN_VERSION))

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def modern(self) -> bool:
        return self.protocol_version == MODERN_VERSION

    subscribe = staticmethod(hears_nothing)

    def has_capability(self, name: str) -> bool:
        return isinstance(self.capabilities.get(name), dict)

    async def start(self) -> None:
        """Start the server and discover it; LeanStdioFallback unless it speaks 2026-07-28."""
        try:
            await self._process.spawn()
            capabilities = await self._bounded(self._requests.discover(MODERN_VERSION))
        except (HostError, OSError):  # OSError: the server gone before it read what was written
            capabilities = None
        if capabilities is None:
            await self.close()
            raise LeanStdioFallback("the server did not answer 2026-07-28 discovery")
        self.protocol_version = MODERN_VERSION
        self.capabilities = capabilities
        if self.memory is not None and self.spec.protocol == "auto":
            self.memory.remember(self.spec.fingerprint, "modern")

    async def paginate(self, method: str, key: str, *, page_limit: int = PAGE_LIMIT) -> list[Any]:
        """Every item of the list, as `RequestSender.paginate` gives it; LeanStdioFallback on anything else."""
        try:
            items = await self._bounded(self._requests.items(method, key, page_limit))
        except (HostError, OSError):  # OSError: the server gone before it read what was written
            items = None
        if items is None:
            await self.close()
            raise LeanStdioFallback(f"{method} was not answered as a list")
        return items

    async def close(self) -> None:
        await self._process.close_unread()

    async def _bounded(self, asked: Awaitable[T]) -> T | None:
        """What was asked, or None when no answer came in the command's timeout."""
        try:
            return await asyncio.wait_for(asked, self.timeout)
        except TimeoutError:
            return None


def known_modern(spec: ServerSpec, memory: ProtocolMemory) -> bool:
    """A stdio server pinned to 2026-07-28, or one that spoke it at its last connection."""
    if spec.transport != "stdio":
        return False
    return spec.protocol == MODERN_VERSION or (spec.protocol == "auto" and memory.recall(spec.fingerprint) == "modern")
