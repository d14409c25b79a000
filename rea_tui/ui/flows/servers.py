"""Connecting the session's servers, and keeping the sidebar and header in step with them.

Also what comes with connecting: `${input:NAME}` values asked in a dialog
before a server starts, signing in to a server that needs OAuth (f9) and
connecting again, the servers found in other clients' configs when nothing
is configured, and a connection's own reports (exits, list changes, bad
output and error logs as coalesced toasts).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text

from rea_tui.ui.flows.base import Flow
from rea_tui.ui.messages import (
    CatalogsRefreshed,
    EntriesListed,
    HostEventReceived,
    ServerConnected,
    ServerConnectFailed,
    ServerStatusChanged,
)
from rea_tui.ui.runtime import APP_STARTED, FIRST_CONNECTION, SDK_LOADED, settle_heap
from rea_tui.ui.text import NAME_LIMIT, join, notify_plain, plain, plain_line
from rea_tui.ui.toasts import ToastThrottle
from rea_tui.ui.widgets.argument_form import ArgumentForm
from rea_tui.ui.widgets.sidebar import ServerTree

if TYPE_CHECKING:
    from textual.screen import Screen

    from rea_tui.host import (
        Connection,
        DiscoveredServer,
        HostedServer,
        HostEvent,
        InputSpec,
        Session,
        TrackedTask,
        TrustGate,
    )
    from rea_tui.ui.flows.dialogs import QuestionQueue

Prefill = Callable[[str], "dict[str, Any] | None"]

CONNECT_GROUP = "connect"
REFRESH_GROUP = "catalogs"
SIGN_IN_GROUP = "sign-in"
# However often a server says its lists changed, they are fetched again at most this often (seconds).
REFRESH_INTERVAL = 0.5
# How much of a failure (message and stderr tail) the form shows.
FAILURE_TEXT_LIMIT = 6_000
# How long a sign-in may wait for the browser to come back (seconds).
SIGN_IN_TIMEOUT = 300.0
AUTHORIZATION_NEEDED = "authorization needed"
# Log messages from this level up get a toast.
TOAST_FROM_LEVEL = "error"


def files_count(count: int) -> str:
    return "1 config file" if count == 1 else f"{count} config files"


def log_text(data: object) -> str:
    """A log message's data as text (a string as it is, anything else as JSON)."""
    import json

    return data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)


