"""The lean client's open streams, each read by a thread into one inbox, as the SDK's transport reads them in tasks.

A request's POST reply (one JSON body or an SSE stream) and the standalone GET
stream opened after `notifications/initialized` deliver JSON-RPC messages in
arrival order, so a server request on either is answered while the reply
waits. What each stream does when it ends or breaks is what
`mcp.client.streamable_http` does: a POST stream that closed after an event
with an id is resumed with GET and `Last-Event-ID` (after the server's
`retry`, else a second); the GET stream reconnects the same way and gives up
after two failures in a row (a 405 is one); the SDK's stand-in errors, with
its words, resolve a request whose reply can no longer come. A body or an
event cut at the reply size limit is reported to `on_oversize` (the session's
`HttpStatusLog`, where the request's error is looked up) as the full path's
client reports it.
"""

from __future__ import annotations

import contextlib
import http.client
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from rea_tui.host.fastpath.lean_wire import (
    CONNECTION_CLOSED,
    OK_STATUS,
    PARSE_ERROR,
    Reply,
    SseEvent,
    SseFailed,
    Unreadable,
    is_event_stream,
    read_message,
    set_timeout,
    sse_events,
)
from rea_tui.host.transports.reply_limit import ReplyTooLarge

# The SDK's reconnection rules (mcp.client.streamable_http): the delay when the server names none,
# and how many failures in a row end the attempts.
DEFAULT_RECONNECTION_DELAY_MS = 1000
MAX_RECONNECTION_ATTEMPTS = 2
MS_PER_SECOND = 1000.0
# Statuses from here on are not a stream (httpx2's raise_for_status: anything but 2xx).
NOT_SUCCESS_FROM = 300
EXHAUSTED = "SSE stream ended and reconnection attempts were exhausted"
ENDED = "SSE stream ended without a response"

# Opens a GET on the endpoint with these extra headers, its socket bound by SSE_READ_TIMEOUT_SECONDS.
GetOpener = Callable[[dict[str, str]], Reply]
# Seconds a stream may stay silent (the SDK's MCP_DEFAULT_SSE_READ_TIMEOUT); the request's own clock is shorter.
SSE_READ_TIMEOUT_SECONDS = 300.0


