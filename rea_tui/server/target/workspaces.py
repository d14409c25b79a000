"""Which session state a request acts on: one per MCP session over HTTP, one for stdio.

A workspace is a `Session` (target, evidence ledger, residual unknowns,
artifact manifests) with the services that act on it. Over stdio there is one
connection and one workspace. Over streamable HTTP every legacy MCP session
(its `Mcp-Session-Id`) gets a workspace of its own, so one client's
`open_binary` or `close_binary` never changes another's target or evidence.
Protocol 2026-07-28 has no sessions over HTTP (each request stands alone), so
its requests share the one sessionless workspace; `rea://session` says which
scope a reply came from.

Parsed targets are read-only once open, so sessions share them: the startup
target is opened once for all, and a path two sessions open is parsed once
while either still uses it (`AnalysisCache`).
"""

from __future__ import annotations

import logging
import os
import threading
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal

import anyio
import anyio.to_thread

from rea_tui.server.analysis.target_analysis import TargetAnalysis
from rea_tui.server.analysis.target_lookups import TargetLookups
from rea_tui.server.capture.capture_policy import CapturePolicy
from rea_tui.server.completion.completion_engine import CompletionEngine
from rea_tui.server.protocol.client_notices import LOGGER_NAME, ConnectionNotices, Level, tell
from rea_tui.server.protocol.session_state import IdNumbers, ServerOptions, Session
from rea_tui.server.target.memory_release import collection_paused
from rea_tui.server.target.target_paths import DEFAULT_TARGET, SYNTHETIC_PATH, TargetError
from rea_tui.server.target.target_switching import TargetSwitcher
from rea_tui.server.toolkit.tool_services import ToolServices

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.session import ServerSession

    from rea_tui.server.target.target import Target

logger = logging.getLogger("rea_tui.server")

SESSION_HEADER: Final = "mcp-session-id"
SESSION_IDLE_SECONDS: Final = 30 * 60.0
"""A session's workspace is dropped after this long without a request (the SDK ends the session then too)."""

Scope = Literal["connection", "session", "sessionless"]
SCOPE_SENTENCES: Final[dict[Scope, str]] = {
    "connection": "this connection's own target, evidence and unknowns",
    "session": "this MCP session's own target, evidence and unknowns (other HTTP sessions have theirs)",
    "sessionless": "shared by every request without an MCP session (protocol 2026-07-28 has no sessions "
    "over HTTP); each legacy HTTP session has its own",
}
Announce = Callable[["Workspace"], Awaitable[None]]
Opener = Callable[[], "Target"]
Hold = Callable[[], Awaitable[object]]


def analysed(opener: Opener, options: ServerOptions) -> TargetAnalysis:
    """Open a target and build what completion reads (in a worker thread, the cyclic collector paused)."""
    with collection_paused():
        analysis = TargetAnalysis(opener(), options.discovery())
        analysis.prepare()
    return analysis


class AnalysisCache:
    """Analyses of files by path and identity, kept while some session uses them (weak values)."""

    def __init__(self, options: ServerOptions) -> None:
        self.options = options
        self._analyses: weakref.WeakValueDictionary[tuple[object, ...], TargetAnalysis] = weakref.WeakValueDictionary()
        self._lock = threading.Lock()

    @staticmethod
    def _key(path: str) -> tuple[object, ...] | None:
        text = path.strip()
        if SYNTHETIC_PATH.match(text) or text == DEFAULT_TARGET:
            return (text,)
        full = os.path.realpath(os.path.expanduser(path))
        try:
            status = os.stat(full)
        except OSError:
            return None
        if not os.path.isfile(full):
            return None  # a directory's files can change under the same directory stamp
        return (full, status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)

    def remember(self, analysis: TargetAnalysis) -> None:
        """Offer an analysis opened another way (the startup target) to later opens of the same path."""
        target = analysis.target
        path = DEFAULT_TARGET if target.kind == "default" else target.path if target.kind == "file" else None
        key = self._key(path) if path is not None else None
        if key is not None:
            with self._lock:
                self._analyses.setdefault(key, analysis)

    def analysed(self, path: str, opener: Opener) -> TargetAnalysis:
        """The analysis of `path`, shared when a session already has it (call from a worker thread)."""
        key = self._key(path)
        if key is not None:
            with self._lock:
                found = self._analyses.get(key)
            if found is not None:
                return found
        analysis = analysed(opener, self.options)
        if key is not None:
            with self._lock:
                self._analyses[key] = analysis
        return analysis


@dataclass(eq=False)
class Workspace:
    session: Session
    services: ToolServices
    completion: CompletionEngine
    scope: Scope
    last_used: float = field(default_factory=time.monotonic)
    connections: dict[int, tuple[object, ServerSession]] = field(default_factory=dict)
    """Legacy connections using this workspace, told when its target changes (keyed by their initialize
    params, which the connection keeps for its lifetime)."""

    notices: dict[int, ConnectionNotices] = field(default_factory=dict)
    """What each of those connections asked to hear (`logging/setLevel`, `resources/subscribe`), same keys."""

    def remember(self, ctx: ServerRequestContext[Any, Any]) -> None:
        params = ctx.session.client_params
        if params is not None:
            self.connections[id(params)] = (params, ctx.session)

    def notices_for(self, ctx: ServerRequestContext[Any, Any]) -> ConnectionNotices | None:
        """The requesting legacy connection's wishes (None for a 2026-07-28 request: it has no connection)."""
        params = ctx.session.client_params
        if params is None:
            return None
        self.remember(ctx)
        return self.notices.setdefault(id(params), ConnectionNotices())

    async def prompts_changed(self) -> None:
        for key, (_params, connection) in list(self.connections.items()):
            await self._tell(key, connection.send_prompt_list_changed())

    async def log(self, level: Level, message: str) -> None:
        """The server's own log message, to each connection that asked for `level` or below."""
        for key, (_params, connection) in list(self.connections.items()):
            wishes = self.notices.get(key)
            if wishes is not None and wishes.wants(level):
                await self._tell(key, connection.send_log_message(level, message, LOGGER_NAME))

    async def resource_updated(self, uri: str) -> None:
        for key, (_params, connection) in list(self.connections.items()):
            wishes = self.notices.get(key)
            if wishes is not None and uri in wishes.subscriptions:
                await self._tell(key, connection.send_resource_updated(uri))

    async def _tell(self, key: int, message: Awaitable[None]) -> None:
        if not await tell(self.connections, key, message):
            self.notices.pop(key, None)  # its key (an object's id) may name another connection later


