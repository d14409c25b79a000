"""Transports that feed the MCP SDK's session and record every message.

`StdioProcess` runs a server as a subprocess. It keeps what the SDK's stdio
client does not give us: the exit code, the server's stderr in a bounded
buffer (never written to our terminal), a bound on message size, and a record
of each line in the traffic log. `TappedTransport` wraps any other transport
(streamable HTTP) so its messages are recorded too.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
from collections.abc import Iterable, Mapping
from contextlib import AbstractAsyncContextManager, suppress
from subprocess import PIPE
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any, Protocol

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from rea_tui.host.config.config import ServerSpec
from rea_tui.host.protocol.errors import HostError, ServerUnavailable
from rea_tui.host.transports.traffic import REDACTED, TrafficLog

if TYPE_CHECKING:
    from mcp.shared.message import SessionMessage

# A single message above this is dropped (and reported) rather than buffered.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
STDERR_BUFFER_BYTES = 256 * 1024
# Of a line that is not JSON: how much the traffic log keeps, and how much the message quotes.
GARBAGE_KEPT = 2_000
GARBAGE_SHOWN = 200
# After stdout closed, how long the process has to report its exit code.
_EXIT_GRACE_SECONDS = 2.0
# At close, what a server was sent it has received (the SDK sends nothing at close), so it gets a
# moment to leave on end-of-input, then SIGTERM: waiting longer only made every command slower
# (the bundled server took 0.8 s to leave after EOF, server-everything 0.36 s).
_EOF_GRACE_SECONDS = 0.05
# After SIGTERM, how long before SIGKILL.
_TERM_GRACE_SECONDS = 2.0
_EXIT_POLL_SECONDS = 0.005
# How much lower than the host stdio servers started in a crowd run (nice values; 19 is the lowest priority).
CROWD_NICENESS_STEP = 10
MAX_NICENESS = 19

# Environment a stdio server gets besides what its config names. Like the
# common MCP clients, rea-tui does not hand the whole environment to a server.
_INHERITED_ENV = (
    "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR",
    "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
    "VIRTUAL_ENV", "PYTHONPATH", "SYSTEMROOT",
)  # fmt: skip

Streams = tuple[MemoryObjectReceiveStream["SessionMessage | Exception"], MemoryObjectSendStream["SessionMessage"]]


def server_environment(extra: Mapping[str, str]) -> dict[str, str]:
    env = {k: os.environ[k] for k in _INHERITED_ENV if k in os.environ}
    env.update(extra)
    return env


def to_wire(message: SessionMessage) -> dict[str, Any]:
    dumped: dict[str, Any] = message.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
    return dumped


def parse_message(obj: Any) -> SessionMessage | None:
    """A decoded JSON value as a session message, or None if it is not JSON-RPC."""
    import mcp_types
    from mcp.shared.message import SessionMessage
    from pydantic import ValidationError

    try:
        return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_python(obj, by_name=False))
    except ValidationError:
        return None


class BadServerOutput(Exception):
    """The server wrote something that is not a JSON-RPC message."""


class StderrBuffer:
    """The last `limit` bytes a server wrote to stderr, with the configured secrets redacted when read."""

    def __init__(self, limit: int = STDERR_BUFFER_BYTES, secrets: Iterable[str] = ()) -> None:
        self._data = bytearray()
        self._limit = limit
        self.total_bytes = 0
        # A server that echoes its token (from env or a header) must not show it in the stderr tab.
        self._secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    def append(self, chunk: bytes) -> None:
        self.total_bytes += len(chunk)
        self._data += chunk
        if len(self._data) > self._limit:
            del self._data[: len(self._data) - self._limit]

    def text(self) -> str:
        text = self._data.decode("utf-8", errors="replace")
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text

    def tail(self, lines: int = 20) -> str:
        return "\n".join(self.text().rstrip("\n").split("\n")[-lines:]) if self._data else ""


def _id_key(value: Any) -> str:
    """Request ids compare by JSON value: 1 and "1" are different ids."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def start_server_process(spec: ServerSpec, *, niceness: int = 0) -> subprocess.Popen[bytes]:
    """Start a stdio server. Plain `subprocess`, so it can run before any event loop (or the SDK) exists.

    The server gets a process group of its own (the terminal's keys do not reach
    it, and closing kills whatever it started) but stays in the host's session,
    so where the kernel groups scheduling by session (autogroup) the host and
    its servers share one group. `niceness`: how many nice levels below the
    host it runs (`crowd_niceness`).
    """
    try:
        process = subprocess.Popen(
            [spec.command, *spec.args],
            stdin=PIPE,
            stdout=PIPE,
            stderr=PIPE,
            cwd=spec.cwd or None,
            env=server_environment(spec.env),
            process_group=0,
        )
    except OSError as exc:
        raise ServerUnavailable(f"cannot start {spec.display_target()}: {exc.strerror or exc}") from exc
    if niceness:
        _lower_priority(process.pid, niceness)
    return process


