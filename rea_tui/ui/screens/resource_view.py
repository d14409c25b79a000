"""One resource, read live: its contents, and a subscription that re-reads it when the server says it changed.

`s` subscribes (`resources/subscribe`, when the server declares
`resources.subscribe`) or unsubscribes; each `notifications/resources/updated`
for this URI reads it again (one read at a time: updates that come during a
read make one more read after it). `r` reads it now, `e` puts the current
contents in the evidence ledger. Contents are shown as plain text.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from rea_tui.host import EmbeddedResourceBlock, HostEvent, Session
from rea_tui.ui.flows.base import start_job
from rea_tui.ui.settings import settings_of
from rea_tui.ui.styles import stylesheet
from rea_tui.ui.text import DOCUMENT_LIMIT, join, notify_plain, plain, plain_line

RESOURCE_GROUP = "resource-view"
CONTENT_LIMIT = 200_000
URI_LIMIT = 300


class ResourceChanged(Message, bubble=False):
    """The server said this resource changed."""


class ResourceViewScreen(Screen[None]):
    CSS_PATH = stylesheet("resource_view.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="close-resource", tooltip="Back to the main screen"),
        Binding("s", "toggle_subscription", "Subscribe", id="toggle-subscription", tooltip="Subscribe or unsubscribe"),
        Binding("r", "read", "Read again", id="read-resource", tooltip="Read the resource now"),
        Binding("e", "to_evidence", "To evidence", id="resource-to-evidence", tooltip="Add it to the evidence ledger"),
    ]

    def __init__(self, session: Session, server: str, uri: str) -> None:
        super().__init__()
        self.session = session
        self.server = server
        self.uri = uri
        # The URI as the server wrote it (what is read, subscribed to and named in updates).
        hosted = session.hosted(server)
        listed = next((r for r in hosted.catalogs.resources.items if r.uri == uri), None) if hosted else None
        self.wire_uri = listed.wire if listed is not None else uri
        self.updates = 0
        self.reads = 0
        self._reading = False
        self._again = False
        self._last_read: float | None = None
        self._unsubscribe: Callable[[], None] | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="resource-body"):
            yield Static(id="resource-status")
            with VerticalScroll(id="resource-contents"):
                yield Static(id="resource-text")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Resource"
        self.sub_title = plain_line(self.uri, URI_LIMIT).plain
        self._unsubscribe = self.session.events.subscribe(self._event)
        self._status()
        self.action_read()

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    @property
    def subscribed(self) -> bool:
        hosted = self.session.hosted(self.server)
        return hosted is not None and self.wire_uri in hosted.connection.subscriptions

    def _event(self, event: HostEvent) -> None:
        from rea_tui.host import ResourceUpdated

        if isinstance(event, ResourceUpdated) and event.server == self.server and event.uri == self.wire_uri:
            self.updates += 1
            self.post_message(ResourceChanged())

    def on_resource_changed(self, _message: ResourceChanged) -> None:
        self.action_read()

    def _status(self) -> None:
        text = join(Text("resource  ", style="dim"), plain_line(self.uri, URI_LIMIT, style="bold"))
        subscribed = self.subscribed
        text.append("   subscribed" if subscribed else "   not subscribed", style="green" if subscribed else "dim")
        text.append(f" · {self.updates} update{'s' if self.updates != 1 else ''} from the server", style="dim")
        text.append(f" · read {self.reads} time{'s' if self.reads != 1 else ''}", style="dim")
        if self._last_read is not None and settings_of(self).show_timings:
            text.append(time.strftime(" · last %H:%M:%S", time.localtime(self._last_read)), style="dim")
        self.query_one("#resource-status", Static).update(text)

    # ------------------------------------------------------------ reading

    def action_read(self) -> None:
        if self._reading:
            self._again = True  # once this read ends, read once more
            return
        self._reading = True
        start_job(self, self._read(), RESOURCE_GROUP, self.uri)

    async def _read(self) -> None:
        from rea_tui.host import HostError

        try:
            while True:
                self._again = False
                hosted = self.session.ready(self.server)
                if hosted is None:
                    self._show(Text(f"{self.server} is not connected.", style="red"))
                    return
                try:
                    result = await hosted.read_resource(self.wire_uri)
                except HostError as exc:
                    self._show(join(Text("Reading failed: ", style="red"), plain(exc.describe(), DOCUMENT_LIMIT)))
                    return
                self.reads += 1
                self._last_read = time.time()
                self._show(self._contents(result.contents))
                if not self._again:
                    return
        finally:
            self._reading = False
            if self.is_attached:
                self._status()

    def _contents(self, contents: list[EmbeddedResourceBlock]) -> Text:
        from rea_tui.host import block_summary

        text = Text()
        for block in contents:
            text.append_text(plain_line(block_summary(block), URI_LIMIT, style="dim"))
            text.append("\n")
            if block.text is not None:
                text.append_text(plain(block.text, CONTENT_LIMIT))
                text.append("\n")
        return text if text.plain else Text("(no contents)", style="dim")

    def _show(self, text: Text) -> None:
        if self.is_attached:
            self.query_one("#resource-text", Static).update(text)

    # ------------------------------------------------------------ subscribing

    def action_toggle_subscription(self) -> None:
        from rea_tui.host import HostError, can_subscribe, subscribe, unsubscribe

        hosted = self.session.ready(self.server)
        if hosted is None:
            notify_plain(self.app, f"{self.server} is not connected.", severity="warning")
            return
        if not can_subscribe(hosted.connection.capabilities):
            notify_plain(self.app, f"{self.server} does not offer subscriptions (resources.subscribe).")
            return
        subscribing = not self.subscribed

        async def change() -> None:
            try:
                if subscribing:
                    await subscribe(hosted.connection, self.wire_uri)
                else:
                    await unsubscribe(hosted.connection, self.wire_uri)
            except HostError as exc:
                notify_plain(self.app, exc.describe(), title="Subscription", severity="warning")
            if self.is_attached:
                self._status()

        start_job(self, change(), RESOURCE_GROUP, "subscribe")

    def action_to_evidence(self) -> None:
        async def record() -> None:
            entry = await self.session.read_resource(self.server, self.wire_uri)
            notify_plain(self.app, f"{entry.label}: the resource's contents are in the evidence ledger.")

        start_job(self, record(), RESOURCE_GROUP, "evidence")

    def action_close(self) -> None:
        self.dismiss(None)
