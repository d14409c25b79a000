"""The tool registry: each tool declared once (name, schemas, annotations, handler), and the dispatch.

Arguments are checked against the tool's input schema before the handler
runs; a bad argument is a tool error naming each field (`isError`, with
`{field, message}` diagnostics), not a protocol error. Integer values given
for name-taking arguments are taken as ids, as seed 003 allows.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from jsonschema import Draft202012Validator

from rea_tui.server.tool_outcomes import CallContext, Failure, Outcome
from rea_tui.server.tool_services import ToolCall, ToolServices

Handler = Callable[[ToolCall], Awaitable[Outcome]]

NAME_ARGUMENTS = frozenset({"document", "procedure", "provider", "string", "manifest", "unknown", "supersedes"})
"""Arguments that take a name or an id; an integer there is an id."""


@dataclass(frozen=True, slots=True)
class ToolHints:
    """The declared annotations (declared, not verified, as the host shows them)."""

    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool


READS = ToolHints(read_only=True, destructive=False, idempotent=True, open_world=False)
"""Inspects the session or target and changes nothing."""


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    hints: ToolHints
    handler: Handler

    def to_tool(self) -> types.Tool:
        return types.Tool(
            name=self.name,
            title=self.title,
            description=self.description,
            input_schema=self.input_schema,
            output_schema=self.output_schema,
            annotations=types.ToolAnnotations(
                title=self.title,
                read_only_hint=self.hints.read_only,
                destructive_hint=self.hints.destructive,
                idempotent_hint=self.hints.idempotent,
                open_world_hint=self.hints.open_world,
            ),
        )


class ToolRegistry:
    def __init__(self, specs: Iterable[ToolSpec]) -> None:
        self._specs: dict[str, ToolSpec] = {}
        for spec in specs:
            if spec.name in self._specs:
                raise ValueError(f"tool {spec.name} is declared twice")
            self._specs[spec.name] = spec
        self._validators = {name: Draft202012Validator(s.input_schema) for name, s in self._specs.items()}

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def names(self) -> list[str]:
        return list(self._specs)

    def tools(self) -> list[types.Tool]:
        return [spec.to_tool() for spec in self._specs.values()]

    def argument_errors(self, name: str, arguments: dict[str, Any]) -> list[dict[str, str]]:
        spec = self._specs[name]
        errors: list[dict[str, str]] = []
        for error in sorted(self._validators[name].iter_errors(arguments), key=lambda e: list(e.absolute_path)):
            path = ".".join(str(p) for p in error.absolute_path)
            if error.validator == "additionalProperties":
                extra = sorted(set(arguments) - set(spec.input_schema.get("properties", {})))
                errors.extend({"field": f"arguments.{field}", "message": "unknown argument"} for field in extra)
                continue
            if error.validator == "required":
                missing = str(error.message).split("'")[1] if "'" in error.message else path
                errors.append({"field": f"arguments.{missing}", "message": "required"})
                continue
            errors.append({"field": f"arguments.{path}" if path else "arguments", "message": error.message})
        return errors

    async def call(self, name: str, arguments: dict[str, Any], context: CallContext, services: ToolServices) -> Outcome:
        args = {
            key: (
                str(value)
                if key in NAME_ARGUMENTS and isinstance(value, int) and not isinstance(value, bool)
                else value
            )
            for key, value in arguments.items()
        }
        errors = self.argument_errors(name, args)
        if errors:
            return Failure(
                "Invalid arguments: " + "; ".join(f"{e['field']}: {e['message']}" for e in errors),
                {"errors": errors},
            )
        return await self._specs[name].handler(ToolCall(args, context, services))
