"""A deterministic synthetic target for tests and large-scale benchmarks.

Built from `(procedures, seed)` alone. Besides bulk generated names it plants
the cases the completion and narrowing contract must handle: aliases at a
shared address, one name at several addresses and in several documents,
names that only differ after NFKC normalization or by case, names longer than
4,096 characters, and three deep providers that are cold, failing and
malformed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from rea_tui.server.providers.base import (
    DocumentInventory,
    InventoryProvider,
    ProcedureRecord,
    Provider,
    ProviderError,
    ProviderNotReady,
    ProviderState,
)
from rea_tui.server.providers.synthetic_document import STRIDE

SYNTHETIC_DOCUMENTS: tuple[tuple[str, float, int], ...] = (
    ("Notes", 0.40, 0x100000000),
    ("NotesHelper", 0.20, 0x100000000),
    ("libsearch.dylib", 0.15, 0x7FF810000000),
    ("libsync.dylib", 0.15, 0x7FF820000000),
    ("NotesShare.appex", 0.10, 0x100000000),
)

SHARED_PROCEDURE = "openDocument"
"""Planted in Notes, NotesHelper and libsync.dylib: one exact name, three documents."""

SHARED_PROCEDURE_DOCUMENTS = ("Notes", "NotesHelper", "libsync.dylib")

_VERBS = (
    "open",
    "close",
    "search",
    "index",
    "sync",
    "render",
    "load",
    "save",
    "parse",
    "fetch",
    "update",
    "delete",
    "create",
    "handle",
    "validate",
    "encode",
    "decode",
    "compress",
    "notify",
    "schedule",
)
_NOUNS = (
    "Note",
    "Folder",
    "Attachment",
    "Query",
    "Index",
    "Account",
    "Session",
    "Token",
    "Cache",
    "Thumbnail",
    "Link",
    "Tag",
    "Record",
    "Snapshot",
    "Request",
    "Response",
    "Timer",
    "Widget",
    "Share",
    "Draft",
)
_SUFFIXES = (
    "",
    "WithOptions",
    "IfNeeded",
    "Async",
    "Completion",
    "Internal",
    "ForKey",
    "Impl",
    "V2",
    "Locked",
)
_CLASSES = ("NotesController", "ICNoteStore", "SearchIndexer", "SyncEngine", "AttachmentView", "ShareSheet")


def _planted(doc: str, count: int) -> dict[int, tuple[str, ...]]:
    """Fixed names at fixed record indices; only those that fit in `count` are planted."""
    plan: dict[int, tuple[str, ...]] = {}
    if doc in SHARED_PROCEDURE_DOCUMENTS:
        plan[10] = (SHARED_PROCEDURE,)
    if doc == "Notes":
        plan.update(
            {
                11: ("SearchNotesEntry", "_searchNotes", "searchNotes"),
                12: ("laterAmbiguousName", "uniqueAliasAtShared"),
                13: ("duplicateHelper",),
                14: ("duplicateHelper",),
                15: ("\ufb01leImport",),  # "ﬁleImport": the fi ligature folds to "fi"
                16: ("fileImport",),
                17: ("\uff53\uff59\uff4e\uff43\uff2e\uff4f\uff57",),  # full-width "syncNow"
                18: ("syncNow",),
                19: ("loadCache",),
                20: ("LoadCache",),
                21: ("LOADCACHE",),
                22: ("longName_" + "x" * 5000,),
                23: ("longName_" + "y" * 4100,),
                24: ("edge4096_" + "e" * (4096 - 9),),
                25: ("exportNoteAsPDF",),
                26: ("exportNoteAsHTML",),
                # A later page makes a name seen on page one ambiguous.
                min(700, max(count - 1, 27)): ("laterAmbiguousName",),
            }
        )
    if doc == "libsearch.dylib":
        plan[22] = ("longName_" + "z" * 8000,)
    return {i: names for i, names in plan.items() if i < count}


def _generate(doc: str, count: int, rng: random.Random) -> list[tuple[str, ...]]:
    verbs, nouns, suffixes, classes = _VERBS, _NOUNS, _SUFFIXES, _CLASSES
    stem = doc.split(".")[0].lower()
    out: list[tuple[str, ...]] = []
    rand = rng.random
    for i in range(count):
        r = rand()
        verb = verbs[int(r * 20)]
        noun = nouns[int(r * 400) % 20]
        suffix = suffixes[int(r * 4000) % 10]
        style = i & 3
        if style == 0:
            name = f"{verb}{noun}{suffix}{i}"
        elif style == 1:
            name = f"{stem}_{verb}_{noun.lower()}_{i}"
        elif style == 2:
            name = f"-[{classes[int(r * 40000) % 6]} {verb}{noun}{suffix}:{i}]"
        else:
            name = f"_ZN{len(stem)}{stem}{len(noun) + len(str(i))}{noun}{i}{len(verb)}{verb}Ev"
        if i % 7 == 3:
            out.append((name, "_" + name))
        elif i % 97 == 50 and out:
            # The same name as the previous procedure: a name at two addresses.
            out.append((out[-1][0],))
        else:
            out.append((name,))
    return out


@dataclass(frozen=True, slots=True)
class SyntheticSpec:
    procedures: int
    seed: int
    documents: int = len(SYNTHETIC_DOCUMENTS)
    """How many of the synthetic documents to use (benchmarks put everything in one)."""

    @property
    def label(self) -> str:
        base = f"synthetic:{self.procedures}:{self.seed}"
        return base if self.documents == len(SYNTHETIC_DOCUMENTS) else f"{base}:{self.documents}docs"

    def layout(self) -> tuple[tuple[str, float, int], ...]:
        if self.documents >= len(SYNTHETIC_DOCUMENTS):
            return SYNTHETIC_DOCUMENTS
        chosen = SYNTHETIC_DOCUMENTS[: max(1, self.documents)]
        weight = sum(frac for _, frac, _ in chosen)
        return tuple((name, frac / weight, base) for name, frac, base in chosen)


def split_counts(total: int, layout: tuple[tuple[str, float, int], ...] = SYNTHETIC_DOCUMENTS) -> list[int]:
    counts = [int(total * frac) for _, frac, _ in layout]
    counts[0] += total - sum(counts)
    return counts


def build_inventories(spec: SyntheticSpec) -> dict[str, DocumentInventory]:
    rng = random.Random(spec.seed)
    inventories: dict[str, DocumentInventory] = {}
    layout = spec.layout()
    for (doc, _frac, base), count in zip(layout, split_counts(spec.procedures, layout), strict=True):
        names = _generate(doc, count, rng)
        for index, planted in _planted(doc, count).items():
            names[index] = planted
        records = [
            ProcedureRecord(address=base + i * STRIDE, names=tuple(sorted(n)), size=STRIDE - (i % 3) * 8)
            for i, n in enumerate(names)
        ]
        inventories[doc] = DocumentInventory(records=records)
    return inventories


class ColdProvider(Provider):
    """A deep provider that has never analysed the target. Reading it must not start analysis."""

    def __init__(self, name: str) -> None:
        self.name = name

    @property
    def state(self) -> ProviderState:
        return "cold"

    def list_documents(self) -> Any:
        raise ProviderNotReady(f"provider {self.name} has not analysed this target")

    def list_procedures(self, document: str, offset: int, limit: int) -> Any:
        raise ProviderNotReady(f"provider {self.name} has not analysed this target")


class FailingProvider(Provider):
    """A deep provider whose backend errors on every call."""

    def __init__(self, name: str) -> None:
        self.name = name

    @property
    def state(self) -> ProviderState:
        return "failed"

    def list_documents(self) -> Any:
        raise ProviderError(f"provider {self.name} backend crashed")

    def list_procedures(self, document: str, offset: int, limit: int) -> Any:
        raise ProviderError(f"provider {self.name} backend crashed")


class MalformedProvider(Provider):
    """A deep provider that claims to be ready but answers outside the schema.

    The first record of each page looks valid, so a consumer that trusted
    partial output would leak an unverified identifier.
    """

    def __init__(self, name: str) -> None:
        self.name = name

    @property
    def state(self) -> ProviderState:
        return "ready"

    def list_documents(self) -> Any:
        return [{"name": "Notes", "format": "MachO"}, {"name": 42}, "libsearch.dylib"]

    def list_procedures(self, document: str, offset: int, limit: int) -> Any:
        return {
            "procedures": [
                {"address": "0x100000280", "names": [SHARED_PROCEDURE]},
                {"address": "not-an-address", "names": "fileImport"},
                {"address": 4096, "names": [None]},
            ],
            "next_offset": "later",
        }


def build_providers(spec: SyntheticSpec, inventories: dict[str, DocumentInventory]) -> list[Provider]:
    documents = [(doc, "MachO") for doc, _, _ in spec.layout()]
    return [
        InventoryProvider("auto", documents, inventories),
        ColdProvider("deep-cold"),
        FailingProvider("deep-failing"),
        MalformedProvider("deep-malformed"),
    ]
