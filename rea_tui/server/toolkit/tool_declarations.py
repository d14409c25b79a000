"""What each tool is, as plain data: name, title, description, schemas and declared hints.

`tools/list` is built from `DECLARATIONS` alone (`server_lists.tool_items`),
both by the SDK's handler and by the stdio front before the SDK has loaded,
so this module imports nothing but the standard library and the schema
fragments of `tool_schemas`. What a tool does lives in its handler module
under `tools/`; `tool_catalog` binds each declaration to its handler by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from rea_tui.server.toolkit.tool_schemas import (
    DOC_REF,
    EVIDENCE_ID,
    LIMIT_ARGUMENT,
    NOT_DECODED,
    OFFSET_ARGUMENT,
    PROCEDURE,
    PROVIDER_ARGUMENT,
    arguments_schema,
    name_argument,
    or_narrowing,
    paged_result,
    procedure_argument,
    result_schema,
)


@dataclass(frozen=True, slots=True)
class ToolHints:
    """The declared annotations (declared, not verified, as the host shows them)."""

    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool


READS = ToolHints(read_only=True, destructive=False, idempotent=True, open_world=False)
"""Inspects the session or target and changes nothing."""
RECORDS = ToolHints(read_only=False, destructive=False, idempotent=False, open_world=False)
"""Adds to what the session retains."""


@dataclass(frozen=True, slots=True)
class ToolDeclaration:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    hints: ToolHints

    def wire(self) -> dict[str, Any]:
        """The MCP `Tool` object (camelCase keys, no nulls); the title doubles as the annotations' title."""
        tool: dict[str, Any] = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
        }
        if self.output_schema is not None:
            tool["outputSchema"] = self.output_schema
        tool["annotations"] = {
            "title": self.title,
            "readOnlyHint": self.hints.read_only,
            "destructiveHint": self.hints.destructive,
            "idempotentHint": self.hints.idempotent,
            "openWorldHint": self.hints.open_world,
        }
        return tool


DEFAULT_MAX_INSTRUCTIONS: Final = 64
MAX_INSTRUCTIONS: Final = 512
"""inspect_procedure's disassembly bound."""
DEFAULT_TIMEOUT_SECONDS: Final = 5
MAX_TIMEOUT_SECONDS: Final = 30
"""run_process_capture's time limit."""

_PAGE = {"offset": OFFSET_ARGUMENT, "limit": LIMIT_ARGUMENT}
_DOCUMENT = name_argument("Document to look in (optional; pins the search)")


def _graph_tool(name: str, title: str, description: str, rows: str) -> ToolDeclaration:
    return ToolDeclaration(
        name,
        title,
        description,
        arguments_schema(
            {"procedure": procedure_argument(), "document": _DOCUMENT, "provider": PROVIDER_ARGUMENT, **_PAGE}
        ),
        or_narrowing(
            paged_result(
                ["document", "procedure", rows],
                {"document": DOC_REF, "procedure": PROCEDURE, rows: {"type": "array"}},
            )
        ),
        READS,
    )


