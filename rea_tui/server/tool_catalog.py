"""The tool catalog: every tool module's declarations, in the order `tools/list` shows them."""

from __future__ import annotations

from rea_tui.server.tool_registry import ToolRegistry, ToolSpec
from rea_tui.server.tools import (
    analysis_view_tools,
    artifact_tools,
    capture_tools,
    procedure_tools,
    target_tools,
    tracing_tools,
    unknown_tools,
)

TOOLS: tuple[ToolSpec, ...] = (
    *target_tools.TOOLS,
    *procedure_tools.TOOLS,
    *tracing_tools.TOOLS,
    *analysis_view_tools.TOOLS,
    *artifact_tools.TOOLS,
    *unknown_tools.TOOLS,
    *capture_tools.TOOLS,
)


def build_registry() -> ToolRegistry:
    return ToolRegistry(TOOLS)
