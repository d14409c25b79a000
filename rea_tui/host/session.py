"""One investigation, headless: its servers, evidence, notes, allowances, form values and transcript.

The TUI holds one `Session` and shows it; the CLI uses the same host calls.
Everything that changes the session goes through here, so it is recorded in
the transcript once, in one place: servers connecting and failing, rendered
workflows, tool calls with their approval and result, resource reads, notes.
"""

from __future__ import annotations

import asyncio
import importlib
import subprocess
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rea_tui.host.evidence.evidence import EvidenceEntry, EvidenceLedger, citation_qualifiers
from rea_tui.host.evidence.notes import Notebook, NoteChanged
from rea_tui.host.features.allowances import Allowances
from rea_tui.host.features.completion import CompletionLog
from rea_tui.host.features.resource_watch import ResourceWatches
from rea_tui.host.protocol.errors import HostError, ServerUnavailable
from rea_tui.host.protocol.events import TargetRead
from rea_tui.host.protocol.observers import Listeners
from rea_tui.host.records.transcript import SessionRecorder, TranscriptWriter

if TYPE_CHECKING:
    from rea_tui.host.config.config import ServerSpec
    from rea_tui.host.config.deferred_inputs import DeferredInputs
    from rea_tui.host.config.inputs import InputSpec
    from rea_tui.host.features.task_board import TaskBoard
    from rea_tui.host.features.workflow import Workflow
    from rea_tui.host.hosted import HostedServer, ServerStatus
    from rea_tui.host.protocol.events import HostEvent
    from rea_tui.host.protocol.models import Tool

FormKind = Literal["prompt", "template"]
# A server stopped as the app leaves: how long it has after SIGTERM before SIGKILL (one that handles SIGTERM
# leaves at once; the quit is not held up for one that does not).
ABANDON_TERM_GRACE_SECONDS = 0.2


@dataclass(frozen=True)
class FormTarget:
    """What an argument form is for: a prompt, or a resource template, of one server."""

    kind: FormKind
    server: str
    name: str


@dataclass
class FormValues:
    """What the analyst typed per prompt or template, kept across selections and list changes."""

    values: dict[FormTarget, dict[str, str]] = field(default_factory=dict)

    def of(self, target: FormTarget) -> dict[str, str]:
        return self.values.setdefault(target, {})


@dataclass(frozen=True)
class ServerState:
    """What the session knows about one configured server right now."""

    spec: ServerSpec
    status: ServerStatus
    hosted: HostedServer | None
    error: HostError | None


ServerCreated = Callable[["HostedServer"], None]
# Asks the analyst for one `${input:NAME}` a server uses (the input, the server); None: not given.
InputAsker = Callable[["InputSpec", str], Awaitable["str | None"]]


