"""Feature tracing: search_strings, find_references, callers, callees.

Strings come from the documents' data sections; references, callers and
callees from one capstone pass per document (`code_references`), built on
first use and kept until the target changes. The string, procedure, document
and provider arguments follow seed 003 like every other name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import anyio.to_thread

from rea_tui.server.analysis.code_listing import DataSymbol, Symbolizer, quoted
from rea_tui.server.analysis.code_references import CodeReference, ReferenceIndex
from rea_tui.server.analysis.data_references import DataReference, DataReferenceIndex
from rea_tui.server.analysis.string_index import MAX_STRING_CHARS
from rea_tui.server.analysis.target_analysis import LocatedString, TargetAnalysis, TargetStrings
from rea_tui.server.analysis.target_lookups import LocatedProcedure, document_ref, not_decoded, procedure_ref, shown
from rea_tui.server.completion.name_resolver import Item, Narrowing, Reason, is_missing, match, narrowing, not_found
from rea_tui.server.completion.text_forms import hex_address
from rea_tui.server.target.target import Document
from rea_tui.server.toolkit.tool_outcomes import Evidence, Failure, Outcome
from rea_tui.server.toolkit.tool_registry import Handler
from rea_tui.server.toolkit.tool_services import ToolCall

REFERENCE_SUBJECTS: Final = ("string", "address", "procedure")
"""What find_references accepts; exactly one of them."""

CALL_KINDS: Final = frozenset({"call", "jump", "slot_call", "slot_jump"})
MAX_USERS_SHOWN: Final = 10
"""Procedures shown per data reference as the users of the symbol holding it (used_by_total counts all)."""


def _string_entry(located: LocatedString) -> dict[str, Any]:
    found = located.found
    return {
        "id": located.id,
        "document": located.document.name,
        "section": found.section,
        "address": hex_address(found.address),
        "text": found.text[:MAX_STRING_CHARS],
        "truncated": len(found.text) > MAX_STRING_CHARS,
    }


def _page(rows: Sequence[Any], offset: int, limit: int) -> tuple[list[Any], int | None]:
    chunk = list(rows[offset : offset + limit])
    end = offset + len(chunk)
    return chunk, end if end < len(rows) else None


async def search_strings(call: ToolCall) -> Outcome:
    analysis = await call.lookups.ready()
    if isinstance(analysis, Failure):
        return analysis
    pinned = call.lookups.pinned_document(analysis, call.args.get("document"))
    if isinstance(pinned, Narrowing):
        return pinned
    strings = await anyio.to_thread.run_sync(analysis.strings)
    query = str(call.args["query"])
    matches: list[LocatedString] = []
    for doc, index in strings.documents():
        if pinned is not None and doc is not pinned:
            continue
        for position in index.search(query):
            found = index.strings[position]
            matches.append(LocatedString(doc, position, strings.string_id(doc, position), found))
    offset, limit = call.page()
    chunk, next_offset = _page(matches, offset, limit)
    return Evidence(
        {
            "query": query,
            "document": document_ref(pinned) if pinned else None,
            "match": "NFKC case-insensitive substring",
            "offset": offset,
            "limit": limit,
            "total": len(matches),
            "next_offset": next_offset,
            "strings": [_string_entry(m) for m in chunk],
        }
    )


# -- resolving what references point to ------------------------------------------------------


def _resolve_string(
    strings: TargetStrings, analysis: TargetAnalysis, value: Any, pinned: Document | None
) -> LocatedString | Narrowing:
    scoped: dict[str, Any] = {"document": pinned.name} if pinned else {}
    items: list[Item] = strings.items_by_document[pinned.name] if pinned else strings.items
    if is_missing(value):
        question = "What should the references point to: a string, an address or a procedure?"
        return narrowing("missing_required", "string", "string", items, scoped, question=question)
    kind, found = match(value, items)
    if len(found) == 1:
        located = strings.locate(found[0].id)
        assert located is not None
        return located
    if not found:
        return not_found("string", "string", items, scoped, value)
    documents = list(dict.fromkeys(i.get("document") for i in found))
    if kind == "exact" and pinned is None and len(documents) == len(found) > 1:
        doc_items = [i for i in analysis.document_items if i.name in documents]
        ask = f"String {shown(value)} is in {len(doc_items)} documents. Which document?"
        return narrowing("ambiguous", "document", "document", doc_items, {"string": str(value)}, value, question=ask)
    return narrowing("ambiguous", "string", "string", found, scoped, value)


def _resolve_address(analysis: TargetAnalysis, value: Any, pinned: Document | None) -> tuple[Document, int] | Narrowing:
    text = str(value).strip().lower()
    try:
        address = int(text, 16) if text.startswith("0x") else int(text)
    except ValueError:
        address = -1
    if address < 0:
        ask = f"{shown(value)} is not an address. Which address (0x...)?"
        return narrowing("not_found", "address", "address", [], {}, value, question=ask)
    if pinned is not None:
        return pinned, address
    documents = analysis.target.documents
    if len(documents) == 1:
        return documents[0], address
    mapping = [d for d in documents if any(lo <= address < hi for lo, hi in analysis.section_ranges(d))]
    if len(mapping) == 1:
        return mapping[0], address
    chosen = mapping or documents
    doc_items = [i for i in analysis.document_items if any(i.name == d.name for d in chosen)]
    reason: Reason = "ambiguous" if mapping else "not_found"
    where = f"{len(mapping)} documents map" if mapping else "No document maps"
    ask = f"{where} address {hex_address(address)}. Which document?"
    return narrowing(reason, "document", "document", doc_items, {"address": hex_address(address)}, value, question=ask)


def _procedures_referring(
    analysis: TargetAnalysis,
    doc: Document,
    refs: Sequence[CodeReference],
    call: ToolCall,
    annotate: Callable[[int], dict[str, Any]] | None = None,
) -> tuple[list[dict[str, Any]], int | None, int]:
    """References grouped by referring procedure, in address order, a page at a time."""
    grouped: dict[int, list[CodeReference]] = {}
    for ref in refs:
        grouped.setdefault(ref.source, []).append(ref)
    offset, limit = call.page()
    sources, next_offset = _page(sorted(grouped), offset, limit)
    rows = []
    for position in sources:
        procedure = LocatedProcedure(doc, position, analysis.procedure_id(doc, position))
        sites = [
            {
                "at": hex_address(r.site),
                "kind": r.kind,
                "target": hex_address(r.target),
                **(annotate(r.target) if annotate else {}),
            }
            for r in grouped[position]
        ]
        rows.append({"procedure": procedure_ref(procedure), "sites": sites})
    return rows, next_offset, len(grouped)


def _users(analysis: TargetAnalysis, doc: Document, index: ReferenceIndex, symbol: DataSymbol) -> dict[str, Any]:
    """The procedures whose code refers to a data symbol: a data reference followed one level. A symbol
    whose size the format does not give (Mach-O, PE exports) counts references to its start only: the
    extent to the next symbol may hold other, unnamed objects."""
    extent = max(symbol.size, 1) if symbol.sized else 1
    refs = index.to_range(symbol.address, symbol.address + extent)
    sources = sorted({r.source for r in refs})
    shown = [procedure_ref(LocatedProcedure(doc, p, analysis.procedure_id(doc, p))) for p in sources[:MAX_USERS_SHOWN]]
    return {"used_by": shown, "used_by_total": len(sources)}


def _data_rows(
    analysis: TargetAnalysis,
    doc: Document,
    refs: Sequence[DataReference],
    index: ReferenceIndex,
    symbols: Symbolizer,
    call: ToolCall,
    annotate: Callable[[int], dict[str, Any]] | None,
) -> tuple[list[dict[str, Any]], int | None]:
    """Data references a page at a time, each with what holds it and the code that uses its holder."""
    offset, limit = call.page()
    chunk, next_offset = _page(refs, offset, limit)
    rows = []
    for ref in chunk:
        row: dict[str, Any] = {
            "at": hex_address(ref.site),
            "kind": ref.kind,
            "type": ref.detail,
            "target": hex_address(ref.target),
            **(annotate(ref.target) if annotate else {}),
        }
        holder = symbols.data_symbol(ref.site)
        section = analysis.section_at(doc, ref.site)
        row["section"] = section[0] if section else None
        if holder is not None:
            offset_in = ref.site - holder.address
            row["holder"] = holder.name if offset_in == 0 else f"{holder.name}+0x{offset_in:x}"
            row.update(_users(analysis, doc, index, holder))
        else:
            row["holder"] = symbols.name(ref.site) or (f"{section[0]}+0x{section[1]:x}" if section else None)
        rows.append(row)
    return rows, next_offset


def _searched(doc: Document, data: DataReferenceIndex) -> dict[str, Any]:
    """What find_references looked at in this document, and what it could not."""
    searched: dict[str, Any] = {"code": "direct calls and jumps, RIP-relative and absolute operands (capstone)"}
    if doc.backend.arch == "ARM64":
        searched["code"] = "direct calls and jumps, adrp pages completed by add, load or store (capstone)"
    elif doc.backend.arch == "X86" and doc.backend.bits == 32:
        searched["code"] = (
            "direct calls and jumps, absolute operands, and operands at an offset from the base register a "
            "get_pc_thunk call and an add set (position-independent code; capstone)"
        )
    if doc.backend.code_note is not None:
        searched["code"] = None
        searched["code_not_searched"] = doc.backend.code_note
    parts = list(data.tables_read)
    if data.scanned_sections:
        parts.append(f"aligned pointers in {', '.join(data.scanned_sections)}")
    searched["data"] = " and ".join(parts) or None
    not_read = [f"{table} are not read" for table in data.tables_not_read]
    if not parts and not not_read:
        not_read.append(
            f"{doc.backend.format}: no relocation table the server reads, and plain pointers are scanned in "
            "fixed-address documents only"
        )
    if not_read:
        searched["not_searched"] = "; ".join(not_read)
    return searched


@dataclass(frozen=True, slots=True)
class _FoundReferences:
    """One page of find_references' answer, gathered in a worker."""

    reference_count: int
    rows: list[dict[str, Any]]
    next_offset: int | None
    total: int
    data_total: int
    data_rows: list[dict[str, Any]]
    data_next_offset: int | None


