"""Catalogs of what a server offers: prompts, tools, resources and templates.

Each catalog fetches every page of its list method and refreshes itself when
the server says the list changed. Items that fail to parse are counted, not
fatal.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from rea_tui.host.features.tool_headers import ExcludedTool, ListingNeedsSdk, screen_tools
from rea_tui.host.protocol.errors import ProtocolError
from rea_tui.host.protocol.events import HostEvent, ListChanged, ListKind
from rea_tui.host.protocol.models import (
    Prompt,
    Resource,
    ResourceTemplate,
    Tool,
    parse_prompt,
    parse_resource,
    parse_resource_template,
    parse_tool,
)
from rea_tui.host.trust.safe_text import sanitize_line

if TYPE_CHECKING:
    from rea_tui.host.fastpath.early_lists import EarlyLists
    from rea_tui.host.protocol.connection import Connection

ItemT = TypeVar("ItemT")

# A list at least this long is parsed off the event loop (see Catalog.refresh).
PARSE_OFF_LOOP_FROM = 500
# How much of an excluded tool's name and of the reason (which quotes the server's schema) is shown.
NAME_LIMIT = 200
REASON_LIMIT = 400


class Catalog(Generic[ItemT]):
    """All items of one paginated list method."""

    method = ""
    key = ""
    capability: ListKind = "tools"

    def __init__(self, connection: Connection, parse: Callable[[Any], ItemT | None]) -> None:
        self.connection = connection
        self._parse = parse
        self.items: list[ItemT] = []
        self.skipped = 0
        self.loaded = False
        # The server said this list changed since it was last read (set as the notification arrives).
        self.stale = False

    @property
    def supported(self) -> bool:
        return self.connection.has_capability(self.capability)

    def kept_current(self) -> bool:
        """The listing held is the server's current one, as far as the server tells: it was read, the server
        declared it announces changes (`listChanged`), and no change was announced since."""
        return self.loaded and not self.stale and self.connection.list_changed_declared(self.capability)

    async def refresh(self) -> list[ItemT]:
        self.stale = False  # a change announced while this read is under way sets it again
        if not self.supported:
            self.items, self.skipped, self.loaded = [], 0, True
            return self.items
        raw = await self.connection.paginate(self.method, self.key)
        if len(raw) >= PARSE_OFF_LOOP_FROM:
            # Thousands of tools take a tenth of a second to make display-safe: in a thread, so the
            # interface keeps drawing frames meanwhile (the GIL is handed back every few milliseconds).
            await asyncio.to_thread(self._take, raw)
        else:
            self._take(raw)
        return self.items

    def seed(self, raw: list[Any]) -> None:
        """Items read before the connection was ready (`Connection.early`); never over a refresh."""
        if not self.loaded:
            self._take(raw)

    def _take(self, raw: list[Any]) -> None:
        parsed = [self._parse(item) for item in raw]
        self.items = [item for item in parsed if item is not None]
        self.skipped = len(parsed) - len(self.items)
        self.loaded = True


class PromptCatalog(Catalog[Prompt]):
    method, key, capability = "prompts/list", "prompts", "prompts"

    def __init__(self, connection: Connection) -> None:
        super().__init__(connection, parse_prompt)

    def get(self, name: str) -> Prompt | None:
        """By the name shown, or the name as the server sent it (a script may give either)."""
        return next((p for p in self.items if name in (p.name, p.wire)), None)


class ToolCatalog(Catalog[Tool]):
    """The tools, less those a 2026-07-28 client must exclude (`tool_headers`: the one check of every listing)."""

    method, key, capability = "tools/list", "tools", "tools"

    def __init__(self, connection: Connection) -> None:
        super().__init__(connection, parse_tool)
        # Left out of the last listing (invalid `x-mcp-header`): never listed, refused by name.
        self.excluded: list[ExcludedTool] = []

    def seed(self, raw: list[Any]) -> None:
        """As `Catalog.seed`, screened as 2026-07-28 (the only revision early lists are read from);
        a preview the host cannot check yet (the SDK is still loading) is not shown."""
        if self.loaded:
            return
        try:
            kept, excluded = screen_tools(raw, modern=True)
        except ListingNeedsSdk:
            return
        self._keep(kept, excluded)

    def _take(self, raw: list[Any]) -> None:
        self._keep(*screen_tools(raw, modern=self.connection.modern))

    def _keep(self, kept: list[Any], excluded: list[ExcludedTool]) -> None:
        super()._take(kept)
        self.excluded = excluded
        traffic = getattr(self.connection, "traffic", None)  # the lean clients keep no traffic log
        if traffic is not None:
            for tool in excluded:
                traffic.record_event("tools/excluded", exclusion_warning(tool))

    def get(self, name: str) -> Tool | None:
        """By the name shown, or the name as the server sent it (a script may give either)."""
        return next((t for t in self.items if name in (t.name, t.wire)), None)

    def excluded_named(self, name: str) -> ExcludedTool | None:
        """The excluded tool of this name (as sent, or as shown), if the last listing left it out."""
        return next((t for t in self.excluded if name in (t.wire_name, sanitize_line(t.wire_name))), None)

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.items]


def exclusion_warning(tool: ExcludedTool) -> str:
    """What the analyst is told of an excluded tool (display-safe: the name and reason quote the server)."""
    return (
        f"tool {sanitize_line(tool.wire_name, NAME_LIMIT)} excluded: invalid x-mcp-header "
        f"({sanitize_line(tool.reason, REASON_LIMIT)}); it cannot be called"
    )


class ResourceCatalog(Catalog[Resource]):
    method, key, capability = "resources/list", "resources", "resources"

    def __init__(self, connection: Connection) -> None:
        super().__init__(connection, parse_resource)


class TemplateCatalog(Catalog[ResourceTemplate]):
    method, key, capability = "resources/templates/list", "resourceTemplates", "resources"

    def __init__(self, connection: Connection) -> None:
        super().__init__(connection, parse_resource_template)

    def get(self, uri_template: str) -> ResourceTemplate | None:
        return next((t for t in self.items if uri_template in (t.uri_template, t.wire)), None)


class ServerCatalogs:
    """The four catalogs of one connection, refreshed together and on list_changed.

    They also turn what the analyst sees (display-safe names) back into what the
    server sent (`wire_*`), for the requests that name a prompt, a template or
    their arguments.
    """

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.prompts = PromptCatalog(connection)
        self.tools = ToolCatalog(connection)
        self.resources = ResourceCatalog(connection)
        self.templates = TemplateCatalog(connection)
        connection.subscribe(self._mark_stale)

    def _mark_stale(self, event: HostEvent) -> None:
        if not isinstance(event, ListChanged):
            return
        changed: dict[str, tuple[Catalog[Any], ...]] = {"prompts": (self.prompts,), "tools": (self.tools,)}
        for catalog in changed.get(event.kind, (self.resources, self.templates)):
            catalog.stale = True

    def seed(self, early: EarlyLists) -> None:
        """What the early lists read, shown until the session's own lists come (see early_lists)."""
        for catalog in (self.prompts, self.tools, self.resources, self.templates):
            items = early.items.get(catalog.method)
            if items is not None:
                catalog.seed(items)

    async def refresh_all(self) -> None:
        """All four lists, asked for at once (one round trip of waiting, not four).

        The first failure is raised as it is, once the other requests are cancelled.
        """
        tasks = [
            asyncio.ensure_future(refresh)
            for refresh in (
                self.prompts.refresh(),
                self.tools.refresh(),
                self.resources.refresh(),
                self._refresh_templates(),
            )
        ]
        try:
            await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise

    async def _refresh_templates(self) -> None:
        try:
            await self.templates.refresh()
        except ProtocolError:
            # Templates are optional even on servers that list resources.
            self.templates.items = []

    async def refresh_for(self, event: HostEvent) -> bool:
        """Refresh what `event` says changed; True when something was refreshed."""
        if not isinstance(event, ListChanged):
            return False
        if event.kind == "prompts":
            await self.prompts.refresh()
        elif event.kind == "tools":
            await self.tools.refresh()
        else:
            await self.resources.refresh()
            await self.templates.refresh()
        return True

    def wire_names(self, kind: str, name: str) -> tuple[str, dict[str, str]]:
        """A prompt's (or template's) name as the server sent it, and its argument names the same way."""
        if kind == "prompt":
            prompt = self.prompts.get(name)
            if prompt is not None:
                return prompt.wire, {a.name: a.wire for a in prompt.arguments}
        else:
            template = self.templates.get(name)
            if template is not None and len(template.variables) == len(template.wire_variables):
                return template.wire, dict(zip(template.variables, template.wire_variables, strict=True))
        return name, {}
