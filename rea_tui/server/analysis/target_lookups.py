"""The lookups name-taking tools share: the ready target, a provider, a document, a procedure.

Each follows seed 003: a missing, unknown or ambiguous name gives a narrowing
reply scoped by what is already pinned, never an error. A procedure may be
written document-qualified (`malloc@libc.so.6`, `0x100000280@Notes`), which
pins the document the same way the `document` argument does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rea_tui.server.analysis.target_analysis import AUTO_PROVIDER, TargetAnalysis
from rea_tui.server.completion.name_resolver import (
    Item,
    Narrowing,
    is_missing,
    make_item,
    match,
    narrowing,
    not_found,
    resolve,
)
from rea_tui.server.completion.text_forms import escape_unsafe, fold, hex_address
from rea_tui.server.protocol.session_state import Session
from rea_tui.server.providers.base import ProcedureRecord, Provider, ProviderError, ProviderNotReady
from rea_tui.server.providers.output_validation import validate_documents
from rea_tui.server.target.procedure_inventory import split_qualified
from rea_tui.server.target.target import Document
from rea_tui.server.toolkit.tool_outcomes import Failure

SHOWN_VALUE_CHARS = 60
"""Longest echo of a caller's value inside a question."""


def shown(value: Any) -> str:
    text = escape_unsafe(str(value))
    return text if len(text) <= SHOWN_VALUE_CHARS else text[: SHOWN_VALUE_CHARS - 3] + "..."


@dataclass(frozen=True, slots=True)
class LocatedProcedure:
    document: Document
    position: int
    """Index of the procedure's record in its document's inventory."""
    id: int

    @property
    def record(self) -> ProcedureRecord:
        return self.document.backend.inventory.records[self.position]


def document_ref(doc: Document) -> dict[str, Any]:
    return {"id": doc.id, "name": doc.name}


def not_decoded(doc: Document) -> dict[str, Any]:
    """`{"not_decoded": [...]}` when the server could not decode part of the document, else nothing:
    a reply about its procedures or code says so beside what it found."""
    notes = [] if doc.backend.error else doc.backend.not_decoded
    return {"not_decoded": notes} if notes else {}


def procedure_ref(procedure: LocatedProcedure) -> dict[str, Any]:
    record = procedure.record
    return {
        "id": procedure.id,
        "address": hex_address(record.address),
        "names": list(record.names),
        "size": record.size,
    }


class TargetLookups:
    def __init__(self, session: Session) -> None:
        self.session = session

    async def ready(self) -> TargetAnalysis | Failure:
        """The active target, waiting (bounded) while the startup target is still opening."""
        session = self.session
        if session.state == "opening" and not await session.wait_until_settled(session.options.target_wait_seconds):
            return Failure(
                f"The target ({session.opening_label}) is still opening after "
                f"{session.options.target_wait_seconds:g} s; call again in a moment."
            )
        if session.analysis is None:
            if session.state == "failed":
                return Failure(f"The target could not be opened: {session.open_error}. Open another with open_binary.")
            return Failure("No target is open. Call open_binary with a file or .app bundle first.")
        return session.analysis

    # -- providers ------------------------------------------------------------------------

    @staticmethod
    def provider_items(analysis: TargetAnalysis) -> list[Item]:
        return [make_item(i, name) for i, name in enumerate(analysis.target.provider_names(), start=1)]

    def provider(self, analysis: TargetAnalysis, value: Any) -> Provider | Narrowing | Failure:
        """A ready provider by name (default auto), resolved like every other name."""
        providers = analysis.target.providers
        if is_missing(value):
            chosen = providers[AUTO_PROVIDER]
        else:
            found = resolve(value, self.provider_items(analysis), argument="provider", noun="provider")
            if isinstance(found, Narrowing):
                return found
            chosen = providers[found.name]
        try:
            validate_documents(chosen.list_documents())
        except ProviderNotReady:
            return Failure(f"Provider {chosen.name} is cold: it has not analysed this target. Use provider auto.")
        except ProviderError as exc:
            return Failure(f"Provider {chosen.name} failed: {exc}")
        return chosen

    # -- documents ------------------------------------------------------------------------

    @staticmethod
    def document(analysis: TargetAnalysis, value: Any, scoped_by: dict[str, Any]) -> Document | Narrowing:
        """The named document; the target's first document when none is named."""
        target = analysis.target
        if is_missing(value):
            primary = target.primary
            if primary is None:
                return narrowing("missing_required", "document", "document", [], scoped_by)
            return primary
        found = resolve(value, analysis.document_items, argument="document", noun="document", scoped_by=scoped_by)
        if isinstance(found, Narrowing):
            return found
        return target.documents[found.id - 1]

    def pinned_document(self, analysis: TargetAnalysis, value: Any) -> Document | Narrowing | None:
        """The named document, or None when no document is named."""
        if is_missing(value):
            return None
        return self.document(analysis, value, {})

    # -- procedures -----------------------------------------------------------------------

    def procedure(
        self, analysis: TargetAnalysis, args: dict[str, Any], argument: str = "procedure"
    ) -> LocatedProcedure | Narrowing | Failure:
        target = analysis.target
        pinned = self.pinned_document(analysis, args.get("document"))
        if isinstance(pinned, Narrowing):
            return pinned
        value = args.get(argument)
        if isinstance(value, str):
            qualified = split_qualified(value.strip(), [d.name for d in target.documents])
            if qualified is not None:
                named = target.document(qualified[0])
                if pinned is not None and named is not pinned:
                    return Failure(
                        f"{argument} names document {shown(qualified[0])} but document is {shown(pinned.name)}; "
                        "give one of them."
                    )
                pinned, value = named, qualified[1]
        scoped: dict[str, Any] = {"document": pinned.name} if pinned is not None else {}
        items = analysis.procedure_items_by_document[pinned.name] if pinned else analysis.procedure_items
        if is_missing(value):
            return narrowing("missing_required", argument, "procedure", items, scoped)
        _kind, found = match(value, items)
        if len(found) == 1:
            return self._located(analysis, found[0])
        if not found:
            return not_found(argument, "procedure", items, scoped, value)
        documents = list(dict.fromkeys(i.get("document") for i in found))
        same_name = len({fold(i.name) for i in found}) == 1 and len(documents) == len(found)
        if pinned is None and len(documents) > 1 and same_name:
            # The same procedure name lives in several documents: ask for the document.
            doc_items = [i for i in analysis.document_items if i.name in documents]
            ask = f"Procedure {shown(value)} exists in {len(doc_items)} documents. Which document?"
            return narrowing(
                "ambiguous", "document", "document", doc_items, {argument: str(value)}, value, question=ask
            )
        return narrowing("ambiguous", argument, "procedure", found, scoped, value)

    @staticmethod
    def _located(analysis: TargetAnalysis, item: Item) -> LocatedProcedure:
        located = analysis.locate_id(item.id)
        assert located is not None, "resolver items are built from the same inventory"
        doc, position = located
        return LocatedProcedure(doc, position, item.id)

    @staticmethod
    def at_address(analysis: TargetAnalysis, doc: Document, address: int) -> LocatedProcedure | None:
        position = analysis.record_position(doc, address)
        if position is None:
            return None
        return LocatedProcedure(doc, position, analysis.procedure_id(doc, position))
