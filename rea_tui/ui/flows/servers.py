"""Connecting the session's servers, and keeping the sidebar and header in step with them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text

from rea_tui.ui.flows.base import Flow
from rea_tui.ui.messages import (
    CatalogsRefreshed,
    HostEventReceived,
    ServerConnected,
    ServerConnectFailed,
    ServerStatusChanged,
)
from rea_tui.ui.runtime import settle_heap
from rea_tui.ui.text import join, notify_plain, plain, plain_line
from rea_tui.ui.toasts import ToastThrottle
from rea_tui.ui.widgets.argument_form import ArgumentForm
from rea_tui.ui.widgets.sidebar import ServerTree

if TYPE_CHECKING:
    from textual.screen import Screen

    from rea_tui.host import HostedServer, HostEvent, Session
    from rea_tui.ui.flows.dialogs import QuestionQueue

Prefill = Callable[[str], "dict[str, Any] | None"]

CONNECT_GROUP = "connect"
REFRESH_GROUP = "catalogs"
# However often a server says its lists changed, they are fetched again at most this often (seconds).
REFRESH_INTERVAL = 0.5
# How much of a failure (message and stderr tail) the form shows.
FAILURE_TEXT_LIMIT = 6_000
# Log levels shown as a toast (the rest only in the protocol log).
TOAST_LEVELS = ("warning", "error", "critical", "alert", "emergency")


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
        self.prefill = prefill
        # Why each server that is down went down (shown under "f5 to retry").
        self.failures: dict[str, str] = {}
        # Every server's questions to the analyst, in one queue (one dialog at a time).
        self.questions: QuestionQueue | None = None
        self.toasts: ToastThrottle | None = None
        # list_changed storms: what each server still has to refresh, and which servers are refreshing.
        self._stale: dict[str, dict[str, HostEvent]] = {}
        self._refreshing: set[str] = set()

    @property
    def tree(self) -> ServerTree:
        return self.screen.query_one(ServerTree)

    def start_all(self) -> None:
        """List the servers and start connecting to each."""
        self.session.on_server_created = self._server_created
        self.session.events.subscribe(self._host_event)
        for name in self.session.names:
            self.tree.set_server(name, "connecting")
        if self.offline:
            return
        for name in self.session.names:
            self.connect(name)

    def _host_event(self, event: HostEvent) -> None:
        self.screen.post_message(HostEventReceived(event))

    def _server_created(self, hosted: HostedServer) -> None:
        from rea_tui.ui.flows.dialogs import QuestionQueue, install_interaction_handlers

        if self.questions is None:
            self.questions = QuestionQueue(self.screen.app)
        install_interaction_handlers(self.questions, hosted.connection, self.session.recorder, self.prefill)

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
        settle_heap()
        self.tree.set_server(name, "ready", hosted.connection.protocol_version)
        self.tree.fill_server(name, hosted.catalogs)
        self.screen.post_message(ServerStatusChanged(name))
        form = self.screen.query_one(ArgumentForm)
        if form.target is None and name == self.active_server():
            self.screen.call_later(self._show_placeholder)

    async def _show_placeholder(self) -> None:
        form = self.screen.query_one(ArgumentForm)
        if form.target is None:
            await form.clear(Text("Select a prompt on the left.", style="dim"))

    async def failed(self, name: str, message: str, *, exited: bool) -> None:
        self.failures[name] = message
        status = self.session.state(name).status
        if status not in ("failed", "exited"):
            status = "exited" if exited else "failed"
        self.tree.set_server(name, status)
        self.screen.post_message(ServerStatusChanged(name))
        if name == self.active_server():
            await self.show_failure(name)

    async def show_failure(self, name: str) -> None:
        status = self.session.state(name).status
        heading = join(Text("Server ", style="bold red"), plain_line(name, 80, style="bold"))
        heading.append(" exited" if status == "exited" else " could not start", style="bold red")
        body = plain(self.failures.get(name, ""), FAILURE_TEXT_LIMIT)
        body.append("\n\nPress f5 to retry.", style="bold")
        await self.screen.query_one(ArgumentForm).clear(heading, body)

    # ------------------------------------------------------------ what a connection reports

    def host_event(self, event: HostEvent) -> None:
        from rea_tui.host import BadOutputReceived, ConnectionLost, ListChanged, LogMessageReceived

        app = self.screen.app
        if isinstance(event, ListChanged):
            self.refresh(event.server, event)
        elif isinstance(event, ConnectionLost):
            self.failures[event.server] = event.message
            self.tree.set_server(event.server, "exited", f"code {event.exit_code}")
            self.screen.post_message(ServerStatusChanged(event.server))
            notify_plain(
                app, f"{event.server} exited (code {event.exit_code}). f5 reconnects.", severity="error", timeout=8
            )
        elif isinstance(event, BadOutputReceived):
            self.toast(f"bad-output {event.server}", event.message, title=f"{event.server}: output problem")
        elif isinstance(event, LogMessageReceived) and event.level in TOAST_LEVELS:
            self.toast(f"log {event.server}", event.data, title=f"{event.server} log")

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
