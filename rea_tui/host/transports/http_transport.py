"""The HTTP transports: streamable HTTP (the SDK's) and the legacy HTTP+SSE one (`sse.py`), with OAuth.

Each connection gets its own httpx client carrying the server's configured
headers, the OAuth client (`rea_tui.host.auth.http.HttpAuth`), a response
hook that keeps the HTTP statuses the server refused with (`HttpStatusLog`)
and the reply size limit (`httpx_bounds.bounded_client`: every reply, OAuth
metadata included, and every server-sent event), all wrapped in a
`TappedTransport` so every message lands in the traffic log.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import TYPE_CHECKING, Any

from rea_tui.host.config.config import ServerSpec
from rea_tui.host.transports.http_status import STAND_IN_MESSAGES, HttpStatusLog
from rea_tui.host.transports.traffic import TrafficLog
from rea_tui.host.transports.transport import TappedTransport

if TYPE_CHECKING:
    from mcp.shared.message import SessionMessage

    from rea_tui.host.auth.provider import Login

# Seconds for connecting, writing and pool waits; and for reading, where a server may hold a stream open.
HTTP_TIMEOUT = 30.0
STREAM_READ_TIMEOUT = 300.0
# The 2026-07-28 probe the SDK's `auto` negotiation sends first.
PROBE_METHOD = "server/discover"


def http_transport(
    spec: ServerSpec, traffic: TrafficLog, *, status: HttpStatusLog | None = None, login: Login | None = None
) -> TappedTransport:
    """Streamable HTTP, or the legacy HTTP+SSE transport for `spec.transport == "sse"`, with OAuth."""
    status = status or HttpStatusLog.for_spec(spec)
    return TappedTransport(_OwnedHttp(spec, traffic, status, login), traffic, AuthProbeGate(status))


class AuthProbeGate:
    """A 2026-07-28 probe refused for authorization is the answer: the legacy `initialize` is not sent.

    The SDK's `auto` negotiation falls back to `initialize` on any error of its `server/discover`
    probe, an HTTP 401/403 included; the server's answer to that handshake (an error of its own,
    say) would then replace "authorization needed". When the probe's error is the stand-in for a
    401/403 the OAuth client did not answer (no sign-in, or one that failed), the `initialize`
    that follows is answered here with the same stand-in, so the connection reports the 401/403.
    """

    def __init__(self, status: HttpStatusLog) -> None:
        self._status = status
        # Probe request ids, with the status log's mark when each went out.
        self._probes: dict[Any, int] = {}
        self._refused = False

    def seen(self, message: SessionMessage) -> None:
        from mcp_types import JSONRPCError

        reply = message.message
        if not isinstance(reply, JSONRPCError) or reply.id not in self._probes:
            return
        mark = self._probes.pop(reply.id)
        if reply.error.message not in STAND_IN_MESSAGES:
            return  # the server's own JSON-RPC error: a legacy server, say; the fallback is right
        failure = self._status.since(mark, PROBE_METHOD)
        self._refused = failure is not None and failure.status in (401, 403)

    def held(self, message: SessionMessage) -> SessionMessage | None:
        from mcp.shared.message import SessionMessage
        from mcp_types import INTERNAL_ERROR, ErrorData, JSONRPCError, JSONRPCRequest

        request = message.message
        if not isinstance(request, JSONRPCRequest):
            return None
        if request.method == PROBE_METHOD:
            self._probes[request.id] = self._status.mark()
            return None
        if request.method != "initialize" or not self._refused:
            return None
        error = ErrorData(code=INTERNAL_ERROR, message=STAND_IN_MESSAGES[0])
        return SessionMessage(JSONRPCError(jsonrpc="2.0", id=request.id, error=error))


class _OwnedHttp(AbstractAsyncContextManager[Any]):
    """The HTTP transport plus what it owns: its httpx client, and the OAuth client (with its redirect listener)."""

    def __init__(self, spec: ServerSpec, traffic: TrafficLog, status: HttpStatusLog, login: Login | None) -> None:
        from rea_tui.host.auth.http import HttpAuth

        self._spec = spec
        self._status = status
        self._traffic = traffic
        self._auth = HttpAuth(spec, login=login, status=status, traffic=traffic)
        self._client: Any = None
        self._transport: AbstractAsyncContextManager[Any] | None = None

    async def __aenter__(self) -> Any:
        import httpx2

        from rea_tui.host.transports.httpx_bounds import bounded_client
        from rea_tui.host.transports.reply_limit import max_reply_bytes

        auth = await self._auth.__aenter__()
        try:
            # What the SDK's transports expect: no redirect following, a long read for held-open streams.
            client = bounded_client(
                on_exceeded=self._status.record_oversize,
                headers=dict(self._spec.headers),
                auth=auth,
                timeout=httpx2.Timeout(HTTP_TIMEOUT, read=STREAM_READ_TIMEOUT),
                response_hooks=[self._status.on_response],
            )
            self._client = client
            await client.__aenter__()
            if self._spec.transport == "sse":
                from rea_tui.host.transports.sse import sse_transport

                self._transport = sse_transport(self._spec, client, self._status, self._traffic)
            else:
                from mcp.client.streamable_http import streamable_http_client

                # One event may be as big as a reply (the SDK's own default is 1 MiB).
                self._transport = streamable_http_client(
                    self._spec.url, http_client=client, max_sse_event_size=max_reply_bytes()
                )
            return await self._transport.__aenter__()
        except BaseException:
            await self._close(None, None, None)
            raise

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            if self._transport is not None:
                await self._transport.__aexit__(exc_type, exc, tb)
        finally:
            await self._close(exc_type, exc, tb)

    async def _close(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            if self._client is not None:
                await self._client.__aexit__(None, None, None)
        finally:
            await self._auth.__aexit__(exc_type, exc, tb)
