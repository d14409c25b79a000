"""The legacy HTTP+SSE transport (MCP 2024-11-05), with reconnection.

A server speaking it is picked by `type: sse` in the config or a URL whose
path ends in `/sse`. The client opens a `GET` event stream; the server's
first event, `endpoint`, names the URL (same origin) to `POST` messages to;
replies and server requests arrive as `message` events on the stream.

The SDK's `sse_client` does the endpoint event but gives up when the stream
drops, so this transport is rea-tui's own (on the SDK's redirect-aware httpx
helpers): when the stream ends while the connection is open it waits the
server's `retry` (else one second, doubling) and opens it again, sending
`Last-Event-ID` when the server numbered its events, up to
`MAX_RECONNECTS` times in a row. A server that answers the new stream with a
new `endpoint` has started a new session: the handshake the client sent
first (`initialize`, `notifications/initialized`) is sent again on it, its
reply kept from the session, so requests keep working. Every reconnection is
recorded in the traffic log.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

import anyio
import httpx2
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from rea_tui.host.config.config import ServerSpec
from rea_tui.host.protocol.errors import HostError, ServerUnavailable
from rea_tui.host.transports.http_status import failure_error
from rea_tui.host.transports.httpx_bounds import ReplyOverLimit
from rea_tui.host.transports.reply_limit import max_reply_bytes

if TYPE_CHECKING:
    from mcp.shared.message import SessionMessage

    from rea_tui.host.transports.http_status import HttpStatusLog
    from rea_tui.host.transports.traffic import TrafficLog
    from rea_tui.host.transports.transport import Streams

MAX_RECONNECTS = 5
FIRST_RETRY_SECONDS = 1.0
MAX_RETRY_SECONDS = 30.0
REINITIALIZE_ID = "rea-tui-reinitialize"


class _StreamEnded(Exception):
    """The event stream closed or failed; reconnect."""


class SseSession:
    """The state of one legacy SSE connection (its endpoint, last event id, the handshake to replay)."""

    def __init__(
        self, spec: ServerSpec, client: httpx2.AsyncClient, status: HttpStatusLog, traffic: TrafficLog | None = None
    ) -> None:
        self.spec = spec
        self.traffic = traffic
        self.client = client
        self.status = status
        self.endpoint: str | None = None
        self.last_event_id: str | None = None
        self.retry_seconds: float | None = None
        self.reconnects = 0
        self.handshake: list[dict[str, Any]] = []
        self._endpoint_ready = anyio.Event()

    # ------------------------------------------------------------ the stream

    async def read_stream(self, to_session: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
        """Read events for the life of the connection, reconnecting when the stream drops."""
        failures = 0
        delay = FIRST_RETRY_SECONDS
        while True:
            try:
                await self._read_once(to_session)
                failures = 0  # a stream that opened and then ended is not a failed attempt
            except ReplyOverLimit as exc:
                # Not a drop to reconnect after: the server would send it again. The connection ends with it.
                if self.endpoint is None:
                    raise exc.error from None
                self._endpoint_ready.set()
                await to_session.send(exc.error)
                return
            except (_StreamEnded, httpx2.TransportError, httpx2.StreamError) as exc:
                if self.endpoint is None and not self._endpoint_ready.is_set():
                    raise ServerUnavailable(f"cannot connect to {self.spec.url}: {type(exc).__name__}: {exc}") from None
                failures += 1
            if self._endpoint_ready.is_set():
                self._endpoint_ready = anyio.Event()  # messages wait until the stream is back
            if failures > MAX_RECONNECTS:
                self._endpoint_ready.set()
                await to_session.send(ServerUnavailable(f"{self.spec.url}: the event stream is gone"))
                return
            wait = self.retry_seconds if self.retry_seconds is not None else delay
            delay = min(delay * 2, MAX_RETRY_SECONDS)
            await anyio.sleep(wait)
            self.reconnects += 1
            if self.traffic is not None:
                since = f" (Last-Event-ID {self.last_event_id})" if self.last_event_id else ""
                self.traffic.record_event("sse/reconnect", f"{self.spec.url} after {wait:g} s{since}")

    async def _read_once(self, to_session: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
        headers = {"Accept": "text/event-stream", "Cache-Control": "no-store"}
        if self.last_event_id:
            headers["Last-Event-ID"] = self.last_event_id
        async with self.client.stream("GET", self.spec.url, headers=headers) as response:
            # One event may be as big as a reply; the client's reply bound stops a bigger one first.
            source = httpx2.EventSource(response, max_event_size=max_reply_bytes())
            if response.status_code != 200:
                await response.aread()
                failure = self.status.record(response.status_code, "", response.headers.get("WWW-Authenticate", ""))
                error: HostError = failure_error(self.spec.name, failure, self.status.auth_reason)
                if self.endpoint is None:
                    raise error
                raise _StreamEnded(str(error))
            async for event in source:
                if event.retry is not None:
                    self.retry_seconds = event.retry / 1000.0
                if event.id:
                    self.last_event_id = event.id
                if event.event == "endpoint":
                    await self._adopt_endpoint(event.data)
                elif event.event == "message" and event.data:
                    await self._deliver(event.data, to_session)
        raise _StreamEnded("the server closed the event stream")

    async def _adopt_endpoint(self, data: str) -> None:
        endpoint = urljoin(self.spec.url, data)
        base, new = urlsplit(self.spec.url), urlsplit(endpoint)
        if (base.scheme, base.netloc) != (new.scheme, new.netloc):
            raise ServerUnavailable(f"{self.spec.url}: the endpoint event names another origin ({new.netloc})")
        previous, self.endpoint = self.endpoint, endpoint
        if previous is not None and previous != endpoint and self.handshake:
            # A new session: say hello again before anything else is sent on it.
            for message in self.handshake:
                await self._post(message)
        if previous is not None and self.traffic is not None:
            again = "a new session, handshake sent again" if previous != endpoint else "the same session"
            self.traffic.record_event("sse/reconnected", f"{self.spec.url}: {again}")
        self._endpoint_ready.set()

    async def _deliver(self, data: str, to_session: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
        from rea_tui.host.transports.transport import BadServerOutput, parse_message

        try:
            obj = json.loads(data)
        except ValueError:
            await to_session.send(BadServerOutput(f"the server sent an event that is not JSON: {data[:200]!r}"))
            return
        if isinstance(obj, dict) and obj.get("id") == REINITIALIZE_ID:
            return  # the reply to the replayed handshake is the transport's, not the session's
        message = parse_message(obj)
        await to_session.send(message or BadServerOutput("the server sent JSON that is not a JSON-RPC message"))

    # ------------------------------------------------------------ posting

    async def write_stream(
        self,
        from_session: MemoryObjectReceiveStream[SessionMessage],
        to_session: MemoryObjectSendStream[SessionMessage | Exception],
    ) -> None:
        from rea_tui.host.transports.transport import to_wire

        async with from_session:
            async for message in from_session:
                await self._endpoint_ready.wait()
                wire = to_wire(message)
                if wire.get("method") == "initialize":
                    self.handshake = [{**wire, "id": REINITIALIZE_ID}]
                elif wire.get("method") == "notifications/initialized":
                    self.handshake = [*self.handshake[:1], wire]
                await self._send(wire, to_session)

    async def _send(self, wire: dict[str, Any], to_session: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
        import mcp_types as types
        from mcp.shared.message import SessionMessage

        try:
            response = await self._post(wire)
        except httpx2.TransportError as exc:
            error = types.ErrorData(code=types.CONNECTION_CLOSED, message=f"cannot post: {type(exc).__name__}")
        else:
            if response.status_code < 400:
                return
            message = "Not Found" if response.status_code == 404 else "Server returned an error response"
            error = types.ErrorData(code=types.INTERNAL_ERROR, message=message)
        if "id" in wire and "method" in wire:
            reply = types.JSONRPCError(jsonrpc="2.0", id=wire["id"], error=error)
            await to_session.send(SessionMessage(reply))

    async def _post(self, wire: dict[str, Any]) -> httpx2.Response:
        assert self.endpoint is not None
        return await self.client.request("POST", self.endpoint, json=wire)


@asynccontextmanager
async def sse_transport(
    spec: ServerSpec, client: httpx2.AsyncClient, status: HttpStatusLog, traffic: TrafficLog | None = None
) -> AsyncIterator[Streams]:
    """The streams of a legacy SSE connection; connecting waits for the `endpoint` event."""
    session = SseSession(spec, client, status, traffic)
    to_session, session_reads = anyio.create_memory_object_stream["SessionMessage | Exception"](64)
    session_writes, from_session = anyio.create_memory_object_stream["SessionMessage"](64)
    async with anyio.create_task_group() as tg:

        async def read() -> None:
            async with to_session:
                await session.read_stream(to_session)

        tg.start_soon(read)
        tg.start_soon(session.write_stream, from_session, to_session)
        await session._endpoint_ready.wait()
        try:
            yield session_reads, session_writes
        finally:
            tg.cancel_scope.cancel()
            for stream in (session_reads, session_writes):
                with contextlib.suppress(Exception):
                    await stream.aclose()