def _stand_in(request_id: int, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _delay(retry_ms: int | None) -> float:
    return (retry_ms if retry_ms is not None else DEFAULT_RECONNECTION_DELAY_MS) / MS_PER_SECOND


class Streams:
    """The inbox of a lean session: every message its streams delivered, in arrival order."""

    def __init__(self, open_get: GetOpener, on_oversize: Callable[[ReplyTooLarge], None]) -> None:
        self._open_get = open_get
        self._on_oversize = on_oversize
        self._inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        # Set once the standalone GET has answered (or failed): its headers are known from then on.
        self.get_answered = threading.Event()
        self.get_headers: http.client.HTTPMessage | None = None

    def next(self, deadline: float) -> dict[str, Any]:
        """The next message; TimeoutError at the deadline."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        try:
            return self._inbox.get(timeout=remaining)
        except queue.Empty:
            raise TimeoutError from None

    def waiting(self) -> list[dict[str, Any]]:
        """The messages already delivered, taken without waiting for more."""
        taken: list[dict[str, Any]] = []
        with contextlib.suppress(queue.Empty):
            while True:
                taken.append(self._inbox.get_nowait())
        return taken

    def _spawn(self, target: Callable[..., None], *args: Any) -> None:
        threading.Thread(target=target, args=args, daemon=True).start()

    # ------------------------------------------------------------ the standalone GET stream

    def follow_get(self) -> None:
        """Open the GET stream for server-initiated messages, as the SDK does after `notifications/initialized`."""
        self._spawn(self._standalone)

    def _standalone(self) -> None:
        last_id: str | None = None
        retry_ms: int | None = None
        attempt = 0
        while attempt < MAX_RECONNECTION_ATTEMPTS:
            try:
                reply = self._open_get({"last-event-id": last_id} if last_id else {})
                if self.get_headers is None:
                    self.get_headers = reply.response.headers
                self.get_answered.set()
                if reply.status // 100 == NOT_SUCCESS_FROM // 100:
                    return  # a redirect: the SDK does not retry one either
                try:
                    if not OK_STATUS <= reply.status < NOT_SUCCESS_FROM:
                        raise http.client.HTTPException(f"HTTP {reply.status}")
                    for event in sse_events(reply):
                        last_id = event.id or last_id
                        retry_ms = event.retry if event.retry is not None else retry_ms
                        if event.event == "message" and event.data:
                            # What the SDK's model refuses here goes to no request: it is dropped.
                            with contextlib.suppress(Unreadable):
                                self._inbox.put(read_message(event.data))
                finally:
                    reply.connection.close()
                attempt = 0
            except (OSError, http.client.HTTPException, SseFailed):
                self.get_answered.set()
                attempt += 1
            if attempt >= MAX_RECONNECTION_ATTEMPTS:
                return
            time.sleep(_delay(retry_ms))

    # ------------------------------------------------------------ a request's reply

    def follow_post(self, reply: Reply, request_id: int, *, resume: bool) -> None:
        """Read a request's 200 reply into the inbox; `resume`: a stream cut after an event id is resumed."""
        set_timeout(reply.connection, time.monotonic() + SSE_READ_TIMEOUT_SECONDS)
        self._spawn(self._post_reply, reply, request_id, resume)

    def _post_reply(self, reply: Reply, request_id: int, resume: bool) -> None:
        try:
            if not reply.content_type.startswith("text/event-stream"):
                # One JSON body; the SDK takes it as it is (a reply with another id answers nothing).
                try:
                    self._inbox.put(read_message(reply.read_all()))
                except ReplyTooLarge as exc:
                    self._on_oversize(exc)
                    self._inbox.put(_stand_in(request_id, PARSE_ERROR, f"Failed to parse JSON response: {exc}"))
                except (Unreadable, OSError, http.client.HTTPException) as exc:
                    text = f"Failed to parse JSON response: {exc}"
                    self._inbox.put(_stand_in(request_id, PARSE_ERROR, text))
                return
            last_id, retry_ms = self._read_stream(reply, request_id)
        finally:
            reply.connection.close()
        if last_id is None:
            return
        if not resume:
            self._inbox.put(_stand_in(request_id, CONNECTION_CLOSED, ENDED))
            return
        self._resume(request_id, last_id, retry_ms)

    def _read_stream(self, reply: Reply, request_id: int) -> tuple[str | None, int | None]:
        """Deliver a request's stream; (None, _) once it is resolved, else the id and retry to resume with."""
        last_id: str | None = None
        retry_ms: int | None = None
        try:
            for event in sse_events(reply):
                last_id = event.id or last_id
                retry_ms = event.retry if event.retry is not None else retry_ms
                if self._delivered_response(event, request_id):
                    return None, None
        except (SseFailed, ReplyTooLarge) as exc:
            self._failed(request_id, exc)
            return None, None
        except (OSError, http.client.HTTPException):
            pass  # a broken stream is resumed like a closed one
        if last_id is None:
            self._inbox.put(_stand_in(request_id, CONNECTION_CLOSED, ENDED))
        return last_id, retry_ms

    def _failed(self, request_id: int, exc: SseFailed | ReplyTooLarge) -> None:
        """A stream the SDK's reader fails (its words); one cut at the size limit is reported too."""
        if isinstance(exc, ReplyTooLarge):
            self._on_oversize(exc)
        self._inbox.put(_stand_in(request_id, CONNECTION_CLOSED, f"SSE stream failed: {exc}"))

    def _delivered_response(self, event: SseEvent, request_id: int) -> bool:
        """An event of a request's stream into the inbox; True when it resolves the request."""
        if event.event != "message" or not event.data:
            return False  # another event type (the SDK logs it), or a priming event
        try:
            message = read_message(event.data)
        except Unreadable as exc:
            self._inbox.put(_stand_in(request_id, PARSE_ERROR, f"Failed to parse SSE message: {exc}"))
            return True
        answered = "result" in message or "error" in message
        if answered:
            message["id"] = request_id  # the SDK takes any response on a request's stream as that request's
        self._inbox.put(message)
        return answered

    def _resume(self, request_id: int, last_id: str, retry_ms: int | None) -> None:
        """`_handle_reconnection`: GET with Last-Event-ID until the reply comes or two attempts in a row fail."""
        attempt = 0
        while attempt < MAX_RECONNECTION_ATTEMPTS:
            time.sleep(_delay(retry_ms))
            streaming = False
            try:
                reply = self._open_get({"last-event-id": last_id})
                try:
                    if not OK_STATUS <= reply.status < NOT_SUCCESS_FROM:
                        raise http.client.HTTPException(f"HTTP {reply.status}")
                    streaming = is_event_stream(reply.content_type)
                    resumed_id, resumed_retry = last_id, retry_ms
                    for event in sse_events(reply):
                        resumed_id = event.id or resumed_id
                        resumed_retry = event.retry if event.retry is not None else resumed_retry
                        if self._delivered_response(event, request_id):
                            return
                finally:
                    reply.connection.close()
                # Ended again without the reply: resumed again from where this one stopped.
                last_id, retry_ms, attempt = resumed_id, resumed_retry, 0
            except (SseFailed, ReplyTooLarge) as exc:
                if streaming:
                    self._failed(request_id, exc)
                    return
                attempt += 1
            except (OSError, http.client.HTTPException):
                attempt += 1
        self._inbox.put(_stand_in(request_id, CONNECTION_CLOSED, EXHAUSTED))
