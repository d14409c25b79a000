"""What every tool handler receives: its arguments, the request context and the shared services."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rea_tui.server.analysis.target_lookups import TargetLookups
from rea_tui.server.capture.capture_policy import CapturePolicy
from rea_tui.server.limits import DEFAULT_LIST_PAGE
from rea_tui.server.protocol.session_state import Session
from rea_tui.server.target.target_switching import TargetSwitcher
from rea_tui.server.toolkit.tool_outcomes import CallContext


@dataclass(frozen=True, slots=True)
class ToolServices:
    session: Session
    lookups: TargetLookups
    switcher: TargetSwitcher
    capture_policy: CapturePolicy


@dataclass(frozen=True, slots=True)
class ToolCall:
    args: dict[str, Any]
    context: CallContext
    services: ToolServices

    @property
    def session(self) -> Session:
        return self.services.session

    @property
    def lookups(self) -> TargetLookups:
        return self.services.lookups

    def page(self) -> tuple[int, int]:
        """`(offset, limit)` of a paged tool (the schema supplies the bounds and defaults)."""
        return int(self.args.get("offset", 0)), int(self.args.get("limit", DEFAULT_LIST_PAGE))
