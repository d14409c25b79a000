"""Turning typed-in text into JSON values for a tool's `inputSchema`, and checking them.

Both the CLI (`name=value` pairs) and the TUI's forms go through here, so
`count=3` is the integer 3 in both. Checking the values against the schema
is `schemas.guard`'s work.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


class UnreadableValue(ValueError):
    """A value that cannot be read as its schema type."""


def schema_types(schema: Mapping[str, Any]) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list):
            found = [t for o in options if isinstance(o, dict) for t in schema_types(o)]
            if found:
                return found
    if "enum" in schema:
        return sorted({json_type(v) for v in schema["enum"]})
    return []


def json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


def coerce(text: str, schema: Mapping[str, Any]) -> Any:
    """`text` as the value its schema asks for; raises UnreadableValue with a clear message."""
    types = [t for t in schema_types(schema) if t != "null"] or ["string"]
    if "null" in schema_types(schema) and text == "null":
        return None
    errors: list[str] = []
    for kind in types:
        try:
            return _coerce_as(text, kind, schema)
        except ValueError as exc:
            errors.append(str(exc))
    raise UnreadableValue("; ".join(errors))


def _coerce_as(text: str, kind: str, schema: Mapping[str, Any]) -> Any:
    if kind == "string":
        return text
    if kind == "integer":
        try:
            return int(text.strip())
        except ValueError:
            raise ValueError(f"{text!r} is not an integer") from None
    if kind == "number":
        try:
            number = float(text.strip())
        except ValueError:
            raise ValueError(f"{text!r} is not a number") from None
        return int(number) if number.is_integer() and "." not in text and "e" not in text.lower() else number
    if kind == "boolean":
        lowered = text.strip().lower()
        if lowered in ("true", "yes", "1", "on"):
            return True
        if lowered in ("false", "no", "0", "off"):
            return False
        raise ValueError(f"{text!r} is not a boolean (true/false)")
    if kind in ("array", "object"):
        try:
            value = json.loads(text)
        except ValueError:
            if kind == "array":
                # A bare comma-separated list is the common way to type an array; each part is read as an item.
                items = schema.get("items")
                item_schema: Mapping[str, Any] = items if isinstance(items, Mapping) else {}
                return [coerce(part.strip(), item_schema) for part in text.split(",") if part.strip()]
            raise ValueError(f"{text!r} is not a JSON object") from None
        if json_type(value) != kind:
            raise ValueError(f"{text!r} is not a JSON {kind}")
        return value
    if kind == "null":
        if text == "null":
            return None
        raise ValueError(f"{text!r} is not null")
    return text


def property_schema(input_schema: Mapping[str, Any], name: str) -> dict[str, Any]:
    properties = input_schema.get("properties")
    if isinstance(properties, dict) and isinstance(properties.get(name), dict):
        return dict(properties[name])
    return {}
