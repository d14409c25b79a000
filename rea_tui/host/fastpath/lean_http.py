"""A one-shot streamable HTTP client on the standard library, for the CLI's one-shot commands.

The full path (`Connection` over the SDK's `Client`) costs about half a second
of imports (the SDK, pydantic, httpx2) before the first byte is sent; over
stdio that overlaps the server's start, over HTTP nothing hides it. This
client speaks the legacy handshake the way the full path does on the wire
(`initialize` with the same client info and capabilities, the session and
protocol-version headers, `notifications/initialized`, `progressToken` equal
to the request id, `DELETE` at the end) and answers to the same duck type the
catalogs and `run_tool_call` use, so the commands' own bodies run on it.

It handles only what it can answer exactly as the full path would. Anything
else raises `LeanFallback` while nothing but idempotent requests has been
sent (the caller then runs the full path from the start): a status other
than 200/202, a redirect, a cookie, a content type it does not read, a
reply that is not plain JSON-RPC, an `initialize` result it does not
recognise. A compressed body it decodes itself, and every body is held to
the reply size limit (`Reply.read_some`), as the full path's client is.
Once `tools/call` is sent there is no going back, so from then on it
reproduces the SDK's own outcomes (the same stand-in errors, the same
timeout) and answers server requests (ping, roots, elicitation, sampling) as
the full path's callbacks do.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from rea_tui.host.config.config import ServerSpec
from rea_tui.host.fastpath.lean_streams import SSE_READ_TIMEOUT_SECONDS, Streams
from rea_tui.host.fastpath.lean_wire import (
    ACCEPT,
    ACCEPTED_STATUS,
    CLIENT_CAPABILITIES,
    CLIENT_INFO,
    CLOSE_TIMEOUT_SECONDS,
    INVALID_PARAMS,
    LEGACY_VERSION,
    METHOD_NOT_FOUND,
    OK_STATUS,
    READABLE_TYPES,
    SESSION_HEADER,
    SSE_HEADERS,
    VERSION_HEADER,
    LeanFallback,
    Reply,
)
from rea_tui.host.features.interaction import (
    ElicitationAnswer,
    ElicitationHandler,
    ElicitationRequest,
    SamplingHandler,
)
from rea_tui.host.features.roots import Roots
from rea_tui.host.features.waiting import AnalystWaits
from rea_tui.host.protocol.errors import RequestTimedOut
from rea_tui.host.protocol.observers import hears_nothing
from rea_tui.host.protocol.pagination import PAGE_LIMIT, all_pages
from rea_tui.host.transports.http_status import HttpStatusLog

if TYPE_CHECKING:
    from rea_tui.host.protocol.protocol_memory import ProtocolMemory
    from rea_tui.host.protocol.requests import ProgressCallback


class LeanHttp:
    """One MCP session over streamable HTTP, one request at a time, blocking (a one-shot has nothing else to do)."""

    def __init__(self, spec: ServerSpec, timeout: float, *, memory: ProtocolMemory | None = None) -> None:
        parts = urlsplit(spec.url)
        if parts.scheme != "http" or not parts.hostname:
            raise LeanFallback("only plain http:// URLs")
        self.spec = spec
        self.timeout = timeout
        self.memory = memory
        self._host = parts.hostname
        self._port = parts.port or http.client.HTTP_PORT
        self._path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self._next_id = 1
        self.session_id: str | None = None
        self.protocol_version = ""
        self.capabilities: dict[str, Any] = {}
        self.server_info: dict[str, Any] = {}
        self.instructions = ""
        # Set once a request that must not run twice has gone out: no falling back after that.
        self.committed = False
        self.http_status = HttpStatusLog.for_spec(spec)
        self.elicitation_handler: ElicitationHandler | None = None
        self.sampling_handler: SamplingHandler | None = None
        self.waits = AnalystWaits()
        self.roots = Roots(spec.roots)
        self._prefetched: dict[str, list[Any]] = {}
        self.streams = Streams(self._open_get, self.http_status.record_oversize)

    # ------------------------------------------------------------ the duck type of Connection

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def modern(self) -> bool:
        return False

    subscribe = staticmethod(hears_nothing)

    def has_capability(self, name: str) -> bool:
        return isinstance(self.capabilities.get(name), dict)

    # ------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """`initialize` and `notifications/initialized`; raises LeanFallback, RequestTimedOut."""
        params = {
            "protocolVersion": LEGACY_VERSION,
            "capabilities": CLIENT_CAPABILITIES,
            "clientInfo": CLIENT_INFO,
        }
        # The full path's connect timeout covers the whole handshake.
        deadline = time.monotonic() + self.timeout
        result = self._exchange("initialize", params, deadline=deadline, timeout_name="connect", on_progress=None)
        if not _initialize_result_known(result):
            raise LeanFallback("an initialize result it does not recognise")
        self.protocol_version = result["protocolVersion"]
        self.capabilities = result["capabilities"]
        self.server_info = result["serverInfo"]
        self.instructions = result.get("instructions") or ""
        self._notify("notifications/initialized", None, deadline)
        if self.session_id:
            self.streams.follow_get()  # as the SDK does, for what the server sends outside a request
        if self.memory is not None and self.spec.protocol == "auto":
            self.memory.remember(self.spec.fingerprint, "legacy")

    def close(self) -> None:
        """`DELETE` the session, as the SDK does when its client closes; what the server says is not read."""
        if self.session_id is None:
            return
        try:
            # Too late to fall back: a request left for the analyst goes unanswered, as when the full path closes.
            with contextlib.suppress(LeanFallback):
                self.drain()
            connection = self._connection(CLOSE_TIMEOUT_SECONDS)
            connection.request("DELETE", self._path, headers=self._headers())
            connection.getresponse()  # its body is not read: closing ends it
            connection.close()
        except (OSError, http.client.HTTPException):
            pass

    # ------------------------------------------------------------ requests

    async def prefetch(self, method: str, key: str) -> None:
        """List every page now (while falling back is still possible); the catalog's refresh then takes it."""
        self._prefetched[method] = await all_pages(self._page, method, key)

    async def prefetch_call(self, tool_name: str) -> None:
        """The tools before a call; a tool that runs as a task is the full path's (it polls, it cancels)."""
        from rea_tui.host.features.tasks import task_support
        from rea_tui.host.protocol.models import parse_tool

        if not self.has_capability("tools"):
            return
        await self.prefetch("tools/list", "tools")
        tools = [t for t in (parse_tool(raw) for raw in self._prefetched["tools/list"]) if t is not None]
        tool = next((t for t in tools if tool_name in (t.name, t.wire)), None)
        if task_support(tool, self.capabilities) != "forbidden":
            raise LeanFallback("a tool that runs as a task")

    async def paginate(self, method: str, key: str, *, page_limit: int = PAGE_LIMIT) -> list[Any]:
        if method in self._prefetched:
            return self._prefetched.pop(method)
        return await all_pages(self._page, method, key, page_limit)

    async def _page(self, method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
        """One page, on the wire at once (this client blocks: a one-shot has nothing else to do)."""
        return self._exchange(method, params, deadline=time.monotonic() + self.timeout, on_progress=None)

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        """As `ServerCallbacks.elicit`: the installed handler with the clocks stopped; declined without one."""
        return await self.waits.elicitation(self.elicitation_handler, request)

    # ------------------------------------------------------------ server requests

    def answer_plainly(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """The reply to a ping or `roots/list`, or the SDK's refusal of any request; None when the analyst answers."""
        method, request_id = request["method"], request["id"]
        refused = self._refusal(method, request.get("params"))
        if refused is not None:
            return {"id": request_id, "error": refused}
        if method == "ping":
            return {"id": request_id, "result": {}}
        if method == "roots/list":
            self.roots.listed += 1
            return {"id": request_id, "result": {"roots": self.roots.to_json()}}
        return None

    def _refusal(self, method: str, params: dict[str, Any] | None) -> dict[str, Any] | None:
        """The error the SDK answers a server request with before any callback runs, or None.

        A ping or `roots/list` without parameters certainly passes; anything else is read by the
        SDK's method table and models (`ClientSession._on_request`), imported on that branch.
        """
        if method in ("ping", "roots/list") and not params:
            return None
        from mcp_types import methods

        try:
            methods.parse_server_request(method, self.protocol_version or LEGACY_VERSION, params)
        except KeyError:
            return {"code": METHOD_NOT_FOUND, "message": "Method not found", "data": method}
        except ValueError:  # pydantic's ValidationError: the dispatcher's words, no pydantic text on the wire
            return {"code": INVALID_PARAMS, "message": "Invalid request parameters", "data": ""}
        return None

    def _answer_before_call(self, request: dict[str, Any]) -> None:
        """Answer a server request that came before the call; one for the analyst is the full path's."""
        answer = self.answer_plainly(request)
        if answer is None:
            raise LeanFallback(f"{request['method']}: a server request for the analyst before the call")
        self.respond(answer)

    def drain(self) -> None:
        """Answer the server requests waiting in the inbox (the full path answers them as they come)."""
        for incoming in self.streams.waiting():
            if "method" in incoming and "id" in incoming:
                self._answer_before_call(incoming)

    # ------------------------------------------------------------ the wire

    def new_id(self) -> int:
        request_id = self._next_id
        self._next_id += 1
        return request_id

    def _headers(self) -> dict[str, str]:
        headers = dict(self.spec.headers)
        headers.update({"accept": ACCEPT, "content-type": "application/json"})
        if self.session_id:
            headers[SESSION_HEADER] = self.session_id
        if self.protocol_version:
            headers[VERSION_HEADER] = self.protocol_version
        return headers

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self._host, self._port, timeout=max(timeout, 0.001))

    def post(self, message: dict[str, Any], deadline: float) -> Reply:
        body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()
        connection = self._connection(deadline - time.monotonic())
        try:
            connection.request("POST", self._path, body=body, headers=self._headers())
            response = connection.getresponse()
        except OSError:
            connection.close()
            raise
        content_type = response.getheader("content-type", "").lower()
        if not self.committed:
            self._check_plain(response)
        return Reply(response.status, content_type, response, connection)

    def _check_plain(self, response: http.client.HTTPResponse) -> None:
        """What the lean client leaves to the full path (httpx keeps cookies, follows no redirect, decodes)."""
        _check_headers(response.headers)
        if response.status not in (OK_STATUS, ACCEPTED_STATUS):
            raise LeanFallback(f"HTTP {response.status}")

    def _notify(self, method: str, params: Mapping[str, Any] | None, deadline: float) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        try:
            reply = self.post(message, deadline)
        except (OSError, http.client.HTTPException) as exc:
            if self.committed:
                return  # the SDK does not wait for a notification's fate either
            raise LeanFallback(f"{method}: {type(exc).__name__}") from None
        reply.connection.close()  # nothing is read of a notification's answer, as the SDK reads nothing

    def respond(self, message: dict[str, Any]) -> None:
        """A reply to a server request (POSTed like any message; a 202 is expected and not read further)."""
        reply = self.post({"jsonrpc": "2.0", **message}, time.monotonic() + self.timeout)
        reply.connection.close()  # a 202 is expected; nothing of it is read

    def _exchange(
        self,
        method: str,
        params: Mapping[str, Any] | None,
        *,
        deadline: float,
        on_progress: ProgressCallback | None,
        timeout_name: str | None = None,
    ) -> dict[str, Any]:
        """One idempotent request before the call: anything but a plain reply falls back."""
        request_id = self.new_id()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = dict(params)
        limit = self.timeout
        mark = self.http_status.mark()
        try:
            reply = self.post(message, deadline)
            if method == "initialize":
                self._take_session(reply.response)
            if reply.status != OK_STATUS or not reply.content_type.startswith(READABLE_TYPES):
                reply.connection.close()
                raise LeanFallback(f"{method}: HTTP {reply.status}, {reply.content_type!r}")
            self.streams.follow_post(reply, request_id, resume=False)
            while True:
                incoming = self.streams.next(deadline)
                if "method" in incoming and "id" not in incoming:
                    continue  # a notification (log message, list change, progress): nothing a one-shot shows
                if "method" in incoming:
                    self._answer_before_call(incoming)
                    continue
                if incoming.get("id") != request_id:
                    continue  # a reply to nothing sent: the SDK drops it too
                if "error" in incoming or not isinstance(incoming.get("result"), dict):
                    # A reply cut at the size limit ends the command here, as it does on the full path.
                    oversize = self.http_status.oversize_since(mark)
                    if oversize is not None:
                        raise oversize
                    raise LeanFallback(f"{method}: an error reply")
                result: dict[str, Any] = incoming["result"]
                return result
        except TimeoutError:
            self.cancelled(request_id, f"timed out after {float(limit)}s")
            raise RequestTimedOut(timeout_name or method, limit) from None
        except (OSError, http.client.HTTPException) as exc:
            raise LeanFallback(f"{method}: {type(exc).__name__}") from None

    def streams_plain(self) -> None:
        """The GET stream's answer, once it came: LeanFallback if it asks for what only the full path does."""
        if not self.streams.get_answered.wait(self.timeout):
            raise LeanFallback("the GET stream did not answer")
        headers = self.streams.get_headers
        if headers is not None:
            _check_headers(headers)
        self.drain()

    def _open_get(self, extra: Mapping[str, str]) -> Reply:
        """A GET on the endpoint, as the SDK's `sse_within_origin` sends it (its SSE headers under the MCP ones)."""
        connection = self._connection(SSE_READ_TIMEOUT_SECONDS)
        headers = {**SSE_HEADERS, **self._headers(), **extra}
        try:
            connection.request("GET", self._path, headers=headers)
            response = connection.getresponse()
        except (OSError, http.client.HTTPException):
            connection.close()
            raise
        return Reply(response.status, response.getheader("content-type", "").lower(), response, connection)

    def _take_session(self, response: http.client.HTTPResponse) -> None:
        session = response.getheader(SESSION_HEADER)
        if session:
            self.session_id = session

    def cancelled(self, request_id: int, reason: str) -> None:
        """The courtesy `notifications/cancelled` the SDK sends for a request it gave up on."""
        if self.session_id is None:
            return
        self.committed = True  # past the deadline: whatever happens next is not a fallback
        with contextlib.suppress(LeanFallback):
            self._notify(
                "notifications/cancelled",
                {"requestId": request_id, "reason": reason},
                time.monotonic() + CLOSE_TIMEOUT_SECONDS,
            )


def _check_headers(headers: http.client.HTTPMessage) -> None:
    if headers.get("set-cookie") is not None:
        raise LeanFallback("the server sets a cookie")


def _initialize_result_known(result: dict[str, Any]) -> bool:
    """An `initialize` result the SDK's model certainly takes, speaking the revision offered."""
    info = result.get("serverInfo")
    instructions = result.get("instructions")
    return (
        result.get("protocolVersion") == LEGACY_VERSION
        and isinstance(result.get("capabilities"), dict)
        and all(isinstance(v, dict) for v in result["capabilities"].values())
        and isinstance(info, dict)
        and isinstance(info.get("name"), str)
        and isinstance(info.get("version"), str)
        and all(isinstance(info.get(k), str) for k in ("title", "description", "websiteUrl") if k in info)
        and set(info) <= {"name", "version", "title", "description", "websiteUrl", "icons"}
        and (instructions is None or isinstance(instructions, str))
        and set(result) <= {"protocolVersion", "capabilities", "serverInfo", "instructions", "_meta"}
    )
