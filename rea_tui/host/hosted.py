"""A server as the host holds it: its connection, catalogs and completion feed."""

from __future__ import annotations

import subprocess

from rea_tui.host.catalog import ServerCatalogs
from rea_tui.host.completion import CompletionFeed
from rea_tui.host.config import ServerSpec
from rea_tui.host.connection import DEFAULT_TIMEOUT, Connection
from rea_tui.host.events import HostEvent
from rea_tui.host.protocol_memory import ProtocolMemory


class HostedServer:
    """Everything the host keeps for one server; survives reconnects."""

    def __init__(
        self,
        spec: ServerSpec,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        memory: ProtocolMemory | None = None,
        started: subprocess.Popen[bytes] | None = None,
    ) -> None:
        self.spec = spec
        self.connection = Connection(spec, timeout=timeout, connect_timeout=timeout, memory=memory, started=started)
        self.catalogs = ServerCatalogs(self.connection)
        self.completions = CompletionFeed(self.connection)

    @property
    def name(self) -> str:
        return self.spec.name

    async def start(self, *, load_catalogs: bool = True) -> None:
        await self.connection.start()
        if load_catalogs:
            await self.catalogs.refresh_all()

    async def reconnect(self) -> None:
        self.completions.cancel_all()
        await self.connection.reconnect()
        await self.catalogs.refresh_all()

    async def on_event(self, event: HostEvent) -> bool:
        """Keep the catalogs current; True when one was refreshed."""
        return await self.catalogs.refresh_for(event)

    async def close(self) -> None:
        self.completions.cancel_all()
        await self.completions.settle()
        await self.connection.close()