class Session:
    """The servers of one investigation and everything the analyst gathered from them."""

    def __init__(
        self,
        specs: Iterable[ServerSpec],
        *,
        timeout: float = 30.0,
        transcript: Path | None = None,
        started: dict[str, subprocess.Popen[bytes]] | None = None,
        remember_protocols: bool = True,
        inputs: DeferredInputs | None = None,
    ) -> None:
        """`transcript`: where to record (None records nothing). `started`: stdio processes already running.

        `inputs`: the `${input:NAME}` values the config left to ask for (`ask_input` asks them before
        the server that uses them starts).
        """
        self.specs = list(specs)
        self.inputs = inputs
        self.ask_input: InputAsker | None = None
        self._input_values: dict[str, str] = {}
        # Servers that could not even be started (an input not given), and why.
        self._unstarted: dict[str, HostError] = {}
        self.timeout = timeout
        # With several servers, evidence IDs are cited qualified by a short server name (rea:E-0004).
        qualifiers = citation_qualifiers(self.names)
        self.ledger = EvidenceLedger(qualifiers.get if len(qualifiers) > 1 else None)
        self.notebook = Notebook()
        self.allowances = Allowances()
        self.forms = FormValues()
        self.completion_log = CompletionLog()
        self.recorder = SessionRecorder(TranscriptWriter(transcript))
        # Every server's events, in one stream (list changes, logs, exits, bad output).
        self.events: Listeners[HostEvent] = Listeners()
        # Subscribed resources: updates counted and re-read whether or not a view shows them.
        self.resources = ResourceWatches(self.events, self.ready)
        self.on_server_created: ServerCreated | None = None
        self._started = dict(started or {})
        # Closed (the app quits): a connect asked for before the close starts nothing after it.
        self._closed = False
        # A close left a server's SDK task running (`close` with a budget): the process may end without it.
        self.abandoned_closes = False
        self._remember = remember_protocols
        self._servers: dict[str, HostedServer] = {}
        # Servers whose connect (start, catalogs) is under way: not ready for the analyst yet.
        self._connecting: set[str] = set()
        # Each connected server's target, being read (`_read_target_soon`).
        self._target_reads: dict[str, asyncio.Task[None]] = {}
        self._recorded_entries: set[str] = set()
        self.ledger.subscribe(self._ledger_changed)
        self.notebook.subscribe(self._note_changed)

    # ------------------------------------------------------------ servers

    @property
    def names(self) -> list[str]:
        return [spec.name for spec in self.specs]

    def spec(self, name: str) -> ServerSpec:
        return next(s for s in self.specs if s.name == name)

    def hosted(self, name: str) -> HostedServer | None:
        return self._servers.get(name)

    def ready(self, name: str) -> HostedServer | None:
        """The server if it is connected and ready for requests."""
        hosted = self._servers.get(name)
        return hosted if hosted is not None and hosted.ready else None

    def browsable(self, name: str) -> HostedServer | None:
        """The server if it is ready, or connecting with its early lists shown (its requests wait for it)."""
        hosted = self._servers.get(name)
        return hosted if hosted is not None and (hosted.ready or hosted.previewed) else None

    def state(self, name: str) -> ServerState:
        hosted = self._servers.get(name)
        if hosted is None and name in self._unstarted and name not in self._connecting:
            return ServerState(self.spec(name), "failed", None, self._unstarted[name])
        status: ServerStatus = hosted.status if hosted is not None else "connecting"
        if status == "idle" or (name in self._connecting and status == "ready"):
            status = "connecting"
        error = hosted.connection.last_error if hosted is not None else None
        return ServerState(self.spec(name), status, hosted, error)

    async def _create(self, name: str) -> HostedServer:
        # The connection modules (and anyio) load off the event loop: the TUI's first frame is painted by now.
        hosted_module = await asyncio.to_thread(importlib.import_module, "rea_tui.host.hosted")
        from rea_tui.host.protocol.protocol_memory import ProtocolMemory

        self._refuse_if_closed(name)

        started = self._started.pop(name, None)
        hosted: HostedServer = hosted_module.HostedServer(
            self.spec(name),
            timeout=self.timeout,
            memory=ProtocolMemory() if self._remember else None,
            started=started,
            # A server started before the app (the TUI's start) shows its lists while the SDK loads.
            preview_lists=started is not None,
        )
        hosted.completions.log = self.completion_log
        hosted.connection.subscribe(self.events.emit)
        self._servers[name] = hosted
        if self.on_server_created is not None:
            self.on_server_created(hosted)
        return hosted

    def add_server(self, spec: ServerSpec) -> None:
        """One more server for this session (one found in another client's config); connect it next."""
        if spec.name in self.names:
            raise ValueError(f"this session has a server named {spec.name!r} already")
        self.specs.append(spec)

    async def _fill_inputs(self, name: str) -> None:
        """Ask for the `${input:NAME}` values this server's entry uses (each once per session)."""
        from rea_tui.host.config.deferred_inputs import fill_inputs, pending_inputs

        spec = self.spec(name)
        missing = pending_inputs(spec)
        if not missing:
            return
        for input_name in missing:
            if input_name in self._input_values:
                continue
            declared = self.inputs.spec(input_name) if self.inputs is not None else None
            value = await self.ask_input(declared, name) if self.ask_input is not None and declared else None
            if value is None:
                raise ServerUnavailable(
                    f"{name} needs ${{input:{input_name}}}"
                    + (f" ({declared.description})" if declared is not None and declared.description else "")
                    + ", which was not given; nothing was started (f5 asks again)"
                )
            self._input_values[input_name] = value
        self.specs[self.names.index(name)] = fill_inputs(spec, self._input_values)

    def task_boards(self) -> list[TaskBoard]:
        """The tasks of every server started so far."""
        return [hosted.connection.tasks for hosted in self._servers.values()]

    async def connect(self, name: str) -> HostedServer:
        """Start the server (a fresh process after a failure or an exit) and load its catalogs and target."""
        if name not in self._servers:
            self._connecting.add(name)
            try:
                await self._fill_inputs(name)
            except HostError as exc:
                self._unstarted[name] = exc
                self.recorder.server_failed(name, exc.describe())
                raise
            finally:
                self._connecting.discard(name)
            self._unstarted.pop(name, None)
        hosted = self._servers.get(name) or await self._create(name)
        await self._bring_up(hosted, hosted.start)
        return hosted

    async def reconnect(self, name: str) -> HostedServer:
        """Start the server over (a connected one too)."""
        hosted = self._servers.get(name)
        if hosted is None or not hosted.ready:
            return await self.connect(name)
        await self._bring_up(hosted, hosted.reconnect)
        return hosted

    def _refuse_if_closed(self, name: str) -> None:
        if self._closed:
            raise ServerUnavailable(f"{name}: not started, the session is closed")

    async def _bring_up(self, hosted: HostedServer, start: Callable[[], Awaitable[None]]) -> None:
        self._refuse_if_closed(hosted.name)
        self._connecting.add(hosted.name)
        try:
            await start()
        except HostError as exc:
            self.recorder.server_failed(hosted.name, exc.describe())
            raise
        except Exception as exc:
            # A bug, not the server: the server is marked failed with the reason, and the caller reports it.
            failure = ServerUnavailable(f"unexpected error while connecting: {type(exc).__name__}: {exc}")
            hosted.connection.mark_failed(failure)
            self.recorder.server_failed(hosted.name, failure.describe())
            raise
        finally:
            self._connecting.discard(hosted.name)
        self.recorder.server_connected(hosted.connection)
        self._read_target_soon(hosted)

    def _read_target_soon(self, hosted: HostedServer) -> None:
        """The target, read after the server is ready, not before: a server answers `resources/read` only
        once it has loaded its SDK, and twenty starting at once kept every one of them "connecting" for 3 s."""
        earlier = self._target_reads.pop(hosted.name, None)
        if earlier is not None:
            earlier.cancel()

        async def read() -> None:
            await hosted.read_target()
            self.events.emit(TargetRead(hosted.name))

        self._target_reads[hosted.name] = asyncio.create_task(read(), name=f"target of {hosted.name}")

    def reading_target(self, name: str) -> bool:
        """Whether the server's target is still being read after it connected (TargetRead follows)."""
        reading = self._target_reads.get(name)
        return reading is not None and not reading.done()

    async def refresh(self, name: str, event: HostEvent) -> list[str]:
        """After a list change: refresh the catalogs and target; the tool allowances withdrawn by it."""
        hosted = self._servers.get(name)
        if hosted is None or not await hosted.on_event(event):
            return []
        await hosted.read_target()
        return self.allowances.revise(name, hosted.catalogs.tools.items)

    def leaving(self) -> None:
        """The app is about to leave (before its calls are cancelled): a call that ends from now on leaves its
        server's open questions unanswered, to end with the connection (see `AnalystWaits.call_ended_early`)."""
        for hosted in self._servers.values():
            hosted.connection.waits.leaving = True

    async def close(self, reason: str | None = None, *, budget: float | None = None) -> None:
        """Close every server, then record the session's end (`reason`: why it ended, for the transcript, such
        as a warm session's idle timeout).

        With a `budget` (seconds; the app leaves), a server not closed within it is stopped and its SDK task
        left running (`Connection.leave`; `abandoned_closes` says so, and the process may end without it).
        """
        self._closed = True
        for reading in self._target_reads.values():
            reading.cancel()
        servers = list(self._servers.values())
        if budget is None:
            for hosted in servers:
                await hosted.close()
        else:
            left = await asyncio.gather(*(hosted.leave(budget, ABANDON_TERM_GRACE_SECONDS) for hosted in servers))
            self.abandoned_closes = any(left)
        # Started early for a connect that never began.
        started, self._started = list(self._started.values()), {}
        if started:
            from rea_tui.host.transports.transport import end_unadopted

            for process in started:
                await end_unadopted(process)
        self.recorder.close(reason)

    # ------------------------------------------------------------ the investigation

    async def render_prompt(self, server: str, name: str, values: dict[str, str]) -> Workflow:
        from rea_tui.host.features.workflow import render_prompt

        hosted = await self._require(server)
        prompt = hosted.catalogs.prompts.get(name)
        workflow = await render_prompt(hosted.connection, prompt or name, values, hosted.catalogs.tools.items)
        self.recorder.workflow(server, workflow)
        return workflow

    def tool(self, server: str, name: str) -> Tool | None:
        hosted = self._servers.get(server)
        return hosted.catalogs.tools.get(name) if hosted is not None else None

    def approve(self, server: str, tool: Tool | None, name: str, arguments: dict[str, Any], decision: str) -> None:
        """Record the analyst's decision; "session" also allows the tool (as declared now)."""
        self.recorder.approval(server, name, arguments, decision)
        if decision == "session" and tool is not None:
            self.allowances.allow(server, tool)

    async def call_tool(
        self,
        server: str,
        name: str,
        arguments: dict[str, Any],
        *,
        approval: str,
        timeout: float | None = None,
        follows: str | None = None,
    ) -> EvidenceEntry:
        """Run an approved call; its entry is in the ledger (and the transcript) whatever happened."""
        from rea_tui.host.features.catalog import exclusion_warning
        from rea_tui.host.features.tool_call import run_tool_call

        hosted = await self._require(server)
        excluded = hosted.catalogs.tools.excluded_named(name)
        if excluded is not None:
            # Never callable, even by name (a replayed transcript, a workflow step): an entry says why.
            entry = self.ledger.open(hosted.connection.name, name, arguments, approval, follows=follows)
            entry.outcome = "failed"
            entry.error = f"not sent: {exclusion_warning(excluded)}"
            self.ledger.changed(entry)
            return entry
        return await run_tool_call(
            hosted.connection,
            self.ledger,
            name,
            arguments,
            tool=hosted.catalogs.tools.get(name),
            approval=approval,
            timeout=timeout if timeout is not None else self.timeout,
            follows=follows,
        )

    async def read_resource(self, server: str, uri: str) -> EvidenceEntry:
        """Read a resource into the ledger; `uri` as listed (display-safe) or as the server wrote it."""
        from rea_tui.host.features.tool_call import run_resource_read

        hosted = await self._require(server)
        listed = next((r for r in hosted.catalogs.resources.items if r.uri == uri), None)
        return await run_resource_read(hosted, self.ledger, listed.wire if listed is not None else uri)

    async def require(self, server: str) -> HostedServer:
        """The ready server (one connecting is waited for), else its error or ServerUnavailable."""
        return await self._require(server)

    async def _require(self, server: str) -> HostedServer:
        """The ready server; one still connecting is waited for (a form opened from its early lists)."""
        connecting = self._servers.get(server)
        if connecting is not None:
            await connecting.connection.wait_settled()
        hosted = self.ready(server)
        if hosted is None:
            state = self.state(server) if server in self.names else None
            if state is not None and state.error is not None:
                raise state.error
            raise ServerUnavailable(f"{server} is not connected")
        return hosted

    # ------------------------------------------------------------ recording

    def _ledger_changed(self, entry: EvidenceEntry) -> None:
        if entry.finished and entry.id not in self._recorded_entries:
            self._recorded_entries.add(entry.id)
            self.recorder.tool_call(entry)

    def _note_changed(self, change: NoteChanged) -> None:
        if change.removed:
            self.recorder.note_removed(change.note.number)
        else:
            self.recorder.note(change.note)
