"""The process's stdio wire, taken over before the SDK loads, and the early answers on it.

`StdioFront` is created by `main` right after the arguments are checked:
file descriptor 0 then reads the null device and 1 writes to stderr, so
nothing a handler, library or child prints can corrupt the JSON-RPC wire. A
reader thread reads the wire while the main thread imports the SDK and builds
the server, and answers at once what `early_answers` can answer without it:
the opening request (`initialize`, or `server/discover` at 2026-07-28) and
the four lists. Every line is still handed to the SDK (`stdio_serving`), in
order (a request answered early under an id of the front's own); the SDK's
own reply to it is compared with the early one (a difference is logged) and
not sent again. Once the SDK reads its first line, it answers everything
itself. `main` waits for the opening request only (`wait_for_opening`): lists
that arrive while the SDK loads are answered by the reader within a few
milliseconds all the same.

The startup target opens only once the SDK has replied to every request
answered early (`wait_until_replayed`), so what the early prompt list said
about it (still opening) is what the SDK's copy says too; its readiness is
announced afterwards like any change. Only the standard library is imported
here.
"""

from __future__ import annotations

import logging
import os
import queue
import sys
import threading
from typing import IO

from rea_tui.server.protocol.early_answers import EarlyAnswers, Seen

logger = logging.getLogger("rea_tui.server")

OPENING_WAIT_SECONDS = 0.1
"""How long `main` waits for an opening request already on its way before loading the SDK."""
REPLAY_WAIT_SECONDS = 5.0
"""Longest the startup target's opening waits for the SDK's copies of the early replies."""


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


class StdioFront:
    def __init__(self, sentence: str | None) -> None:
        """`sentence`: what the early prompt list says about the target (None: lists wait for the SDK)."""
        self._wire_in, self._wire_out = _claim_wire()
        self._lines: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        """Held while a line is judged and its early reply written, and while the SDK's messages are."""
        self._answers = EarlyAnswers(sentence)
        self._serving = False
        self._opened = threading.Event()
        self._replayed = threading.Event()
        threading.Thread(target=self._read, name="rea-stdio-reader", daemon=True).start()

    def wait_for_opening(self, timeout: float = OPENING_WAIT_SECONDS) -> None:
        """Give a client that wrote its opening request at spawn its answer before the heavy imports start."""
        self._opened.wait(timeout)

    def wait_until_replayed(self, timeout: float = REPLAY_WAIT_SECONDS) -> bool:
        """Block until the SDK serves and has replied to every request answered early (False on timeout)."""
        return self._replayed.wait(timeout)

    # -- the reader thread -------------------------------------------------------------------

    def _read(self) -> None:
        try:
            for line in iter(self._wire_in.readline, b""):
                with self._lock:
                    seen = self._judge(line)
                    if self._answers.opened:
                        self._opened.set()
                self._lines.put(seen.replay)
        except (OSError, ValueError):
            logger.debug("stdin closed", exc_info=True)
        finally:
            with self._lock:
                self._answers.stop()
                self._note_replayed()
            self._opened.set()
            self._lines.put(None)

    def _judge(self, line: bytes) -> Seen:
        """The early answer to `line`, already written; a failure here leaves everything to the SDK."""
        try:
            seen = self._answers.line(line)
        except Exception:
            logger.exception("early answer failed; the SDK answers from here on")
            self._answers.stop()
            return Seen(line)
        if seen.reply is not None:
            self._write(seen.reply)
        return seen

    # -- the wire ------------------------------------------------------------------------------

    def _write(self, data: bytes) -> None:
        self._wire_out.write(data)
        self._wire_out.flush()

    def _note_replayed(self) -> None:
        if self._answers.settled:
            self._replayed.set()

    def deliver(self, text: str) -> None:
        """Write one message from the SDK, unless it repeats a reply already sent early."""
        with self._lock:
            if self._answers.outgoing(text):
                self._write(text.encode("utf-8"))
            self._note_replayed()

    def next_line(self) -> bytes | None:
        """The next line from the wire (blocking); None at end of input. The first call means the SDK serves."""
        if not self._serving:
            with self._lock:
                self._serving = True
                self._answers.stop()
                self._note_replayed()
        return self._lines.get()