async def _reference_index(analysis: TargetAnalysis, doc: Document) -> ReferenceIndex:
    return await anyio.to_thread.run_sync(analysis.references, doc)


async def find_references(call: ToolCall) -> Outcome:
    analysis = await call.lookups.ready()
    if isinstance(analysis, Failure):
        return analysis
    given = [name for name in REFERENCE_SUBJECTS if not is_missing(call.args.get(name))]
    if len(given) > 1:
        return Failure(f"Give exactly one of string, address or procedure (got {', '.join(given)}).")
    pinned = call.lookups.pinned_document(analysis, call.args.get("document"))
    if isinstance(pinned, Narrowing):
        return pinned
    subject = given[0] if given else "string"
    query: dict[str, Any] = {"kind": subject}
    names: tuple[str, ...] = ()
    if subject == "procedure":
        located = call.lookups.procedure(analysis, call.args)
        if isinstance(located, Narrowing | Failure):
            return located
        doc, low = located.document, located.record.address
        high = low + 1
        query["procedure"] = procedure_ref(located)
        names = located.record.names
    elif subject == "address":
        resolved = _resolve_address(analysis, call.args["address"], pinned)
        if isinstance(resolved, Narrowing):
            return resolved
        doc, low = resolved
        high = low + 1
        query["address"] = hex_address(low)
    else:
        strings = await anyio.to_thread.run_sync(analysis.strings)
        chosen = _resolve_string(strings, analysis, call.args.get("string"), pinned)
        if isinstance(chosen, Narrowing):
            return chosen
        doc, low = chosen.document, chosen.found.address
        high = low + chosen.found.size  # a reference into the middle of the string counts
        query["string"] = _string_entry(chosen)
    if doc.backend.error:
        return Failure(f"{doc.name} could not be parsed: {doc.backend.error}")
    index = await _reference_index(analysis, doc)
    data = await anyio.to_thread.run_sync(analysis.data_references, doc)
    symbols = await anyio.to_thread.run_sync(analysis.symbolizer, doc)

    def gather() -> _FoundReferences:
        # In a worker: the biggest documents search their code per target (`reference_search`).
        refs = index.to_procedure(low, names) if subject == "procedure" else index.to_range(low, high)
        data_refs = data.to_range(low, high)
        annotate = None
        if subject == "string":
            container = symbols.data_symbol(low)
            if container is not None and container.sized and container.address < low:
                # The text lives inside a larger object (a deep-frozen const_str_...): its users refer to the object.
                query["inside"] = {"symbol": container.name, "address": hex_address(container.address)}
                refs = sorted([*refs, *index.to_range(container.address, low)], key=lambda r: r.site)
                data_refs = [*data.to_range(container.address, low), *data_refs]
            annotate = _string_annotation(doc, low, high, container if "inside" in query else None)
        rows, next_offset, total = _procedures_referring(analysis, doc, refs, call, annotate)
        data_rows, data_next = _data_rows(analysis, doc, data_refs, index, symbols, call, annotate)
        return _FoundReferences(len(refs), rows, next_offset, total, len(data_refs), data_rows, data_next)

    found = await anyio.to_thread.run_sync(gather)
    offset, limit = call.page()
    return Evidence(
        {
            "document": document_ref(doc),
            "query": query,
            "searched": _searched(doc, data),
            "offset": offset,
            "limit": limit,
            "total": found.total,
            "next_offset": found.next_offset,
            "reference_count": found.reference_count,
            "references": found.rows,
            "data_total": found.data_total,
            "data_next_offset": found.data_next_offset,
            "data_references": found.data_rows,
            **not_decoded(doc),
        }
    )