class ServerFlow(Flow):
    def __init__(
        self,
        screen: Screen[Any],
        session: Session,
        *,
        offline: bool,
        active_server: Callable[[], str | None],
        prefill: Prefill | None = None,
    ) -> None:
        """`prefill(server)`: the values for that server's next elicitation form (a replay's recorded answers)."""
        super().__init__(screen, session)
        self.offline = offline
        self.active_server = active_server
        # The list's cursor is put on the first prompt once, when the first server is ready.
        self._cursor_placed = False
        self.prefill = prefill
        # Why each server that is down went down (shown under "f5 to retry").
        self.failures: dict[str, str] = {}
        self._told_about_tasks = False
        # Every server's questions to the analyst, in one queue (one dialog at a time).
        self.questions: QuestionQueue | None = None
        self.toasts: ToastThrottle | None = None
        # list_changed storms: what each server still has to refresh, and which servers are refreshing.
        self._stale: dict[str, dict[str, HostEvent]] = {}
        self._refreshing: set[str] = set()
        # What `detach` undoes: subscriptions, and the handlers of servers that were up before this TUI.
        self._unsubscribes: list[Callable[[], None]] = []
        self._adopted: list[tuple[Connection, Any, Any]] = []

    @property
    def tree(self) -> ServerTree:
        return self.screen.query_one(ServerTree)

    def start_all(self) -> None:
        """List the servers and start connecting to each."""
        from rea_tui.host import after_sdk_load

        self.session.on_server_created = self._server_created
        self.session.ask_input = self._ask_input
        self._unsubscribes.append(self.session.events.subscribe(self._host_event))
        for name in self.session.names:
            self.tree.set_server(name, "connecting")
        settle_heap(APP_STARTED)
        if self.offline:
            return
        # The SDK (loaded by the first connection, in a thread) out of the collections while the first
        # catalogs' pages come in; the hook runs in that thread, before the connection goes on.
        after_sdk_load(lambda: settle_heap(SDK_LOADED))
        for name in self.session.names:
            hosted = self.session.hosted(name)
            if hosted is not None and hosted.ready:
                # A live session's server, up before this TUI (`rea-tui session attach`): used as it is.
                self._adopt(hosted)
                self.screen.post_message(ServerConnected(name))
            else:
                self.connect(name)

    def _adopt(self, hosted: HostedServer) -> None:
        connection = hosted.connection
        self._adopted.append((connection, connection.elicitation_handler, connection.sampling_handler))
        self._server_created(hosted)

    def detach(self) -> None:
        """Leave the session as it was before this TUI (an attached TUI quits; the session goes on)."""
        self.close_questions()
        self.session.on_server_created = None
        self.session.ask_input = None
        for unsubscribe in self._unsubscribes:
            unsubscribe()
        self._unsubscribes.clear()
        for connection, elicitation, sampling in self._adopted:
            connection.elicitation_handler, connection.sampling_handler = elicitation, sampling
        self._adopted.clear()

    def _host_event(self, event: HostEvent) -> None:
        from rea_tui.host import LogMessageReceived, ResourceUpdated, at_least

        # Log messages may come by the ten thousand: each is one check here, never one UI message; error and
        # worse get a toast, coalesced (the protocol log's Logs tab has every one).
        if isinstance(event, LogMessageReceived):
            if at_least(event.level, TOAST_FROM_LEVEL):
                self.toast(f"log {event.server}", f"{event.level}: {log_text(event.data)}", title=f"{event.server} log")
        elif not isinstance(event, ResourceUpdated):  # the resource view listens for its own
            self.screen.post_message(HostEventReceived(event))

    async def _ask_input(self, spec: InputSpec, server: str) -> str | None:
        from rea_tui.ui.flows.dialogs import ask
        from rea_tui.ui.screens.config_input import ConfigInputScreen

        answer: str | None = await ask(self.screen.app, ConfigInputScreen(spec, server))
        return answer

    def _server_created(self, hosted: HostedServer) -> None:
        from rea_tui.ui.flows.dialogs import QuestionQueue, install_interaction_handlers

        if self.questions is None:
            self.questions = QuestionQueue(self.screen.app)
        install_interaction_handlers(self.questions, hosted.connection, self.session.recorder, self.prefill)
        self._unsubscribes.append(hosted.connection.tasks.subscribe(self._task_seen))

    def close_questions(self) -> None:
        """The app is leaving: no further question's dialog is shown (each waiting one is declined)."""
        if self.questions is not None:
            self.questions.close()

    def _task_seen(self, task: TrackedTask) -> None:
        """The first task of the session: say where tasks are listed (f3 is not in the footer)."""
        if not self._told_about_tasks and not task.listed:
            self._told_about_tasks = True
            notify_plain(
                self.screen.app,
                f"{task.tool or 'A tool'} runs as a task on {task.server}: f3 lists the tasks (c cancels one).",
                title="Task",
                timeout=10,
            )

    def connecting(self, name: str) -> bool:
        return bool(self.jobs(CONNECT_GROUP, name))

    def connect(self, name: str) -> None:
        """Connect, or start over (a fresh process) when it failed or exited; one attempt at a time."""
        if self.connecting(name):
            notify_plain(self.screen.app, f"{name} is already connecting.")
            return
        self.run_job(self._connect(name), CONNECT_GROUP, name)

    async def _connect(self, name: str) -> None:
        from rea_tui.host import HostError, ServerExited

        self.tree.set_server(name, "connecting")
        self.screen.post_message(ServerStatusChanged(name))
        hosted = self.session.hosted(name)
        try:
            if hosted is not None and hosted.ready:
                await self.session.reconnect(name)
            else:
                await self.session.connect(name)
        except HostError as exc:
            self.screen.post_message(ServerConnectFailed(name, exc.describe(), exited=isinstance(exc, ServerExited)))
            return
        self.screen.post_message(ServerConnected(name))

    def all_ready(self) -> bool:
        return all(self.session.state(name).status == "ready" for name in self.session.names)

    def connected(self, name: str) -> None:
        hosted = self.session.hosted(name)
        assert hosted is not None
        # What exists now (Textual, the SDK, the catalogs) lives as long as the app.
        settle_heap(FIRST_CONNECTION)
        self.tree.set_server(name, "ready", hosted.connection.protocol_version)
        self.tree.fill_server(name, hosted.catalogs)
        self._place_cursor()
        self._listed_if_settled(name)
        self.screen.post_message(ServerStatusChanged(name))
        form = self.screen.query_one(ArgumentForm)
        if form.target is None and name == self.active_server():
            self.screen.call_later(self._show_placeholder)

    def previewed(self, name: str) -> None:
        """The lists read while the connection comes up: shown (and opened) now; requests wait for it."""
        hosted = self.session.hosted(name)
        if hosted is None or not hosted.previewed:
            return
        self.tree.fill_server(name, hosted.catalogs)
        self._place_cursor()

    def _place_cursor(self) -> None:
        if not self._cursor_placed:
            # The list starts on the first prompt: enter opens it (the servers' own rows come first).
            self._cursor_placed = True
            # After the refresh that lays the new rows out: a node has no line until then.
            self.tree.call_after_refresh(self._cursor_to_first_entry)

    def _cursor_to_first_entry(self) -> None:
        self.tree.move_to_first_entry()
        self.screen.post_message(EntriesListed())

    def _listed_if_settled(self, name: str) -> None:
        """`name` is ready or down: with no other server still connecting, no first entry is to come (after
        the refresh that places the cursor, if one does)."""
        if not any(self.connecting(other) for other in self.session.names if other != name):
            self.tree.call_after_refresh(self.screen.post_message, EntriesListed())

    async def _show_placeholder(self) -> None:
        form = self.screen.query_one(ArgumentForm)
        if form.target is None:
            hint = Text("Select a prompt on the left.", style="dim")
            hint.append("\nf2: the server's details and instructions.", style="dim")
            await form.clear(hint)

    def needs_authorization(self, name: str) -> bool:
        from rea_tui.host import AuthorizationRequired

        return isinstance(self.session.state(name).error, AuthorizationRequired)

    async def failed(self, name: str, message: str, *, exited: bool) -> None:
        self.failures[name] = message
        status = self.session.state(name).status
        if status not in ("failed", "exited"):
            status = "exited" if exited else "failed"
        self.tree.set_server(name, status, AUTHORIZATION_NEEDED if self.needs_authorization(name) else "")
        self._listed_if_settled(name)
        self.screen.post_message(ServerStatusChanged(name))
        if name == self.active_server():
            await self.show_failure(name)

    async def show_failure(self, name: str) -> None:
        status = self.session.state(name).status
        heading = join(Text("Server ", style="bold red"), plain_line(name, NAME_LIMIT, style="bold"))
        heading.append(" exited" if status == "exited" else " could not start", style="bold red")
        body = plain(self.failures.get(name, ""), FAILURE_TEXT_LIMIT)
        if self.needs_authorization(name):
            heading = join(Text("Server ", style="bold yellow"), plain_line(name, NAME_LIMIT, style="bold"))
            heading.append(": authorization needed", style="bold yellow")
            body.append("\n\nPress f9 to sign in (your browser opens), then rea-tui connects again.", style="bold")
        else:
            body.append("\n\nPress f5 to retry.", style="bold")
        await self.screen.query_one(ArgumentForm).clear(heading, body)

    # ------------------------------------------------------------ signing in (OAuth)

    def sign_in(self, name: str) -> None:
        """Sign in to `name` in the browser, then connect again (f9)."""
        from rea_tui.host import uses_oauth

        state = self.session.state(name)
        if not uses_oauth(state.spec):
            notify_plain(self.screen.app, f"{name} is not signed in to with OAuth (stdio, or its own header).")
            return
        if self.jobs(SIGN_IN_GROUP, name):
            notify_plain(self.screen.app, f"Signing in to {name} is under way.")
            return
        self.run_job(self._sign_in(name), SIGN_IN_GROUP, name)

    async def _sign_in(self, name: str) -> None:
        from rea_tui.host import HostError, login
        from rea_tui.ui.screens.sign_in import SignInScreen

        app = self.screen.app
        spec = self.session.spec(name)
        dialog = SignInScreen(name)
        app.push_screen(dialog)

        async def show(url: str) -> None:
            dialog.show_url(url)

        async def no_browser(url: str) -> None:
            dialog.show_url(url, browser_found=False)

        try:
            result = await login(
                spec,
                on_url=show,
                on_no_browser=no_browser,
                timeout=SIGN_IN_TIMEOUT,
                connect_timeout=self.session.timeout,
            )
        except HostError as exc:
            dialog.failed(exc.describe())
            return
        finally:
            if not dialog.failed_message:
                dialog.close()
        done = "signed in" if result.authorizations else "already signed in (the server asked for nothing)"
        notify_plain(app, f"{name}: {done}; connecting again.", title="Authorization")
        self.connect(name)

    # ------------------------------------------------------------ servers found in other clients' configs

    def offer_discovered(self) -> None:
        """Nothing is configured: say which servers other clients have (f12 adds them)."""
        from rea_tui.host import discover

        found = [
            s for s in discover().servers if s.name not in self.session.names and not s.untrusted and not s.disabled
        ]
        if found:
            notify_plain(
                self.screen.app,
                f"{len(found)} servers are set up in other MCP clients' configs. Press f12 to add some to "
                "this session (the bundled server stays).",
                title="Discovered servers",
                timeout=15,
            )

    def offer_trust(self, gate: TrustGate) -> None:
        """The folder's own config files are not trusted: show what they would run; Trust connects them."""
        from rea_tui.ui.screens.trust_folder import TrustFolderScreen

        def decided(trusted: bool | None) -> None:
            if trusted:
                self.trust_folder(gate)
            else:
                notify_plain(
                    self.screen.app,
                    f"{files_count(len(gate.untrusted))} of this folder not used (f12 lists their servers; "
                    "`rea-tui trust` trusts the folder).",
                    title="Folder not trusted",
                    timeout=10,
                )

        self.screen.app.push_screen(TrustFolderScreen(gate), callback=decided)

    def trust_folder(self, gate: TrustGate) -> None:
        """Record the files as shown, then add and connect their servers (a name of the user's own is kept)."""
        from rea_tui.host import DeferredInputs, TrustStore, TrustStoreError, trusted_folder_servers

        try:
            TrustStore().trust(gate.folder, gate.files)
        except (OSError, TrustStoreError) as exc:
            notify_plain(self.screen.app, f"The folder could not be trusted: {exc}", severity="error")
            return
        if self.session.inputs is None:
            self.session.inputs = DeferredInputs()
        # Read again through the gate: a file that changed since it was shown is not used.
        specs, problems = trusted_folder_servers(self.session.inputs, self.session.names)
        for problem in problems:
            notify_plain(self.screen.app, problem, severity="error", timeout=10)
        for spec in specs:
            self.session.add_server(spec)
            self.tree.set_server(spec.name, "connecting")
            self.connect(spec.name)
        notify_plain(
            self.screen.app,
            f"Trusted {gate.folder}: {len(specs)} server{'' if len(specs) == 1 else 's'} of its own added.",
            title="Folder trusted",
            timeout=8,
        )

    def add_discovered(self) -> None:
        from rea_tui.host import discover
        from rea_tui.ui.screens.discovered import DiscoveredServersScreen, pickable

        found = [s for s in discover().servers if s.name not in self.session.names]
        if not found:
            notify_plain(self.screen.app, "No other MCP client's config names a server this session lacks.")
            return

        def chosen(picked: list[int] | None) -> None:
            # By position: two files may name the same server; an untrusted or a disabled one cannot be picked.
            for index in picked or []:
                if pickable(found[index]) and found[index].name not in self.session.names:
                    self.add(found[index])

        self.screen.app.push_screen(DiscoveredServersScreen(found), callback=chosen)

    def add(self, discovered: DiscoveredServer) -> None:
        """Add one discovered server to the session and connect it (its `${input:NAME}` values are asked then)."""
        from rea_tui.host import ConfigError, DeferredInputs

        if self.session.inputs is None:
            self.session.inputs = DeferredInputs()
        try:
            spec = discovered.spec(self.session.inputs)
        except ConfigError as exc:
            notify_plain(self.screen.app, f"{discovered.name}: {exc}", severity="error")
            return
        self.session.add_server(spec)
        self.tree.set_server(spec.name, "connecting")
        self.connect(spec.name)

    # ------------------------------------------------------------ what a connection reports

    def host_event(self, event: HostEvent) -> None:
        from rea_tui.host import BadOutputReceived, ConnectionLost, ListChanged, ListsPreviewed, TargetRead

        app = self.screen.app
        if isinstance(event, ListChanged):
            self.refresh(event.server, event)
        elif isinstance(event, ListsPreviewed):
            self.previewed(event.server)
        elif isinstance(event, TargetRead):
            self.screen.post_message(ServerStatusChanged(event.server))
        elif isinstance(event, ConnectionLost):
            self.failures[event.server] = event.message
            self.tree.set_server(event.server, "exited", f"code {event.exit_code}")
            self.screen.post_message(ServerStatusChanged(event.server))
            notify_plain(
                app, f"{event.server} exited (code {event.exit_code}). f5 reconnects.", severity="error", timeout=8
            )
        elif isinstance(event, BadOutputReceived):
            self.toast(f"bad-output {event.server}", event.message, title=f"{event.server}: output problem")

    def toast(self, key: str, message: object, *, title: str) -> None:
        if self.toasts is None:
            self.toasts = ToastThrottle(self.screen.app)
        self.toasts.notify(key, message, title=title)

    def refresh(self, name: str, event: HostEvent) -> None:
        """Refresh what a list change names; a storm of them costs a few refreshes a second, not one each."""
        kind = getattr(event, "kind", "")
        self._stale.setdefault(name, {})[kind] = event
        if name not in self._refreshing:
            self._refreshing.add(name)
            self.run_job(self._refresh(name), REFRESH_GROUP, name)

    async def _refresh(self, name: str) -> None:
        from rea_tui.host import HostError

        try:
            while self._stale.get(name):
                started = time.monotonic()
                withdrawn: list[str] = []
                for event in self._stale.pop(name).values():
                    try:
                        withdrawn += await self.session.refresh(name, event)
                    except HostError as exc:
                        self.toast(f"refresh {name}", exc.describe(), title="Refreshing the lists failed")
                self.screen.post_message(CatalogsRefreshed(name, withdrawn))
                await asyncio.sleep(max(REFRESH_INTERVAL - (time.monotonic() - started), 0.0))
        finally:
            self._refreshing.discard(name)

    def refreshed(self, name: str, withdrawn: list[str]) -> None:
        hosted = self.session.hosted(name)
        if hosted is None:
            return
        self.tree.fill_server(name, hosted.catalogs)
        self.screen.post_message(ServerStatusChanged(name))
        if withdrawn:
            notify_plain(
                self.screen.app,
                f"{name} re-declared {', '.join(withdrawn)}: the session allowance is withdrawn; "
                "the next call asks for approval again.",
                title="Allowance withdrawn",
                severity="warning",
                timeout=10,
            )
