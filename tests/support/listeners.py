"""Listeners on 127.0.0.1 that count who connects: the hosts a hostile schema points its `$ref`s at.

`CountingListener` answers every connection with a JSON schema over HTTP (so a
client that fetched would get something); `SilentListener` accepts and never
answers (a client that fetched would wait forever). Both count connections,
which is what the tests assert on: zero, because rea-tui never retrieves a
schema. `LoopWatch` records the longest the event loop went without running
a task (in wall-clock and in its thread's CPU time), to show a check or a
form never stalls it.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import socket
import threading
import time
from collections.abc import Iterator
from types import TracebackType

SCHEMA_BODY = b'{"type": "string"}'
ACCEPT_TIMEOUT = 0.2  # how often the accept loop looks at the stop flag (seconds)


class CountingListener:
    """Accepts TCP connections on 127.0.0.1, counts them, and answers like an HTTP schema server."""

    def __init__(self, *, answer: bool = True) -> None:
        self.answer = answer
        self.hits = 0
        self._stop = threading.Event()
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(16)
        self._socket.settimeout(ACCEPT_TIMEOUT)
        self.port = self._socket.getsockname()[1]
        self._open: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/schema.json"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._socket.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.hits += 1
            if self.answer:
                with connection:
                    connection.recv(65_536)
                    head = f"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(SCHEMA_BODY)}"
                    connection.sendall(head.encode() + b"\r\n\r\n" + SCHEMA_BODY)
            else:
                self._open.append(connection)  # held open, never answered

    def __enter__(self) -> CountingListener:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        for connection in self._open:
            connection.close()
        self._socket.close()


class SilentListener(CountingListener):
    """Accepts, counts, and never answers."""

    def __init__(self) -> None:
        super().__init__(answer=False)


class LoopWatch:
    """Runs beside the app in its event loop and keeps the longest gaps between its wake-ups.

    `longest` is wall-clock time; `longest_busy` is the CPU time the loop's thread spent in that gap,
    which is what the app's own work costs: on a shared machine the scheduler stretches wall time
    (a busy spell takes several times longer when the cores are oversubscribed), CPU time it does not.
    """

    TICK = 0.005  # seconds between wake-ups when the loop is free

    def __init__(self) -> None:
        self.longest = 0.0
        self.longest_busy = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _watch(self) -> None:
        last, last_cpu = time.perf_counter(), time.thread_time()
        while True:
            await asyncio.sleep(self.TICK)
            now, cpu = time.perf_counter(), time.thread_time()
            self.longest = max(self.longest, now - last - self.TICK)
            self.longest_busy = max(self.longest_busy, cpu - last_cpu)
            last, last_cpu = now, cpu

    @contextlib.contextmanager
    def running(self) -> Iterator[LoopWatch]:
        """Watch while the block runs, with the test worker's heap settled first: it carries every earlier
        test's objects, and a full collection of them landing in the watched stretch (131 ms busy in a
        loaded CI run, where the work watched took 8 to 10 ms) is not the app's. Frozen, they are out of
        the collector's way, as they are not in a real app (which settles its own heap as it starts)."""
        gc.collect()
        gc.freeze()
        self._task = asyncio.get_running_loop().create_task(self._watch())
        try:
            yield self
        finally:
            self._task.cancel()
            gc.unfreeze()