def _string_annotation(
    doc: Document, low: int, high: int, container: DataSymbol | None
) -> Callable[[int], dict[str, Any]]:
    """Per-site notes for a string: a target past its start points at a suffix (merged strings)."""

    def annotate(target: int) -> dict[str, Any]:
        if container is not None and target < low:
            return {"via": container.name}
        if low < target < high:
            return {"suffix": quoted(doc.backend.read(target, high - target)), "offset": target - low}
        return {}

    return annotate


# -- the call graph --------------------------------------------------------------------------


async def _call_graph_subject(call: ToolCall) -> tuple[TargetAnalysis, LocatedProcedure, ReferenceIndex] | Outcome:
    analysis = await call.lookups.ready()
    if isinstance(analysis, Failure):
        return analysis
    provider = call.lookups.provider(analysis, call.args.get("provider"))
    if isinstance(provider, Failure | Narrowing):
        return provider
    located = call.lookups.procedure(analysis, call.args)
    if isinstance(located, Narrowing | Failure):
        return located
    if located.document.backend.error:
        return Failure(f"{located.document.name} could not be parsed: {located.document.backend.error}")
    return analysis, located, await _reference_index(analysis, located.document)


async def callers(call: ToolCall) -> Outcome:
    subject = await _call_graph_subject(call)
    if not isinstance(subject, tuple):
        return subject
    analysis, procedure, index = subject
    record = procedure.record
    refs = await anyio.to_thread.run_sync(index.to_procedure, record.address, record.names)
    calls = [r for r in refs if r.kind in CALL_KINDS]
    rows, next_offset, total = _procedures_referring(analysis, procedure.document, calls, call)
    offset, limit = call.page()
    return Evidence(
        {
            "document": document_ref(procedure.document),
            "procedure": procedure_ref(procedure),
            "offset": offset,
            "limit": limit,
            "total": total,
            "next_offset": next_offset,
            "callers": rows,
            **not_decoded(procedure.document),
        }
    )


