"""The tool catalog: names, input and output schemas, and declared annotations.

Name-taking arguments (document, procedure, manifest, unknown) are strings
holding a name or an integer id as digits; tools that take them can answer
with a narrowing reply, so their output schema admits that shape too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mcp_types as types

from rea_tui.server.limits import MAX_CANDIDATES, MAX_LIST_PAGE

NARROWING_SCHEMA: dict[str, Any] = {
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

_EVIDENCE_ID = {"type": "string", "pattern": "^E-[0-9]{4,}$"}


def _name_arg(what: str) -> dict[str, Any]:
    return {"type": "string", "description": f"{what}: a name, or an integer id written as digits."}


def _result(required: list[str], properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": required, "properties": {**properties, "evidence_id": _EVIDENCE_ID}}


def _or_narrowing(result: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "anyOf": [result, NARROWING_SCHEMA]}


_DOC_REF = {
    "type": "object",
    "required": ["id", "name"],
    "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
}
_PROCEDURE = {
    "type": "object",
    "required": ["id", "address", "names"],
    "properties": {
        "id": {"type": "integer"},
        "address": {"type": "string"},
        "names": {"type": "array", "items": {"type": "string"}},
        "size": {"type": ["integer", "null"]},
    },
}


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool

    def to_tool(self) -> types.Tool:
        return types.Tool(
            name=self.name,
            title=self.title,
            description=self.description,
            input_schema=self.input_schema,
            output_schema=self.output_schema,
            annotations=types.ToolAnnotations(
                title=self.title,
                read_only_hint=self.read_only,
                destructive_hint=self.destructive,
                idempotent_hint=self.idempotent,
                open_world_hint=self.open_world,
            ),
        )


def _obj(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "open_binary",
        "Open binary",
        "Open a file, a directory of binaries or a macOS .app bundle as the active target (switching from "
        "the current one). Also accepts 'default:' (the running Python interpreter and its libraries) and "
        "'synthetic:N[:SEED]' (a deterministic synthetic target with N procedures). For a "
        "JavaScript/Electron application directory, use analyze_javascript_application instead. "
        "Switching keeps the evidence ledger and unknowns (close_binary clears them).",
        _obj(
            {"path": {"type": "string", "minLength": 1, "description": "Path of the target to open."}},
            ["path"],
        ),
        _result(
            ["target", "kind", "documents", "providers"],
            {
                "target": {"type": ["string", "null"]},
                "kind": {"type": "string"},
                "label": {"type": "string"},
                "documents": {"type": "array"},
                "providers": {"type": "array"},
                "previous_target": {"type": ["string", "null"]},
            },
        ),
        read_only=False,
        destructive=False,
        idempotent=True,
        open_world=False,
    ),
    ToolSpec(
        "close_binary",
        "Close binary",
        "Close the active target. Clears the session's evidence ledger, residual-unknown registry and "
        "artifact manifests.",
        _obj({}),
        {
            "type": "object",
            "required": ["closed", "target", "cleared"],
            "properties": {
                "closed": {"type": "boolean"},
                "target": {"type": ["string", "null"]},
                "cleared": {"type": "object"},
            },
        },
        read_only=False,
        destructive=True,
        idempotent=True,
        open_world=False,
    ),
    ToolSpec(
        "doctor",
        "Doctor",
        "Report the analysis environment, provider states and the active target; with a path, check whether "
        "that file or .app bundle can be opened.",
        _obj({"path": {"type": "string", "description": "Optional file or .app bundle to check."}}),
        _result(["environment", "session"], {"environment": {"type": "object"}, "session": {"type": "object"}}),
        read_only=True,
        destructive=False,
        idempotent=True,
        open_world=False,
    ),
    ToolSpec(
        "list_documents",
        "List documents",
        "List the documents (binaries) of the active target as the chosen provider reports them.",
        _obj({"provider": {"type": "string", "description": "Provider to read (default: auto)."}}),
        _result(["provider", "documents"], {"provider": {"type": "string"}, "documents": {"type": "array"}}),
        read_only=True,
        destructive=False,
        idempotent=True,
        open_world=False,
    ),
    ToolSpec(
        "list_procedures",
        "List procedures",
        "List one document's procedures (function addresses with all their names), a page at a time.",
        _obj(
            {
                "document": _name_arg("Document (default: the target's first document)"),
                "provider": {"type": "string", "description": "Provider to read (default: auto)."},
                "offset": {"type": "integer", "minimum": 0, "default": 0},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIST_PAGE, "default": 100},
            }
        ),
        _or_narrowing(
            _result(
                ["document", "provider", "offset", "total", "procedures"],
                {
                    "document": _DOC_REF,
                    "provider": {"type": "string"},
                    "offset": {"type": "integer"},
                    "limit": {"type": "integer"},
                    "total": {"type": "integer"},
                    "next_offset": {"type": ["integer", "null"]},
                    "procedures": {"type": "array", "items": _PROCEDURE},
                },
            )
        ),
        read_only=True,
        destructive=False,
        idempotent=True,
        open_world=False,
    ),
    ToolSpec(
        "inspect_procedure",
        "Inspect procedure",
        "Inspect one procedure: its names, address and a bounded capstone disassembly window, with the "
        "procedures it calls. Answers with a narrowing reply when the procedure or document is missing, "
        "unknown or ambiguous.",
        _obj(
            {
                "procedure": _name_arg("Procedure name, address (0x...) or id"),
                "document": _name_arg("Document to look in (optional; pins the search)"),
                "provider": {"type": "string", "description": "Provider to read (default: auto)."},
                "max_instructions": {"type": "integer", "minimum": 1, "maximum": 512, "default": 64},
            }
        ),
        _or_narrowing(
            _result(
                ["document", "procedure", "disassembly"],
                {"document": _DOC_REF, "procedure": _PROCEDURE, "disassembly": {"type": "object"}},
            )
        ),
        read_only=True,
        destructive=False,
        idempotent=True,
        open_world=False,
    ),
    ToolSpec(
        "inspect_binary_layout",
        "Inspect binary layout",
        "Sections, segments, entry point and linked libraries of one document of the active target.",
        _obj({"document": _name_arg("Document (default: the target's first document)")}),
        _or_narrowing(_result(["document", "layout"], {"document": _DOC_REF, "layout": {"type": "object"}})),
        read_only=True,
        destructive=False,
        idempotent=True,
        open_world=False,
    ),
    ToolSpec(
        "inspect_analysis_view",
        "Inspect analysis view",
        "A view over retained analyze_javascript_application or inspect_binary_layout evidence: overview, "
        "feature seeds, graph or findings, returned inline.",
        _obj(
            {
                "evidence": {
                    "type": "string",
                    "description": "Evidence ID to view (default: the latest eligible).",
                },
                "view": {"enum": ["overview", "feature_seeds", "graph", "findings"], "default": "overview"},
                "query": {"type": "string", "description": "Optional case-insensitive filter."},
            }
        ),
        _result(
            ["source_evidence", "view"],
            {
                "source_evidence": _EVIDENCE_ID,
                "view": {"type": "string"},
                "source_operation": {"type": "string"},
            },
        ),
        read_only=True,
        destructive=False,
        idempotent=True,
        open_world=False,
    ),
    ToolSpec(
        "analyze_javascript_application",
        "Analyze JavaScript application",
        "Statically analyze a JavaScript/Electron application directory (package.json, scripts, app.asar): "
        "IPC channels, functions and module edges as feature seeds. No open_binary needed; nothing is run.",
        _obj(
            {"input_path": {"type": "string", "minLength": 1, "description": "Application directory."}},
            ["input_path"],
        ),
        _result(
            ["input_path", "application", "feature_seeds"],
            {
                "input_path": {"type": "string"},
                "application": {"enum": ["electron", "javascript"]},
                "feature_seeds": {"type": "array"},
            },
        ),
        read_only=True,
        destructive=False,
        idempotent=True,
        open_world=False,
    ),
    ToolSpec(
        "inventory_artifact",
        "Inventory artifact",
        "Inventory the active target's artifacts (files, sections, linked libraries) as a manifest with "
        "occurrence IDs, a page at a time. Acts on the active target; pass manifest to page an existing one.",
        _obj(
            {
                "manifest": _name_arg("Existing manifest to page (optional)"),
                "offset": {"type": "integer", "minimum": 0, "default": 0},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIST_PAGE, "default": 100},
            }
        ),
        _or_narrowing(
            _result(
                ["schema", "manifest", "page"],
                {"schema": {"type": "string"}, "manifest": {"type": "object"}, "page": {"type": "object"}},
            )
        ),
        read_only=True,
        destructive=False,
        idempotent=False,
        open_world=False,
    ),
    ToolSpec(
        "inspect_artifact",
        "Inspect artifact",
        "Inspect a manifest of the active target (graph and findings) or one of its occurrences, inline. "
        "Open the manifest's target first: inspection acts on the active target.",
        _obj(
            {
                "manifest": _name_arg("Manifest (M-0001) or its number"),
                "occurrence": {
                    "type": "string",
                    "description": "Optional occurrence ID (O-0001-0001) or name.",
                },
            }
        ),
        _or_narrowing(_result(["manifest"], {"manifest": {"type": "object"}})),
        read_only=True,
        destructive=False,
        idempotent=True,
        open_world=False,
    ),
    ToolSpec(
        "record_unknown",
        "Record unknown",
        "Record a residual unknown: an open question the evidence does not settle. It may supersede an "
        "earlier unknown head.",
        _obj(
            {
                "question": {"type": "string", "minLength": 1},
                "context": {"type": "string"},
                "evidence": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Related evidence IDs.",
                },
                "supersedes": _name_arg("Unknown head this refines (optional)"),
            },
            ["question"],
        ),
        _or_narrowing(_result(["unknown"], {"unknown": {"type": "object"}})),
        read_only=False,
        destructive=False,
        idempotent=False,
        open_world=False,
    ),
    ToolSpec(
        "resolve_unknown",
        "Resolve unknown",
        "Resolve a residual-unknown head with a resolution and the retained evidence ID that qualifies it.",
        _obj(
            {
                "unknown": _name_arg("Unknown head (U-0001), its number, or words of its question"),
                "resolution": {"type": "string", "minLength": 1},
                "evidence": {
                    "type": "string",
                    "description": "Retained evidence ID supporting the resolution.",
                },
            },
            ["resolution", "evidence"],
        ),
        _or_narrowing(_result(["unknown"], {"unknown": {"type": "object"}})),
        read_only=False,
        destructive=False,
        idempotent=False,
        open_world=False,
    ),
    ToolSpec(
        "list_unknowns",
        "List unknowns",
        "List residual unknowns (by default the open heads).",
        _obj({"status": {"enum": ["open", "resolved", "superseded", "all"], "default": "open"}}),
        _result(["unknowns"], {"unknowns": {"type": "array"}}),
        read_only=True,
        destructive=False,
        idempotent=True,
        open_world=False,
    ),
    ToolSpec(
        "run_process_capture",
        "Run process capture",
        "Run the active target's main executable once, without a shell, with a hard time limit and capped "
        "output, and retain the result as Process Capture v4 evidence. Asks for confirmation (form "
        "elicitation) unless confirm is true.",
        _obj(
            {
                "arguments": {
                    "type": "string",
                    "default": "",
                    "description": "Command-line arguments (POSIX quoting).",
                },
                "timeout_seconds": {"type": "integer", "minimum": 1, "maximum": 30, "default": 5},
                "capture_environment": {"type": "boolean", "default": False},
                "confirm": {
                    "type": "boolean",
                    "default": False,
                    "description": "The user already approved these exact parameters.",
                },
            }
        ),
        {
            "type": "object",
            "required": ["status"],
            "properties": {
                "status": {"enum": ["completed", "timed_out", "failed_to_start", "not_run"]},
                "schema": {"type": "string"},
                "evidence_id": _EVIDENCE_ID,
            },
        },
        read_only=False,
        destructive=True,
        idempotent=False,
        open_world=True,
    ),
)

TOOLS_BY_NAME: dict[str, ToolSpec] = {t.name: t for t in TOOLS}
NAME_ARGUMENTS = frozenset({"document", "procedure", "manifest", "unknown", "supersedes"})
