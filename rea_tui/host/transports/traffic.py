"""The traffic log: every JSON-RPC message in and out of a connection.

Bounded (5,000 entries by default, each payload kept up to 256 KiB), with
latency for responses and secrets redacted before anything is stored.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from rea_tui.host.protocol.observers import Listeners, Unsubscribe
from rea_tui.host.trust.safe_text import sanitize_line

Direction = Literal["out", "in", "info"]
Kind = Literal["request", "response", "error", "notification", "garbage", "event"]

MAX_ENTRIES = 5_000
MAX_PAYLOAD_CHARS = 256 * 1024
# How many recent results are kept whole, to hand a malformed one back to whoever sent its request.
RECENT_REPLIES = 64
REDACTED = "‹redacted›"
# How deep `redact_data` walks a value before it redacts the rest as text.
REDACT_DEPTH = 64


@dataclass(frozen=True)
class TrafficEntry:
    seq: int
    time: float
    direction: Direction
    kind: Kind
    method: str
    id: str
    size: int
    latency_ms: float | None
    payload: str

    def pretty(self) -> str:
        """The payload as indented JSON (or as it came, if it is not JSON)."""
        try:
            return json.dumps(json.loads(self.payload), indent=2, ensure_ascii=False)
        except ValueError:
            return self.payload


class TrafficLog:
    """A bounded, redacting record of one connection's messages."""

    def __init__(self, secrets: Iterable[str] = (), max_entries: int = MAX_ENTRIES) -> None:
        self._entries: deque[TrafficEntry] = deque(maxlen=max_entries)
        self._secrets = sorted({s for s in secrets if s}, key=len, reverse=True)
        self.listeners: Listeners[TrafficEntry] = Listeners()
        self._open_requests: dict[str, tuple[str, float]] = {}
        # Recent requests sent (method, params without `_meta`, id) and the results they got, by id.
        self._sent: deque[tuple[str, str, str]] = deque(maxlen=RECENT_REPLIES)
        self._results: dict[str, dict[str, Any]] = {}
        self._seq = 0

    def entries(self) -> list[TrafficEntry]:
        return list(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def subscribe(self, listener: Callable[[TrafficEntry], None]) -> Unsubscribe:
        return self.listeners.subscribe(listener)

    def add_secrets(self, secrets: Iterable[str]) -> None:
        """More values to redact from now on (tokens obtained while connected)."""
        self._secrets = sorted({*self._secrets, *(s for s in secrets if len(s) >= 4)}, key=len, reverse=True)

    def redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text

    def redact_data(self, data: Any, depth: int = 0) -> Any:
        """`data` (JSON: a log message's, say) with every string in it redacted, keys included.

        Below `REDACT_DEPTH` levels the rest is redacted as JSON text (a parsed message is bounded in
        depth already; this keeps the walk bounded whatever it is handed).
        """
        if isinstance(data, str):
            return self.redact(data)
        if depth >= REDACT_DEPTH and isinstance(data, dict | list):
            return self.redact(json.dumps(data, ensure_ascii=False, default=str))
        if isinstance(data, dict):
            return {self.redact(str(k)): self.redact_data(v, depth + 1) for k, v in data.items()}
        if isinstance(data, list | tuple):
            return [self.redact_data(item, depth + 1) for item in data]
        return data

    def record_message(self, direction: Direction, message: dict[str, Any], size: int | None = None) -> TrafficEntry:
        """Record one JSON-RPC message (already parsed) going `direction`."""
        mono = time.monotonic()
        raw_id = message.get("id")
        msg_id = "" if raw_id is None else str(raw_id)
        method = str(message.get("method", ""))
        latency: float | None = None
        kind: Kind
        if method and msg_id:
            kind = "request"
            self._open_requests[f"{direction}:{msg_id}"] = (method, mono)
            if direction == "out":
                self._sent.append((method, _params_key(message.get("params")), msg_id))
        elif method:
            kind = "notification"
        else:
            kind = "error" if "error" in message else "response"
            # A response travels the other way from its request.
            opener = "out" if direction == "in" else "in"
            opened = self._open_requests.pop(f"{opener}:{msg_id}", None)
            if opened is not None:
                method, started = opened
                latency = (mono - started) * 1000.0
            if direction == "in" and isinstance(message.get("result"), dict):
                self._keep_result(msg_id, message["result"])
        text = json.dumps(message, ensure_ascii=False, default=str)
        return self._append(direction, kind, method, msg_id, size if size is not None else len(text), latency, text)

    def record_garbage(self, direction: Direction, text: str) -> TrafficEntry:
        """Record bytes that were not a JSON-RPC message."""
        return self._append(direction, "garbage", "", "", len(text), None, text)

    def record_event(self, method: str, detail: str) -> TrafficEntry:
        """Record something about the connection itself (start, exit, reconnect)."""
        return self._append("info", "event", method, "", len(detail), None, detail)

    def _append(
        self,
        direction: Direction,
        kind: Kind,
        method: str,
        msg_id: str,
        size: int,
        latency: float | None,
        text: str,
    ) -> TrafficEntry:
        if len(text) > MAX_PAYLOAD_CHARS:
            text = text[:MAX_PAYLOAD_CHARS] + f"... ({len(text) - MAX_PAYLOAD_CHARS:,} more characters)"
        self._seq += 1
        entry = TrafficEntry(
            seq=self._seq,
            time=time.time(),
            direction=direction,
            kind=kind,
            method=method,
            id=msg_id,
            size=size,
            latency_ms=latency,
            payload=self.redact(text),
        )
        self._entries.append(entry)
        if len(self._open_requests) > 2 * MAX_ENTRIES:
            # Requests that never got an answer must not grow without bound.
            for key in list(self._open_requests)[:MAX_ENTRIES]:
                del self._open_requests[key]
        self.listeners.emit(entry)
        return entry

    def _keep_result(self, msg_id: str, result: dict[str, Any]) -> None:
        self._results[msg_id] = result
        while len(self._results) > RECENT_REPLIES:
            del self._results[next(iter(self._results))]

    def reply_to(self, method: str, params: Any) -> dict[str, Any] | None:
        """The result (as received) of the latest request sent with this method and these params."""
        key = _params_key(params)
        for sent_method, sent_key, msg_id in reversed(self._sent):
            if sent_method == method and sent_key == key and msg_id in self._results:
                return self._results[msg_id]
        return None

    def requests_sent(self, method: str) -> list[TrafficEntry]:
        return [e for e in self._entries if e.direction == "out" and e.kind == "request" and e.method == method]

    def format_table(self) -> str:
        """The log as text lines, for `--trace`."""
        lines = []
        for e in self._entries:
            stamp = time.strftime("%H:%M:%S", time.localtime(e.time)) + f".{int(e.time * 1000) % 1000:03d}"
            arrow = {"out": "->", "in": "<-", "info": "**"}[e.direction]
            latency = f"{e.latency_ms:8.1f} ms" if e.latency_ms is not None else " " * 11
            # Method names and ids of server-sent messages are the server's text.
            method, msg_id = sanitize_line(e.method, 80), sanitize_line(e.id, 40)
            lines.append(f"{stamp} {arrow} {e.kind:<12} {method:<28} id={msg_id:<6} {latency} {e.size:>8} B")
        return "\n".join(lines)


def _params_key(params: Any) -> str:
    """Params as sent, without the `_meta` the session stamps on them, as comparable text."""
    if isinstance(params, dict):
        params = {k: v for k, v in params.items() if k != "_meta"}
    return json.dumps(params or {}, sort_keys=True, ensure_ascii=True, default=str)