async def callees(call: ToolCall) -> Outcome:
    subject = await _call_graph_subject(call)
    if not isinstance(subject, tuple):
        return subject
    analysis, procedure, index = subject
    doc = procedure.document
    by_target: dict[int, list[CodeReference]] = {}
    for ref in await anyio.to_thread.run_sync(index.from_source, procedure.position):
        if ref.kind in CALL_KINDS:
            by_target.setdefault(ref.target, []).append(ref)
    offset, limit = call.page()
    targets, next_offset = _page(sorted(by_target), offset, limit)
    rows = []
    for target in targets:
        located = call.lookups.at_address(analysis, doc, target)
        imported = index.import_at(target)
        stub = imported[1] if imported is not None else None
        reached = stub.address if stub is not None else None
        rows.append(
            {
                "target": hex_address(target),
                "procedure": procedure_ref(located) if located else None,
                "names": list(located.record.names) if located else ([imported[0]] if imported else []),
                "import": stub.name if stub else None,
                "library": stub.library if stub else None,
                "reaches": hex_address(reached) if reached is not None else None,
                "sites": [{"at": hex_address(r.site), "kind": r.kind} for r in by_target[target]],
            }
        )
    return Evidence(
        {
            "document": document_ref(doc),
            "procedure": procedure_ref(procedure),
            "offset": offset,
            "limit": limit,
            "total": len(by_target),
            "next_offset": next_offset,
            "callees": rows,
            **not_decoded(doc),
        }
    )


HANDLERS: dict[str, Handler] = {
    "search_strings": search_strings,
    "find_references": find_references,
    "callers": callers,
    "callees": callees,
}
