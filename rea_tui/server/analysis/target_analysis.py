"""Everything derived from one target, built once and dropped when the target changes.

`prepare` runs while the target opens (in a worker thread, before the target
becomes active): the auto provider's procedure inventories, the completion
indexes over them and the resolver's items. Completion only ever reads what is
here, so it never waits and never starts analysis. Strings and code
references are built on first use per document (by the tool that needs them,
off the event loop) and kept as long as the target stays active.
"""

from __future__ import annotations

import contextlib
import threading
from bisect import bisect_right
from dataclasses import dataclass
from typing import Final

from rea_tui.server.analysis.code_listing import Symbolizer
from rea_tui.server.analysis.code_references import ReferenceIndex, decode_plt_stubs
from rea_tui.server.analysis.data_references import DataReferenceIndex
from rea_tui.server.analysis.prefix_index import PrefixIndex
from rea_tui.server.analysis.reference_search import CodeBytes
from rea_tui.server.analysis.string_index import MAX_STRING_CHARS, FoundString, StringIndex
from rea_tui.server.completion.name_resolver import Item, make_item
from rea_tui.server.completion.text_forms import hex_address
from rea_tui.server.providers.base import MalformedOutput, ProcedureRecord, Provider, ProviderError
from rea_tui.server.providers.output_validation import validate_documents
from rea_tui.server.target.memory_release import collection_paused
from rea_tui.server.target.procedure_inventory import DiscoveryReport, DocumentProcedures, discover, target_entries
from rea_tui.server.target.target import Document, Target

AUTO_PROVIDER = "auto"
SEARCH_PER_TARGET_CODE_BYTES: Final = 16 * 1024 * 1024
"""Code past which an x86-64 document's references are searched per target, not all decoded at first use:
libpython's 2.5 MB decode in about 2 s, libLLVM's 60 MB would take minutes and gigabytes of references."""


@dataclass(frozen=True, slots=True)
class DiscoveryOptions:
    limit: int
    page_size: int
    time_budget: float


@dataclass(frozen=True, slots=True)
class ProcedureCompletion:
    index: PrefixIndex
    report: DiscoveryReport


@dataclass(frozen=True, slots=True)
class LocatedString:
    document: Document
    position: int
    """Index of the string in its document's `StringIndex`."""
    id: int
    found: FoundString


class TargetStrings:
    """The strings of every document, numbered across the target (ids 1..N in document order)."""

    def __init__(self, documents: list[tuple[Document, StringIndex]]) -> None:
        self._documents = documents
        self._bases: list[int] = []
        self.items: list[Item] = []
        self.items_by_document: dict[str, list[Item]] = {}
        next_id = 1
        for doc, index in documents:
            self._bases.append(next_id)
            own = [
                Item(
                    next_id + position,
                    found.text[:MAX_STRING_CHARS],
                    extra=(("document", doc.name), ("address", hex_address(found.address))),
                    keys=(index.folded(position),),
                )
                for position, found in enumerate(index.strings)
            ]
            self.items_by_document[doc.name] = own
            self.items.extend(own)
            next_id += len(index)

    def string_id(self, doc: Document, position: int) -> int:
        for at, (candidate, _index) in enumerate(self._documents):
            if candidate is doc:
                return self._bases[at] + position
        raise KeyError(doc.name)

    def locate(self, string_id: int) -> LocatedString | None:
        at = bisect_right(self._bases, string_id) - 1
        if at < 0:
            return None
        doc, index = self._documents[at]
        position = string_id - self._bases[at]
        if not 0 <= position < len(index):
            return None
        return LocatedString(doc, position, string_id, index.strings[position])

    def documents(self) -> list[tuple[Document, StringIndex]]:
        return list(self._documents)


def _fresh(error: ProviderError) -> ProviderError:
    """A new exception like a cached one: re-raising one instance would keep growing its traceback."""
    return type(error)(*error.args)


