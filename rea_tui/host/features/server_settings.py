"""What the analyst changes on a connected server: its log level, its roots, resource subscriptions.

Each checks the server's capabilities first (a server without them gets
nothing sent, and a `CapabilityMissing` says why) and is remembered on the
connection, so a reconnect sets it again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rea_tui.host.features.roots import Root
from rea_tui.host.features.server_log import LOG_LEVELS
from rea_tui.host.protocol.errors import CapabilityMissing, ProtocolError

if TYPE_CHECKING:
    from rea_tui.host.protocol.connection import Connection


def require_capability(connection: Connection, capability: str, method: str) -> None:
    """Raise CapabilityMissing unless the server declares `capability` (`prompts`, `resources`, ...)."""
    if not connection.has_capability(capability):
        raise CapabilityMissing(connection.name, capability, method)


def can_subscribe(capabilities: dict[str, Any]) -> bool:
    resources = capabilities.get("resources")
    return isinstance(resources, dict) and resources.get("subscribe") is True


async def set_log_level(connection: Connection, level: str) -> None:
    """Ask the server to send log messages from `level` up.

    2025-11-25 and earlier: `logging/setLevel`. On 2026-07-28, where logging is
    opted into per request, every later request carries the level instead.
    """
    if level not in LOG_LEVELS:
        raise ValueError(f"unknown log level {level!r} (one of {', '.join(LOG_LEVELS)})")
    require_capability(connection, "logging", "logging/setLevel")
    if not connection.modern:
        await connection.request("logging/setLevel", {"level": level})
    connection.log.level = level


async def set_roots(connection: Connection, roots: Iterable[Root]) -> bool:
    """Offer these roots from now on; a change is announced (`notifications/roots/list_changed`). True if changed."""
    if not connection.roots.replace(roots):
        return False
    if connection.is_ready:
        await connection.notify_roots_changed()
    return True


async def subscribe(connection: Connection, uri: str) -> None:
    """`resources/subscribe`: the server says when `uri` changes (`notifications/resources/updated`); on
    2026-07-28 the `subscriptions/listen` stream is opened again with `uri` among its subscriptions."""
    if not can_subscribe(connection.capabilities):
        raise CapabilityMissing(connection.name, "resources.subscribe", "resources/subscribe")
    if connection.modern:
        connection.subscriptions.add(uri)
        connection.listen_again()
        return
    await connection.request("resources/subscribe", {"uri": uri})
    connection.subscriptions.add(uri)


async def unsubscribe(connection: Connection, uri: str) -> None:
    connection.subscriptions.discard(uri)
    if connection.modern:
        connection.listen_again()
        return
    if can_subscribe(connection.capabilities) and connection.is_ready:
        with contextlib.suppress(ProtocolError):  # the server forgot it already; nothing to undo
            await connection.request("resources/unsubscribe", {"uri": uri})
