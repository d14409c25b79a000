"""Documents and procedures: list_documents, list_procedures, inspect_procedure, inspect_binary_layout."""

from __future__ import annotations

from typing import Any

import anyio.to_thread

from rea_tui.server.analysis.code_listing import listing
from rea_tui.server.analysis.target_lookups import document_ref, not_decoded, procedure_ref
from rea_tui.server.completion.name_resolver import Narrowing
from rea_tui.server.completion.text_forms import hex_address
from rea_tui.server.providers.base import InventoryProvider, ProviderError
from rea_tui.server.providers.output_validation import validate_documents, validate_page
from rea_tui.server.toolkit.tool_declarations import DEFAULT_MAX_INSTRUCTIONS
from rea_tui.server.toolkit.tool_outcomes import Evidence, Failure, Outcome
from rea_tui.server.toolkit.tool_registry import Handler
from rea_tui.server.toolkit.tool_services import ToolCall


async def list_documents(call: ToolCall) -> Outcome:
    analysis = await call.lookups.ready()
    if isinstance(analysis, Failure):
        return analysis
    provider = call.lookups.provider(analysis, call.args.get("provider"))
    if isinstance(provider, Failure | Narrowing):
        return provider
    names = set(validate_documents(provider.list_documents()))
    target = analysis.target
    docs = [d.describe() for d in target.documents if d.name in names]
    return Evidence({"target": target.path, "provider": provider.name, "documents": docs})


async def list_procedures(call: ToolCall) -> Outcome:
    analysis = await call.lookups.ready()
    if isinstance(analysis, Failure):
        return analysis
    provider = call.lookups.provider(analysis, call.args.get("provider"))
    if isinstance(provider, Failure | Narrowing):
        return provider
    doc = call.lookups.document(analysis, call.args.get("document"), {})
    if isinstance(doc, Narrowing):
        return doc
    offset, limit = call.page()
    try:
        raw = provider.list_procedures(doc.name, offset, limit)
        rows, next_offset = validate_page(raw)
    except ProviderError as exc:
        return Failure(f"Provider {provider.name} could not list procedures of {doc.name}: {exc}")
    sizes: dict[str, int | None] = {}
    if isinstance(provider, InventoryProvider):
        page = provider.inventory(doc.name).records[offset : offset + limit]
        sizes = {hex_address(r.address): r.size for r in page}
    procedures = []
    for address, names in rows:
        position = analysis.record_position(doc, int(address, 16))
        procedure_id = analysis.procedure_id(doc, position) if position is not None else 0
        procedures.append({"id": procedure_id, "address": address, "names": names, "size": sizes.get(address)})
    total = raw.get("total", len(procedures)) if isinstance(raw, dict) else len(procedures)
    return Evidence(
        {
            "document": document_ref(doc),
            "provider": provider.name,
            "offset": offset,
            "limit": limit,
            "total": total,
            "next_offset": next_offset,
            "procedures": procedures,
            **not_decoded(doc),
        }
    )


async def inspect_procedure(call: ToolCall) -> Outcome:
    analysis = await call.lookups.ready()
    if isinstance(analysis, Failure):
        return analysis
    provider = call.lookups.provider(analysis, call.args.get("provider"))
    if isinstance(provider, Failure | Narrowing):
        return provider
    located = call.lookups.procedure(analysis, call.args)
    if isinstance(located, Narrowing | Failure):
        return located
    doc = located.document
    if doc.backend.error:
        return Failure(f"{doc.name} could not be parsed: {doc.backend.error}")
    max_instructions = int(call.args.get("max_instructions", DEFAULT_MAX_INSTRUCTIONS))
    offset = int(call.args.get("offset", 0))

    def page() -> dict[str, Any]:
        symbols = analysis.symbolizer(doc)
        return listing(
            doc.backend.code_mode(located.record.address),
            doc.backend.read,
            symbols,
            located.position,
            offset,
            max_instructions,
            doc.backend.code_note,
            doc.backend.code_spans,
        )

    disassembly = await anyio.to_thread.run_sync(page)
    disassembly["arch"] = doc.backend.arch
    return Evidence(
        {
            "document": document_ref(doc),
            "procedure": procedure_ref(located),
            "provider": provider.name,
            "disassembly": disassembly,
            **not_decoded(doc),
        }
    )


async def inspect_binary_layout(call: ToolCall) -> Outcome:
    analysis = await call.lookups.ready()
    if isinstance(analysis, Failure):
        return analysis
    doc = call.lookups.document(analysis, call.args.get("document"), {})
    if isinstance(doc, Narrowing):
        return doc
    if doc.backend.error:
        return Failure(f"{doc.name} could not be parsed: {doc.backend.error}")
    return Evidence({"document": document_ref(doc), "layout": doc.backend.layout()})


HANDLERS: dict[str, Handler] = {
    "list_documents": list_documents,
    "list_procedures": list_procedures,
    "inspect_procedure": inspect_procedure,
    "inspect_binary_layout": inspect_binary_layout,
}
