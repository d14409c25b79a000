"""The tool registry: each declared tool (`tool_declarations`) bound to its handler, and the dispatch.

Arguments are checked against the tool's input schema before the handler
runs; a bad argument is a tool error naming each field (`isError`, with
`{field, message}` diagnostics), not a protocol error. Integer values given
for name-taking arguments are taken as ids, as seed 003 allows.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator

from rea_tui.server.toolkit.tool_declarations import ToolDeclaration
from rea_tui.server.toolkit.tool_outcomes import CallContext, Failure, Outcome
from rea_tui.server.toolkit.tool_services import ToolCall, ToolServices

Handler = Callable[[ToolCall], Awaitable[Outcome]]

NAME_ARGUMENTS = frozenset({"document", "procedure", "provider", "string", "manifest", "unknown", "supersedes"})
"""Arguments that take a name or an id; an integer there is an id."""


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool's declaration and the handler that runs it."""

    declaration: ToolDeclaration
    handler: Handler

    @property
    def name(self) -> str:
        return self.declaration.name

    @property
    def input_schema(self) -> dict[str, Any]:
        return self.declaration.input_schema


class ToolRegistry:
    def __init__(self, declarations: Iterable[ToolDeclaration], handlers: Mapping[str, Handler]) -> None:
        self._specs: dict[str, ToolSpec] = {}
        for declaration in declarations:
            if declaration.name in self._specs:
                raise ValueError(f"tool {declaration.name} is declared twice")
            if declaration.name not in handlers:
                raise ValueError(f"tool {declaration.name} has no handler")
            self._specs[declaration.name] = ToolSpec(declaration, handlers[declaration.name])
        if unbound := sorted(set(handlers) - set(self._specs)):
            raise ValueError(f"handlers without a declaration: {', '.join(unbound)}")
        self._validators = {name: Draft202012Validator(s.input_schema) for name, s in self._specs.items()}

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def names(self) -> list[str]:
        return list(self._specs)

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
