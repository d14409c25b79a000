"""Subscribed resources, followed for the whole session: every update counted, and the resource read again.

A server's `notifications/resources/updated` for a URI is counted here as it
arrives, whether or not a view of that resource is open, and a resource the
analyst subscribed to is read again (one read at a time: updates that come
during a read make one more read after it). A view (the TUI's resource
screen) shows a `WatchedResource` and listens for its changes; closing and
opening it again loses no count and no contents.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rea_tui.host.protocol.errors import HostError
from rea_tui.host.protocol.events import HostEvent, ResourceUpdated
from rea_tui.host.protocol.observers import Listeners

if TYPE_CHECKING:
    from rea_tui.host.hosted import HostedServer
    from rea_tui.host.protocol.models import EmbeddedResourceBlock

# The ready server of a name, or None (`Session.ready`).
HostedFinder = Callable[[str], "HostedServer | None"]


@dataclass
class WatchedResource:
    """What is known of one resource of one server: updates counted, reads made, the last contents or error."""

    server: str
    uri: str  # as the server wrote it (what is read, subscribed to and named in updates)
    updates: int = 0
    reads: int = 0
    last_read: float | None = None
    contents: list[EmbeddedResourceBlock] | None = None
    error: str | None = None
    reading: bool = False
    again: bool = False
    changed: Listeners[WatchedResource] = field(default_factory=Listeners, repr=False, compare=False)


class ResourceWatches:
    """Every resource a session followed; `Session.resources`. `hosted` finds a ready server by name."""

    def __init__(self, events: Listeners[HostEvent], hosted: HostedFinder) -> None:
        self._hosted = hosted
        self._watched: dict[tuple[str, str], WatchedResource] = {}
        # The reads running (a reference keeps each task alive until it ends).
        self._reads: set[asyncio.Task[None]] = set()
        events.subscribe(self._event)

    def __len__(self) -> int:
        """How many resources are followed."""
        return len(self._watched)

    def get(self, server: str, uri: str) -> WatchedResource:
        key = (server, uri)
        watched = self._watched.get(key)
        if watched is None:
            watched = self._watched[key] = WatchedResource(server, uri)
        return watched

    def _event(self, event: HostEvent) -> None:
        if not isinstance(event, ResourceUpdated):
            return
        hosted = self._hosted(event.server)
        subscribed = hosted is not None and event.uri in hosted.connection.subscriptions
        watched = self._watched.get((event.server, event.uri))
        if watched is None:
            if not subscribed:
                return  # a URI nobody subscribed to or looked at: a server sending thousands costs nothing here
            watched = self.get(event.server, event.uri)
        watched.updates += 1
        if subscribed:
            self.read_soon(watched)
        else:
            watched.changed.emit(watched)

    def read_soon(self, watched: WatchedResource) -> None:
        """Read it again, in a task of the running loop (now, or once the read in flight ends)."""
        watched.changed.emit(watched)
        if watched.reading:
            watched.again = True
            return
        watched.reading = True
        task = asyncio.get_running_loop().create_task(self._read(watched))
        self._reads.add(task)
        task.add_done_callback(self._reads.discard)

    async def read(self, watched: WatchedResource) -> None:
        """Read it now and wait for the read (one at a time, as `read_soon` does)."""
        if watched.reading:
            watched.again = True
            return
        watched.reading = True
        await self._read(watched)

    async def _read(self, watched: WatchedResource) -> None:
        try:
            while True:
                watched.again = False
                hosted = self._hosted(watched.server)
                if hosted is None:
                    watched.error = f"{watched.server} is not connected."
                    return
                try:
                    result = await hosted.read_resource(watched.uri)
                except HostError as exc:
                    watched.error = f"Reading failed: {exc.describe()}"
                    return
                watched.reads += 1
                watched.last_read = time.time()
                watched.contents, watched.error = result.contents, None
                if not watched.again:
                    return
                watched.changed.emit(watched)
        finally:
            watched.reading = False
            watched.changed.emit(watched)
