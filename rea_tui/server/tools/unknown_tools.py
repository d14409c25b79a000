"""Residual unknowns: record_unknown, resolve_unknown, list_unknowns."""

from __future__ import annotations

from rea_tui.server.name_resolver import Item, Narrowing, is_missing, make_item, resolve
from rea_tui.server.tool_outcomes import Evidence, Failure, Outcome
from rea_tui.server.tool_registry import READS, ToolHints, ToolSpec
from rea_tui.server.tool_schemas import arguments_schema, name_argument, or_narrowing, result_schema
from rea_tui.server.tool_services import ToolCall

RECORDS = ToolHints(read_only=False, destructive=False, idempotent=False, open_world=False)


def _head_items(call: ToolCall) -> list[Item]:
    return [make_item(u.number, u.id, (u.question,)) for u in call.session.unknowns.heads()]


async def record_unknown(call: ToolCall) -> Outcome:
    session = call.session
    supersedes = None
    if not is_missing(call.args.get("supersedes")):
        found = resolve(call.args["supersedes"], _head_items(call), argument="supersedes", noun="unknown head")
        if isinstance(found, Narrowing):
            return found
        supersedes = session.unknowns.by_number(found.id)
    evidence = [str(e) for e in call.args.get("evidence", [])]
    missing = [e for e in evidence if session.ledger.get(e) is None]
    if missing:
        return Failure(f"Not retained in this session: {', '.join(missing)}.")
    item = session.unknowns.record(
        str(call.args["question"]), call.args.get("context"), evidence, session.target_path, supersedes
    )
    return Evidence({"unknown": item.describe()})


async def resolve_unknown(call: ToolCall) -> Outcome:
    found = resolve(call.args.get("unknown"), _head_items(call), argument="unknown", noun="unknown head")
    if isinstance(found, Narrowing):
        return found
    entry = call.session.ledger.get(str(call.args["evidence"]))
    if entry is None:
        return Failure(
            f"Evidence {call.args['evidence']!r} is not retained in this session; a resolution must cite retained "
            "evidence."
        )
    item = call.session.unknowns.by_number(found.id)
    assert item is not None, "resolver items come from the same registry"
    item.status = "resolved"
    item.resolution = str(call.args["resolution"])
    item.resolution_evidence = entry.id
    return Evidence({"unknown": item.describe()})


async def list_unknowns(call: ToolCall) -> Outcome:
    status = str(call.args.get("status") or "open")
    items = call.session.unknowns.all()
    chosen = items if status == "all" else [u for u in items if u.status == status]
    return Evidence({"status": status, "unknowns": [u.describe() for u in chosen]})


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
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
        record_unknown,
    ),
    ToolSpec(
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
        resolve_unknown,
    ),
    ToolSpec(
        "list_unknowns",
        "List unknowns",
        "List residual unknowns (by default the open heads).",
        arguments_schema({"status": {"enum": ["open", "resolved", "superseded", "all"], "default": "open"}}),
        result_schema(["unknowns"], {"unknowns": {"type": "array"}}),
        READS,
        list_unknowns,
    ),
)
