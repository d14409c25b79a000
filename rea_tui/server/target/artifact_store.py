"""Artifact inventories: manifests of the active target's files, sections and linked libraries.

`inventory_artifact` mints a manifest for the active target and returns it a
page at a time; `inspect_artifact` reads a manifest (or one occurrence) back,
but only while its target is the active one.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rea_tui.server.target.target import Document, Target
from rea_tui.server.toolkit.evidence_schemas import ARTIFACT_INVENTORY_V1

_HASH_LIMIT = 512 * 1024 * 1024


def _sha256(path: str) -> str | None:
    try:
        if os.path.getsize(path) > _HASH_LIMIT:
            return None
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
        return digest.hexdigest()
    except OSError:
        return None


def manifest_id(number: int) -> str:
    return f"M-{number:04d}"


@dataclass(slots=True)
class Manifest:
    number: int
    target: str | None
    target_label: str
    occurrences: list[dict[str, Any]]
    seen_pages: set[int] = field(default_factory=set)
    """Offsets of pages retained in the ledger; only their occurrences are offered."""

    @property
    def id(self) -> str:
        return manifest_id(self.number)

    def describe(self) -> dict[str, Any]:
        documents = sorted({o["document"] for o in self.occurrences})
        return {
            "manifest_id": self.id,
            "target": self.target,
            "target_label": self.target_label,
            "occurrence_count": len(self.occurrences),
            "documents": documents,
        }

    def page(self, offset: int, limit: int) -> dict[str, Any]:
        chunk = self.occurrences[offset : offset + limit]
        end = offset + len(chunk)
        return {
            "offset": offset,
            "limit": limit,
            "total": len(self.occurrences),
            "next_offset": end if end < len(self.occurrences) else None,
            "occurrences": chunk,
        }

    def inventory_result(self, offset: int, limit: int) -> dict[str, Any]:
        return {
            "schema": ARTIFACT_INVENTORY_V1,
            "manifest": self.describe(),
            "page": self.page(offset, limit),
        }


def _document_occurrences(doc: Document, target: Target) -> list[dict[str, Any]]:
    layout = doc.backend.layout()
    out: list[dict[str, Any]] = []
    file_entry: dict[str, Any] = {
        "kind": "file",
        "document": doc.name,
        "name": doc.name,
        "format": doc.backend.format,
    }
    if doc.path is not None:
        try:
            file_entry["size"] = os.path.getsize(doc.path)
        except OSError:
            file_entry["size"] = None
        file_entry["path"] = doc.path
        file_entry["sha256"] = _sha256(doc.path)
    else:
        seed = target.synthetic.seed if target.synthetic else 0
        file_entry["sha256"] = hashlib.sha256(f"{doc.name}:{seed}".encode()).hexdigest()
        file_entry["size"] = None
    if doc.backend.error:
        file_entry["error"] = doc.backend.error
    out.append(file_entry)
    for section in layout.get("sections", []):
        out.append(
            {
                "kind": "section",
                "document": doc.name,
                "name": section["name"],
                "address": section["address"],
                "size": section["size"],
                "entropy": section.get("entropy"),
                "flags": section.get("flags", []),
            }
        )
    for library in layout.get("libraries", []):
        out.append({"kind": "library", "document": doc.name, "name": library})
    return out


class ArtifactStore:
    """Manifests minted this session; cleared when the target is closed."""

    def __init__(self, numbers: Iterator[int] | None = None) -> None:
        self._manifests: dict[str, Manifest] = {}
        self._numbers = numbers if numbers is not None else itertools.count(1)
        """Shared by every session of a process, so no ID is handed out twice by it."""

    def mint(self, target: Target) -> Manifest:
        number = next(self._numbers)
        occurrences: list[dict[str, Any]] = []
        for doc in target.documents:
            occurrences.extend(_document_occurrences(doc, target))
        for index, occurrence in enumerate(occurrences, start=1):
            occurrence["occurrence_id"] = f"O-{number:04d}-{index:04d}"
        manifest = Manifest(number, target.path, target.label, occurrences)
        self._manifests[manifest.id] = manifest
        return manifest

    def get(self, manifest: str) -> Manifest | None:
        return self._manifests.get(manifest)

    def all(self) -> list[Manifest]:
        return list(self._manifests.values())

    def clear(self) -> None:
        # The counter keeps going: an ID is never handed out twice by one process.
        self._manifests.clear()


def manifest_findings(manifest: Manifest, target: Target) -> dict[str, Any]:
    """Graph and findings for a manifest: observations, each with the occurrence it rests on."""
    nodes: list[dict[str, Any]] = [{"id": "target", "kind": "target", "label": manifest.target_label}]
    edges: list[dict[str, Any]] = []
    findings: list[dict[str, Any]] = []
    documents = {o["document"] for o in manifest.occurrences}
    provided = {os.path.basename(d) for d in documents}
    libraries: set[str] = set()
    for occ in manifest.occurrences:
        if occ["kind"] == "file":
            nodes.append({"id": f"doc:{occ['document']}", "kind": "document", "label": occ["document"]})
            edges.append({"from": "target", "to": f"doc:{occ['document']}", "relation": "contains"})
            if occ.get("error"):
                findings.append(
                    {
                        "kind": "unparsed_document",
                        "occurrence_id": occ["occurrence_id"],
                        "detail": occ["error"],
                    }
                )
        elif occ["kind"] == "library":
            lib_node = f"lib:{occ['name']}"
            if occ["name"] not in libraries:
                libraries.add(occ["name"])
                nodes.append({"id": lib_node, "kind": "library", "label": occ["name"]})
            edges.append({"from": f"doc:{occ['document']}", "to": lib_node, "relation": "links"})
            if os.path.basename(occ["name"]) in provided:
                edges.append(
                    {
                        "from": lib_node,
                        "to": f"doc:{os.path.basename(occ['name'])}",
                        "relation": "resolves_to",
                    }
                )
        elif occ["kind"] == "section":
            flags = occ.get("flags") or []
            if "write" in flags and "exec" in flags:
                findings.append(
                    {
                        "kind": "writable_executable_section",
                        "occurrence_id": occ["occurrence_id"],
                        "detail": f"{occ['document']}:{occ['name']} is both writable and executable",
                    }
                )
            entropy = occ.get("entropy")
            if isinstance(entropy, float) and math.isfinite(entropy) and entropy > 7.2 and occ.get("size", 0) > 4096:
                findings.append(
                    {
                        "kind": "high_entropy_section",
                        "occurrence_id": occ["occurrence_id"],
                        "detail": f"{occ['document']}:{occ['name']} has entropy {entropy}; compressed or "
                        "encrypted data is one possible explanation (inference, not verified)",
                    }
                )
    return {
        "graph": {"nodes": nodes, "edges": edges},
        "findings": findings,
        "counts": {
            "documents": len(documents),
            "sections": sum(1 for o in manifest.occurrences if o["kind"] == "section"),
            "libraries": len(libraries),
        },
    }
