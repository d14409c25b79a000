"""Completion for tool arguments: MCP completes only prompt arguments and template variables, so a tool's
argument is completed as the argument of the same name of one of the server's prompts (the prompt in use
first), or else the variable of the same name of one of its resource templates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rea_tui.host.features.completion import CompletionRef

if TYPE_CHECKING:
    from rea_tui.host.protocol.models import Prompt, ResourceTemplate, Tool


def _takes_text(schema: object) -> bool:
    if not isinstance(schema, dict):
        return False
    declared = schema.get("type")
    types = [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else []
    return (not types or "string" in types) and not isinstance(schema.get("enum"), list)


def tool_completion_refs(
    tool: Tool,
    prompts: Sequence[Prompt],
    templates: Sequence[ResourceTemplate],
    preferred_prompt: str | None = None,
) -> dict[str, CompletionRef]:
    """For each of the tool's text arguments that a prompt or template completes, what to ask about."""
    properties = tool.input_schema.get("properties")
    if not isinstance(properties, dict):
        return {}
    ordered = sorted(prompts, key=lambda p: p.name != preferred_prompt)
    refs: dict[str, CompletionRef] = {}
    for name, schema in properties.items():
        if not isinstance(name, str) or not _takes_text(schema):
            continue
        prompt = next((p for p in ordered if any(a.name == name for a in p.arguments)), None)
        if prompt is not None:
            refs[name] = CompletionRef("prompt", prompt.name)
            continue
        template = next((t for t in templates if name in t.variables), None)
        if template is not None:
            refs[name] = CompletionRef("template", template.uri_template)
    return refs
