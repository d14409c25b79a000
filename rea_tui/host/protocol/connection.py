"""One live connection to one MCP server: its lifecycle.

A long-lived task owns the SDK `Client` (its context must be entered and
exited in the same task); everything else sends requests through
`Connection.request`, which works from any task on the same event loop.
The connection is made of three parts, one module each: this one (start,
negotiate, watch, reconnect, close), `requests` (`RequestSender`: requests
through the SDK's public `send_request`, back as the server's JSON) and
`callbacks` (`ServerCallbacks`: what the server asks of the client and
tells it). What it keeps per server: the traffic log, stderr, the log
messages (`ServerLog`), roots, resource subscriptions, tasks (`TaskBoard`)
and the analyst's waits (`AnalystWaits`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import subprocess
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

import anyio

from rea_tui import __version__
from rea_tui.host.config.config import ServerSpec
from rea_tui.host.fastpath.early_lists import MODERN_VERSION, EarlyLists, fetch_early_lists, request_meta
from rea_tui.host.features.interaction import ElicitationHandler, SamplingHandler
from rea_tui.host.features.roots import Roots
from rea_tui.host.features.server_log import ServerLog
from rea_tui.host.features.task_board import TaskBoard
from rea_tui.host.features.waiting import AnalystWaits
from rea_tui.host.protocol.callbacks import ServerCallbacks
from rea_tui.host.protocol.errors import (
    HostError,
    ProtocolError,
    RequestTimedOut,
    ServerExited,
    ServerUnavailable,
)
from rea_tui.host.protocol.events import (
    BadOutputReceived,
    ConnectionLost,
    HostEvent,
    ListChanged,
    ListKind,
    ListsPreviewed,
)
from rea_tui.host.protocol.observers import Listeners, Unsubscribe
from rea_tui.host.protocol.protocol_memory import ProtocolMemory
from rea_tui.host.protocol.requests import ProgressCallback, RequestSender
from rea_tui.host.protocol.sdk_faults import install_fault_handler, report_faults_to
from rea_tui.host.protocol.sdk_loader import load_sdk
from rea_tui.host.transports.http_status import HttpStatusLog
from rea_tui.host.transports.http_transport import http_transport
from rea_tui.host.transports.traffic import TrafficLog
from rea_tui.host.transports.transport import StderrBuffer, StdioProcess, cancel_and_wait

if TYPE_CHECKING:
    from mcp import Client

    from rea_tui.host.auth.provider import Login
__all__ = ["DEFAULT_TIMEOUT", "MODERN_VERSION", "Connection", "ConnectionState", "ProgressCallback"]

# The SDK logs protocol faults through `logging`; in a TUI nothing may reach
# the terminal, and the traffic log already shows what happened.
logging.getLogger("mcp").addHandler(logging.NullHandler())
logging.getLogger("mcp").propagate = False
# The SDK's `client` logger: a malformed notification becomes one line for its connection (sdk_faults).
install_fault_handler()

ConnectionState = Literal["idle", "connecting", "ready", "failed", "exited", "closed"]
EventListener = Callable[[HostEvent], None]

DEFAULT_TIMEOUT = 30.0
DEFAULT_CONNECT_TIMEOUT = 30.0
# How long a close waits for a connected session to end by itself (then it is cancelled).
CLOSE_WAIT_SECONDS = 15.0
# The SDK loads once the early lists are in (about 0.6 s after the bundled server starts), or after this long.
PREVIEW_WAIT_SECONDS = 1.0
# And after a few frames more (60 per second), for the lists to be drawn before the import takes the CPU.
PREVIEW_DRAW_SECONDS = 0.05


class Connection(RequestSender, ServerCallbacks):
    """A connection to `spec`, kept across reconnects."""

    def __init__(
        self,
        spec: ServerSpec,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        memory: ProtocolMemory | None = None,
        started: subprocess.Popen[bytes] | None = None,
        preview_lists: bool = False,
    ) -> None:
        """`started`: the stdio server's process, if it was started early (used by the first start only).

        `preview_lists`: on the first start, while the SDK loads and the session comes up, ask the stdio
        server for its lists directly (2026-07-28, see early_lists) and report them (`ListsPreviewed`).
        """
        self.spec = spec
        self._started = started
        self.preview_lists = preview_lists
        # The lists read while the SDK loaded (see early_lists), until the session is ready.
        self.early: EarlyLists | None = None
        # Set whenever the connection is not connecting: requests made while it connects wait for it.
        self._settled = asyncio.Event()
        self._settled.set()
        self._preview: asyncio.Task[None] | None = None
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.memory = memory
        self.traffic = TrafficLog(spec.secret_values())
        self.stderr = StderrBuffer(secrets=spec.secret_values())
        self.state: ConnectionState = "idle"
        self.last_error: HostError | None = None
        self.protocol_version = ""
        self.server_name = ""
        self.server_version = ""
        self.server_title: str | None = None
        # `serverInfo` as the server sent it.
        self.server_info: dict[str, Any] = {}
        self.instructions = ""
        self.capabilities: dict[str, Any] = {}
        # What the HTTP layer refused (401, 404, 5xx), to report it as HTTP rather than as JSON-RPC.
        self.http_status = HttpStatusLog.for_spec(spec)
        # Permission to sign in (OAuth) when the server asks; without it, `AuthorizationRequired` is raised.
        self.login: Login | None = None
        self._connect_mark = 0
        self.elicitation_handler: ElicitationHandler | None = None
        self.sampling_handler: SamplingHandler | None = None
        self.listeners: Listeners[HostEvent] = Listeners()
        self.waits = AnalystWaits()
        self.log = ServerLog()
        self.roots = Roots(spec.roots)
        self.tasks = TaskBoard(spec.name)
        # Resources the analyst subscribed to (subscribed again after a reconnect).
        self.subscriptions: set[str] = set()
        # On 2026-07-28, set to open the `subscriptions/listen` stream again (the subscriptions changed).
        self._listen_again = asyncio.Event()
        self._client: Client | None = None
        self._process: StdioProcess | None = None
        self._owner: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._closing = False

    # ------------------------------------------------------------ lifecycle

    @property
    def is_ready(self) -> bool:
        return self.state == "ready" and self._client is not None

    @property
    def modern(self) -> bool:
        return self.protocol_version == MODERN_VERSION

    def has_capability(self, name: str) -> bool:
        return isinstance(self.capabilities.get(name), dict)

    def list_changed_declared(self, kind: ListKind) -> bool:
        return bool(self.capabilities.get(kind, {}).get("listChanged")) if self.has_capability(kind) else False

    def subscribe(self, listener: EventListener) -> Unsubscribe:
        return self.listeners.subscribe(listener)

    def _emit(self, event: HostEvent) -> None:
        self.listeners.emit(event)

    def _connect_mode(self) -> str:
        """`legacy`, `auto`, or a pinned version, from config and what the server spoke before."""
        if self.spec.protocol == "legacy":
            return "legacy"
        if self.spec.protocol == MODERN_VERSION:
            return "auto"  # discover is the first request either way; it also fetches capabilities
        if self.memory is not None and self.memory.recall(self.spec.fingerprint) == "legacy":
            return "legacy"
        return "auto"

    async def start(self) -> None:
        """Connect and negotiate. Raises ServerUnavailable, ServerExited, RequestTimedOut or ProtocolError."""
        if self.is_ready:
            return
        # Here, not as each attempt begins: a close during the first attempt must stop the retry too.
        self._closing = False
        mode = self._connect_mode()
        try:
            await self._start(mode)
        except ProtocolError:
            if mode != "legacy" or self.spec.protocol != "auto":
                raise
            # The server changed generation since last time: probe again.
            await self._start("auto")
        if self.spec.protocol == MODERN_VERSION and not self.modern:
            spoke = self.protocol_version
            await self.close()
            error = ProtocolError(
                -32022,  # UNSUPPORTED_PROTOCOL_VERSION
                f"{self.name} cannot speak protocol {MODERN_VERSION} (it answered the legacy handshake with "
                f"{spoke}); connect with --protocol auto or legacy",
            )
            self._fail(error)
            raise error
        await self._restore()

    async def _restore(self) -> None:
        """What the analyst set on the last connection: the log level and the subscriptions."""
        level = self.log.level
        if level is not None and self.has_capability("logging") and not self.modern:
            with contextlib.suppress(HostError):
                await self.request("logging/setLevel", {"level": level})
        # On 2026-07-28 the listen stream, opened with the connection, carries them.
        for uri in sorted(self.subscriptions) if not self.modern else ():
            with contextlib.suppress(HostError):
                await self.request("resources/subscribe", {"uri": uri})

    async def _start(self, mode: str) -> None:
        self._settled.clear()
        try:
            await self._bring_up(mode)
        finally:
            self._settled.set()
            await self._end_preview()

    async def wait_settled(self) -> None:
        """Until the connection is not connecting (ready or failed); at most the connect timeout."""
        if self.state == "connecting":
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._settled.wait(), self.connect_timeout)

    def _start_preview(self, mode: str) -> None:
        """Ask for the lists while the SDK loads, if this is a stdio connection that may (see early_lists).

        Not in "legacy" mode: only a server that answered 2026-07-28 before gets requests outside a handshake.
        """
        if self.preview_lists and self._process is not None and mode == "auto":
            self._preview = asyncio.create_task(self._read_early_lists(self._process), name=f"early lists {self.name}")
        self.preview_lists = False  # the first start only, like `started`

    async def _preview_first(self) -> None:
        """Until the early lists are in (and drawn), at most PREVIEW_WAIT_SECONDS; then the SDK may load.

        Its import holds the GIL for long stretches (pydantic builds its validators in native code), so
        while it runs the event loop could neither read the replies nor draw the frame with the lists.
        """
        preview = self._preview
        if preview is None:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(preview), PREVIEW_WAIT_SECONDS)
        if self.early is not None:
            await asyncio.sleep(PREVIEW_DRAW_SECONDS)

    async def _end_preview(self) -> None:
        """Connected (or not): the session's own lists count from now on."""
        preview, self._preview = self._preview, None
        await cancel_and_wait(preview)

    async def _read_early_lists(self, process: StdioProcess) -> None:
        try:
            early = await fetch_early_lists(process, request_meta(MODERN_VERSION), MODERN_VERSION)
        except Exception as exc:  # a broken pipe, say: only the preview is lost, the session reports the rest
            self.traffic.record_event("lists/preview", f"not read: {type(exc).__name__}: {exc}")
            return
        if early is not None and self.state == "connecting":
            self.early = early
            # What the server declared (the session's own discover sets them again when it is ready).
            self.capabilities = early.capabilities
            self.traffic.record_event("lists/preview", "the lists, read while the SDK loaded")
            self._emit(ListsPreviewed(self.name))

    async def _bring_up(self, mode: str) -> None:
        self.state = "connecting"
        self._connect_mark = self.http_status.mark()
        self._stop = asyncio.Event()
        self._process = None
        if self.spec.transport == "stdio":
            # Start the server first, then load the SDK while it boots: the two overlap.
            self._process = StdioProcess(self.spec, self.traffic, self.stderr, self._started)
            self._started = None
            try:
                await self._process.spawn()
            except HostError as exc:
                self._fail(exc)
                raise
        self._start_preview(mode)
        await self._preview_first()
        await asyncio.to_thread(load_sdk)
        if self._closing:
            # Closed while the early lists were asked or the SDK loaded: no handshake is begun at all.
            if self._process is not None:
                await self._process.close_unread()
            closed = ServerUnavailable(f"{self.name}: closed while connecting")
            self._fail(closed)
            raise closed
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._owner = asyncio.create_task(self._own(mode, ready), name=f"mcp-connection {self.name}")
        try:
            await asyncio.wait_for(asyncio.shield(ready), self.connect_timeout)
        except TimeoutError:
            ready.cancel()
            await self._cancel_owner()
            error: HostError = RequestTimedOut("connect", self.connect_timeout)
            self._fail(error)
            raise error from None
        except HostError as exc:
            await self._cancel_owner()
            self._fail(exc)
            raise
        except asyncio.CancelledError:
            ready.cancel()
            await self._cancel_owner()
            self.state = "failed"
            raise
        self.state = "ready"
        self.last_error = None
        self.early = None
        if self.memory is not None and self.spec.protocol == "auto":
            self.memory.remember(self.spec.fingerprint, "modern" if self.modern else "legacy")

    def mark_failed(self, error: HostError) -> None:
        """Something outside the connection broke while it was being brought up: it is not usable."""
        self._fail(error)

    def _fail(self, error: HostError) -> None:
        self.state = "exited" if isinstance(error, ServerExited) else "failed"
        self.last_error = error

    async def _cancel_owner(self) -> None:
        owner = self._owner
        if owner is not None and not owner.done():
            owner.cancel()
            with contextlib.suppress(BaseException):
                await owner

    async def _own(self, mode: str, ready: asyncio.Future[None]) -> None:
        """Own the SDK client for the life of the connection."""
        import mcp_types as types
        from mcp import Client

        report_faults_to(self._sdk_fault)

        transport: Any = self._process or http_transport(
            self.spec, self.traffic, status=self.http_status, login=self.login
        )
        client = Client(
            transport,
            mode=mode,
            cache=None,
            message_handler=self._on_message,
            logging_callback=self._on_log,
            elicitation_callback=self._on_elicitation,
            sampling_callback=self._on_sampling,
            list_roots_callback=self._on_list_roots,
            client_info=types.Implementation(name="rea-tui", version=__version__),
        )
        self.traffic.record_event("connect", f"{self.spec.transport} {self.spec.display_target()} (mode {mode})")
        try:
            async with client:
                self._adopt(client)
                self._client = client
                ready.set_result(None)
                async with anyio.create_task_group() as tg:
                    if self._process is not None:
                        tg.start_soon(self._watch_exit, self._process)
                    if self.modern:
                        tg.start_soon(self._listening, client)
                    await self._stop.wait()
                    tg.cancel_scope.cancel()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(await self._connect_error(exc))
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self._client = None
            if self.state == "ready":
                self.state = "closed" if self._closing else "exited"

    def _sdk_fault(self, message: str) -> None:
        """A message of the server's the SDK could not read: one line in the traffic log and one event."""
        self.traffic.record_event("message/invalid", message)
        self._emit(BadOutputReceived(self.name, message))

    def _adopt(self, client: Client) -> None:
        session = client.session
        self.protocol_version = client.protocol_version
        capabilities = session.server_capabilities
        self.capabilities = (
            capabilities.model_dump(by_alias=True, mode="json", exclude_none=True) if capabilities else {}
        )
        info = client.server_info
        self.server_info = info.model_dump(by_alias=True, mode="json", exclude_none=True) if info else {}
        self.server_name = info.name if info else ""
        self.server_version = info.version if info else ""
        self.server_title = info.title if info else None
        self.instructions = session.instructions or ""

    async def _connect_error(self, exc: BaseException) -> HostError:
        from mcp.shared.exceptions import MCPError

        if isinstance(exc, HostError):
            return exc
        oversize = self.http_status.oversize_since(self._connect_mark)
        if oversize is not None:
            return oversize  # a reply cut at the size limit (OAuth metadata too), whatever its reader made of it
        if isinstance(exc, BaseExceptionGroup):
            inner = [e for e in exc.exceptions if not isinstance(e, asyncio.CancelledError)]
            if inner:
                return await self._connect_error(inner[0])
        if self._process is not None and (self._process.returncode is not None or isinstance(exc, MCPError)):
            with anyio.move_on_after(2.0):
                await self._process.exited.wait()
            if self._process.returncode is not None:
                return ServerExited(
                    f"{self.name} exited while connecting",
                    self._process.returncode,
                    self.stderr.tail(),
                )
        if isinstance(exc, MCPError):
            http = self.http_status.error_for(self.name, exc.code, exc.error.message, self._connect_mark)
            return http or ProtocolError.from_error(exc.code, self.traffic.redact(exc.error.message), exc.error.data)
        if isinstance(exc, asyncio.CancelledError):
            return ServerUnavailable(f"connecting to {self.name} was cancelled")
        return ServerUnavailable(f"cannot connect to {self.spec.display_target()}: {type(exc).__name__}: {exc}")

    async def _watch_exit(self, process: StdioProcess) -> None:
        await process.exited.wait()
        if self._closing:
            return
        self.state = "exited"
        reason = f"{self.name} exited" if process.failure is None else f"{self.name}: {process.failure}"
        error = ServerExited(reason, process.returncode, self.stderr.tail())
        self.last_error = error
        self._emit(ConnectionLost(self.name, process.returncode, self.stderr.tail(), str(error)))
        self._stop.set()

    def listen_again(self) -> None:
        """The subscriptions changed: on 2026-07-28, the listen stream is opened again with them."""
        self._listen_again.set()

    async def _listening(self, client: Client) -> None:
        """A `subscriptions/listen` stream for what there is to hear (list changes, subscribed resources), opened
        again whenever the subscriptions change, until the connection ends."""
        kinds: tuple[ListKind, ...] = ("prompts", "tools", "resources")
        while True:
            self._listen_again.clear()
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._end_on_change, tg.cancel_scope)
                # In this task, not a new one: the stream is asked for before a request sent right after the
                # connection opened, so a change that request makes is heard.
                if self.subscriptions or any(self.list_changed_declared(k) for k in kinds):
                    await self._listen(client)
                await self._listen_again.wait()

    async def _end_on_change(self, scope: anyio.CancelScope) -> None:
        await self._listen_again.wait()
        scope.cancel()

    async def _listen(self, client: Client) -> None:
        """On 2026-07-28 connections, list changes and resource updates arrive through a `subscriptions/listen`
        stream."""
        from mcp.shared.subscriptions import (
            PromptsListChanged,
            ResourcesListChanged,
            ToolsListChanged,
        )

        kinds: dict[type[Any], ListKind] = {
            PromptsListChanged: "prompts",
            ToolsListChanged: "tools",
            ResourcesListChanged: "resources",
        }
        with contextlib.suppress(Exception):
            async with client.listen(
                prompts_list_changed=self.list_changed_declared("prompts"),
                tools_list_changed=self.list_changed_declared("tools"),
                resources_list_changed=self.list_changed_declared("resources"),
                resource_subscriptions=sorted(self.subscriptions),
            ) as subscription:
                async for event in subscription:
                    kind = kinds.get(type(event))
                    if kind is not None:
                        self._emit(ListChanged(self.name, kind))
                    # A resource update reaches `_on_message` as a notification too: it is emitted there.

    async def close(self) -> None:
        self._closing = True
        self._stop.set()
        owner = self._owner
        if owner is not None and not owner.done():
            if self._client is None:
                # Still in its handshake: a server that never answers must not hold up the close (or the quit).
                await self._cancel_owner()
            else:
                try:
                    await asyncio.wait_for(asyncio.shield(owner), CLOSE_WAIT_SECONDS)
                except (TimeoutError, Exception):
                    await self._cancel_owner()
        self.state = "closed"

    async def leave(self, budget: float, term_grace: float) -> bool:
        """The app is leaving: close within `budget` seconds, or stop the server and leave the SDK's task running
        (the process ends without it). True when it was left running.

        With a question of the server's still open, the server is stopped at once: closing the SDK's session
        ends each request the server left pending one by one, and with 10,000 that held the event loop for
        seconds (20 to 45 s to quit). A stdio server gets SIGTERM, then SIGKILL after `term_grace`.
        """
        self.waits.leaving = True
        if not self.waits.waiting:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.close(), budget)
                return False
        owner = self._owner
        if owner is None or owner.done():
            await self.close()
            return False
        # Not `_stop`: that starts the SDK's teardown. `_closing` keeps the exit watch from starting it too.
        self._closing = True
        if self._process is not None:
            await self._process.abandon(term_grace)
        self.state = "closed"
        return True

    async def reconnect(self) -> None:
        """Start over with the same spec; listeners, traffic and stderr are kept."""
        await self.close()
        self.traffic.record_event("reconnect", self.spec.display_target())
        self.stderr.append(b"\n--- reconnect ---\n")
        await self.start()

    # ------------------------------------------------------------ requests

    def _session(self) -> Any:
        client = self._client
        if client is None or self.state != "ready":
            if isinstance(self.last_error, ServerExited):
                raise self.last_error
            raise ServerUnavailable(f"{self.name} is not connected")
        return client.session
