"""A schema's properties as form fields: what to call each, how to edit it, what it starts as.

The TUI's tool and elicitation forms and the CLI's `--elicit` read a schema
through here, so a titled enum is a choice of its `const` values everywhere,
defaults are applied the same way (SEP-1034), and keys the schema does not
name are found the same way. Local `$ref`s (`#/$defs/...`, as pydantic
writes enums) are followed a bounded number of times; nothing else is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

from rea_tui.host.trust.schema_values import schema_types

FieldKind = Literal["choice", "multi", "boolean", "integer", "number", "string", "array", "json"]

# How many local `$ref`s a field's schema is followed through for display.
MAX_LOCAL_HOPS = 8
# A choice's label is cut here (the value sent is never cut).
LABEL_LIMIT = 200


@dataclass(frozen=True)
class Choice:
    """One value a field can take, and what it is called."""

    value: Any
    label: str


@dataclass(frozen=True)
class FormField:
    name: str
    schema: dict[str, Any]
    required: bool
    kind: FieldKind
    title: str | None
    description: str | None
    choices: tuple[Choice, ...] = ()
    has_default: bool = False
    default: Any = None

    @property
    def format(self) -> str | None:
        value = self.schema.get("format")
        return value if isinstance(value, str) else None

    @property
    def types(self) -> list[str]:
        return schema_types(self.schema)

    @property
    def unfetched_ref(self) -> str | None:
        """The `$ref` this field's schema still points to after local refs: outside the document, not fetched."""
        ref = self.schema.get("$ref")
        return ref if isinstance(ref, str) and not ref.startswith("#") else None


def _pointer(root: Mapping[str, Any], ref: str) -> Any:
    """The part of `root` a local `#/a/b` reference names, or None."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    node: Any = root
    for raw in ref[2:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def resolved(root: Mapping[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    """`schema` with local `$ref`s (and a lone `allOf` wrapper) folded in; its own keywords win."""
    merged = dict(schema)
    for _ in range(MAX_LOCAL_HOPS):
        ref = merged.get("$ref")
        target = _pointer(root, ref) if isinstance(ref, str) else None
        if target is None:
            wrapped = merged.get("allOf")
            if isinstance(wrapped, list) and len(wrapped) == 1 and isinstance(wrapped[0], Mapping):
                merged = {**dict(wrapped[0]), **{k: v for k, v in merged.items() if k != "allOf"}}
                continue
            break
        if not isinstance(target, Mapping):
            break
        merged = {**dict(target), **{k: v for k, v in merged.items() if k != "$ref"}}
    return merged


def _non_null(root: Mapping[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """`anyOf: [X, {type: null}]` (an optional X, as pydantic writes it) read as X."""
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if not isinstance(options, list):
            continue
        real = [o for o in options if isinstance(o, Mapping) and o.get("type") != "null"]
        if len(real) == 1 and len(real) < len(options) and "const" not in real[0]:
            inner = resolved(root, real[0])
            return {**inner, **{k: v for k, v in schema.items() if k != key}}
    return schema


def _label(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text[:LABEL_LIMIT]


def _const_choices(options: Any) -> tuple[Choice, ...]:
    """`oneOf`/`anyOf` of `{const, title}` as choices; empty unless every option is one."""
    if not isinstance(options, list) or not options:
        return ()
    if not all(isinstance(o, Mapping) and "const" in o for o in options):
        return ()
    return tuple(
        Choice(o["const"], _label(o["title"]) if isinstance(o.get("title"), str) else _label(o["const"]))
        for o in options
    )


def choices_of(schema: Mapping[str, Any]) -> tuple[Choice, ...]:
    """The values a single-value schema allows, labelled (enum with enumNames, or titled consts)."""
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        names = schema.get("enumNames")
        if isinstance(names, list) and len(names) == len(enum) and all(isinstance(n, str) for n in names):
            return tuple(Choice(v, _label(n)) for v, n in zip(enum, names, strict=True))
        return tuple(Choice(v, _label(v)) for v in enum)
    for key in ("oneOf", "anyOf"):
        found = _const_choices(schema.get(key))
        if found:
            return found
    return ()


def kind_of(schema: Mapping[str, Any], root: Mapping[str, Any] | None = None) -> tuple[FieldKind, tuple[Choice, ...]]:
    """How to edit a value of `schema`, and its choices when it is a pick from a list."""
    choices = choices_of(schema)
    if choices:
        return "choice", choices
    types = [t for t in schema_types(schema) if t != "null"]
    items = schema.get("items")
    if (types == ["array"] or (not types and items is not None)) and isinstance(items, Mapping):
        picks = choices_of(resolved(root or {}, items))
        if picks:
            return "multi", picks
    if types in (["boolean"], ["integer"], ["number"], ["string"], ["array"]):
        return types[0], ()  # type: ignore[return-value]
    return ("json" if types else "string"), ()


class FormFields(Sequence[FormField]):
    """An object schema's fields in the schema's order, each read when it is first needed.

    A schema may have thousands of properties; a form shows a page of them, so only those are read.
    """

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self._schema = schema
        properties = schema.get("properties")
        self._properties: Mapping[str, Any] = properties if isinstance(properties, Mapping) else {}
        self.names = [str(name) for name in self._properties]
        listed = schema.get("required")
        self._required = {r for r in listed if isinstance(r, str)} if isinstance(listed, list) else set()
        self._read: dict[int, FormField] = {}

    def __len__(self) -> int:
        return len(self.names)

    @overload
    def __getitem__(self, index: int) -> FormField: ...

    @overload
    def __getitem__(self, index: slice) -> list[FormField]: ...

    def __getitem__(self, index: int | slice) -> FormField | list[FormField]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        found = self._read.get(index)
        if found is None:
            found = self._read[index] = self._field(self.names[index])
        return found

    def _field(self, name: str) -> FormField:
        raw = self._properties.get(name)
        prop = _non_null(self._schema, resolved(self._schema, raw)) if isinstance(raw, Mapping) else {}
        kind, choices = kind_of(prop, self._schema)
        title = prop.get("title")
        description = prop.get("description")
        return FormField(
            name=name,
            schema=prop,
            required=name in self._required,
            kind=kind,
            title=title if isinstance(title, str) and title.strip() else None,
            description=description if isinstance(description, str) and description.strip() else None,
            choices=choices,
            has_default="default" in prop,
            default=prop.get("default"),
        )


def form_fields(schema: Mapping[str, Any]) -> FormFields:
    """The fields of an object schema, in the schema's order (read as they are used)."""
    return FormFields(schema)


