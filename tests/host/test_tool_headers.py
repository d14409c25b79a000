"""`tool_headers.screen_tools` on hostile listings: it never raises, keeps or excludes every tool, and agrees with the SDK."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.shared.inbound import find_invalid_x_mcp_header

from rea_tui.host.features.tool_headers import carries_header_annotation, screen_tools
from rea_tui.host.protocol.sdk_loader import load_sdk

load_sdk()

JSON_LEAVES = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
KEYS = st.sampled_from(["type", "properties", "x-mcp-header", "items", "anyOf", "$defs", "a", "b"]) | st.text(
    max_size=4
)
SCHEMAS = st.recursive(
    JSON_LEAVES | st.sampled_from(["string", "integer", "boolean", "number", "object", "Region", "", "a b"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=30,
)
TOOLS = st.lists(st.fixed_dictionaries({"name": st.text(max_size=6), "inputSchema": SCHEMAS}) | JSON_LEAVES, max_size=6)


@settings(max_examples=300, deadline=None)
@given(TOOLS)
def test_every_tool_is_kept_or_excluded_as_the_sdk_would(raw: list[Any]) -> None:
    kept, excluded = screen_tools(raw, modern=True)
    assert len(kept) + len(excluded) == len(raw)
    for item in kept:
        if isinstance(item, dict):
            assert find_invalid_x_mcp_header(item.get("inputSchema")) is None
    assert all(e.reason for e in excluded)
    assert screen_tools(raw, modern=False) == (raw, [])


def test_a_deep_schema_is_walked_without_recursion() -> None:
    schema: dict[str, Any] = {"type": "string", "x-mcp-header": "Deep"}
    for _ in range(50_000):
        schema = {"type": "object", "properties": {"p": schema}}
    assert carries_header_annotation(schema)
    kept, excluded = screen_tools([{"name": "deep", "inputSchema": schema}], modern=True)
    # On a chain of pure `properties`, on a string: valid however deep (and no RecursionError on the way).
    assert len(kept) == 1 and excluded == []
