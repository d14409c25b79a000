"""The one check every tool listing crosses: tools whose `x-mcp-header` annotations are invalid are excluded.

At 2026-07-28 a tool's inputSchema may name properties whose values are
mirrored into `Mcp-Param-*` HTTP headers (SEP-2243), and a client MUST
exclude a tool whose annotations are invalid (empty, not a token, on a
non-primitive or a `number`, duplicated, off the `properties` chain). The
rules are the SDK's own (`mcp.shared.inbound.find_invalid_x_mcp_header`), so
rea-tui and the SDK's session exclude the same tools. Older revisions know
no such annotation: nothing is excluded there, as the SDK excludes nothing.

`ToolCatalog` applies `screen_tools` to every listing (the full path's, the
lean clients', the early preview's). Importing the SDK costs about half a
second, which the lean paths exist to avoid: without it loaded, a listing
that carries any annotation raises `ListingNeedsSdk`, and the caller hands
the command to the full path (or drops its preview).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from rea_tui.host.protocol.sdk_loader import sdk_loaded

HEADER_ANNOTATION = "x-mcp-header"


class ListingNeedsSdk(Exception):
    """A tool listing with `x-mcp-header` annotations, met before the SDK that checks them was loaded."""


@dataclass(frozen=True)
class ExcludedTool:
    """A tool left out of the catalog: its name as the server sent it, and why (the SDK's words)."""

    wire_name: str
    reason: str


def _nodes(value: Any) -> Iterator[dict[str, Any]]:
    """Every object inside `value`, without recursion (a hostile schema may nest deeply)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def carries_header_annotation(schema: Any) -> bool:
    """Whether `x-mcp-header` appears anywhere in `schema` (a superset of what the SDK reads: cheap, no SDK)."""
    return any(HEADER_ANNOTATION in node for node in _nodes(schema))


def header_problem(schema: Any) -> str | None:
    """Why the schema's `x-mcp-header` annotations are invalid, or None (the SDK's check; it must be loaded)."""
    from mcp.shared.inbound import find_invalid_x_mcp_header

    reason: str | None = find_invalid_x_mcp_header(schema)
    return reason


def screen_tools(raw: list[Any], *, modern: bool) -> tuple[list[Any], list[ExcludedTool]]:
    """The listing without the tools a 2026-07-28 client must exclude, and those excluded.

    Raises ListingNeedsSdk when an annotation is present and the SDK is not loaded.
    """
    if not modern:
        return raw, []
    kept: list[Any] = []
    excluded: list[ExcludedTool] = []
    for item in raw:
        schema = item.get("inputSchema") if isinstance(item, dict) else None
        if not carries_header_annotation(schema):
            kept.append(item)
            continue
        if not sdk_loaded():
            raise ListingNeedsSdk("a tool listing with x-mcp-header annotations")
        reason = header_problem(schema)
        if reason is None:
            kept.append(item)
        else:
            name = item.get("name")
            excluded.append(ExcludedTool(name if isinstance(name, str) else repr(name), reason))
    return kept, excluded
