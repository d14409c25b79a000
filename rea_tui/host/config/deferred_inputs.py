"""`${input:NAME}` values asked for later, by a front end that cannot ask while the config is read (the TUI).

While the config is read, `DeferredInputs` (a resolver for
`rea_tui.host.config.config`) notes each input a server uses and leaves a mark in
its place; before that server is started, the session asks the analyst for
the marked inputs (`pending_inputs`) and fills them in (`fill_inputs`). A
server whose inputs are not given is not started, and nothing with a mark in
it is ever sent.
"""

from __future__ import annotations

import re
from dataclasses import fields, replace
from typing import Any

from rea_tui.host.config.config import ServerSpec
from rea_tui.host.config.inputs import InputSpec

# Private-use characters around the name: no config value contains them by chance.
_OPEN, _CLOSE = "\ue000", "\ue001"
_MARK = re.compile(f"{_OPEN}input:([A-Za-z0-9_.-]+){_CLOSE}")


def mark(name: str) -> str:
    return f"{_OPEN}input:{name}{_CLOSE}"


class DeferredInputs:
    """A config resolver that asks nothing now: it remembers each input and marks where its value goes."""

    def __init__(self) -> None:
        self.declared: dict[str, InputSpec] = {}

    def __call__(self, spec: InputSpec, server: str) -> str:
        self.declared.setdefault(spec.id, spec)
        return mark(spec.id)

    def spec(self, name: str) -> InputSpec:
        return self.declared.get(name, InputSpec(id=name, password=True))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, tuple | list):
        return [s for item in value for s in _strings(item)]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    return []


def pending_inputs(spec: ServerSpec) -> list[str]:
    """The inputs still marked in `spec`, in order of first use."""
    names: list[str] = []
    for item in fields(spec):
        if item.name == "asked":
            continue
        for text in _strings(getattr(spec, item.name)):
            names += [n for n in _MARK.findall(text) if n not in names]
    return names


def _filled(value: Any, values: dict[str, str]) -> Any:
    if isinstance(value, str):
        return _MARK.sub(lambda m: values.get(m.group(1), m.group(0)), value)
    if isinstance(value, tuple):
        return tuple(_filled(v, values) for v in value)
    if isinstance(value, dict):
        return {k: _filled(v, values) for k, v in value.items()}
    return value


def fill_inputs(spec: ServerSpec, values: dict[str, str]) -> ServerSpec:
    """`spec` with the given inputs' values in place of their marks; the values count as secrets."""
    changes = {
        item.name: _filled(getattr(spec, item.name), values)
        for item in fields(spec)
        if item.name not in ("asked", "roots", "name")
    }
    used = [values[name] for name in pending_inputs(spec) if name in values]
    asked = tuple(a for a in spec.asked if not _MARK.search(a)) + tuple(used)
    return replace(spec, **changes, asked=asked)
