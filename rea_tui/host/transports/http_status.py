"""What the HTTP layer said when a request failed, so it can be reported as HTTP.

The SDK's HTTP transports turn an error status without a JSON-RPC body into a
stand-in JSON-RPC error (404 becomes -32601 "Not Found", anything else -32603
"Server returned an error response"), which would hide a 401 or a missing
endpoint behind a protocol error. `HttpStatusLog` watches the responses of an
httpx client (a response hook) and keeps the failed ones; `error_for` turns
such a stand-in back into what happened: `AuthorizationRequired` for 401/403,
`HttpStatusError` for the rest. A reply cut at the reply size limit is kept
here too (`record_oversize`): the stand-in the reader made of it (its words
quoted in a parse or stream failure, a lost connection, an HTTP stand-in)
becomes the `ReplyTooLarge` that says which limit and how to raise it; a real
JSON-RPC error of the server stays what it is.
"""

from __future__ import annotations

import json
import re
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rea_tui.host.fastpath.lean_wire import CONNECTION_CLOSED  # the SDK's stand-in for a connection or stream lost
from rea_tui.host.protocol.errors import AuthorizationRequired, HostError, HttpStatusError

if TYPE_CHECKING:
    import httpx2

    from rea_tui.host.config.config import ServerSpec
    from rea_tui.host.transports.reply_limit import ReplyTooLarge

# The messages of the SDK's stand-in errors for an HTTP status without a JSON-RPC body.
STAND_IN_MESSAGES = ("Server returned an error response", "Not Found")
_PARAM = r'{name}=(?:"([^"]*)"|([^\s,]+))'


@dataclass(frozen=True)
class HttpFailure:
    """One error response of the MCP endpoint."""

    seq: int
    status: int
    method: str
    www_authenticate: str
    url: str

    def challenge(self, name: str) -> str | None:
        """A parameter of the `WWW-Authenticate` challenge (RFC 6750), e.g. `scope` or `error`."""
        match = re.search(_PARAM.format(name=re.escape(name)), self.www_authenticate)
        return (match.group(1) or match.group(2)) if match else None


# Why a 401/403 is not answered with a sign-in when the config gives the bearer (`--header 'Authorization: ...'`).
STATIC_BEARER_REFUSED = (
    "the server refused the Authorization header given in the config or with --header "
    "(rea-tui does not sign in while one is given)"
)


class HttpStatusLog:
    """The last error responses an MCP endpoint gave (bounded)."""

    def __init__(self, endpoint: str = "", *, static_authorization: bool = False) -> None:
        self.endpoint = endpoint
        self._failures: deque[HttpFailure] = deque(maxlen=32)
        self._seq = 0
        # Why the OAuth client did not answer the last 401/403 itself (set by it, or the config's own header).
        self.auth_reason: str | None = STATIC_BEARER_REFUSED if static_authorization else None
        # The last reply cut at the reply size limit, and when.
        self._oversize: tuple[int, ReplyTooLarge] | None = None

    @classmethod
    def for_spec(cls, spec: ServerSpec) -> HttpStatusLog:
        """The log for a server entry: one that sends its own Authorization header is not told to sign in."""
        own = spec.transport != "stdio" and any(k.lower() == "authorization" for k in spec.headers)
        return cls(spec.url, static_authorization=own)

    def mark(self) -> int:
        """A point in time: `since(mark)` only returns failures recorded after it."""
        return self._seq

    async def on_response(self, response: httpx2.Response) -> None:
        """httpx response hook: keep error responses to MCP messages and SSE streams (not OAuth requests)."""
        request = response.request
        if response.status_code < 400:
            return
        method = _jsonrpc_method(request)
        stream = request.method == "GET" and "text/event-stream" in request.headers.get("accept", "")
        if method or stream:
            self.record(response.status_code, method, response.headers.get("WWW-Authenticate", ""))

    def record(self, status: int, method: str = "", www_authenticate: str = "") -> HttpFailure:
        self._seq += 1
        failure = HttpFailure(self._seq, status, method, www_authenticate, self.endpoint)
        self._failures.append(failure)
        return failure

    def record_oversize(self, error: ReplyTooLarge) -> None:
        self._seq += 1
        self._oversize = (self._seq, error)

    def oversize_since(self, mark: int) -> ReplyTooLarge | None:
        """The reply size limit error of a reply read after `mark`, if one was cut."""
        if self._oversize is None or self._oversize[0] <= mark:
            return None
        return self._oversize[1]

    def since(self, mark: int, method: str | None = None) -> HttpFailure | None:
        """The newest failure after `mark` (of a request for `method`, when given)."""
        for failure in reversed(self._failures):
            if failure.seq <= mark:
                return None
            if method is None or not failure.method or failure.method == method:
                return failure
        return None

    def error_for(self, server: str, code: int, message: str, mark: int, method: str | None = None) -> HostError | None:
        """The HTTP-level error behind a stand-in JSON-RPC error, or None if it is a real JSON-RPC error.

        A reply cut at the size limit since `mark` is that error, whatever the reader made of it.
        """
        oversize = self.oversize_since(mark)
        if oversize is not None and (
            str(oversize) in message or code == CONNECTION_CLOSED or message in STAND_IN_MESSAGES
        ):
            return oversize
        if message not in STAND_IN_MESSAGES:
            return None
        failure = self.since(mark, method)
        return None if failure is None else failure_error(server, failure, self.auth_reason)


def failure_error(server: str, failure: HttpFailure, auth_reason: str | None = None) -> HostError:
    if failure.status in (401, 403):
        insufficient = failure.challenge("error") == "insufficient_scope"
        reason = "no usable token is held; sign in with `rea-tui auth login`"
        if failure.status == 403 and insufficient:
            reason = "the token lacks the scope; sign in again with `rea-tui auth login`"
        elif failure.status == 403:
            reason = "the server refused the token"
        if auth_reason and not (insufficient and auth_reason.startswith("no usable token")):
            reason = auth_reason
        return AuthorizationRequired(server, status=failure.status, scope=failure.challenge("scope"), reason=reason)
    return HttpStatusError(failure.url, failure.status)


def _jsonrpc_method(request: httpx2.Request) -> str:
    try:
        body: Any = json.loads(request.content or b"null")
    except (ValueError, UnicodeDecodeError, RuntimeError):
        return ""
    return str(body.get("method", "")) if isinstance(body, dict) else ""
