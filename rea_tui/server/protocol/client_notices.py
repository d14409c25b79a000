"""What the server tells a legacy connection unasked: its own log, and updates of resources it subscribed to.

`logging/setLevel` sets the level of one connection (nothing is sent to a
connection that never asked); the server logs its target opening, switching
and closing, and how far procedure discovery went. `resources/subscribe` on
`rea://session` makes the connection hear `notifications/resources/updated`
whenever the target, the evidence or the unknowns of its workspace change.
On 2026-07-28 these travel on `subscriptions/listen` streams instead (the
SDK's bus, `rea_server.ReaServer.bus`), so only legacy connections keep any.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, Literal

if TYPE_CHECKING:
    from mcp.server.session import ServerSession

    from rea_tui.server.protocol.session_state import Session

Level = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
LEVELS: Final[tuple[Level, ...]] = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
LOGGER_NAME: Final = "rea-reference-server"

logger = logging.getLogger("rea_tui.server")


@dataclass
class ConnectionNotices:
    """What one legacy connection asked to hear."""

    level: Level | None = None
    subscriptions: set[str] = field(default_factory=set)

    def wants(self, level: Level) -> bool:
        return self.level is not None and LEVELS.index(level) >= LEVELS.index(self.level)


def session_mark(session: Session) -> tuple[int, int, int]:
    """What `rea://session` reports that a tool call can change: the target's generation, the evidence and the
    open unknowns. A different mark means it changed."""
    return session.generation, len(session.ledger), len(session.unknowns.heads())


def evidence_changed(before: tuple[int, int, int], after: tuple[int, int, int]) -> bool:
    """The evidence or the unknowns changed with the same target (a target switch or close is announced with the
    target's change, `ReaServer.target_changed`, so it is not announced twice)."""
    return before[0] == after[0] and before != after


async def tell(connections: dict[int, tuple[object, ServerSession]], key: int, message: Awaitable[None]) -> bool:
    """Send one notification (an awaitable made for `connections[key]`); False (and forgotten) if it is closed."""
    try:
        await message
    except Exception:  # a closed connection: forget it
        logger.debug("dropping a legacy connection that cannot be notified", exc_info=True)
        connections.pop(key, None)
        return False
    return True
