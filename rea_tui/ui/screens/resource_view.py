"""One resource, read live: its contents, and a subscription that re-reads it when the server says it changed.

`s` subscribes (`resources/subscribe`, when the server declares
`resources.subscribe`) or unsubscribes; `r` reads it now, `e` puts the
current contents in the evidence ledger. The updates and the re-reads are the
session's (`Session.resources`, `rea_tui.host.features.resource_watch`): they go on
while this screen is closed, and it shows them when it opens again. Contents
are shown as plain text.
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

from rea_tui.host import EmbeddedResourceBlock, Session, WatchedResource
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
        self.watched = session.resources.get(server, self.wire_uri)
        self._unsubscribe: Callable[[], None] | None = None

    @property
    def updates(self) -> int:
        return self.watched.updates

    @property
    def reads(self) -> int:
        return self.watched.reads

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
        self._unsubscribe = self.watched.changed.subscribe(self._changed)
        self._refresh()
        self.action_read()

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    @property
    def subscribed(self) -> bool:
        hosted = self.session.hosted(self.server)
        return hosted is not None and self.wire_uri in hosted.connection.subscriptions

    def _changed(self, _watched: WatchedResource) -> None:
        self.post_message(ResourceChanged())

    def on_resource_changed(self, _message: ResourceChanged) -> None:
        self._refresh()

    def _refresh(self) -> None:
        if not self.is_attached:
            return
        watched = self.watched
        if watched.error is not None:
            self._show(plain(watched.error, DOCUMENT_LIMIT, style="red"))
        elif watched.contents is not None:
            self._show(self._contents(watched.contents))
        self._status()

    def _status(self) -> None:
        text = join(Text("resource  ", style="dim"), plain_line(self.uri, URI_LIMIT, style="bold"))
        subscribed = self.subscribed
        text.append("   subscribed" if subscribed else "   not subscribed", style="green" if subscribed else "dim")
        text.append(f" · {self.updates} update{'s' if self.updates != 1 else ''} from the server", style="dim")
        text.append(f" · read {self.reads} time{'s' if self.reads != 1 else ''}", style="dim")
        last_read = self.watched.last_read
        if last_read is not None and settings_of(self).show_timings:
            text.append(time.strftime(" · last %H:%M:%S", time.localtime(last_read)), style="dim")
        self.query_one("#resource-status", Static).update(text)

    # ------------------------------------------------------------ reading

    def action_read(self) -> None:
        start_job(self, self.session.resources.read(self.watched), RESOURCE_GROUP, self.uri)

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
