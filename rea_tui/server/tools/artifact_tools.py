"""Artifact manifests of the active target: inventory_artifact, inspect_artifact."""

from __future__ import annotations

import os
from typing import Any, Final

import anyio.to_thread

from rea_tui.server.completion.name_resolver import Item, Narrowing, is_missing, make_item, resolve
from rea_tui.server.target.artifact_store import Manifest, manifest_findings
from rea_tui.server.target.target import Target
from rea_tui.server.toolkit.tool_outcomes import Evidence, Failure, Outcome
from rea_tui.server.toolkit.tool_registry import Handler
from rea_tui.server.toolkit.tool_services import ToolCall

FIRST_BYTES: Final = 64
"""Bytes of a section shown when one section occurrence is inspected."""


def _manifest_items(call: ToolCall) -> list[Item]:
    return [make_item(m.number, m.id, (m.target_label,)) for m in call.session.artifacts.all()]


def _manifest(call: ToolCall, value: Any) -> Manifest | Narrowing:
    found = resolve(value, _manifest_items(call), argument="manifest", noun="manifest")
    if isinstance(found, Narrowing):
        return found
    manifest = call.session.artifacts.get(found.name)
    assert manifest is not None, "resolver items come from the same store"
    return manifest


async def inventory_artifact(call: ToolCall) -> Outcome:
    analysis = await call.lookups.ready()
    if isinstance(analysis, Failure):
        return analysis
    target = analysis.target
    offset, limit = call.page()
    if is_missing(call.args.get("manifest")):
        manifest = await anyio.to_thread.run_sync(call.session.artifacts.mint, target)
    else:
        found = _manifest(call, call.args["manifest"])
        if isinstance(found, Narrowing):
            return found
        manifest = found
        if manifest.target != target.path:
            return Failure(
                f"Manifest {manifest.id} inventories {manifest.target_label}; open that target "
                "first: inventory acts on the active target."
            )
    if offset > len(manifest.occurrences):
        return Failure(f"offset {offset} is past the end ({len(manifest.occurrences)} occurrences)")
    return Evidence(manifest.inventory_result(offset, limit))


def _occurrence_detail(occurrence: dict[str, Any], target: Target) -> dict[str, Any]:
    detail: dict[str, Any] = {}
    doc = target.document(occurrence["document"])
    if occurrence["kind"] == "section" and doc is not None and occurrence.get("address"):
        detail["first_bytes"] = doc.backend.read(int(occurrence["address"], 16), FIRST_BYTES).hex()
    if occurrence["kind"] == "library":
        provided = {os.path.basename(d.name) for d in target.documents}
        detail["provided_by_target"] = os.path.basename(occurrence["name"]) in provided
    if occurrence["kind"] == "file" and doc is not None:
        detail["procedure_count"] = len(doc.backend.inventory.records)
    return detail


async def inspect_artifact(call: ToolCall) -> Outcome:
    analysis = await call.lookups.ready()
    if isinstance(analysis, Failure):
        return analysis
    target = analysis.target
    manifest = _manifest(call, call.args.get("manifest"))
    if isinstance(manifest, Narrowing):
        return manifest
    if manifest.target != target.path:
        return Failure(
            f"Manifest {manifest.id} belongs to {manifest.target_label}, not the active target. "
            "Open that target first: inspection acts on the active target."
        )
    described = manifest.describe()
    occurrence = call.args.get("occurrence")
    if is_missing(occurrence):
        return Evidence({"manifest": described, **manifest_findings(manifest, target)})
    items = [make_item(i, o["occurrence_id"], (o["name"],)) for i, o in enumerate(manifest.occurrences, 1)]
    chosen = resolve(
        str(occurrence), items, argument="occurrence", noun="occurrence", scoped_by={"manifest": manifest.id}
    )
    if isinstance(chosen, Narrowing):
        return chosen
    occ = dict(manifest.occurrences[chosen.id - 1])
    return Evidence({"manifest": described, "occurrence": occ, "detail": _occurrence_detail(occ, target)})


HANDLERS: dict[str, Handler] = {
    "inventory_artifact": inventory_artifact,
    "inspect_artifact": inspect_artifact,
}
