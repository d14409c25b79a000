"""Application analysis and views over retained evidence: analyze_javascript_application, inspect_analysis_view."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import anyio.to_thread

from rea_tui.server.completion.text_forms import fold
from rea_tui.server.target import javascript_analysis
from rea_tui.server.toolkit.evidence_ledger import EvidenceEntry
from rea_tui.server.toolkit.tool_outcomes import Evidence, Failure, Outcome
from rea_tui.server.toolkit.tool_registry import Handler
from rea_tui.server.toolkit.tool_services import ToolCall

VIEWABLE = ("analyze_javascript_application", "inspect_binary_layout")
"""Operations whose retained evidence inspect_analysis_view reads."""


async def analyze_javascript_application(call: ToolCall) -> Outcome:
    try:
        result = await anyio.to_thread.run_sync(javascript_analysis.analyze, str(call.args["input_path"]))
    except ValueError as exc:
        return Failure(str(exc))
    return Evidence(result)


def _source(call: ToolCall) -> EvidenceEntry | Failure:
    ledger = call.session.ledger
    wanted = call.args.get("evidence")
    if wanted:
        entry = ledger.get(str(wanted))
        if entry is None:
            return Failure(f"No retained evidence {wanted!r} in this session.")
        if entry.operation not in VIEWABLE:
            return Failure(
                f"Evidence {entry.id} comes from {entry.operation}; this view needs "
                "analyze_javascript_application or inspect_binary_layout evidence."
            )
        return entry
    entries = [e for e in ledger.entries() if e.operation in VIEWABLE]
    if not entries:
        return Failure(
            "No retained analyze_javascript_application or inspect_binary_layout evidence; run one of them first."
        )
    return entries[-1]


def _count(values: Iterable[str]) -> dict[str, int]:
    return dict(Counter(values))


def _javascript_findings(result: dict[str, Any]) -> list[dict[str, Any]]:
    findings: list[dict[str, Any]] = []
    seeds = result.get("feature_seeds", [])
    handlers = {s["name"] for s in seeds if s["kind"] == "ipc_handler"}
    calls = {s["name"] for s in seeds if s["kind"] == "ipc_call"}
    for channel in sorted(calls - handlers):
        findings.append(
            {
                "kind": "ipc_call_without_handler",
                "channel": channel,
                "note": "no handler seen in the scanned files (observation is bounded)",
            }
        )
    for channel in sorted(handlers - calls):
        findings.append(
            {
                "kind": "ipc_handler_without_caller",
                "channel": channel,
                "note": "no caller seen in the scanned files (observation is bounded)",
            }
        )
    if result.get("scripts", {}).get("truncated"):
        findings.append({"kind": "bounded_listing", "note": "more scripts exist than were listed"})
    return findings


def _javascript_view(result: dict[str, Any], view: str, query: str) -> dict[str, Any]:
    if view == "overview":
        return {
            "overview": {
                "application": result.get("application"),
                "package": result.get("package"),
                "scripts": result.get("scripts", {}).get("count"),
                "feature_seed_kinds": _count(s["kind"] for s in result.get("feature_seeds", [])),
            }
        }
    if view == "feature_seeds":
        return {"feature_seeds": [s for s in result.get("feature_seeds", []) if query in fold(str(s.get("name", "")))]}
    if view == "graph":
        edges = [e for e in result.get("module_edges", []) if query in fold(f"{e['from']} {e['to']}")]
        nodes = sorted({e["from"] for e in edges} | {e["to"] for e in edges})
        return {"graph": {"nodes": nodes, "edges": edges}}
    return {"findings": _javascript_findings(result)}


def _layout_view(result: dict[str, Any], view: str, query: str) -> dict[str, Any]:
    layout = result.get("layout", {})
    document = result.get("document", {}).get("name", "")
    sections = [s["name"] for s in layout.get("sections", [])]
    libraries = list(layout.get("libraries", []))
    if view == "overview":
        return {
            "overview": {
                "document": document,
                "format": layout.get("format"),
                "arch": layout.get("arch"),
                "sections": len(sections),
                "libraries": libraries,
                "procedure_count": layout.get("procedure_count"),
            }
        }
    if view == "feature_seeds":
        return {"feature_seeds": [n for n in sections + libraries if query in fold(n)]}
    if view == "graph":
        nodes = [document, *sections, *libraries]
        edges = [{"from": document, "to": s, "relation": "has_section"} for s in sections]
        edges += [{"from": document, "to": lib, "relation": "links"} for lib in libraries]
        return {"graph": {"nodes": [n for n in nodes if query in fold(n)], "edges": edges}}
    findings = [
        {"kind": "writable_executable_section", "section": s["name"]}
        for s in layout.get("sections", [])
        if "write" in s.get("flags", []) and "exec" in s.get("flags", [])
    ]
    return {"findings": findings}


async def inspect_analysis_view(call: ToolCall) -> Outcome:
    entry = _source(call)
    if isinstance(entry, Failure):
        return entry
    view = str(call.args.get("view") or "overview")
    query = fold(str(call.args.get("query") or ""))
    shape = _javascript_view if entry.operation == "analyze_javascript_application" else _layout_view
    payload = {"source_evidence": entry.id, "source_operation": entry.operation, "view": view}
    return Evidence({**payload, **shape(entry.result, view, query)})


HANDLERS: dict[str, Handler] = {
    "inspect_analysis_view": inspect_analysis_view,
    "analyze_javascript_application": analyze_javascript_application,
}
