"""Residual unknowns: record_unknown, resolve_unknown, list_unknowns."""

from __future__ import annotations

from rea_tui.server.completion.name_resolver import Item, Narrowing, is_missing, make_item, resolve
from rea_tui.server.toolkit.tool_outcomes import Evidence, Failure, Outcome
from rea_tui.server.toolkit.tool_registry import Handler
from rea_tui.server.toolkit.tool_services import ToolCall


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


HANDLERS: dict[str, Handler] = {
    "record_unknown": record_unknown,
    "resolve_unknown": resolve_unknown,
    "list_unknowns": list_unknowns,
}