async def cancel_and_wait(task: asyncio.Task[Any] | None) -> None:
    """Cancel `task` (if any) and wait until it has ended."""
    if task is not None:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task


async def stop_process(process: subprocess.Popen[bytes], term_grace: float = _TERM_GRACE_SECONDS) -> None:
    """With stdin closed: a moment to exit, then SIGTERM the process group, then SIGKILL it."""
    steps = (None, _EOF_GRACE_SECONDS), (signal.SIGTERM, term_grace), (signal.SIGKILL, _TERM_GRACE_SECONDS)
    for sig, grace in steps:
        if sig is not None and process.poll() is None:
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, sig)
        with anyio.move_on_after(grace):
            while process.poll() is None:
                await anyio.sleep(_EXIT_POLL_SECONDS)
        if process.poll() is not None:
            return


async def end_unadopted(process: subprocess.Popen[bytes]) -> None:
    """End a server started early (`start_server_process`) that no connection took: as a closed one ends."""
    if process.stdin is not None:
        with suppress(OSError):
            process.stdin.close()
    await stop_process(process)
    for pipe in (process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()


def crowd_niceness(servers: int) -> int:
    """How far below the host servers started together run: more of them than CPU cores would starve the
    screen (twenty bundled servers on two cores: all ready in 2.6 s ten levels down, 6.3 s five down, 8.9 s
    at the host's level), while fewer leave it a core, and then a server's calls keep the host's priority."""
    return CROWD_NICENESS_STEP if servers > (os.cpu_count() or 1) else 0


def _lower_priority(pid: int, step: int) -> None:
    if hasattr(os, "setpriority"):  # not on Windows
        with suppress(OSError):  # the process may already be gone
            niceness = os.getpriority(os.PRIO_PROCESS, 0) + step
            os.setpriority(os.PRIO_PROCESS, pid, min(niceness, MAX_NICENESS))


class _PipeReader:
    """A child's output pipe as an async iterator of byte chunks."""

    def __init__(self, pipe: IO[bytes]) -> None:
        self._pipe = pipe
        self._reader: asyncio.StreamReader | None = None
        self._transport: asyncio.BaseTransport | None = None
        self._opening: asyncio.Future[asyncio.StreamReader] | None = None

    async def _open(self) -> asyncio.StreamReader:
        if self._reader is None:
            if self._opening is None:
                self._opening = asyncio.ensure_future(self._connect())
            # Shielded: a reader cancelled while the pipe is being connected (the early reader, when the
            # session takes over) must not leave it half connected for the next one.
            self._reader = await asyncio.shield(self._opening)
        return self._reader

    async def _connect(self) -> asyncio.StreamReader:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=1 << 20)
        self._transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), self._pipe)
        return reader

    def __aiter__(self) -> _PipeReader:
        return self

    async def __anext__(self) -> bytes:
        chunk = await (await self._open()).read(1 << 16)
        if not chunk:
            raise StopAsyncIteration
        return chunk

    def close(self) -> None:
        if self._opening is not None and not self._opening.done():
            self._opening.cancel()
        if self._transport is not None:
            self._transport.close()
        else:
            self._pipe.close()


class _PipeWriter:
    """A child's stdin pipe, written with back-pressure."""

    def __init__(self, pipe: IO[bytes]) -> None:
        self._pipe = pipe
        self._writer: asyncio.StreamWriter | None = None
        self._opening: asyncio.Future[asyncio.StreamWriter] | None = None

    async def send(self, data: bytes) -> None:
        if self._writer is None:
            if self._opening is None:
                self._opening = asyncio.ensure_future(self._connect())
            # Shielded, as the reader's: a cancelled first writer must not leave the pipe half connected.
            self._writer = await asyncio.shield(self._opening)
        self._writer.write(data)
        await self._writer.drain()

    async def _connect(self) -> asyncio.StreamWriter:
        loop = asyncio.get_running_loop()
        transport, protocol = await loop.connect_write_pipe(lambda: asyncio.streams.FlowControlMixin(), self._pipe)
        return asyncio.StreamWriter(transport, protocol, None, loop)

    def close(self) -> None:
        if self._opening is not None and not self._opening.done():
            self._opening.cancel()
        if self._writer is not None:
            self._writer.close()
        else:
            self._pipe.close()


