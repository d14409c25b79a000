"""The wire format of the lean HTTP client: JSON-RPC messages of the plainest shape, and SSE events.

Shared by `lean_http` (the session and the idempotent requests) and `lean_call` (the call).
"""

from __future__ import annotations

import codecs
import contextlib
import http.client
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from rea_tui.host.fastpath.early_lists import CLIENT_CAPABILITIES as CLIENT_CAPABILITIES
from rea_tui.host.fastpath.early_lists import CLIENT_INFO as CLIENT_INFO
from rea_tui.host.transports.reply_limit import BodyUndecodable, BoundedBody, max_reply_bytes
from rea_tui.host.transports.reply_limit import is_event_stream as is_event_stream

# The legacy revision the SDK offers in `initialize`, and the ones it accepts back; the lean client
# takes only the one it offered (another answer goes to the full path, which knows them all).
LEGACY_VERSION = "2025-11-25"
ACCEPT = "application/json, text/event-stream"
# The reply types a request's POST may carry (the SDK's prefix checks).
READABLE_TYPES = ("application/json", "text/event-stream")
# What httpx2 adds to an event-stream GET, under the MCP headers (so only cache-control stays).
SSE_HEADERS = {"accept": "text/event-stream", "cache-control": "no-store"}
SESSION_HEADER = "mcp-session-id"
VERSION_HEADER = "mcp-protocol-version"
# HTTP statuses: an answer with a body, and a notification taken.
OK_STATUS = 200
ACCEPTED_STATUS = 202
ERROR_STATUS_FROM = 400
NOT_FOUND_STATUS = 404
# The JSON-RPC codes of the SDK's stand-in errors.
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603
CONNECTION_CLOSED = -32000
PARSE_ERROR = -32700
# Seconds the DELETE at the end may take (the SDK's write bound is of that order too).
CLOSE_TIMEOUT_SECONDS = 5.0
# Bytes read from a stream at a time (any size works; the parser joins partial lines).
READ_CHUNK_BYTES = 64 * 1024


class LeanFallback(Exception):
    """Something the lean client does not handle happened before anything non-idempotent was sent."""


class Undecodable(http.client.HTTPException):
    """A compressed body that does not decompress (a broken reply, like a cut connection)."""


@dataclass
class Reply:
    """One HTTP response, read as far as the JSON-RPC message it carries.

    Its body is read only through `read_all` and `read_some`: decoded (gzip, deflate) and held to
    the reply size limit (`ReplyTooLarge`), as the full path's httpx2 client holds it (`httpx_bounds`).
    """

    status: int
    content_type: str
    response: http.client.HTTPResponse
    connection: http.client.HTTPConnection

    def __post_init__(self) -> None:
        try:
            self._body = BoundedBody(self.response.getheader("content-encoding"), self.content_type)
        except BodyUndecodable as exc:
            raise Undecodable(str(exc)) from None

    def read_some(self) -> bytes:
        """The next decoded bytes of the body as they arrive; b"" at its end."""
        try:
            while True:
                raw = self.response.read1(READ_CHUNK_BYTES)
                if not raw:
                    if self.response.length:  # the connection ended before the length it declared
                        raise http.client.IncompleteRead(b"", self.response.length)
                    return b"".join(self._body.finish())
                decoded = b"".join(self._body.feed(raw))
                if decoded:
                    return decoded
        except BodyUndecodable as exc:
            raise Undecodable(str(exc)) from None

    def read_all(self) -> bytes:
        """The whole decoded body."""
        pieces: list[bytes] = []
        while piece := self.read_some():
            pieces.append(piece)
        return b"".join(pieces)


def set_timeout(connection: http.client.HTTPConnection, deadline: float) -> None:
    if connection.sock is not None:
        connection.sock.settimeout(max(deadline - time.monotonic(), 0.001))


class SseFailed(Exception):
    """A stream the SDK's SSE reader refuses (its words): another content type, an event over the size limit."""


@dataclass(frozen=True)
class SseEvent:
    """One dispatched event, as httpx2's reader makes it (`id` is the stream's last event id so far)."""

    event: str
    data: str
    id: str
    retry: int | None


