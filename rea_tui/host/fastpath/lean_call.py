"""The lean client's `tools/call`: sent once, so every outcome is the one the SDK's path reports.

What can come back, and what the full path makes of it (mcp.client.streamable_http and the
host's `RequestSender`): a response in a JSON body or on the POST's SSE stream; a JSON-RPC
error (or, for an HTTP error status without one, the SDK's stand-in, turned back into the
HTTP status by `HttpStatusLog`); 202 for a request; a stream that ends without a response;
a reply that is not JSON-RPC (the SDK's parse error, its text from the SDK's own model,
imported only then); no reply within the timeout (the courtesy `notifications/cancelled`,
then `RequestTimedOut`). Requests the server makes meanwhile are answered as the full
path's callbacks answer them; time spent in the analyst's answers is off the clock.
"""

from __future__ import annotations

import http.client
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rea_tui.host.fastpath.lean_http import LeanHttp
from rea_tui.host.fastpath.lean_wire import (
    ACCEPTED_STATUS,
    ERROR_STATUS_FROM,
    INTERNAL_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    NOT_FOUND_STATUS,
    OK_STATUS,
    READABLE_TYPES,
    Unreadable,
    read_message,
)
from rea_tui.host.features.interaction import SAMPLING_DECLINED, ElicitationRequest, SamplingMessage, SamplingRequest
from rea_tui.host.protocol.errors import MALFORMED_RESULT, HostError, ProtocolError, RequestTimedOut, ServerUnavailable
from rea_tui.host.transports.reply_limit import ReplyTooLarge
from rea_tui.host.transports.traffic import TrafficLog

if TYPE_CHECKING:
    from rea_tui.host.protocol.requests import ProgressCallback


class LeanSession(LeanHttp):
    """The lean client with the one request that is sent only once (`run_tool_call` sends it through here)."""

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
        """The one non-idempotent request (`tools/call`): from here on nothing falls back."""
        limit = self.timeout if timeout is None else timeout
        self.committed = True
        current = dict(params)
        for _ in range(max_rounds + 1):
            result = await run_call(self, method, current, limit, on_progress)
            if result.get("resultType") != "input_required":
                return result
            # As `RequestSender.request_interactive`: the SDK's model reads the result (imported on this
            # rare branch, so a malformed one is refused in its words), the embedded requests are answered,
            # and the call is sent again with the answers.
            pending, state = _input_required(method, result)
            answers: dict[str, Any] = {}
            for key, asked in pending.items():
                answer = await _answer(self, {"id": key, **asked})
                if "error" in answer:
                    error = answer["error"]
                    raise ProtocolError.from_error(error["code"], error["message"], error.get("data"))
                answers[key] = answer["result"]
            current = dict(params)
            if answers:
                current["inputResponses"] = answers
            if state is not None:
                current["requestState"] = state
        raise ProtocolError(MALFORMED_RESULT, f"{method}: the server asked for input more than {max_rounds} times")


def _input_required(method: str, result: dict[str, Any]) -> tuple[dict[str, dict[str, Any]], str | None]:
    """The embedded requests (as wire messages, by key) and the request state of an `input_required` result."""
    import mcp_types as types

    try:
        pending = types.InputRequiredResult.model_validate(result, by_name=False)
    except ValueError as exc:  # pydantic's ValidationError
        raise ProtocolError(MALFORMED_RESULT, f"{method}: malformed input_required result: {exc}") from None
    asked = {
        key: request.model_dump(by_alias=True, mode="json", exclude_none=True)
        for key, request in (pending.input_requests or {}).items()
    }
    return asked, pending.request_state


async def run_call(
    lean: LeanHttp, method: str, params: Mapping[str, Any], limit: float, on_progress: ProgressCallback | None
) -> dict[str, Any]:
    """Send `method` once and return its result, or raise the HostError the full path would."""
    request_id = lean.new_id()
    sent = dict(params)
    if on_progress is not None:
        sent["_meta"] = {**sent.get("_meta", {}), "progressToken": request_id}
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": sent}
    clock = _Clock(lean, limit)
    mark = lean.http_status.mark()
    try:
        reply = await _outcome(lean, message, clock, on_progress)
    except TimeoutError:
        lean.cancelled(request_id, "caller cancelled")
        raise RequestTimedOut(method, limit) from None
    except (OSError, http.client.HTTPException) as exc:
        raise ServerUnavailable(f"{lean.name}: connection failed ({type(exc).__name__})") from None
    if "error" in reply:
        error = reply["error"]
        code, text = error["code"], error["message"]
        as_http = lean.http_status.error_for(lean.name, code, text, mark, method)
        redact = TrafficLog(lean.spec.secret_values()).redact
        raise as_http or ProtocolError.from_error(code, redact(text), error.get("data"))
    result = reply["result"]
    if not isinstance(result, dict):
        raise ProtocolError(MALFORMED_RESULT, f"{method}: the result is not a JSON object")
    return result


class _Clock:
    """The request's budget, stopped while the analyst answers (as `AnalystWaits.timed`)."""

    def __init__(self, lean: LeanHttp, limit: float) -> None:
        self._lean = lean
        self._started = time.monotonic()
        self._waited_before = lean.waits.waited()
        self._limit = limit if limit and limit > 0 else float("inf")

    @property
    def deadline(self) -> float:
        waited = self._lean.waits.waited() - self._waited_before
        return self._started + self._limit + waited


