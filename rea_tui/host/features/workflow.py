"""A rendered prompt (`prompts/get`) as a workflow: messages plus runnable steps.

The steps are the server's own tool names as they occur in the prompt's
messages, in order of first occurrence: the prompt's suggested starting
points, each of which the analyst may run (after approval) or skip.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rea_tui.host.protocol.models import ContentBlock, Prompt, Tool, block_text, parse_content
from rea_tui.host.trust.safe_text import sanitize, sanitize_line

if TYPE_CHECKING:
    from rea_tui.host.protocol.connection import Connection


@dataclass(frozen=True)
class WorkflowMessage:
    role: str
    blocks: tuple[ContentBlock, ...]


@dataclass(frozen=True)
class WorkflowStep:
    tool: str
    description: str
    position: int


@dataclass(frozen=True)
class Workflow:
    prompt: str
    arguments: dict[str, str]
    description: str
    messages: tuple[WorkflowMessage, ...]
    steps: tuple[WorkflowStep, ...] = field(default=())
    # The `prompts/get` result as the server sent it (machine output shows it).
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


# Tool arguments a prompt argument of another name fills (tool argument: prompt arguments, first found wins):
# an investigation's `feature` is what `search_strings` searches for. Small on purpose: a name is a claim.
PROMPT_ARGUMENT_ALIASES: Mapping[str, tuple[str, ...]] = {"query": ("feature",)}


def prompt_prefill(tool: Tool, prompt_values: Mapping[str, str]) -> dict[str, str]:
    """The tool's arguments the prompt's values fill: the same name (the form reads the text as the argument's
    type), or an alias where the argument takes text."""
    properties = tool.input_schema.get("properties")
    if not isinstance(properties, dict):
        return {}
    filled: dict[str, str] = {}
    for name, schema in properties.items():
        if not isinstance(name, str):
            continue
        aliases = PROMPT_ARGUMENT_ALIASES.get(name, ()) if _takes_text(schema) else ()
        value = next((prompt_values[s] for s in (name, *aliases) if prompt_values.get(s)), None)
        if value is not None:
            filled[name] = value
    return filled


def _takes_text(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    declared = schema.get("type")
    types = [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else []
    enum = schema.get("enum")
    return (not types or "string" in types) and not isinstance(enum, list)


def find_steps(text: str, tools: Iterable[Tool]) -> list[WorkflowStep]:
    """Tool names that occur in `text` as whole words, by first occurrence."""
    found: list[WorkflowStep] = []
    for tool in tools:
        if not tool.name:
            continue
        match = re.search(rf"(?<![\w.-]){re.escape(tool.name)}(?![\w-])", text)
        if match is not None:
            found.append(WorkflowStep(tool=tool.name, description=tool.description, position=match.start()))
    found.sort(key=lambda step: (step.position, step.tool))
    return found


def parse_workflow(
    prompt: str, arguments: Mapping[str, str], result: Mapping[str, Any], tools: Iterable[Tool]
) -> Workflow:
    messages: list[WorkflowMessage] = []
    raw_messages = result.get("messages")
    for raw in raw_messages if isinstance(raw_messages, list) else []:
        if not isinstance(raw, dict):
            continue
        role = sanitize_line(raw["role"]) if isinstance(raw.get("role"), str) else "?"
        messages.append(WorkflowMessage(role=role, blocks=tuple(parse_content(raw.get("content")))))
    description = result.get("description")
    text = "\n\n".join(block_text(b) for m in messages for b in m.blocks)
    return Workflow(
        prompt=prompt,
        arguments=dict(arguments),
        description=sanitize(description) if isinstance(description, str) else "",
        messages=tuple(messages),
        steps=tuple(find_steps(text, tools)),
        raw=dict(result),
    )


async def render_prompt(
    connection: Connection, prompt: str | Prompt, arguments: Mapping[str, str], tools: Iterable[Tool]
) -> Workflow:
    """Call `prompts/get` with the non-empty arguments and build the workflow.

    With the `Prompt` from the catalog, the request carries the names the server
    sent (its `wire_*` names); a bare name is sent as given.
    """
    filled = {k: v for k, v in arguments.items() if v != ""}
    name = prompt if isinstance(prompt, str) else prompt.name
    wire_name = prompt if isinstance(prompt, str) else prompt.wire
    params: dict[str, Any] = {"name": wire_name}
    if filled:
        params["arguments"] = filled if isinstance(prompt, str) else prompt.wire_arguments(filled)
    result = await connection.request("prompts/get", params)
    return parse_workflow(name, filled, result, tools)