class _SseParser:
    """httpx2's SSE line and event decoders, ported: CR, LF and CRLF end lines; an event waits for a blank line."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._pending_size = 0
        self._trailing_cr = False
        self._event, self._data, self._last_id = "", list[str](), ""
        self._retry: int | None = None
        self._dispatch = False
        self._event_size = 0
        self._limit = max_reply_bytes()

    def feed(self, text: str) -> list[SseEvent]:
        if self._trailing_cr:
            text, self._trailing_cr = "\r" + text, False
        if text.endswith("\r"):
            text, self._trailing_cr = text[:-1], True
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        if "\n" not in text:
            self._append(text)
            self._check_size(self._pending_size)
            return []
        lines = text.split("\n")
        self._append(lines[0])
        lines[0] = self._take_pending()
        self._append(lines.pop())
        events = [event for event in map(self._line, lines) if event is not None]
        self._check_size(self._pending_size)
        return events

    def flush(self) -> list[SseEvent]:
        if self._trailing_cr:
            self._append("\n")
            self._trailing_cr = False
        buffer = self._take_pending()
        lines = buffer.split("\n") if buffer else []
        return [event for event in map(self._line, lines) if event is not None]

    def _append(self, text: str) -> None:
        if text:
            self._parts.append(text)
            self._pending_size += len(text.encode("utf-8"))

    def _take_pending(self) -> str:
        pending = "".join(self._parts)
        self._parts, self._pending_size = [], 0
        return pending

    def _check_size(self, pending: int = 0) -> None:
        if self._event_size + pending > self._limit:
            raise SseFailed(f"Server-sent event exceeded the {self._limit} byte limit.")

    def _line(self, line: str) -> SseEvent | None:
        if not line:
            self._event_size = 0
            if not self._dispatch:
                return None
            event = SseEvent(self._event or "message", "\n".join(self._data), self._last_id, self._retry)
            self._event, self._data, self._retry, self._dispatch = "", [], None, False
            return event
        if line.startswith(":"):
            return None
        self._event_size += len(line.encode("utf-8"))
        self._check_size()
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            self._event, self._dispatch = value, True
        elif field == "data":
            self._data.append(value)
            self._dispatch = True
        elif field == "id" and "\0" not in value:
            self._last_id, self._dispatch = value, True
        elif field == "retry":
            with contextlib.suppress(ValueError):
                self._retry, self._dispatch = int(value), True
        return None


def sse_events(reply: Reply, deadline: float | None = None) -> Iterator[SseEvent]:
    """The events of a stream as they arrive; SseFailed as the SDK's reader fails; the end of the stream ends it."""
    if not is_event_stream(reply.content_type):
        found = reply.content_type.partition(";")[0].strip()
        raise SseFailed(f"Expected response with content type 'text/event-stream', got {found!r}.")
    parser = _SseParser()
    # httpx2 reads the body as text in the response's charset, replacing what does not decode.
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    while True:
        if deadline is not None:
            set_timeout(reply.connection, deadline)
        chunk = reply.read_some()
        if not chunk:
            yield from parser.feed(decoder.decode(b"", final=True))
            yield from parser.flush()
            return
        yield from parser.feed(decoder.decode(chunk))


def plain_message(message: Any) -> dict[str, Any]:
    """A JSON-RPC message of the plainest shape (the SDK's model takes it as is); ValueError otherwise."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        raise ValueError("not a JSON-RPC 2.0 message")
    request_id = message.get("id")
    if "id" in message and (isinstance(request_id, bool) or not isinstance(request_id, int | str)):
        raise ValueError("an id that is not a number or a string")
    if "method" in message:
        if not isinstance(message["method"], str) or not isinstance(message.get("params", {}), dict):
            raise ValueError("a malformed request or notification")
        if set(message) - {"jsonrpc", "id", "method", "params"}:
            raise ValueError("extra members")
        return message
    if "result" in message:
        if "id" not in message or set(message) - {"jsonrpc", "id", "result"}:
            raise ValueError("a malformed response")
        return message
    error = message.get("error")
    if (
        "id" not in message
        or not isinstance(error, dict)
        or isinstance(error.get("code"), bool)
        or not isinstance(error.get("code"), int)
        or not isinstance(error.get("message"), str)
        or set(message) - {"jsonrpc", "id", "error"}
    ):
        raise ValueError("a malformed error")
    return message


class Unreadable(Exception):
    """A message the SDK's JSON-RPC model refuses; the text is the model's."""


def read_message(raw: bytes | str) -> dict[str, Any]:
    """A JSON-RPC message as the SDK reads it: the plainest shape directly, anything else through the SDK's model.

    The model (imported only on that rare branch) decides what a reply of another shape is, so its
    verdict and its words are the full path's; Unreadable when it refuses.
    """
    try:
        return plain_message(json.loads(raw))
    except ValueError:
        pass
    from mcp_types.jsonrpc import jsonrpc_message_adapter

    try:
        message = jsonrpc_message_adapter.validate_json(raw, by_name=False)
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        raise Unreadable(str(exc)) from None
    dumped: dict[str, Any] = message.model_dump(by_alias=True, mode="json", exclude_unset=True)
    return dumped
