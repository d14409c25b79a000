"""JSON Schemas for the evidence kinds other features key on.

Completion offers a capture or an artifact identifier only when the retained
result validates against these schemas, so a malformed result can never
surface an identifier.
"""

from __future__ import annotations

from typing import Any, Final

from jsonschema import Draft202012Validator

PROCESS_CAPTURE_V4: Final = "rea.process_capture.v4"
ARTIFACT_INVENTORY_V1: Final = "rea.artifact_inventory.v1"

_STREAM: dict[str, Any] = {
    "type": "object",
    "required": ["text", "bytes", "truncated"],
    "properties": {
        "text": {"type": "string"},
        "bytes": {"type": "integer", "minimum": 0},
        "truncated": {"type": "boolean"},
    },
}

PROCESS_CAPTURE_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "required": [
        "schema",
        "status",
        "executable",
        "argv",
        "exit_code",
        "duration_ms",
        "timeout_seconds",
        "stdout",
        "stderr",
        "simulated",
    ],
    "properties": {
        "schema": {"const": PROCESS_CAPTURE_V4},
        "status": {"enum": ["completed", "timed_out", "failed_to_start"]},
        "executable": {"type": "string"},
        "argv": {"type": "array", "items": {"type": "string"}},
        "exit_code": {"type": ["integer", "null"]},
        "duration_ms": {"type": "integer", "minimum": 0},
        "timeout_seconds": {"type": "integer", "minimum": 1},
        "stdout": _STREAM,
        "stderr": _STREAM,
        "environment": {
            "type": "object",
            "properties": {
                "captured": {"type": "boolean"},
                "keys": {"type": "array", "items": {"type": "string"}},
            },
        },
        "simulated": {"type": "boolean"},
    },
}

OCCURRENCE_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "required": ["occurrence_id", "kind", "document", "name"],
    "properties": {
        "occurrence_id": {"type": "string", "pattern": "^O-[0-9]{4,}-[0-9]{4,}$"},
        "kind": {"enum": ["file", "section", "library"]},
        "document": {"type": "string"},
        "name": {"type": "string"},
    },
}

ARTIFACT_INVENTORY_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "required": ["schema", "manifest", "page"],
    "properties": {
        "schema": {"const": ARTIFACT_INVENTORY_V1},
        "manifest": {
            "type": "object",
            "required": ["manifest_id", "target", "occurrence_count"],
            "properties": {
                "manifest_id": {"type": "string", "pattern": "^M-[0-9]{4,}$"},
                "target": {"type": ["string", "null"]},
                "occurrence_count": {"type": "integer", "minimum": 0},
            },
        },
        "page": {
            "type": "object",
            "required": ["offset", "limit", "total", "next_offset", "occurrences"],
            "properties": {
                "offset": {"type": "integer", "minimum": 0},
                "limit": {"type": "integer", "minimum": 1},
                "total": {"type": "integer", "minimum": 0},
                "next_offset": {"type": ["integer", "null"]},
                "occurrences": {"type": "array", "items": OCCURRENCE_SCHEMA},
            },
        },
    },
}

_CAPTURE_VALIDATOR = Draft202012Validator(PROCESS_CAPTURE_SCHEMA)
_INVENTORY_VALIDATOR = Draft202012Validator(ARTIFACT_INVENTORY_SCHEMA)


def is_process_capture_v4(result: Any) -> bool:
    return bool(_CAPTURE_VALIDATOR.is_valid(result))


def is_artifact_inventory(result: Any) -> bool:
    return bool(_INVENTORY_VALIDATOR.is_valid(result))
