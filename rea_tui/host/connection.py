"""One live connection to one MCP server.

A long-lived task owns the SDK `Client` (its context must be entered and
exited in the same task); everything else sends requests through
`Connection.request`, which works from any task on the same event loop.
Requests go through the SDK session's public `send_request` (stamped for the
negotiated generation, results checked against that version's schema) and
come back as the server's JSON. A reply the SDK finds malformed becomes a
ProtocolError that carries the raw reply, read from the traffic tap, so it
can still be reported (the completion lint does).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import subprocess
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

import anyio

from rea_tui import __version__
from rea_tui.host.config import ServerSpec
from rea_tui.host.errors import (
    MALFORMED_RESULT,
    HostError,
    ProtocolError,
    RequestTimedOut,
    ServerExited,
    ServerUnavailable,
)
from rea_tui.host.events import (
    BadOutputReceived,
    ConnectionLost,
    HostEvent,
    ListChanged,
    ListKind,
    LogMessageReceived,
)
from rea_tui.host.http_status import HttpStatusLog
from rea_tui.host.http_transport import http_transport
from rea_tui.host.interaction import (
    ElicitationHandler,
    ElicitationRequest,
    SamplingHandler,
    SamplingMessage,
    SamplingRequest,
)
from rea_tui.host.observers import Listeners, Unsubscribe
from rea_tui.host.protocol_memory import ProtocolMemory
from rea_tui.host.traffic import TrafficLog
from rea_tui.host.transport import StderrBuffer, StdioProcess

if TYPE_CHECKING:
    import mcp_types as types
    from mcp import Client
    from mcp.client.session import ClientRequestContext
    from mcp.shared.exceptions import MCPError

    from rea_tui.host.auth.provider import Login

# The SDK logs protocol faults through `logging`; in a TUI nothing may reach
# the terminal, and the traffic log already shows what happened.
logging.getLogger("mcp").addHandler(logging.NullHandler())
logging.getLogger("mcp").propagate = False

ConnectionState = Literal["idle", "connecting", "ready", "failed", "exited", "closed"]
ProgressCallback = Callable[[float, float | None, str | None], Awaitable[None]]
EventListener = Callable[[HostEvent], None]

DEFAULT_TIMEOUT = 30.0
DEFAULT_CONNECT_TIMEOUT = 30.0
MODERN_VERSION = "2026-07-28"

# Notification classes of the SDK, by name, so this module can load before the SDK does.
_LIST_CHANGED: dict[str, ListKind] = {
    "PromptListChangedNotification": "prompts",
    "ToolListChangedNotification": "tools",
    "ResourceListChangedNotification": "resources",
}


def load_sdk() -> None:
    """Import the MCP SDK (about half a second); run it in a thread while the server starts."""
    import mcp
    import mcp.client.session
    import mcp.shared.subscriptions  # noqa: F401


class Connection:
    """A connection to `spec`, kept across reconnects."""

    def __init__(
        self,
        spec: ServerSpec,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        memory: ProtocolMemory | None = None,
        started: subprocess.Popen[bytes] | None = None,
    ) -> None:
        """`started`: the stdio server's process, if it was started early (used by the first start only)."""
        self.spec = spec
        self._started = started
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.memory = memory
        self.traffic = TrafficLog(spec.secret_values())
        self.stderr = StderrBuffer(secrets=spec.secret_values())
        self.state: ConnectionState = "idle"
        self.last_error: HostError | None = None
        self.protocol_version = ""
        self.server_name = ""
        self.server_version = ""
        self.server_title: str | None = None
        self.instructions = ""
        self.capabilities: dict[str, Any] = {}
        # What the HTTP layer refused (401, 404, 5xx), to report it as HTTP rather than as JSON-RPC.
        self.http_status = HttpStatusLog(spec.url)
        # Permission to sign in (OAuth) when the server asks; without it, `AuthorizationRequired` is raised.
        self.login: Login | None = None
        self._connect_mark = 0
        self.elicitation_handler: ElicitationHandler | None = None
        self.sampling_handler: SamplingHandler | None = None
        self.listeners: Listeners[HostEvent] = Listeners()
        self._client: Client | None = None
        self._process: StdioProcess | None = None
        self._owner: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._closing = False

    # ------------------------------------------------------------ lifecycle

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def is_ready(self) -> bool:
        return self.state == "ready" and self._client is not None

    @property
    def modern(self) -> bool:
        return self.protocol_version == MODERN_VERSION

    def has_capability(self, name: str) -> bool:
        return isinstance(self.capabilities.get(name), dict)

    def list_changed_declared(self, kind: ListKind) -> bool:
        return bool(self.capabilities.get(kind, {}).get("listChanged")) if self.has_capability(kind) else False

    def subscribe(self, listener: EventListener) -> Unsubscribe:
        return self.listeners.subscribe(listener)

    def _emit(self, event: HostEvent) -> None:
        self.listeners.emit(event)

    def _connect_mode(self) -> str:
        """`legacy`, `auto`, or a pinned version, from config and what the server spoke before."""
        if self.spec.protocol == "legacy":
            return "legacy"
        if self.spec.protocol == MODERN_VERSION:
            return "auto"  # discover is the first request either way; it also fetches capabilities
        if self.memory is not None and self.memory.recall(self.spec.fingerprint) == "legacy":
            return "legacy"
        return "auto"

    async def start(self) -> None:
        """Connect and negotiate. Raises ServerUnavailable, ServerExited, RequestTimedOut or ProtocolError."""
        if self.is_ready:
            return
        mode = self._connect_mode()
        try:
            await self._start(mode)
        except ProtocolError:
            if mode != "legacy" or self.spec.protocol != "auto":
                raise
            # The server changed generation since last time: probe again.
            await self._start("auto")
        if self.spec.protocol == MODERN_VERSION and not self.modern:
            spoke = self.protocol_version
            await self.close()
            error = ProtocolError(
                -32022,  # UNSUPPORTED_PROTOCOL_VERSION
                f"{self.name} cannot speak protocol {MODERN_VERSION} (it answered the legacy handshake with "
                f"{spoke}); connect with --protocol auto or legacy",
            )
            self._fail(error)
            raise error

    async def _start(self, mode: str) -> None:
        self.state = "connecting"
        self._connect_mark = self.http_status.mark()
        self._closing = False
        self._stop = asyncio.Event()
        self._process = None
        if self.spec.transport == "stdio":
            # Start the server first, then load the SDK while it boots: the two overlap.
            self._process = StdioProcess(self.spec, self.traffic, self.stderr, self._started)
            self._started = None
            try:
                await self._process.spawn()
            except HostError as exc:
                self._fail(exc)
                raise
        await asyncio.to_thread(load_sdk)
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._owner = asyncio.create_task(self._own(mode, ready), name=f"mcp-connection {self.name}")
        try:
            await asyncio.wait_for(asyncio.shield(ready), self.connect_timeout)
        except TimeoutError:
            ready.cancel()
            await self._cancel_owner()
            error: HostError = RequestTimedOut("connect", self.connect_timeout)
            self._fail(error)
            raise error from None
        except HostError as exc:
            await self._cancel_owner()
            self._fail(exc)
            raise
        except asyncio.CancelledError:
            ready.cancel()
            await self._cancel_owner()
            self.state = "failed"
            raise
        self.state = "ready"
        self.last_error = None
        if self.memory is not None and self.spec.protocol == "auto":
            self.memory.remember(self.spec.fingerprint, "modern" if self.modern else "legacy")

    def mark_failed(self, error: HostError) -> None:
        """Something outside the connection broke while it was being brought up: it is not usable."""
        self._fail(error)

    def _fail(self, error: HostError) -> None:
        self.state = "exited" if isinstance(error, ServerExited) else "failed"
        self.last_error = error

    async def _cancel_owner(self) -> None:
        owner = self._owner
        if owner is not None and not owner.done():
            owner.cancel()
            with contextlib.suppress(BaseException):
                await owner

    async def _own(self, mode: str, ready: asyncio.Future[None]) -> None:
        """Own the SDK client for the life of the connection."""
        import mcp_types as types
        from mcp import Client

        transport: Any = self._process or http_transport(
            self.spec, self.traffic, status=self.http_status, login=self.login
        )
        client = Client(
            transport,
            mode=mode,
            cache=None,
            message_handler=self._on_message,
            logging_callback=self._on_log,
            elicitation_callback=self._on_elicitation,
            sampling_callback=self._on_sampling,
            client_info=types.Implementation(name="rea-tui", version=__version__),
        )
        self.traffic.record_event("connect", f"{self.spec.transport} {self.spec.display_target()} (mode {mode})")
        try:
            async with client:
                self._adopt(client)
                self._client = client
                ready.set_result(None)
                async with anyio.create_task_group() as tg:
                    if self._process is not None:
                        tg.start_soon(self._watch_exit, self._process)
                    if self.modern and any(self.list_changed_declared(k) for k in ("prompts", "tools", "resources")):
                        tg.start_soon(self._listen, client)
                    await self._stop.wait()
                    tg.cancel_scope.cancel()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(await self._connect_error(exc))
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self._client = None
            if self.state == "ready":
                self.state = "closed" if self._closing else "exited"

    def _adopt(self, client: Client) -> None:
        session = client.session
        self.protocol_version = client.protocol_version
        capabilities = session.server_capabilities
        self.capabilities = (
            capabilities.model_dump(by_alias=True, mode="json", exclude_none=True) if capabilities else {}
        )
        info = client.server_info
        self.server_name = info.name if info else ""
        self.server_version = info.version if info else ""
        self.server_title = info.title if info else None
        self.instructions = session.instructions or ""

    async def _connect_error(self, exc: BaseException) -> HostError:
        from mcp.shared.exceptions import MCPError

        if isinstance(exc, HostError):
            return exc
        if isinstance(exc, BaseExceptionGroup):
            inner = [e for e in exc.exceptions if not isinstance(e, asyncio.CancelledError)]
            if inner:
                return await self._connect_error(inner[0])
        if self._process is not None and (self._process.returncode is not None or isinstance(exc, MCPError)):
            with anyio.move_on_after(2.0):
                await self._process.exited.wait()
            if self._process.returncode is not None:
                return ServerExited(
                    f"{self.name} exited while connecting",
                    self._process.returncode,
                    self.stderr.tail(),
                )
        if isinstance(exc, MCPError):
            http = self.http_status.error_for(self.name, exc.code, exc.error.message, self._connect_mark)
            return http or ProtocolError.from_error(exc.code, self.traffic.redact(exc.error.message), exc.error.data)
        if isinstance(exc, asyncio.CancelledError):
            return ServerUnavailable(f"connecting to {self.name} was cancelled")
        return ServerUnavailable(f"cannot connect to {self.spec.display_target()}: {type(exc).__name__}: {exc}")

    async def _watch_exit(self, process: StdioProcess) -> None:
        await process.exited.wait()
        if self._closing:
            return
        self.state = "exited"
        reason = f"{self.name} exited" if process.failure is None else f"{self.name}: {process.failure}"
        error = ServerExited(reason, process.returncode, self.stderr.tail())
        self.last_error = error
        self._emit(ConnectionLost(self.name, process.returncode, self.stderr.tail(), str(error)))
        self._stop.set()

    async def _listen(self, client: Client) -> None:
        """On 2026-07-28 connections, list changes arrive through a `subscriptions/listen` stream."""
        from mcp.shared.subscriptions import PromptsListChanged, ResourcesListChanged, ToolsListChanged

        kinds: dict[type[Any], ListKind] = {
            PromptsListChanged: "prompts",
            ToolsListChanged: "tools",
            ResourcesListChanged: "resources",
        }
        with contextlib.suppress(Exception):
            async with client.listen(
                prompts_list_changed=self.list_changed_declared("prompts"),
                tools_list_changed=self.list_changed_declared("tools"),
                resources_list_changed=self.list_changed_declared("resources"),
            ) as subscription:
                async for event in subscription:
                    kind = kinds.get(type(event))
                    if kind is not None:
                        self._emit(ListChanged(self.name, kind))

    async def close(self) -> None:
        self._closing = True
        self._stop.set()
        owner = self._owner
        if owner is not None and not owner.done():
            try:
                await asyncio.wait_for(asyncio.shield(owner), 15.0)
            except (TimeoutError, Exception):
                await self._cancel_owner()
        self.state = "closed"

    async def reconnect(self) -> None:
        """Start over with the same spec; listeners, traffic and stderr are kept."""
        await self.close()
        self.traffic.record_event("reconnect", self.spec.display_target())
        self.stderr.append(b"\n--- reconnect ---\n")
        await self.start()

    # ------------------------------------------------------------ SDK callbacks

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            self._emit(BadOutputReceived(self.name, str(message)))
            return
        kind = _LIST_CHANGED.get(type(message).__name__)
        if kind is not None:
            self._emit(ListChanged(self.name, kind))

    async def _on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self._emit(LogMessageReceived(self.name, str(params.level), params.logger, params.data))

    async def _on_elicitation(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        import mcp_types as types

        handler = self.elicitation_handler
        if handler is None:
            return types.ElicitResult(action="decline")
        if isinstance(params, types.ElicitRequestURLParams):
            request = ElicitationRequest(
                server=self.name,
                message=params.message,
                mode="url",
                url=params.url,
                elicitation_id=params.elicitation_id,
            )
        else:
            raw_schema: Any = params.requested_schema
            schema = (
                raw_schema if isinstance(raw_schema, dict) else raw_schema.model_dump(by_alias=True, exclude_none=True)
            )
            request = ElicitationRequest(server=self.name, message=params.message, mode="form", requested_schema=schema)
        answer = await handler(request)
        content = answer.content if answer.action == "accept" and request.mode == "form" else None
        return types.ElicitResult(action=answer.action, content=content)

    async def _on_sampling(
        self, context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult | types.ErrorData:
        import mcp_types as types

        handler = self.sampling_handler
        if handler is None:
            return types.ErrorData(code=types.INVALID_REQUEST, message="The analyst declined the sampling request")
        messages = tuple(
            SamplingMessage(role=m.role, text=getattr(m.content, "text", f"[{getattr(m.content, 'type', '?')}]"))
            for m in params.messages
        )
        answer = await handler(SamplingRequest(self.name, messages, params.system_prompt, params.max_tokens))
        if answer.text is None:
            return types.ErrorData(code=types.INVALID_REQUEST, message="The analyst declined the sampling request")
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text=answer.text), model=answer.model
        )

    # ------------------------------------------------------------ requests

    def _session(self) -> Any:
        client = self._client
        if client is None or self.state != "ready":
            if isinstance(self.last_error, ServerExited):
                raise self.last_error
            raise ServerUnavailable(f"{self.name} is not connected")
        return client.session

    async def request(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
        strict: bool = False,
    ) -> dict[str, Any]:
        """Send one request and return the raw result object.

        A result that breaks the negotiated version's schema is still returned
        (the host parses leniently: a bad field or item is lost, not the whole
        reply), and reported as bad output; with `strict`, it raises
        ProtocolError(MALFORMED_RESULT) carrying the reply instead. Cancelling
        the calling task sends `notifications/cancelled`. Raises
        RequestTimedOut, ServerExited, ServerUnavailable or ProtocolError.
        """
        from mcp.shared.exceptions import MCPError
        from pydantic import ValidationError

        from rea_tui.host.sdk_request import RAW_RESULT, RawRequest

        session = self._session()
        sent = dict(params or {})
        limit = self.timeout if timeout is None else timeout
        started = time.monotonic()
        mark = self.http_status.mark()
        try:
            raw = await session.send_request(
                RawRequest(method=method, params=sent or None),
                RAW_RESULT,
                request_read_timeout_seconds=limit if limit and limit > 0 else None,
                progress_callback=on_progress,
            )
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or '(result)'}: {e['msg']}" for e in exc.errors()[:5])
            message = f"{method}: the reply breaks the {self.protocol_version} schema: {problems}"
            reply = self.traffic.reply_to(method, sent)
            if strict or reply is None:
                raise ProtocolError(MALFORMED_RESULT, message, reply=reply) from None
            self.traffic.record_event("reply/malformed", message)
            self._emit(BadOutputReceived(self.name, message))
            return reply
        except MCPError as exc:
            http = self.http_status.error_for(self.name, exc.code, exc.error.message, mark, method)
            raise (http or await self._request_error(method, exc, limit, time.monotonic() - started)) from None
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as exc:
            raise ServerUnavailable(f"{self.name}: connection failed ({type(exc).__name__})") from None
        except Exception as exc:
            if type(exc).__module__.startswith("httpx"):
                raise ServerUnavailable(f"{self.name}: {type(exc).__name__}: {exc}") from None
            raise
        if not isinstance(raw, dict):
            raise ProtocolError(MALFORMED_RESULT, f"{method}: the result is not a JSON object")
        return raw

    async def request_interactive(
        self,
        method: str,
        params: Mapping[str, Any],
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
        max_rounds: int = 10,
    ) -> dict[str, Any]:
        """A request that the server may answer with `input_required` (2026-07-28).

        The embedded elicitation / sampling requests go to the same handlers
        as legacy server-to-client requests, then the request is sent again
        with the answers and the server's opaque `requestState`.
        """
        import mcp_types as types
        from mcp.client.session import ClientRequestContext
        from pydantic import ValidationError

        current = dict(params)
        for _ in range(max_rounds + 1):
            raw = await self.request(method, current, timeout=timeout, on_progress=on_progress)
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
        if code == types.REQUEST_TIMEOUT and limit and elapsed >= limit * 0.98:
            return RequestTimedOut(method, limit)
        if code == types.CONNECTION_CLOSED and self.spec.transport == "stdio":
            process = self._process
            if process is not None:
                with anyio.move_on_after(2.0):
                    await process.exited.wait()
                if process.returncode is not None:
                    return ServerExited(f"{self.name} exited during {method}", process.returncode, self.stderr.tail())
            return ServerExited(f"{self.name}: connection closed during {method}", None, self.stderr.tail())
        # A server may echo a configured secret back in its message: it is redacted like everywhere else.
        return ProtocolError.from_error(code, self.traffic.redact(exc.error.message), exc.error.data)

    async def paginate(self, method: str, key: str, *, page_limit: int = 100) -> list[Any]:
        """Every item of a paginated list method, following `nextCursor`."""
        items: list[Any] = []
        cursor: str | None = None
        for _ in range(page_limit):
            result = await self.request(method, {"cursor": cursor} if cursor else None)
            page = result.get(key)
            if isinstance(page, list):
                items.extend(page)
            next_cursor = result.get("nextCursor")
            if not isinstance(next_cursor, str) or not next_cursor or next_cursor == cursor:
                break
            cursor = next_cursor
        return items