DECLARATIONS: tuple[ToolDeclaration, ...] = (
    # -- the target lifecycle and the environment (tools/target_tools.py)
    ToolDeclaration(
        "open_binary",
        "Open binary",
        "Open a file, a directory of binaries or a macOS .app bundle as the active target (switching from "
        "the current one). Also accepts 'default:' (the running Python interpreter and its libraries) and "
        "'synthetic:N[:SEED]' (a deterministic synthetic target with N procedures). For a "
        "JavaScript/Electron application directory, use analyze_javascript_application instead. "
        "Switching keeps the evidence ledger and unknowns (close_binary clears them).",
        arguments_schema(
            {"path": {"type": "string", "minLength": 1, "description": "Path of the target to open."}},
            ["path"],
        ),
        result_schema(
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
        ToolHints(read_only=False, destructive=False, idempotent=True, open_world=False),
    ),
    ToolDeclaration(
        "close_binary",
        "Close binary",
        "Close the active target. Clears the session's evidence ledger, residual-unknown registry and "
        "artifact manifests (their IDs are not handed out again).",
        arguments_schema({}),
        {
            "type": "object",
            "required": ["closed", "target", "cleared"],
            "properties": {
                "closed": {"type": "boolean"},
                "target": {"type": ["string", "null"]},
                "cleared": {"type": "object"},
            },
        },
        ToolHints(read_only=False, destructive=True, idempotent=True, open_world=False),
    ),
    ToolDeclaration(
        "doctor",
        "Doctor",
        "Report the analysis environment, the target's state (opening, ready, failed) and its providers; "
        "with a path, check whether that file or .app bundle can be opened.",
        arguments_schema({"path": {"type": "string", "description": "Optional file or .app bundle to check."}}),
        result_schema(["environment", "session"], {"environment": {"type": "object"}, "session": {"type": "object"}}),
        READS,
    ),
    # -- documents and procedures (tools/procedure_tools.py)
    ToolDeclaration(
        "list_documents",
        "List documents",
        "List the documents (binaries) of the active target as the chosen provider reports them.",
        arguments_schema({"provider": PROVIDER_ARGUMENT}),
        or_narrowing(
            result_schema(["provider", "documents"], {"provider": {"type": "string"}, "documents": {"type": "array"}})
        ),
        READS,
    ),
    ToolDeclaration(
        "list_procedures",
        "List procedures",
        "List one document's procedures (function addresses with all their names), a page at a time.",
        arguments_schema(
            {
                "document": name_argument("Document (default: the target's first document)"),
                "provider": PROVIDER_ARGUMENT,
                "offset": OFFSET_ARGUMENT,
                "limit": LIMIT_ARGUMENT,
            }
        ),
        or_narrowing(
            paged_result(
                ["document", "provider", "offset", "procedures"],
                {
                    "document": DOC_REF,
                    "provider": {"type": "string"},
                    "procedures": {"type": "array", "items": PROCEDURE},
                    "not_decoded": NOT_DECODED,
                },
            )
        ),
        READS,
    ),
    ToolDeclaration(
        "inspect_procedure",
        "Inspect procedure",
        "Inspect one procedure: its names, address and capstone listing (the whole procedure, a page at a "
        "time from offset), targets and strings named. Answers with a narrowing reply when the procedure "
        "or document is missing, unknown or ambiguous.",
        arguments_schema(
            {
                "procedure": procedure_argument(),
                "document": name_argument("Document to look in (optional; pins the search)"),
                "provider": PROVIDER_ARGUMENT,
                "max_instructions": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_INSTRUCTIONS,
                    "default": DEFAULT_MAX_INSTRUCTIONS,
                },
                # No default: clients fill defaults in, and an unasked-for offset would crowd every call.
                "offset": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "Instruction to start the page at (next_offset; 0 when not given).",
                },
            }
        ),
        or_narrowing(
            result_schema(
                ["document", "procedure", "disassembly"],
                {
                    "document": DOC_REF,
                    "procedure": PROCEDURE,
                    "disassembly": {"type": "object"},
                    "not_decoded": NOT_DECODED,
                },
            )
        ),
        READS,
    ),
    ToolDeclaration(
        "inspect_binary_layout",
        "Inspect binary layout",
        "Sections, segments, entry point and linked libraries of one document of the active target.",
        arguments_schema({"document": name_argument("Document (default: the target's first document)")}),
        or_narrowing(result_schema(["document", "layout"], {"document": DOC_REF, "layout": {"type": "object"}})),
        READS,
    ),
    # -- feature tracing (tools/tracing_tools.py)
    ToolDeclaration(
        "search_strings",
        "Search strings",
        "Find strings in the data sections of the active target's documents (runs of at least four printable "
        "characters) whose text contains the query (NFKC, case-insensitive), each with its id, document, "
        "section and address, a page at a time.",
        arguments_schema(
            {
                "query": {"type": "string", "minLength": 1, "description": "Text the strings must contain."},
                "document": name_argument("Document to search (default: every document)"),
                **_PAGE,
            },
            ["query"],
        ),
        or_narrowing(paged_result(["query", "strings"], {"query": {"type": "string"}, "strings": {"type": "array"}})),
        READS,
    ),
    ToolDeclaration(
        "find_references",
        "Find references",
        "Find what refers to a string (resolved among the target's strings), an address, or a procedure: "
        "code (RIP-relative operands, absolute addresses, calls and tail jumps, by capstone) and data "
        "(relocations, pointers) with the symbol holding each. Give exactly one of string, address or procedure.",
        arguments_schema(
            {
                "string": name_argument("String text (or part of it) or string id from search_strings"),
                "address": {"type": "string", "description": "Address the code refers to (0x...)."},
                "procedure": procedure_argument("Procedure referred to:"),
                "document": _DOCUMENT,
                **_PAGE,
            }
        ),
        or_narrowing(
            paged_result(
                ["document", "query", "references"],
                {"document": DOC_REF, "query": {"type": "object"}, "references": {"type": "array"}},
            )
        ),
        READS,
    ),
    _graph_tool(
        "callers",
        "Callers",
        "The procedures that call the given procedure directly (or jump to it as a tail call), with the call sites.",
        "callers",
    ),
    _graph_tool(
        "callees",
        "Callees",
        "The procedures (and imported functions, through the PLT) the given procedure calls directly, with "
        "the call sites.",
        "callees",
    ),
    # -- application analysis and views over evidence (tools/analysis_view_tools.py)
    ToolDeclaration(
        "inspect_analysis_view",
        "Inspect analysis view",
        "A view over retained analyze_javascript_application or inspect_binary_layout evidence: overview, "
        "feature seeds, graph or findings, returned inline.",
        arguments_schema(
            {
                "evidence": {"type": "string", "description": "Evidence ID to view (default: the latest eligible)."},
                "view": {"enum": ["overview", "feature_seeds", "graph", "findings"], "default": "overview"},
                "query": {"type": "string", "description": "Optional case-insensitive filter."},
            }
        ),
        result_schema(
            ["source_evidence", "view"],
            {"source_evidence": EVIDENCE_ID, "view": {"type": "string"}, "source_operation": {"type": "string"}},
        ),
        READS,
    ),
    ToolDeclaration(
        "analyze_javascript_application",
        "Analyze JavaScript application",
        "Statically analyze a JavaScript/Electron application directory (package.json, scripts, app.asar): "
        "IPC channels, functions and module edges as feature seeds. No open_binary needed; nothing is run.",
        arguments_schema(
            {"input_path": {"type": "string", "minLength": 1, "description": "Application directory."}},
            ["input_path"],
        ),
        result_schema(
            ["input_path", "application", "feature_seeds"],
            {
                "input_path": {"type": "string"},
                "application": {"enum": ["electron", "javascript"]},
                "feature_seeds": {"type": "array"},
            },
        ),
        READS,
    ),
    # -- artifact manifests (tools/artifact_tools.py)
    ToolDeclaration(
        "inventory_artifact",
        "Inventory artifact",
        "Inventory the active target's artifacts (files, sections, linked libraries) as a manifest with "
        "occurrence IDs, a page at a time. Acts on the active target; pass manifest to page an existing one.",
        arguments_schema(
            {
                "manifest": name_argument("Existing manifest to page (optional)"),
                "offset": OFFSET_ARGUMENT,
                "limit": LIMIT_ARGUMENT,
            }
        ),
        or_narrowing(
            result_schema(
                ["schema", "manifest", "page"],
                {"schema": {"type": "string"}, "manifest": {"type": "object"}, "page": {"type": "object"}},
            )
        ),
        ToolHints(read_only=True, destructive=False, idempotent=False, open_world=False),
    ),
    ToolDeclaration(
        "inspect_artifact",
        "Inspect artifact",
        "Inspect a manifest of the active target (graph and findings) or one of its occurrences, inline. "
        "Open the manifest's target first: inspection acts on the active target.",
        arguments_schema(
            {
                "manifest": name_argument("Manifest (M-0001) or its number"),
                "occurrence": {"type": "string", "description": "Optional occurrence ID (O-0001-0001) or name."},
            }
        ),
        or_narrowing(result_schema(["manifest"], {"manifest": {"type": "object"}})),
        READS,
    ),
    # -- residual unknowns (tools/unknown_tools.py)
    ToolDeclaration(
        "record_unknown",
        "Record unknown",
        "Record a residual unknown: an open question the evidence does not settle. It may supersede an "
        "earlier unknown head.",
        arguments_schema(
            {
                "question": {"type": "string", "minLength": 1},
                "context": {"type": "string"},
                "evidence": {"type": "array", "items": {"type": "string"}, "description": "Related evidence IDs."},
                "supersedes": name_argument("Unknown head this refines (optional)"),
            },
            ["question"],
        ),
        or_narrowing(result_schema(["unknown"], {"unknown": {"type": "object"}})),
        RECORDS,
    ),
    ToolDeclaration(
        "resolve_unknown",
        "Resolve unknown",
        "Resolve a residual-unknown head with a resolution and the retained evidence ID that qualifies it.",
        arguments_schema(
            {
                "unknown": name_argument("Unknown head (U-0001), its number, or words of its question"),
                "resolution": {"type": "string", "minLength": 1},
                "evidence": {"type": "string", "description": "Retained evidence ID supporting the resolution."},
            },
            ["resolution", "evidence"],
        ),
        or_narrowing(result_schema(["unknown"], {"unknown": {"type": "object"}})),
        RECORDS,
    ),
    ToolDeclaration(
        "list_unknowns",
        "List unknowns",
        "List residual unknowns (by default the open heads).",
        arguments_schema({"status": {"enum": ["open", "resolved", "superseded", "all"], "default": "open"}}),
        result_schema(["unknowns"], {"unknowns": {"type": "array"}}),
        READS,
    ),
    # -- process capture (tools/capture_tools.py)
    ToolDeclaration(
        "run_process_capture",
        "Run process capture",
        "Run the main executable of the target the server was started with once, without a shell, in its own "
        "process group, with a hard time limit and capped output, and retain the result as Process Capture "
        "v4 evidence. Every run is confirmed by the user through form elicitation; targets opened later with "
        "open_binary are never run.",
        arguments_schema(
            {
                "arguments": {
                    "type": "string",
                    "default": "",
                    "description": "Command-line arguments (POSIX quoting).",
                },
                "timeout_seconds": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_TIMEOUT_SECONDS,
                    "default": DEFAULT_TIMEOUT_SECONDS,
                },
                "capture_environment": {"type": "boolean", "default": False},
            }
        ),
        {
            "type": "object",
            "required": ["status"],
            "properties": {
                "status": {"enum": ["completed", "timed_out", "failed_to_start", "not_run"]},
                "schema": {"type": "string"},
                "evidence_id": EVIDENCE_ID,
            },
        },
        ToolHints(read_only=False, destructive=True, idempotent=False, open_world=True),
    ),
)
"""Every tool, in the order `tools/list` shows them."""