def with_defaults(schema: Mapping[str, Any], content: Mapping[str, Any]) -> dict[str, Any]:
    """`content` with every absent property that declares a `default` filled with it (SEP-1034)."""
    filled = dict(content)
    for field in form_fields(schema):
        if field.name not in filled and field.has_default:
            filled[field.name] = field.default
    return filled


def unknown_keys(schema: Mapping[str, Any], content: Mapping[str, Any]) -> list[str]:
    """Keys of `content` the schema's `properties` do not name."""
    properties = schema.get("properties")
    named = properties if isinstance(properties, Mapping) else {}
    return [key for key in content if key not in named]


TEXT_KINDS: frozenset[FieldKind] = frozenset({"string", "integer", "number", "array", "json"})


def fits(field: FormField, text: str) -> bool:
    """Whether typed `text` reads as a value of the field's type (a suggestion is offered only then).

    Only the type is looked at (and enum/const membership): patterns and formats wait for the check.
    """
    from rea_tui.host.trust.schema_values import UnreadableValue, coerce, json_type

    if field.kind not in TEXT_KINDS:
        return False
    try:
        value = json.loads(text) if field.kind == "json" else coerce(text, field.schema)
    except (UnreadableValue, ValueError):
        return False
    types = [t for t in schema_types(field.schema) if t != "null"]
    kind = json_type(value)
    if types and kind not in types and not (kind == "integer" and "number" in types):
        return False
    if "const" in field.schema and value != field.schema["const"]:
        return False
    if field.kind == "array" and isinstance(value, list):
        items = field.schema.get("items")
        item_types = [t for t in schema_types(items) if t != "null"] if isinstance(items, Mapping) else []
        return not item_types or all(json_type(v) in item_types for v in value)
    return True