@dataclass(slots=True)
class _Startup:
    """The target the server was started with, opened once and shared by every workspace."""

    label: str
    state: Literal["opening", "ready", "failed"] = "opening"
    analysis: TargetAnalysis | None = None
    error: str | None = None


class Workspaces:
    def __init__(self, options: ServerOptions, *, per_session: bool) -> None:
        self.options = options
        self.per_session = per_session
        """Over HTTP: a workspace per MCP session; over stdio one for the connection."""
        self.capture_policy = CapturePolicy()
        self.numbers = IdNumbers()
        self.analyses = AnalysisCache(options)
        self._announce: Announce | None = None
        self._startup: _Startup | None = None
        self._sessions: dict[str, Workspace] = {}
        self.shared = self._new("sessionless" if per_session else "connection")

    def announce_with(self, announce: Announce) -> None:
        self._announce = announce

    def _new(self, scope: Scope) -> Workspace:
        session = Session(self.options, self.numbers)
        switcher = TargetSwitcher(session, self.analyses)
        services = ToolServices(session, TargetLookups(session), switcher, self.capture_policy)
        workspace = Workspace(session, services, CompletionEngine(session), scope)

        async def announce() -> None:
            if self._announce is not None:
                await self._announce(workspace)

        switcher.announce_with(announce)
        startup = self._startup
        if startup is not None:
            session.begin_opening(startup.label)
            if startup.state != "opening":
                self._settle(session, startup)
        return workspace

    @staticmethod
    def _settle(session: Session, startup: _Startup) -> None:
        if not session.follows_startup:
            return  # it opened or closed a target of its own meanwhile
        if startup.analysis is not None:
            session.activate(startup.analysis)
        else:
            session.fail_opening(startup.error or "the target could not be opened")

    def all(self) -> list[Workspace]:
        return [self.shared, *self._sessions.values()]

    # -- routing ----------------------------------------------------------------------------

    def for_request(self, ctx: ServerRequestContext[Any, Any]) -> Workspace:
        """The workspace of the MCP session the request belongs to."""
        workspace = self.shared
        if self.per_session:
            request = ctx.request
            headers = getattr(request, "headers", None)
            session_id = headers.get(SESSION_HEADER) if headers is not None else None
            if isinstance(session_id, str) and session_id:
                workspace = self._for_session(session_id)
        workspace.last_used = time.monotonic()
        return workspace

    def _for_session(self, session_id: str) -> Workspace:
        workspace = self._sessions.get(session_id)
        if workspace is None:
            self._drop_idle()
            workspace = self._new("session")
            self._sessions[session_id] = workspace
        return workspace

    def _drop_idle(self) -> None:
        cutoff = time.monotonic() - SESSION_IDLE_SECONDS
        for session_id, workspace in list(self._sessions.items()):
            if workspace.last_used < cutoff:
                del self._sessions[session_id]

    def drop(self, session_id: str) -> None:
        """The client ended its session (HTTP DELETE): forget its target and evidence."""
        self._sessions.pop(session_id, None)

    # -- the startup target ---------------------------------------------------------------------

    def begin_startup(self, label: str) -> None:
        """From now on every workspace, and every one made later, says the startup target is opening."""
        self._startup = _Startup(label)
        for workspace in self.all():
            workspace.session.begin_opening(label)

    async def open_startup(self, opener: Opener, label: str) -> None:
        self.begin_startup(label)
        await self.finish_startup(opener)

    async def finish_startup(self, opener: Opener, hold: Hold | None = None) -> None:
        """Open the target `begin_startup` announced (after `hold` returns) and hand it to every workspace
        that has not opened one of its own meanwhile."""
        startup = self._startup
        assert startup is not None, "begin_startup first"
        if hold is not None:
            await hold()
        try:
            analysis = await anyio.to_thread.run_sync(self._analysed, opener)
        except TargetError as exc:
            logger.warning("cannot open target: %s", exc)
            startup.state, startup.error = "failed", str(exc)
        except Exception as exc:  # a parser crash must not take the server down
            logger.exception("opening the target failed")
            startup.state, startup.error = "failed", f"{type(exc).__name__}: {exc}"
        else:
            self.capture_policy.record_startup(analysis.target)
            self.analyses.remember(analysis)
            startup.state, startup.analysis = "ready", analysis
        for workspace in self.all():
            if workspace.session.follows_startup:
                self._settle(workspace.session, startup)
                if self._announce is not None:
                    await self._announce(workspace)

    def _analysed(self, opener: Opener) -> TargetAnalysis:
        return analysed(opener, self.options)