class TargetAnalysis:
    def __init__(self, target: Target, discovery: DiscoveryOptions) -> None:
        self.target = target
        self.discovery = discovery
        self._inventories: dict[tuple[str, str], DocumentProcedures | ProviderError] = {}
        self._completions: dict[tuple[str, str | None], ProcedureCompletion | ProviderError] = {}
        self._strings: TargetStrings | None = None
        self._section_ranges: dict[str, list[tuple[int, int]]] = {}
        self._references: dict[str, ReferenceIndex] = {}
        self._symbolizers: dict[str, Symbolizer] = {}
        self._data_references: dict[str, DataReferenceIndex] = {}
        self._named_sections: dict[str, list[tuple[int, int, str]]] = {}
        self._build_lock = threading.Lock()
        """Strings and references are built by worker threads; one build per document."""
        self._id_base: dict[str, int] = {}
        self._id_starts: list[int] = []
        self._records_by_address: dict[str, dict[int, int]] = {}
        self.document_items: list[Item] = [make_item(d.id, d.name) for d in target.documents]
        self.procedure_items: list[Item] = []
        self.procedure_items_by_document: dict[str, list[Item]] = {}

    # -- prepared while the target opens -------------------------------------------------

    def prepare(self) -> None:
        next_id = 1
        for doc in self.target.documents:
            self._id_base[doc.name] = next_id
            self._id_starts.append(next_id)
            records = doc.backend.inventory.records
            self._records_by_address[doc.name] = {r.address: i for i, r in enumerate(records)}
            own: list[Item] = []
            for record in records:
                address = hex_address(record.address)
                name = record.names[0] if record.names else address
                aliases = (*record.names[1:], address) if record.names else ()
                own.append(make_item(next_id, name, aliases, document=doc.name, address=address))
                next_id += 1
            self.procedure_items_by_document[doc.name] = own
            self.procedure_items.extend(own)
        auto = self.target.providers.get(AUTO_PROVIDER)
        if auto is not None and auto.state == "ready":
            for document in (None, *(d.name for d in self.target.documents)):
                # A failure is kept too: completion answers an empty list for that document.
                with contextlib.suppress(ProviderError):
                    self.procedure_completion(auto, document)

    # -- procedures ---------------------------------------------------------------------------

    def procedure_id(self, doc: Document, position: int) -> int:
        return self._id_base[doc.name] + position

    def locate_id(self, procedure_id: int) -> tuple[Document, int] | None:
        """The document and record position of a procedure id, or None."""
        at = bisect_right(self._id_starts, procedure_id) - 1
        if at < 0 or procedure_id < 1:
            return None
        doc = self.target.documents[at]
        position = procedure_id - self._id_starts[at]
        return (doc, position) if position < len(doc.backend.inventory.records) else None

    def record_position(self, doc: Document, address: int) -> int | None:
        return self._records_by_address.get(doc.name, {}).get(address)

    def record_at(self, doc: Document, address: int) -> ProcedureRecord | None:
        position = self.record_position(doc, address)
        return None if position is None else doc.backend.inventory.records[position]

    # -- completion -----------------------------------------------------------------------------

    def _inventory(self, provider: Provider, document: str) -> DocumentProcedures:
        key = (provider.name, document)
        found = self._inventories.get(key)
        if found is None:
            try:
                found = discover(
                    provider,
                    document,
                    limit=self.discovery.limit,
                    page_size=self.discovery.page_size,
                    time_budget=self.discovery.time_budget,
                )
            except ProviderError as exc:
                found = exc
            self._inventories[key] = found
        if isinstance(found, ProviderError):
            raise _fresh(found)
        return found

    def completion_built(self, provider: str, document: str | None) -> bool:
        """Whether the completion values of `provider` (for `document`, or the whole target) are built."""
        return (provider, document) in self._completions

    def procedure_completion(self, provider: Provider, document: str | None) -> ProcedureCompletion:
        """Completion values of one document, or of the whole target when `document` is None.

        Raises `ProviderError` when the provider fails or answers malformed
        output (completion then answers an empty list).
        """
        key = (provider.name, document)
        found = self._completions.get(key)
        if found is None:
            try:
                found = self._build_completion(provider, document)
            except ProviderError as exc:
                found = exc
            self._completions[key] = found
        if isinstance(found, ProviderError):
            raise _fresh(found)
        return found

    def _build_completion(self, provider: Provider, document: str | None) -> ProcedureCompletion:
        if document is not None:
            inventory = self._inventory(provider, document)
            return ProcedureCompletion(PrefixIndex(inventory.values()), inventory.report)
        inventories: list[DocumentProcedures] = []
        for name in validate_documents(provider.list_documents()):
            try:
                inventories.append(self._inventory(provider, name))
            except MalformedOutput:
                raise
            except ProviderError:
                continue  # an unparsable document has no procedures to offer
        if len(inventories) == 1 and inventories[0].report.complete:
            # One complete document: the whole target's values are its values; one index serves both.
            return self.procedure_completion(provider, inventories[0].document)
        report = DiscoveryReport.combined([i.report for i in inventories], self.discovery.limit)
        return ProcedureCompletion(PrefixIndex(target_entries(inventories)), report)

    # -- strings and references, built on first use ----------------------------------------------

    def strings(self) -> TargetStrings:
        """Every document's strings (built together once: their ids number across the target)."""
        with self._build_lock:
            if self._strings is None:
                with collection_paused():
                    documents = [(doc, StringIndex(doc.backend.data_sections())) for doc in self.target.documents]
                    self._strings = TargetStrings(documents)
            return self._strings

    def section_ranges(self, doc: Document, *, code_only: bool = False) -> list[tuple[int, int]]:
        """`[start, end)` of each section the document maps (or only its executable ones), from its layout."""
        key = f"{doc.name}\0code" if code_only else doc.name
        ranges = self._section_ranges.get(key)
        if ranges is None:
            ranges = []
            if doc.backend.error is None:
                for section in doc.backend.layout().get("sections", []):
                    start = int(section["address"], 16)
                    if start and section["size"] and (not code_only or "exec" in section["flags"]):
                        ranges.append((start, start + int(section["size"])))
            self._section_ranges[key] = ranges
        return ranges

    def references(self, doc: Document) -> ReferenceIndex:
        with self._build_lock:
            index = self._references.get(doc.name)
            if index is None:
                with collection_paused():
                    index = self._reference_index(doc)
                self._references[doc.name] = index
            return index

    def _reference_index(self, doc: Document) -> ReferenceIndex:
        backend = doc.backend
        code_sections = self.section_ranges(doc, code_only=True)
        searched = None
        if sum(end - start for start, end in code_sections) > SEARCH_PER_TARGET_CODE_BYTES:
            searched = [CodeBytes(start, backend.view(start, end - start)) for start, end in code_sections]
        return ReferenceIndex(
            backend.inventory.records,
            backend.read,
            backend.disassembly_target(),
            backend.absolute_ranges(),
            backend.stub_sections(),
            backend.import_slots(),
            self.section_ranges(doc, code_only=True),
            backend.code_mode,
            backend.code_spans,
            searched,
        )

    def symbolizer(self, doc: Document) -> Symbolizer:
        """Names for the listing: the document's PLT stubs, procedures, data symbols and strings."""

        def own_strings() -> list[FoundString]:
            own = next((index for candidate, index in self.strings().documents() if candidate is doc), None)
            return own.strings if own is not None else []

        with self._build_lock:
            found = self._symbolizers.get(doc.name)
            if found is None:
                backend = doc.backend
                mode = backend.disassembly_target()
                slots = backend.import_slots()
                records = backend.inventory.records
                stubs = decode_plt_stubs(mode, backend.stub_sections(), slots, records) if mode else {}
                found = Symbolizer(
                    backend.inventory.records,
                    self.section_ranges(doc, code_only=True),
                    stubs,
                    backend.data_symbols(),
                    own_strings,
                    slots,
                )
                self._symbolizers[doc.name] = found
            return found

    def data_references(self, doc: Document) -> DataReferenceIndex:
        """Pointers in the document's data: its relocations, and plain words in fixed-address documents."""
        with self._build_lock:
            found = self._data_references.get(doc.name)
            if found is None:
                backend = doc.backend
                with collection_paused():
                    found = DataReferenceIndex(
                        backend.data_relocations(),
                        backend.data_sections(),
                        backend.absolute_ranges(),
                        backend.bits // 8,
                    )
                self._data_references[doc.name] = found
            return found

    def section_at(self, doc: Document, address: int) -> tuple[str, int] | None:
        """The smallest mapped section holding `address`, and the address's offset in it."""
        sections = self._named_sections.get(doc.name)
        if sections is None:
            sections = []
            if doc.backend.error is None:
                for section in doc.backend.layout().get("sections", []):
                    start, size = int(section["address"], 16), int(section["size"])
                    if start and size:
                        sections.append((start, start + size, str(section["name"])))
            self._named_sections[doc.name] = sections
        holding = [(end - start, name, address - start) for start, end, name in sections if start <= address < end]
        return min(holding)[1:] if holding else None
