"""The process's stdio wire, taken over before the SDK loads, and the early answer to the opening request.

`StdioFront` is created by `main` right after the arguments are checked:
file descriptor 0 then reads the null device and 1 writes to stderr, so
nothing a handler, library or child prints can corrupt the JSON-RPC wire. A
reader thread reads the wire; the client's opening request (`initialize`, or
`server/discover` at 2026-07-28) is answered at once from `early_handshake`,
while the main thread imports the SDK and builds the server. Every line is
then handed to the SDK (`stdio_serving`), in order; the SDK's own reply to
the opening request is compared with the early one (a difference is logged)
and not sent again. Only the standard library is imported here.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import sys
import threading
from typing import IO, Any

from rea_tui.server.early_handshake import early_reply

logger = logging.getLogger("rea_tui.server")

OPENING_WAIT_SECONDS = 0.1
"""How long `main` waits for an opening request already on its way before loading the SDK."""
_COMPACT = (",", ":")


def _claim_wire() -> tuple[IO[bytes], IO[bytes]]:
    """Private duplicates of fds 0 and 1; the standard descriptors are pointed elsewhere."""
    sys.stdout.flush()
    wire_in = os.fdopen(os.dup(0), "rb")
    wire_out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)  # stray prints end up in the log, not on the wire
    return wire_in, wire_out


def _id_key(value: Any) -> str:
    """Request ids compare by JSON value: 1 and "1" are different ids."""
    return json.dumps(value)


class StdioFront:
    def __init__(self) -> None:
        self._wire_in, self._wire_out = _claim_wire()
        self._lines: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._write_lock = threading.Lock()
        self._early: dict[str, dict[str, Any]] = {}
        """Replies already sent, by request id: the SDK's copy is compared and dropped."""
        self._opened = threading.Event()
        threading.Thread(target=self._read, name="rea-stdio-reader", daemon=True).start()

    def wait_for_opening(self, timeout: float = OPENING_WAIT_SECONDS) -> None:
        """Give a client that wrote its opening request at spawn its answer before the heavy imports start."""
        self._opened.wait(timeout)

    # -- the reader thread -------------------------------------------------------------------

    def _read(self) -> None:
        try:
            for line in iter(self._wire_in.readline, b""):
                if not self._opened.is_set():
                    self._answer_opening(line)
                self._lines.put(line)
        except (OSError, ValueError):
            logger.debug("stdin closed", exc_info=True)
        finally:
            self._opened.set()
            self._lines.put(None)

    def _answer_opening(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            return
        if not isinstance(message, dict) or "method" not in message or "id" not in message:
            return  # notifications and noise do not open a connection
        reply = early_reply(message)
        if reply is not None:
            with self._write_lock:
                self._early[_id_key(reply["id"])] = reply
                self._write(json.dumps(reply, separators=_COMPACT, ensure_ascii=False) + "\n")
        self._opened.set()

    # -- the wire ------------------------------------------------------------------------------

    def _write(self, text: str) -> None:
        self._wire_out.write(text.encode("utf-8"))
        self._wire_out.flush()

    def deliver(self, text: str) -> None:
        """Write one message from the SDK, unless it repeats a reply already sent early."""
        with self._write_lock:
            if self._early:
                try:
                    message = json.loads(text)
                except ValueError:
                    message = None
                if isinstance(message, dict) and "method" not in message:
                    early = self._early.pop(_id_key(message.get("id")), None)
                    if early is not None:
                        if message != early:
                            logger.warning(
                                "early handshake reply differs from the SDK's: sent %s, SDK %s", early, message
                            )
                        return
            self._write(text)

    def next_line(self) -> bytes | None:
        """The next line from the wire (blocking); None at end of input."""
        return self._lines.get()
