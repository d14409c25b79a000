"""Sending the audit's requests, one at a time, each recorded as an `Exchange`.

The request and reply an exchange cites are the JSON-RPC messages exactly as
the connection's traffic log recorded them (secrets redacted), with their
traffic sequence numbers, so a finding can show and a UI can open them.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rea_tui.host.audit.report import Exchange, Outcome
from rea_tui.host.protocol.errors import (
    MALFORMED_RESULT,
    ProtocolError,
    RequestTimedOut,
    ServerExited,
    ServerUnavailable,
)

if TYPE_CHECKING:
    from rea_tui.host.protocol.connection import Connection
    from rea_tui.host.transports.traffic import TrafficEntry

NOT_AN_OBJECT = "the result is not a JSON object"


def _payload(entry: TrafficEntry | None) -> Any:
    if entry is None:
        return None
    try:
        return json.loads(entry.payload)
    except ValueError:
        return entry.payload  # cut by the traffic log's size bound: shown as recorded


class Prober:
    """Sends requests through one connection and cites what went over the wire."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.sent = 0
        self._captured: list[TrafficEntry] | None = None
        self._inflight: asyncio.Future[dict[str, Any]] | None = None
        self._unsubscribe = connection.traffic.subscribe(self._on_traffic)

    def close(self) -> None:
        self._unsubscribe()

    def _on_traffic(self, entry: TrafficEntry) -> None:
        if self._captured is not None:
            self._captured.append(entry)

    def cancel_inflight(self) -> None:
        """Cancel the request on the wire (the SDK sends notifications/cancelled); `send` returns "cancelled"."""
        if self._inflight is not None and not self._inflight.done():
            self._inflight.cancel()

    async def send(self, method: str, params: Mapping[str, Any], timeout: float) -> Exchange:
        """One request. Never raises for what the server did; only the caller's own cancellation propagates."""
        self._captured = []
        self.sent += 1
        started = time.perf_counter()
        task = asyncio.ensure_future(self.connection.request(method, params, timeout=timeout))
        self._inflight = task
        outcome: Outcome = "result"
        result: dict[str, Any] | None = None
        code: int | None = None
        data: Any = None
        note = ""
        try:
            result = await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
            outcome, note = "cancelled", "cancelled by the audit"
        except RequestTimedOut as exc:
            outcome, note = "timeout", str(exc)
        except ServerExited as exc:
            outcome, note = "exited", exc.describe()
        except ServerUnavailable as exc:
            outcome, note = "unavailable", str(exc)
        except ProtocolError as exc:
            if exc.code == MALFORMED_RESULT and exc.message.endswith(NOT_AN_OBJECT):
                outcome, note = "result", NOT_AN_OBJECT
            else:
                outcome, code, data, note = "error", exc.code, exc.data, str(exc)
        finally:
            captured, self._captured, self._inflight = self._captured or [], None, None
        latency = (time.perf_counter() - started) * 1000.0
        request_entry = next(
            (e for e in captured if e.direction == "out" and e.kind == "request" and e.method == method), None
        )
        reply_entry = None
        if request_entry is not None:
            reply_entry = next(
                (
                    e
                    for e in captured
                    if e.direction == "in" and e.kind in ("response", "error") and e.id == request_entry.id
                ),
                None,
            )
        request = _payload(request_entry)
        if request is None:
            request = {"method": method, "params": dict(params)}
        return Exchange(
            method=method,
            params=dict(params),
            request=request,
            reply=_payload(reply_entry),
            outcome=outcome,
            latency_ms=latency if outcome in ("result", "error") else None,
            result=result,
            error_code=code,
            error_data=data,
            note=note,
            request_seq=None if request_entry is None else request_entry.seq,
            reply_seq=None if reply_entry is None else reply_entry.seq,
        )
