"""The tool catalog: every declaration (`tool_declarations`) bound to its handler module's function."""

from __future__ import annotations

from rea_tui.server.toolkit.tool_declarations import DECLARATIONS
from rea_tui.server.toolkit.tool_registry import Handler, ToolRegistry
from rea_tui.server.tools import (
    analysis_view_tools,
    artifact_tools,
    capture_tools,
    procedure_tools,
    target_tools,
    tracing_tools,
    unknown_tools,
)

HANDLERS: dict[str, Handler] = {
    **target_tools.HANDLERS,
    **procedure_tools.HANDLERS,
    **tracing_tools.HANDLERS,
    **analysis_view_tools.HANDLERS,
    **artifact_tools.HANDLERS,
    **unknown_tools.HANDLERS,
    **capture_tools.HANDLERS,
}


def build_registry() -> ToolRegistry:
    return ToolRegistry(DECLARATIONS, HANDLERS)