class StdioProcess(AbstractAsyncContextManager[Streams]):
    """Run `spec` as a subprocess speaking newline-delimited JSON-RPC.

    The process may have been started earlier (`start_server_process`, e.g.
    before the TUI's first frame) and handed in as `started`.
    """

    def __init__(
        self,
        spec: ServerSpec,
        traffic: TrafficLog,
        stderr: StderrBuffer,
        started: subprocess.Popen[bytes] | None = None,
    ) -> None:
        self._spec = spec
        self._traffic = traffic
        self.stderr = stderr
        self._process: subprocess.Popen[bytes] | None = None
        self._started = started
        self._stdin: _PipeWriter | None = None
        self._stdout: _PipeReader | None = None
        self._stderr_pipe: _PipeReader | None = None
        self._tg: anyio.abc.TaskGroup | None = None
        self.exited = anyio.Event()
        # Why reading the server's output stopped, when it was not the server closing it.
        self.failure: str | None = None
        self._streams: list[Any] = []
        # Stopped by `abandon`: the SDK's session is not to see the server's output end.
        self._abandoned = False
        # Before the SDK reads this process (`early_request`): the replies awaited, by request id; every
        # id sent so far (a late reply to one is not the SDK's); the lines held for the SDK's session;
        # and the start of a line not yet ended.
        self._early_waiters: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._early_ids: set[str] = set()
        self._held: list[bytes] = []
        self._partial = bytearray()
        self._early_reader: asyncio.Task[None] | None = None
        # The server's stderr is read from the first early request on (a chatty server must not block).
        self._stderr_reader: asyncio.Task[None] | None = None

    @property
    def returncode(self) -> int | None:
        return None if self._process is None else self._process.poll()

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    async def spawn(self) -> None:
        """Start the server process, or adopt the one started earlier (needs no SDK)."""
        if self._process is not None:
            return
        process = self._started or start_server_process(self._spec)
        self._started = None
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        self._process = process
        self._stdin = _PipeWriter(process.stdin)
        self._stdout = _PipeReader(process.stdout)
        self._stderr_pipe = _PipeReader(process.stderr)
        self._traffic.record_event("process/started", f"pid {process.pid}: {self._spec.display_target()}")

    # -- before the SDK reads the process ----------------------------------------------------

    async def early_request(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send a request of the host's own, apart from the SDK's session (even before it exists); its reply, raw.

        Until the session reads this process, every other line the server writes is held, in order, for
        it. Raises ServerUnavailable when the output ends first.
        """
        assert self._stdin is not None, "only after spawn"
        key = _id_key(request.get("id"))
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._early_waiters[key] = future
        self._early_ids.add(key)
        if self._early_reader is None and self._tg is None:
            self._early_reader = asyncio.create_task(self._read_early(), name="early reader")
            self._stderr_reader = asyncio.create_task(self._read_stderr(), name="stderr reader")
        data = json.dumps(request, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        self._traffic.record_message("out", request, size=len(data))
        try:
            await self._stdin.send(data)
            return await future
        finally:
            self._early_waiters.pop(key, None)

    async def _read_early(self) -> None:
        # Only the read awaits, so the session can take over between any two chunks without losing a byte.
        assert self._stdout is not None
        with suppress(OSError):
            async for chunk in self._stdout:
                self._partial += chunk
                while (end := self._partial.find(b"\n")) != -1:
                    line = bytes(self._partial[:end])
                    del self._partial[: end + 1]
                    self._early_line(line)
                if len(self._partial) > MAX_MESSAGE_BYTES:
                    break  # the session's reader drops it
        self._end_early(ServerUnavailable(f"{self._spec.name}: the server's output ended"))

    def _early_line(self, line: bytes) -> None:
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            obj = None
        if isinstance(obj, dict) and self._is_early_reply(obj):
            self._traffic.record_message("in", obj, size=len(line))
            self._answer_early(obj)
        else:
            self._held.append(line)

    def _is_early_reply(self, obj: dict[str, Any]) -> bool:
        return bool(self._early_ids) and "method" not in obj and _id_key(obj.get("id")) in self._early_ids

    def _answer_early(self, reply: dict[str, Any]) -> None:
        """A reply to one of the host's own requests (a late one, its asker gone, is dropped)."""
        waiter = self._early_waiters.get(_id_key(reply.get("id")))
        if waiter is not None and not waiter.done():
            waiter.set_result(reply)

    def _end_early(self, error: HostError) -> None:
        for waiter in self._early_waiters.values():
            if not waiter.done():
                waiter.set_exception(error)

    async def _stop_early(self) -> None:
        """The session's reader takes over (it answers the host's own requests from then on)."""
        reader, self._early_reader = self._early_reader, None
        await cancel_and_wait(reader)

    # -- the SDK's session ------------------------------------------------------------------------

    async def __aenter__(self) -> Streams:
        await self.spawn()
        await self._stop_early()
        to_session, session_reads = anyio.create_memory_object_stream["SessionMessage | Exception"](64)
        session_writes, from_session = anyio.create_memory_object_stream["SessionMessage"](64)
        self._streams = [to_session, session_reads, session_writes, from_session]
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        self._tg.start_soon(self._read_stdout, to_session)
        self._tg.start_soon(self._write_stdin, from_session)
        if self._stderr_reader is None:
            self._tg.start_soon(self._read_stderr)
        return session_reads, session_writes

    async def _read_stdout(self, to_session: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
        assert self._stdout is not None
        # What was read before the session took over comes first.
        buffer, self._partial = self._partial, bytearray()
        dropping = False
        async with to_session:
            try:
                held, self._held = self._held, []
                for line in held:
                    await self._deliver(line, to_session)
                async for chunk in self._stdout:
                    start = 0
                    while (end := chunk.find(b"\n", start)) != -1:
                        if not dropping:
                            buffer += chunk[start:end]
                            await self._deliver(bytes(buffer), to_session)
                        buffer.clear()
                        dropping = False
                        start = end + 1
                    if not dropping:
                        buffer += chunk[start:]
                        if len(buffer) > MAX_MESSAGE_BYTES:
                            dropping = True
                            buffer.clear()
                            self._traffic.record_garbage("in", "(message over 64 MiB dropped)")
                            await to_session.send(BadServerOutput("the server sent a message over 64 MiB; dropped"))
                if buffer and not dropping:
                    await self._deliver(bytes(buffer), to_session)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
                pass
            except Exception as exc:
                # Never a silent death: the connection is marked failed with the reason (f5 starts afresh).
                self.failure = f"reading the server's output failed: {type(exc).__name__}: {exc}"
                self._traffic.record_event("reader/failed", self.failure)
                self.exited.set()
            finally:
                self._end_early(ServerUnavailable(f"{self._spec.name}: the server's output ended"))
                if not self.exited.is_set():
                    await self._wait_for_exit()
                if self._abandoned:
                    await anyio.sleep_forever()  # the stream stays open: see `abandon`

    async def _deliver(self, line: bytes, to_session: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
        if not line.strip():
            return
        try:
            obj = json.loads(line)
        except ValueError:
            text = line[:GARBAGE_KEPT].decode("utf-8", errors="replace")
            self._traffic.record_garbage("in", text)
            await to_session.send(
                BadServerOutput(f"the server wrote a line that is not JSON: {text[:GARBAGE_SHOWN]!r}")
            )
            return
        except RecursionError:
            self._traffic.record_garbage("in", f"(a message nested too deeply to read, {len(line):,} bytes, dropped)")
            await to_session.send(BadServerOutput("the server sent a message nested too deeply to read; dropped"))
            return
        if isinstance(obj, dict):
            self._traffic.record_message("in", obj, size=len(line))
            if self._is_early_reply(obj):
                self._answer_early(obj)  # not the session's
                return
        else:
            self._traffic.record_garbage("in", line[:2000].decode("utf-8", errors="replace"))
        try:
            message = parse_message(obj)
        except RecursionError:
            message = None
        if message is None:
            await to_session.send(BadServerOutput("the server sent JSON that is not a JSON-RPC message"))
            return
        await to_session.send(message)

    async def _write_stdin(self, from_session: MemoryObjectReceiveStream[SessionMessage]) -> None:
        assert self._stdin is not None
        stdin = self._stdin
        async with from_session:
            try:
                async for message in from_session:
                    wire = to_wire(message)
                    data = json.dumps(wire, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
                    self._traffic.record_message("out", wire, size=len(data))
                    await stdin.send(data)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                pass

    async def _read_stderr(self) -> None:
        assert self._stderr_pipe is not None
        with suppress(OSError):
            async for chunk in self._stderr_pipe:
                self.stderr.append(chunk)

    async def _wait_for_exit(self, timeout: float = _EXIT_GRACE_SECONDS) -> None:
        """After stdout closed: give the process a moment to report its exit code."""
        assert self._process is not None
        with anyio.move_on_after(timeout), anyio.CancelScope(shield=True):
            while self.returncode is None:
                await anyio.sleep(0.01)
        if self.returncode is not None and not self.exited.is_set():
            self._traffic.record_event("process/exited", f"exit code {self.returncode}")
        self.exited.set()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        process = self._process
        assert process is not None and self._tg is not None
        # Shielded so a cancelled caller cannot leave the server process running.
        with anyio.CancelScope(shield=True):
            for stream in self._streams:
                with suppress(Exception):
                    await stream.aclose()
            if self._stdin is not None:
                with suppress(Exception):
                    self._stdin.close()
            await stop_process(process)
        # The task group was entered in __aenter__, so it must be exited outside any newer scope.
        self._tg.cancel_scope.cancel()
        await self._tg.__aexit__(None, None, None)
        await self._close_readers()

    async def abandon(self, term_grace: float) -> None:
        """Stop the server (stdin closed, SIGTERM, SIGKILL after `term_grace`) and keep the SDK's session from
        ending: its stream from the server stays open, as the SDK's ending of every request the server left
        pending is what the app leaves without (`Connection.leave`)."""
        self._abandoned = True
        if self._stdin is not None:
            with suppress(Exception):
                self._stdin.close()
        if self._process is not None:
            await stop_process(self._process, term_grace=term_grace)

    async def close_unread(self) -> None:
        """Stop a process the SDK's session never read (only `early_request` was used): as `__aexit__` does."""
        process = self._process
        if process is None:
            return
        with anyio.CancelScope(shield=True):
            await self._stop_early()
            if self._stdin is not None:
                with suppress(Exception):
                    self._stdin.close()
            await stop_process(process)
            self._end_early(ServerUnavailable(f"{self._spec.name}: closed"))
        await self._close_readers()

    async def _close_readers(self) -> None:
        stderr_reader, self._stderr_reader = self._stderr_reader, None
        await cancel_and_wait(stderr_reader)
        for reader in (self._stdout, self._stderr_pipe):
            if reader is not None:
                with suppress(Exception):
                    reader.close()


class MessageGate(Protocol):
    """A transport's say over the messages through a `TappedTransport` (see `http_transport.AuthProbeGate`)."""

    def seen(self, message: SessionMessage) -> None:
        """A message from the server, on its way to the session."""

    def held(self, message: SessionMessage) -> SessionMessage | None:
        """The reply the session gets instead of `message` going out, or None to send it."""


class TappedTransport(AbstractAsyncContextManager[Streams]):
    """Wrap a transport so every message through it lands in the traffic log."""

    def __init__(
        self, inner: AbstractAsyncContextManager[Any], traffic: TrafficLog, gate: MessageGate | None = None
    ) -> None:
        self._inner = inner
        self._traffic = traffic
        self._gate = gate
        self._tg: anyio.abc.TaskGroup | None = None
        self._streams: list[Any] = []

    async def __aenter__(self) -> Streams:
        inner_read, inner_write = await self._inner.__aenter__()
        to_session, session_reads = anyio.create_memory_object_stream["SessionMessage | Exception"](64)
        session_writes, from_session = anyio.create_memory_object_stream["SessionMessage"](64)
        self._streams = [to_session, session_reads, session_writes, from_session]
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        self._tg.start_soon(self._pump_in, inner_read, to_session)
        self._tg.start_soon(self._pump_out, from_session, inner_write)
        return session_reads, session_writes

    async def _pump_in(self, source: Any, sink: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
        async with sink:
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                async for item in source:
                    if not isinstance(item, Exception):
                        self._traffic.record_message("in", to_wire(item))
                        if self._gate is not None:
                            self._gate.seen(item)
                    else:
                        self._traffic.record_garbage("in", f"{type(item).__name__}: {item}")
                    await sink.send(item)

    async def _pump_out(self, source: MemoryObjectReceiveStream[SessionMessage], sink: Any) -> None:
        async with source:
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                async for message in source:
                    reply = self._gate.held(message) if self._gate is not None else None
                    if reply is not None:
                        self._traffic.record_event("held", f"not sent: {_method_of(message)}")
                        await self._streams[0].send(reply)
                        continue
                    self._traffic.record_message("out", to_wire(message))
                    await sink.send(message)

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._tg is not None
        with anyio.CancelScope(shield=True):
            for stream in self._streams:
                with suppress(Exception):
                    await stream.aclose()
        self._tg.cancel_scope.cancel()
        with suppress(Exception):
            await self._tg.__aexit__(None, None, None)
        await self._inner.__aexit__(exc_type, exc, tb)


def _method_of(message: SessionMessage) -> str:
    return str(getattr(message.message, "method", ""))
