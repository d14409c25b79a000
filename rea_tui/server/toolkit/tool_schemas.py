"""JSON Schema fragments the tool declarations share.

Name-taking arguments (document, procedure, provider, string, manifest,
unknown) are strings holding a name or an integer id written as digits;
tools that take them can answer with a narrowing reply, so their output
schema admits that shape too.
"""

from __future__ import annotations

from typing import Any, Final

from rea_tui.server.limits import DEFAULT_LIST_PAGE, MAX_CANDIDATES, MAX_LIST_PAGE

NARROWING_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "required": ["reason", "ask_user", "candidates", "scoped_by"],
    "properties": {
        "reason": {"enum": ["ambiguous", "not_found", "missing_required"]},
        "ask_user": {"type": "string"},
        "candidates": {
            "type": "array",
            "maxItems": MAX_CANDIDATES,
            "items": {
                "type": "object",
                "required": ["id", "name"],
                "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
            },
        },
        "scoped_by": {"type": "object"},
        "argument": {"type": "string"},
    },
}

EVIDENCE_ID: Final[dict[str, Any]] = {"type": "string", "pattern": "^E-[0-9]{4,}$"}

DOC_REF: Final[dict[str, Any]] = {
    "type": "object",
    "required": ["id", "name"],
    "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
}

NOT_DECODED: Final[dict[str, Any]] = {
    "type": "array",
    "items": {"type": "string"},
    "description": "What of the document the server could not decode (architecture, truncated file); "
    "present only when something was not.",
}

PROCEDURE: Final[dict[str, Any]] = {
    "type": "object",
    "required": ["id", "address", "names"],
    "properties": {
        "id": {"type": "integer"},
        "address": {"type": "string"},
        "names": {"type": "array", "items": {"type": "string"}},
        "size": {"type": ["integer", "null"]},
    },
}

PROVIDER_ARGUMENT: Final[dict[str, Any]] = {
    "type": "string",
    "description": "Provider to read (default: auto): a name, part of one, or its id as digits.",
}

OFFSET_ARGUMENT: Final[dict[str, Any]] = {"type": "integer", "minimum": 0, "default": 0}
LIMIT_ARGUMENT: Final[dict[str, Any]] = {
    "type": "integer",
    "minimum": 1,
    "maximum": MAX_LIST_PAGE,
    "default": DEFAULT_LIST_PAGE,
}


def name_argument(what: str) -> dict[str, Any]:
    return {"type": "string", "description": f"{what}: a name, or an integer id written as digits."}


def procedure_argument(what: str = "Procedure") -> dict[str, Any]:
    return name_argument(
        f"{what} name, address (0x...) or id; `NAME@DOCUMENT` pins the document (e.g. malloc@libc.so.6)"
    )


def result_schema(required: list[str], properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": required, "properties": {**properties, "evidence_id": EVIDENCE_ID}}


def or_narrowing(result: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "anyOf": [result, NARROWING_SCHEMA]}


def arguments_schema(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def paged_result(required: list[str], properties: dict[str, Any]) -> dict[str, Any]:
    """A result with `offset`, `limit`, `total` and `next_offset` besides its own fields."""
    page = {
        "offset": {"type": "integer"},
        "limit": {"type": "integer"},
        "total": {"type": "integer"},
        "next_offset": {"type": ["integer", "null"]},
    }
    return result_schema([*required, "total", "next_offset"], {**properties, **page})
