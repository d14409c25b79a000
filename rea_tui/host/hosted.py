"""A server as the host holds it: its connection, catalogs and completion feed.

Start, reconnect and close of one server never overlap: they run under one
lock, so a double f5 ends with one process, ready, and no orphan. The status
is the connection's state; it is not kept anywhere else.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from dataclasses import dataclass
from typing import Any, Literal

from rea_tui.host.config.config import ServerSpec
from rea_tui.host.features.catalog import ServerCatalogs
from rea_tui.host.features.completion import CompletionFeed
from rea_tui.host.protocol.connection import DEFAULT_TIMEOUT, Connection
from rea_tui.host.protocol.errors import MALFORMED_RESULT, ProtocolError
from rea_tui.host.protocol.events import HostEvent, ListsPreviewed
from rea_tui.host.protocol.models import EmbeddedResourceBlock, parse_resource_contents
from rea_tui.host.protocol.protocol_memory import ProtocolMemory

ServerStatus = Literal["idle", "connecting", "ready", "failed", "exited", "closed"]

# The REA convention: this resource names the current target, and says while it is still opening.
SESSION_RESOURCE = "rea://session"
TARGET_OPENING = "opening"
TARGET_POLL_SECONDS = 0.05


@dataclass(frozen=True)
class ResourceContents:
    """What `resources/read` returned: the raw result, and its contents parsed."""

    raw: dict[str, Any]
    contents: list[EmbeddedResourceBlock]


class HostedServer:
    """Everything the host keeps for one server; survives reconnects."""

    def __init__(
        self,
        spec: ServerSpec,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        memory: ProtocolMemory | None = None,
        started: subprocess.Popen[bytes] | None = None,
        preview_lists: bool = False,
    ) -> None:
        """`preview_lists`: show the lists read while the SDK loads (`Connection`), before the connection is ready."""
        self.spec = spec
        self.connection = Connection(
            spec, timeout=timeout, connect_timeout=timeout, memory=memory, started=started, preview_lists=preview_lists
        )
        self.catalogs = ServerCatalogs(self.connection)
        # Subscribed before anyone else, so the catalogs hold the early lists when the event reaches the UI.
        self.connection.subscribe(self._seed_catalogs)
        self.completions = CompletionFeed(self.connection, wire_names=self.catalogs.wire_names)
        self.target: str | None = None
        # What rea://session says of the target ("opening", "ready", ...); None for other servers.
        self.target_state: str | None = None
        self._lifecycle = asyncio.Lock()

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def status(self) -> ServerStatus:
        return self.connection.state

    @property
    def ready(self) -> bool:
        return self.connection.is_ready

    async def start(self, *, load_catalogs: bool = True) -> None:
        """Connect (a no-op when connected); after a failure or an exit, start a fresh process."""
        async with self._lifecycle:
            if self.connection.is_ready:
                return
            if self.connection.state in ("exited", "failed", "closed"):
                await self._reconnect()
            else:
                await self.connection.start()
            if load_catalogs:
                await self.catalogs.refresh_all()

    async def reconnect(self) -> None:
        """Start over with the same spec (the traffic log, stderr and listeners are kept)."""
        async with self._lifecycle:
            await self._reconnect()
            await self.catalogs.refresh_all()

    async def _reconnect(self) -> None:
        self.completions.cancel_all()
        await self.connection.reconnect()

    async def close(self) -> None:
        self.completions.cancel_all()
        # A start under way holds the lifecycle lock until its server answers: closing the connection first
        # ends it, so a server that never answers cannot hold up the quit. Under the lock, the connection
        # is closed again, in case a start got in between.
        await self.connection.close()
        async with self._lifecycle:
            await self.completions.settle()
            await self.connection.close()

    async def leave(self, budget: float, term_grace: float) -> bool:
        """The app is leaving: `Connection.leave` (not under the lifecycle lock, which a start may hold);
        True when the connection's SDK task was left running."""
        self.completions.cancel_all()
        return await self.connection.leave(budget, term_grace)

    def _seed_catalogs(self, event: HostEvent) -> None:
        early = self.connection.early
        if isinstance(event, ListsPreviewed) and early is not None:
            self.catalogs.seed(early)

    @property
    def previewed(self) -> bool:
        """Connecting, with the early lists in the catalogs: a form can open; its requests wait for the connection."""
        return self.connection.state == "connecting" and self.catalogs.prompts.loaded

    async def on_event(self, event: HostEvent) -> bool:
        """Keep the catalogs current; True when one was refreshed."""
        return await self.catalogs.refresh_for(event)

    async def read_resource(self, uri: str) -> ResourceContents:
        """`resources/read`: the one way the host reads a resource. Raises HostError."""
        raw = await self.connection.request_interactive("resources/read", {"uri": uri})
        contents = raw.get("contents")
        if not isinstance(contents, list):
            raise ProtocolError(MALFORMED_RESULT, "resources/read: the result has no contents list")
        blocks = [parse_resource_contents(item) for item in contents]
        return ResourceContents(raw, [b for b in blocks if b is not None])

    @property
    def has_session_resource(self) -> bool:
        return any(r.uri == SESSION_RESOURCE for r in self.catalogs.resources.items)

    async def wait_for_target(self, timeout: float) -> bool:
        """Until a REA server's target has opened (or `timeout` passed); True when it is not opening."""
        deadline = time.monotonic() + timeout
        await self.read_target()
        while self.target_state == TARGET_OPENING and time.monotonic() < deadline:
            await asyncio.sleep(TARGET_POLL_SECONDS)
            await self.read_target()
        return self.target_state != TARGET_OPENING

    async def read_target(self) -> str | None:
        """The target a REA server names in `rea://session` (None for other servers, or if unreadable)."""
        from rea_tui.host.protocol.errors import HostError

        self.target = None
        self.target_state = None
        if not self.has_session_resource:
            return None
        try:
            result = await self.read_resource(SESSION_RESOURCE)
        except HostError:
            return None
        text = next((c.text for c in result.contents if c.text), None)
        try:
            data = json.loads(text) if text else {}
        except ValueError:
            return None
        if not isinstance(data, dict):
            return None
        state = data.get("state")
        self.target_state = state if isinstance(state, str) else None
        target, kind = data.get("target"), data.get("kind")
        parts = [str(p) for p in (target, f"({kind})" if kind else None) if p]
        self.target = " ".join(parts) or None
        return self.target