def _stand_in(code: int, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


async def _outcome(
    lean: LeanHttp, message: dict[str, Any], clock: _Clock, on_progress: ProgressCallback | None
) -> dict[str, Any]:
    """The response (or the SDK's stand-in error) the call's POST ends with."""
    method = message["method"]
    reply = lean.post(message, clock.deadline)
    status = reply.status
    if status == ACCEPTED_STATUS:
        reply.connection.close()
        return _stand_in(INVALID_REQUEST, "server answered a request with 202 Accepted")
    if status >= ERROR_STATUS_FROM:
        lean.http_status.record(status, method, reply.response.getheader("WWW-Authenticate", ""))
        try:
            body = reply.read_all()
        except ReplyTooLarge as exc:
            lean.http_status.record_oversize(exc)  # the full path's reader gives up on such a body too
            body = b""
        reply.connection.close()
        if reply.content_type.startswith("application/json"):
            try:
                parsed = read_message(body)
            except Unreadable:
                parsed = {}
            if "error" in parsed:
                return {"error": parsed["error"]}
        if status == NOT_FOUND_STATUS:
            if lean.session_id is None:
                return _stand_in(METHOD_NOT_FOUND, "Not Found")
            return _stand_in(INVALID_REQUEST, "Session terminated")
        return _stand_in(INTERNAL_ERROR, "Server returned an error response")
    if status != OK_STATUS:
        reply.connection.close()
        raise HostError(f"{lean.name}: HTTP {status} to {method} is not handled here")
    if not reply.content_type.startswith(READABLE_TYPES):
        reply.connection.close()
        return _stand_in(INVALID_REQUEST, f"Unexpected content type: {reply.content_type}")
    lean.streams.follow_post(reply, message["id"], resume=True)
    return await _reply(lean, message["id"], clock, on_progress)


async def _reply(
    lean: LeanHttp, request_id: int, clock: _Clock, on_progress: ProgressCallback | None
) -> dict[str, Any]:
    """Wait for the call's response, answering what the server asks meanwhile (on the call's stream or the GET one)."""
    while True:
        incoming = lean.streams.next(clock.deadline)
        if "method" not in incoming:
            if incoming.get("id") == request_id:
                return incoming
            continue  # a reply to nothing in flight: the SDK drops it too
        if "id" in incoming:
            lean.respond(await _answer(lean, incoming))
        elif incoming["method"] == "notifications/progress" and on_progress is not None:
            await _progressed(incoming.get("params", {}), request_id, on_progress)


async def _progressed(params: dict[str, Any], request_id: int, on_progress: ProgressCallback) -> None:
    progress, total, text = params.get("progress"), params.get("total"), params.get("message")
    if params.get("progressToken") != request_id or isinstance(progress, bool):
        return
    if not isinstance(progress, int | float) or not (total is None or isinstance(total, int | float)):
        return
    await on_progress(float(progress), None if total is None else float(total), text if isinstance(text, str) else None)


async def _answer(lean: LeanHttp, request: dict[str, Any]) -> dict[str, Any]:
    """The reply to a server request, as the full path's callbacks make it."""
    plain = lean.answer_plainly(request)
    if plain is not None:
        return plain
    method, params, request_id = request["method"], request.get("params", {}), request["id"]
    if method == "elicitation/create":
        return {"id": request_id, "result": await _elicited(lean, params)}
    # The SDK's table for the legacy revision holds four methods: this is the last one.
    return {"id": request_id, **await _sampled(lean, params)}


async def _elicited(lean: LeanHttp, params: dict[str, Any]) -> dict[str, Any]:
    message = str(params.get("message", ""))
    if params.get("mode") == "url":
        request = ElicitationRequest(
            server=lean.name,
            message=message,
            mode="url",
            url=str(params.get("url", "")),
            elicitation_id=params.get("elicitationId"),
        )
    else:
        schema = params.get("requestedSchema")
        request = ElicitationRequest(
            server=lean.name, message=message, mode="form", requested_schema=schema if isinstance(schema, dict) else {}
        )
    answer = await lean.elicit(request)
    content = answer.content if answer.action == "accept" and request.mode == "form" else None
    return {"action": answer.action, **({"content": content} if content is not None else {})}


async def _sampled(lean: LeanHttp, params: dict[str, Any]) -> dict[str, Any]:
    declined = {"error": {"code": INVALID_REQUEST, "message": SAMPLING_DECLINED}}
    answer = await lean.waits.sampling(lean.sampling_handler, sampling_request(lean.name, params))
    if answer.text is None:
        return declined
    return {"result": {"role": "assistant", "content": {"type": "text", "text": answer.text}, "model": answer.model}}


def sampling_request(server: str, params: dict[str, Any]) -> SamplingRequest:
    """A `sampling/createMessage` as the callbacks hand it to a handler."""
    messages = tuple(
        SamplingMessage(
            role=str(m.get("role")),
            text=str(m.get("content", {}).get("text", f"[{m.get('content', {}).get('type', '?')}]")),
        )
        for m in params.get("messages", [])
        if isinstance(m, dict)
    )
    return SamplingRequest(server, messages, params.get("systemPrompt"), int(params.get("maxTokens") or 0))
