"""The wire format of the lean HTTP client: JSON-RPC messages of the plainest shape, and SSE events.

Shared by `lean_http` (the session and the idempotent requests) and `lean_call` (the call).
"""

from __future__ import annotations

import http.client
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

# The legacy revision the SDK offers in `initialize`, and the ones it accepts back; the lean client
# takes only the one it offered (another answer goes to the full path, which knows them all).
LEGACY_VERSION = "2025-11-25"
# What the full path declares (the SDK's client with rea-tui's callbacks installed).
CLIENT_CAPABILITIES: dict[str, Any] = {
    "sampling": {},
    "elicitation": {"form": {}, "url": {}},
    "roots": {"listChanged": True},
}
ACCEPT = "application/json, text/event-stream"
SESSION_HEADER = "mcp-session-id"
VERSION_HEADER = "mcp-protocol-version"
# HTTP statuses: an answer with a body, and a notification taken.
OK_STATUS = 200
ACCEPTED_STATUS = 202
ERROR_STATUS_FROM = 400
NOT_FOUND_STATUS = 404
# The JSON-RPC codes of the SDK's stand-in errors.
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603
CONNECTION_CLOSED = -32000
# Seconds the DELETE at the end may take (the SDK's write bound is of that order too).
CLOSE_TIMEOUT_SECONDS = 5.0
SAMPLING_DECLINED = "The analyst declined the sampling request"


class LeanFallback(Exception):
    """Something the lean client does not handle happened before anything non-idempotent was sent."""


@dataclass
class Reply:
    """One HTTP response, read as far as the JSON-RPC message it carries."""

    status: int
    content_type: str
    response: http.client.HTTPResponse
    connection: http.client.HTTPConnection


def set_timeout(connection: http.client.HTTPConnection, deadline: float) -> None:
    if connection.sock is not None:
        connection.sock.settimeout(max(deadline - time.monotonic(), 0.001))


def sse_data(reply: Reply, deadline: float) -> Iterator[str]:
    """The `data` of each `message` event, as the stream delivers them (an empty one is a priming event)."""
    event, data = "message", list[str]()
    while True:
        set_timeout(reply.connection, deadline)
        raw = reply.response.readline()
        if not raw:
            return
        line = raw.decode("utf-8").rstrip("\r\n")
        if not line:
            if data and event == "message":
                yield "\n".join(data)
            elif not data and event != "message":
                raise LeanFallback(f"an SSE event {event!r}")
            event, data = "message", list[str]()
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "data":
            data.append(value)
        elif field == "event":
            event = value
        elif field in ("id", "retry", ""):
            continue
        else:
            raise LeanFallback(f"an SSE field {field!r}")


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
