"""'Allow this tool for the session': what the analyst allowed, tied to what the server declared.

An allowance holds for one server's tool *as it was declared* when the
analyst allowed it: its annotations and its input schema. When the server
re-declares the tool (list_changed with other annotations or another
schema), the declaration no longer matches and the allowance is withdrawn,
so a tool cannot turn destructive behind an allowance given to it read-only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

from rea_tui.host.protocol.models import Tool


def declaration(tool: Tool) -> str:
    """A fingerprint of what the server declared about `tool` (its name, annotations and schemas)."""
    document = {
        "name": tool.name,
        "annotations": tool.annotations,
        "inputSchema": tool.input_schema,
        "outputSchema": tool.output_schema,
    }
    encoded = json.dumps(document, sort_keys=True, ensure_ascii=True, default=str).encode()
    return hashlib.sha256(encoded).hexdigest()


class Allowances:
    """Per server: tool name -> the declaration the analyst allowed."""

    def __init__(self) -> None:
        self._allowed: dict[str, dict[str, str]] = {}

    def allow(self, server: str, tool: Tool) -> None:
        if not tool.read_only:
            raise ValueError(f"{tool.name} is not declared read-only; it cannot be allowed for the session")
        self._allowed.setdefault(server, {})[tool.name] = declaration(tool)

    def allows(self, server: str, tool: Tool | None) -> bool:
        if tool is None or not tool.read_only:
            return False
        return self._allowed.get(server, {}).get(tool.name) == declaration(tool)

    def revise(self, server: str, tools: Iterable[Tool]) -> list[str]:
        """After the server re-listed its tools: withdraw what no longer matches; the names withdrawn."""
        allowed = self._allowed.get(server, {})
        current = {tool.name: tool for tool in tools}
        withdrawn = [
            name
            for name, fingerprint in allowed.items()
            if name not in current or not current[name].read_only or declaration(current[name]) != fingerprint
        ]
        for name in withdrawn:
            del allowed[name]
        return sorted(withdrawn)

    def withdraw_all(self, server: str) -> None:
        self._allowed.pop(server, None)

    def allowed(self, server: str) -> list[str]:
        return sorted(self._allowed.get(server, {}))
