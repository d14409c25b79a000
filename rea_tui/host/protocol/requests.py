"""Requests a connection sends: through the SDK session's public `send_request`, back as the server's JSON.

Every method (with any params) goes as one request type, and the result
comes back as a plain dict, so the SDK does what its public path does
(stamping for the negotiated generation, the result's schema check for that
version) and the host still gets the server's own JSON to parse leniently.
A reply the SDK finds malformed becomes a ProtocolError that carries the raw
reply, read from the traffic tap, so it can still be reported (the
completion lint does). A task-augmented `tools/call` is answered with a task
rather than a tool result; the SDK has no table for that (tasks are
types-only in it), so that reply is taken from the tap as it came.

`RequestSender` is a part of `Connection` (which provides the session, the
traffic log and the analyst's waits); it is kept here so each module has one role.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

import anyio

from rea_tui.host.protocol.errors import (
    MALFORMED_RESULT,
    HostError,
    ProtocolError,
    RequestTimedOut,
    ServerExited,
    ServerUnavailable,
)
from rea_tui.host.protocol.events import BadOutputReceived, HostEvent
from rea_tui.host.protocol.pagination import PAGE_LIMIT, all_pages
from rea_tui.host.protocol.sdk_loader import sdk_ready

if TYPE_CHECKING:
    from mcp.shared.exceptions import MCPError

    from rea_tui.host.config.config import ServerSpec
    from rea_tui.host.features.server_log import ServerLog
    from rea_tui.host.features.waiting import AnalystWaits
    from rea_tui.host.transports.http_status import HttpStatusLog
    from rea_tui.host.transports.traffic import TrafficLog
    from rea_tui.host.transports.transport import StderrBuffer, StdioProcess

ProgressCallback = Callable[[float, float | None, str | None], Awaitable[None]]

# A timeout that ran this close to its limit was ours, not a server's own -32001.
_TIMEOUT_SLACK = 0.98
_EXIT_WAIT_SECONDS = 2.0
# Listed through the SDK's own method on 2026-07-28 connections (see `RequestSender._list_tools`).
LISTED_THROUGH_SDK = "tools/list"


class RequestSender:
    """Sending requests and notifications on a connection (a part of `Connection`)."""

    spec: ServerSpec
    timeout: float
    traffic: TrafficLog
    stderr: StderrBuffer
    http_status: HttpStatusLog
    protocol_version: str
    waits: AnalystWaits
    log: ServerLog
    _process: StdioProcess | None

    @property
    def modern(self) -> bool:
        raise NotImplementedError

    @property
    def name(self) -> str:
        return self.spec.name

    def _session(self) -> Any:
        raise NotImplementedError

    async def wait_settled(self) -> None:
        raise NotImplementedError

    def _emit(self, event: HostEvent) -> None:
        raise NotImplementedError

    async def request(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
        strict: bool = False,
        pausable: bool = False,
    ) -> dict[str, Any]:
        """Send one request and return the raw result object.

        A result that breaks the negotiated version's schema is still returned
        (the host parses leniently: a bad field or item is lost, not the whole
        reply), and reported as bad output; with `strict`, it raises
        ProtocolError(MALFORMED_RESULT) carrying the reply instead. With
        `pausable`, the timeout stops while a dialog of this connection waits
        for the analyst. Cancelling the calling task sends
        `notifications/cancelled`. Raises RequestTimedOut, ServerExited,
        ServerUnavailable or ProtocolError.
        """
        # A request made while the connection comes up (a form opened from the early lists) waits for it.
        await self.wait_settled()
        await sdk_ready()
        from mcp.shared.exceptions import MCPError
        from pydantic import ValidationError

        from rea_tui.host.protocol.sdk_request import RAW_RESULT, RawRequest

        session = self._session()
        sent = dict(params or {})
        if self.modern and self.log.level is not None:
            # 2026-07-28 logging is opted into per request (the SDK's stamp keeps a level given here).
            import mcp_types as types

            sent["_meta"] = {**sent.get("_meta", {}), types.LOG_LEVEL_META_KEY: self.log.level}
        limit = self.timeout if timeout is None else timeout
        started = time.monotonic()
        mark = self.http_status.mark()
        try:
            request = RawRequest(method=method, params=sent or None)
            if method == LISTED_THROUGH_SDK and self.modern:
                raw = await self._list_tools(session, sent, limit)
            elif pausable:
                with self.waits.timed(limit) as clock:
                    raw = await session.send_request(request, RAW_RESULT, progress_callback=on_progress)
                if clock.expired:
                    raise RequestTimedOut(method, limit)
            else:
                raw = await session.send_request(
                    request,
                    RAW_RESULT,
                    request_read_timeout_seconds=limit if limit and limit > 0 else None,
                    progress_callback=on_progress,
                )
        except ValidationError as exc:
            return self._malformed(method, sent, exc, strict=strict)
        except MCPError as exc:
            http = self.http_status.error_for(self.name, exc.code, exc.error.message, mark, method)
            raise (http or await self._request_error(method, exc, limit, time.monotonic() - started)) from None
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as exc:
            raise ServerUnavailable(f"{self.name}: connection failed ({type(exc).__name__})") from None
        except HostError:
            raise
        except Exception as exc:
            oversize = self.http_status.oversize_since(mark)
            if oversize is not None:
                raise oversize from None
            if type(exc).__module__.startswith("httpx"):
                raise ServerUnavailable(f"{self.name}: {type(exc).__name__}: {exc}") from None
            raise
        if not isinstance(raw, dict):
            raise ProtocolError(MALFORMED_RESULT, f"{method}: the result is not a JSON object")
        return raw

    async def _list_tools(self, session: Any, sent: dict[str, Any], limit: float | None) -> dict[str, Any]:
        """A `tools/list` page through the SDK's public `list_tools`, returned as the server sent it.

        At 2026-07-28 the SDK's session mirrors a tool's `x-mcp-header` arguments into `Mcp-Param-*`
        headers on every `tools/call` it stamps, ours included, from the header map only its own
        `list_tools` keeps (SEP-2243): listing through it is what feeds that map. What the host parses
        is still the reply as received (the traffic tap's copy), so its own check (`tool_headers`)
        and its lenient parsing see every tool; the SDK's typed result stands in only without a tap copy.
        """
        import mcp_types as types

        params = types.PaginatedRequestParams.model_validate(sent, by_name=False) if sent else None
        try:
            with anyio.fail_after(limit if limit and limit > 0 else None):
                result = await session.list_tools(params=params)
        except TimeoutError:
            raise RequestTimedOut(LISTED_THROUGH_SDK, limit or 0.0) from None
        reply = self.traffic.reply_to(LISTED_THROUGH_SDK, sent)
        if reply is not None:
            return reply
        dumped: dict[str, Any] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        return dumped

    def _malformed(self, method: str, sent: dict[str, Any], exc: Exception, *, strict: bool) -> dict[str, Any]:
        from pydantic import ValidationError

        reply = self.traffic.reply_to(method, sent)
        if "task" in sent and isinstance(reply, dict) and isinstance(reply.get("task"), dict):
            return reply  # a task-augmented call's CreateTaskResult, which the SDK has no table for
        errors = exc.errors()[:5] if isinstance(exc, ValidationError) else []
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or '(result)'}: {e['msg']}" for e in errors)
        message = f"{method}: the reply breaks the {self.protocol_version} schema: {problems}"
        if strict or reply is None:
            raise ProtocolError(MALFORMED_RESULT, message, reply=reply) from None
        self.traffic.record_event("reply/malformed", message)
        self._emit(BadOutputReceived(self.name, message))
        return reply

    async def notify_roots_changed(self) -> None:
        """`notifications/roots/list_changed` (the server asks `roots/list` again)."""
        import mcp_types as types

        await self._session().send_notification(types.RootsListChangedNotification())
        self.traffic.record_event("roots", "roots changed; the server was told")

    async def request_interactive(
        self,
        method: str,
        params: Mapping[str, Any],
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
        max_rounds: int = 10,
        pausable: bool = False,
    ) -> dict[str, Any]:
        """A request that the server may answer with `input_required` (2026-07-28).

        The embedded elicitation / sampling requests go to the same handlers
        as legacy server-to-client requests, then the request is sent again
        with the answers and the server's opaque `requestState`.
        """
        await sdk_ready()
        import mcp_types as types
        from mcp.client.session import ClientRequestContext
        from pydantic import ValidationError

        current = dict(params)
        for _ in range(max_rounds + 1):
            raw = await self.request(method, current, timeout=timeout, on_progress=on_progress, pausable=pausable)
            if raw.get("resultType") != "input_required":
                return raw
            try:
                pending = types.InputRequiredResult.model_validate(raw, by_name=False)
            except ValidationError as exc:
                raise ProtocolError(MALFORMED_RESULT, f"{method}: malformed input_required result: {exc}") from None
            session = self._session()
            answers: dict[str, Any] = {}
            for key, input_request in (pending.input_requests or {}).items():
                answer = await session.dispatch_input_request(
                    ClientRequestContext(session=session, request_id=key), input_request
                )
                if isinstance(answer, types.ErrorData):
                    raise ProtocolError.from_error(answer.code, answer.message, answer.data)
                answers[key] = answer.model_dump(by_alias=True, mode="json", exclude_none=True)
            current = dict(params)
            if answers:
                current["inputResponses"] = answers
            if pending.request_state is not None:
                current["requestState"] = pending.request_state
        raise ProtocolError(MALFORMED_RESULT, f"{method}: the server asked for input more than {max_rounds} times")

    async def _request_error(self, method: str, exc: MCPError, limit: float, elapsed: float) -> HostError:
        import mcp_types as types

        code = exc.code
        if code == types.REQUEST_TIMEOUT and limit and elapsed >= limit * _TIMEOUT_SLACK:
            return RequestTimedOut(method, limit)
        if code == types.CONNECTION_CLOSED and self.spec.transport == "stdio":
            process = self._process
            if process is not None:
                with anyio.move_on_after(_EXIT_WAIT_SECONDS):
                    await process.exited.wait()
                if process.returncode is not None:
                    return ServerExited(f"{self.name} exited during {method}", process.returncode, self.stderr.tail())
            return ServerExited(f"{self.name}: connection closed during {method}", None, self.stderr.tail())
        # A server may echo a configured secret back in its message: it is redacted like everywhere else.
        return ProtocolError.from_error(code, self.traffic.redact(exc.error.message), exc.error.data)

    async def paginate(self, method: str, key: str, *, page_limit: int = PAGE_LIMIT) -> list[Any]:
        """Every item of a paginated list method, following `nextCursor`."""
        return await all_pages(self.request, method, key, page_limit)
