"""VS Code's `${input:NAME}` config variables.

A VS Code `mcp.json` may declare inputs and use them in server entries:

```json
{"inputs": [{"type": "promptString", "id": "api-key", "description": "API key", "password": true}],
 "servers": {"remote": {"type": "http", "url": "https://x/mcp",
                        "headers": {"Authorization": "Bearer ${input:api-key}"}}}}
```

The value is asked for, never sent literally: by an `InputResolver` the caller
supplies (the TUI's dialog), else on the terminal (`getpass` for passwords),
else it is a clear `ConfigError`. Each input is asked for once per run, and
its value is treated as a secret (redacted from the traffic log).
"""

from __future__ import annotations

import getpass
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class InputSpec:
    """One declared input (VS Code's `inputs` entry)."""

    id: str
    description: str = ""
    password: bool = False
    default: str | None = None
    kind: str = "promptString"
    options: tuple[str, ...] = ()


# Called with the input and the server that uses it; returns its value (raise ConfigError to refuse).
InputResolver = Callable[[InputSpec, str], str]


class InputUnavailable(Exception):
    """No value could be had for an input (not a terminal, or the analyst gave none)."""


def declared_inputs(data: Mapping[str, Any]) -> dict[str, InputSpec]:
    found: dict[str, InputSpec] = {}
    raw = data.get("inputs")
    if not isinstance(raw, list):
        return found
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            continue
        options = item.get("options")
        found[item["id"]] = InputSpec(
            id=item["id"],
            description=str(item.get("description", "")),
            password=bool(item.get("password", False)),
            default=str(item["default"]) if item.get("default") is not None else None,
            kind=str(item.get("type", "promptString")),
            options=tuple(str(o) for o in options) if isinstance(options, list) else (),
        )
    return found


def terminal_resolver(spec: InputSpec, server: str) -> str:
    """Ask on the terminal (stderr prompt; `getpass` for passwords); refuse when stdin is not a terminal."""
    if not sys.stdin.isatty():
        raise InputUnavailable(
            f"server {server!r} needs ${{input:{spec.id}}}"
            + (f" ({spec.description})" if spec.description else "")
            + ", which is asked for on a terminal; run rea-tui on one, or use ${env:VAR} instead"
        )
    label = spec.description or spec.id
    if spec.options:
        label += f" [{'/'.join(spec.options)}]"
    if spec.default is not None and not spec.password:
        label += f" (default {spec.default})"
    prompt = f"rea-tui: {server}: {label}: "
    if spec.password:
        value = getpass.getpass(prompt, stream=sys.stderr)
    else:
        print(prompt, end="", file=sys.stderr, flush=True)
        value = sys.stdin.readline().rstrip("\n")
    if not value and spec.default is not None:
        value = spec.default
    if spec.options and value not in spec.options:
        raise InputUnavailable(f"{spec.id} must be one of {', '.join(spec.options)}")
    return value


class InputAnswers:
    """Asks each input once (the same input in two servers or fields is one question) and keeps the answers."""

    def __init__(self, declared: Mapping[str, InputSpec], resolver: InputResolver | None = None) -> None:
        self.declared = dict(declared)
        self.resolver = resolver or terminal_resolver
        self.values: dict[str, str] = {}

    def value(self, name: str, server: str) -> str:
        if name not in self.values:
            spec = self.declared.get(name, InputSpec(id=name, password=True))
            self.values[name] = self.resolver(spec, server)
        return self.values[name]
