"""Tool handlers: each returns evidence, a narrowing reply, a failure, or a request for input.

Every successful result carries its evidence inline and is retained in the
session ledger under an evidence ID. A narrowing reply is a normal result
(not an error) whose structured content is the reply object. Failures that
are the tool's own business (bad path, cold provider...) are `isError`
results with a clear text, never protocol errors.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from jsonschema import Draft202012Validator

from rea_tui.server import artifact_store, javascript_analysis
from rea_tui.server.completion_engine import validate_documents, validate_page
from rea_tui.server.name_resolver import Item, Narrowing, is_missing, make_item, match, narrowing, resolve
from rea_tui.server.process_capture import run_capture, simulate_capture, split_arguments
from rea_tui.server.providers.base import (
    InventoryProvider,
    ProcedureRecord,
    Provider,
    ProviderError,
    ProviderNotReady,
)
from rea_tui.server.providers.lief_documents import disassemble, sniff_format
from rea_tui.server.session_state import Session
from rea_tui.server.target import Document, Target, TargetError, is_javascript_application, open_path
from rea_tui.server.text_forms import escape_unsafe, fold, hex_address
from rea_tui.server.tool_catalog import NAME_ARGUMENTS, TOOLS_BY_NAME, ToolSpec


@dataclass(slots=True)
class Evidence:
    """A successful result, retained in the ledger."""

    payload: dict[str, Any]


@dataclass(slots=True)
class Plain:
    """A successful result that is not evidence (close_binary, a capture that did not run)."""

    payload: dict[str, Any]


@dataclass(slots=True)
class Failure:
    message: str
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class NeedsInput:
    """2026-07-28 multi-round-trip: ask the client, then the call is retried."""

    result: types.InputRequiredResult


Outcome = Evidence | Plain | Failure | Narrowing | NeedsInput


@dataclass(slots=True)
class CallContext:
    """What a handler may use of the request beyond its arguments."""

    modern: bool
    """The request arrived on a 2026-07-28 connection (no server-to-client requests)."""
    elicit: Callable[[str, dict[str, Any]], Awaitable[types.ElicitResult | None]]
    """Legacy form elicitation; None when the client cannot be asked."""
    progress: Callable[[float, float, str], Awaitable[None]]
    input_responses: dict[str, Any] | None
    request_state: str | None
    can_elicit: bool


CAPTURE_CONFIRM_KEY = "confirm_capture"
CAPTURE_STATE = "rea-capture-confirmation"

CAPTURE_FORM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "arguments": {
            "type": "string",
            "title": "Arguments",
            "description": "Command-line arguments for the target's main executable (no shell).",
            "default": "",
        },
        "timeout_seconds": {
            "type": "integer",
            "title": "Time limit (seconds)",
            "minimum": 1,
            "maximum": 30,
            "default": 5,
        },
        "capture_environment": {
            "type": "boolean",
            "title": "Record environment variable names",
            "default": False,
        },
    },
    "required": [],
}

_VALIDATORS: dict[str, Draft202012Validator] = {}


def _validator(spec: ToolSpec) -> Draft202012Validator:
    validator = _VALIDATORS.get(spec.name)
    if validator is None:
        validator = _VALIDATORS[spec.name] = Draft202012Validator(spec.input_schema)
    return validator


def argument_errors(spec: ToolSpec, arguments: dict[str, Any]) -> list[dict[str, str]]:
    errors: list[dict[str, str]] = []
    for error in sorted(_validator(spec).iter_errors(arguments), key=lambda e: list(e.absolute_path)):
        path = ".".join(str(p) for p in error.absolute_path)
        if error.validator == "additionalProperties":
            extra = sorted(set(arguments) - set(spec.input_schema.get("properties", {})))
            errors.extend({"field": f"arguments.{name}", "message": "unknown argument"} for name in extra)
            continue
        if error.validator == "required":
            missing = str(error.message).split("'")[1] if "'" in error.message else path
            errors.append({"field": f"arguments.{missing}", "message": "required"})
            continue
        errors.append({"field": f"arguments.{path}" if path else "arguments", "message": error.message})
    return errors


class ToolRunner:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.lock = anyio.Lock()
        """Serializes target changes: a switch must not interleave with another switch."""

    # -- shared lookups ----------------------------------------------------------------

    def _target(self) -> Target | Failure:
        if self.session.target is None:
            return Failure("No target is open. Call open_binary with a file or .app bundle first.")
        return self.session.target

    def _provider(self, target: Target, name: Any) -> Provider | Failure:
        chosen = str(name) if name else "auto"
        provider = target.providers.get(chosen)
        if provider is None:
            return Failure(f"Unknown provider {chosen!r}. Available: {', '.join(target.provider_names())}.")
        try:
            validate_documents(provider.list_documents())
        except ProviderNotReady:
            return Failure(f"Provider {chosen} is cold: it has not analysed this target. Use provider auto.")
        except ProviderError as exc:
            return Failure(f"Provider {chosen} failed: {exc}")
        return provider

    def _document_items(self, target: Target) -> list[Item]:
        key = "resolver-documents"
        items = self.session.memo_get(key)
        if items is None:
            items = [make_item(d.id, d.name) for d in target.documents]
            self.session.memo_put(key, items)
        return list(items)

    def _procedure_items(self, target: Target) -> list[Item]:
        """All procedures of the target, fetched once per session (per target generation)."""
        key = "resolver-procedures"
        items = self.session.memo_get(key)
        if items is None:
            items = []
            next_id = 1
            for doc in target.documents:
                for record in doc.backend.inventory.records:
                    address = hex_address(record.address)
                    name = record.names[0] if record.names else address
                    aliases = (*record.names[1:], address) if record.names else ()
                    items.append(make_item(next_id, name, aliases, document=doc.name, address=address))
                    next_id += 1
            self.session.memo_put(key, items)
        return list(items)

    def _resolve_document(self, target: Target, value: Any, scoped_by: dict[str, Any]) -> Document | Narrowing:
        if is_missing(value):
            primary = target.primary
            if primary is None:
                return narrowing("missing_required", "document", "document", [], scoped_by)
            return primary
        found = resolve(value, self._document_items(target), argument="document", noun="document", scoped_by=scoped_by)
        if isinstance(found, Narrowing):
            return found
        return target.documents[found.id - 1]

    @staticmethod
    def _doc_ref(doc: Document) -> dict[str, Any]:
        return {"id": doc.id, "name": doc.name}

    # -- dispatch ------------------------------------------------------------------------

    async def call(self, name: str, arguments: dict[str, Any], call: CallContext) -> tuple[Outcome, bool]:
        """Run a tool. Returns the outcome and whether the active target changed."""
        spec = TOOLS_BY_NAME[name]
        args = {
            k: (str(v) if k in NAME_ARGUMENTS and isinstance(v, int) and not isinstance(v, bool) else v)
            for k, v in arguments.items()
        }
        errors = argument_errors(spec, args)
        if errors:
            return Failure(
                "Invalid arguments: " + "; ".join(f"{e['field']}: {e['message']}" for e in errors),
                {"errors": errors},
            ), False
        if name in ("open_binary", "close_binary"):
            async with self.lock:
                if name == "open_binary":
                    return await self.open_binary(args)
                return self.close_binary(), True
        handler: Callable[[dict[str, Any], CallContext], Awaitable[Outcome]] = getattr(self, name)
        return await handler(args, call), False

    # -- target lifecycle -----------------------------------------------------------------

    async def open_binary(self, args: dict[str, Any]) -> tuple[Outcome, bool]:
        path = str(args["path"])
        try:
            target = await anyio.to_thread.run_sync(open_path, path)
        except TargetError as exc:
            return Failure(str(exc)), False
        previous = self.session.activate(target)
        payload = target.describe()
        payload["previous_target"] = previous.path if previous else None
        return Evidence(payload), True

    def close_binary(self) -> Outcome:
        cleared = {
            "evidence": len(self.session.ledger),
            "unknowns": len(self.session.unknowns.all()),
            "manifests": len(self.session.artifacts.all()),
        }
        previous = self.session.close()
        return Plain(
            {
                "closed": previous is not None,
                "target": previous.path if previous else None,
                "cleared": cleared,
            }
        )

    async def doctor(self, args: dict[str, Any], call: CallContext) -> Outcome:
        import capstone
        import lief

        session = self.session
        environment = {
            "python": sys.version.split()[0],
            "executable": os.path.realpath(sys.executable),
            "platform": platform.platform(),
            "lief": str(getattr(lief, "__version__", "unknown")),
            "capstone": str(capstone.__version__),
            "discovery_limit": session.options.discovery_limit,
            "page_size": session.options.page_size,
        }
        payload: dict[str, Any] = {"environment": environment, "session": session.describe()}
        path = args.get("path")
        if path:
            payload["path_check"] = _check_path(str(path))
        return Evidence(payload)

    # -- documents and procedures ------------------------------------------------------------

    async def list_documents(self, args: dict[str, Any], call: CallContext) -> Outcome:
        target = self._target()
        if isinstance(target, Failure):
            return target
        provider = self._provider(target, args.get("provider"))
        if isinstance(provider, Failure):
            return provider
        names = set(validate_documents(provider.list_documents()))
        docs = [d.describe() for d in target.documents if d.name in names]
        return Evidence({"target": target.path, "provider": provider.name, "documents": docs})

    async def list_procedures(self, args: dict[str, Any], call: CallContext) -> Outcome:
        target = self._target()
        if isinstance(target, Failure):
            return target
        provider = self._provider(target, args.get("provider"))
        if isinstance(provider, Failure):
            return provider
        doc = self._resolve_document(target, args.get("document"), {})
        if isinstance(doc, Narrowing):
            return doc
        offset, limit = int(args.get("offset", 0)), int(args.get("limit", 100))
        try:
            raw = provider.list_procedures(doc.name, offset, limit)
            records, next_offset = validate_page(raw)
        except ProviderError as exc:
            return Failure(f"Provider {provider.name} could not list procedures of {doc.name}: {exc}")
        ids = self._procedure_ids(target, doc)
        sizes: dict[str, int | None] = {}
        if isinstance(provider, InventoryProvider):
            page = provider.inventory(doc.name).records[offset : offset + limit]
            sizes = {hex_address(r.address): r.size for r in page}
        procedures = [
            {"id": ids.get(address, 0), "address": address, "names": names, "size": sizes.get(address)}
            for address, names in records
        ]
        total = raw.get("total", len(procedures)) if isinstance(raw, dict) else len(procedures)
        return Evidence(
            {
                "document": self._doc_ref(doc),
                "provider": provider.name,
                "offset": offset,
                "limit": limit,
                "total": total,
                "next_offset": next_offset,
                "procedures": procedures,
            }
        )

    def _locate_procedure(self, target: Target, args: dict[str, Any]) -> tuple[Document, Item] | Narrowing:
        scoped: dict[str, Any] = {}
        pinned: Document | None = None
        if not is_missing(args.get("document")):
            doc = self._resolve_document(target, args.get("document"), {})
            if isinstance(doc, Narrowing):
                return doc
            pinned = doc
            scoped["document"] = doc.name
        items = self._procedure_items(target)
        if pinned is not None:
            items = [i for i in items if i.get("document") == pinned.name]
        value = args.get("procedure")
        if is_missing(value):
            return narrowing("missing_required", "procedure", "procedure", items, scoped)
        _kind, found = match(value, items)
        if len(found) == 1:
            chosen = found[0]
            return target.document(chosen.get("document")) or target.documents[0], chosen
        if not found:
            return narrowing("not_found", "procedure", "procedure", items, scoped, value)
        documents = list(dict.fromkeys(i.get("document") for i in found))
        same_name = len({fold(i.name) for i in found}) == 1 and len(documents) == len(found)
        if pinned is None and len(documents) > 1 and same_name:
            # The same procedure name lives in several documents: ask for the document.
            doc_items = [i for i in self._document_items(target) if i.name in documents]
            ask = f"Procedure {_shown(value)} exists in {len(doc_items)} documents. Which document?"
            return narrowing(
                "ambiguous", "document", "document", doc_items, {"procedure": str(value)}, value, question=ask
            )
        return narrowing("ambiguous", "procedure", "procedure", found, scoped, value)

    async def inspect_procedure(self, args: dict[str, Any], call: CallContext) -> Outcome:
        target = self._target()
        if isinstance(target, Failure):
            return target
        provider = self._provider(target, args.get("provider"))
        if isinstance(provider, Failure):
            return provider
        located = self._locate_procedure(target, args)
        if isinstance(located, Narrowing):
            return located
        doc, item = located
        if doc.backend.error:
            return Failure(f"{doc.name} could not be parsed: {doc.backend.error}")
        address = int(item.get("address"), 16)
        record = self._records(doc)[address]
        window = min(record.size or 256, 1024)
        code = doc.backend.read(address, window)
        arch = doc.backend.disassembly_target()
        max_insns = int(args.get("max_instructions", 64))
        instructions = disassemble(arch, code, address, max_insns) if arch and code else []
        by_address = self._records(doc)
        calls: list[dict[str, Any]] = []
        for insn in instructions:
            if insn["mnemonic"] in ("call", "bl", "jal") and insn["operands"].startswith("0x"):
                try:
                    callee = int(insn["operands"], 16)
                except ValueError:
                    continue
                callee_record = by_address.get(callee)
                names = list(callee_record.names) if callee_record else []
                calls.append({"at": insn["address"], "target": hex_address(callee), "names": names})
        disassembly = {
            "arch": doc.backend.arch,
            "window": {"start": hex_address(address), "bytes": len(code)},
            "instructions": instructions,
            "truncated": len(instructions) >= max_insns,
            "calls": calls,
            "note": None if instructions else "no bytes could be read or decoded at this address",
        }
        return Evidence(
            {
                "document": self._doc_ref(doc),
                "procedure": {
                    "id": item.id,
                    "address": hex_address(address),
                    "names": list(record.names),
                    "size": record.size,
                },
                "provider": provider.name,
                "disassembly": disassembly,
            }
        )

    def _records(self, doc: Document) -> dict[int, ProcedureRecord]:
        key = ("records-by-address", doc.name)
        cached: dict[int, ProcedureRecord] | None = self.session.memo_get(key)
        if cached is None:
            cached = {r.address: r for r in doc.backend.inventory.records}
            self.session.memo_put(key, cached)
        return cached

    def _procedure_ids(self, target: Target, doc: Document) -> dict[str, int]:
        key = ("procedure-ids", doc.name)
        cached: dict[str, int] | None = self.session.memo_get(key)
        if cached is None:
            cached = {i.get("address"): i.id for i in self._procedure_items(target) if i.get("document") == doc.name}
            self.session.memo_put(key, cached)
        return cached

    async def inspect_binary_layout(self, args: dict[str, Any], call: CallContext) -> Outcome:
        target = self._target()
        if isinstance(target, Failure):
            return target
        doc = self._resolve_document(target, args.get("document"), {})
        if isinstance(doc, Narrowing):
            return doc
        if doc.backend.error:
            return Failure(f"{doc.name} could not be parsed: {doc.backend.error}")
        return Evidence({"document": self._doc_ref(doc), "layout": doc.backend.layout()})

    # -- analysis views --------------------------------------------------------------------

    async def analyze_javascript_application(self, args: dict[str, Any], call: CallContext) -> Outcome:
        try:
            result = await anyio.to_thread.run_sync(javascript_analysis.analyze, str(args["input_path"]))
        except ValueError as exc:
            return Failure(str(exc))
        return Evidence(result)

    async def inspect_analysis_view(self, args: dict[str, Any], call: CallContext) -> Outcome:
        eligible = ("analyze_javascript_application", "inspect_binary_layout")
        ledger = self.session.ledger
        wanted = args.get("evidence")
        if wanted:
            entry = ledger.get(str(wanted))
            if entry is None:
                return Failure(f"No retained evidence {wanted!r} in this session.")
            if entry.operation not in eligible:
                return Failure(
                    f"Evidence {entry.id} comes from {entry.operation}; this view needs "
                    "analyze_javascript_application or inspect_binary_layout evidence."
                )
        else:
            entries = [e for e in ledger.entries() if e.operation in eligible]
            if not entries:
                return Failure(
                    "No retained analyze_javascript_application or inspect_binary_layout evidence; "
                    "run one of them first."
                )
            entry = entries[-1]
        view = str(args.get("view") or "overview")
        query = fold(str(args.get("query") or ""))
        result = entry.result
        payload: dict[str, Any] = {
            "source_evidence": entry.id,
            "source_operation": entry.operation,
            "view": view,
        }
        if entry.operation == "analyze_javascript_application":
            seeds = [s for s in result.get("feature_seeds", []) if query in fold(str(s.get("name", "")))]
            edges = [e for e in result.get("module_edges", []) if query in fold(f"{e['from']} {e['to']}")]
            if view == "overview":
                payload["overview"] = {
                    "application": result.get("application"),
                    "package": result.get("package"),
                    "scripts": result.get("scripts", {}).get("count"),
                    "feature_seed_kinds": _count(s["kind"] for s in result.get("feature_seeds", [])),
                }
            elif view == "feature_seeds":
                payload["feature_seeds"] = seeds
            elif view == "graph":
                nodes = sorted({e["from"] for e in edges} | {e["to"] for e in edges})
                payload["graph"] = {"nodes": nodes, "edges": edges}
            else:
                payload["findings"] = _javascript_findings(result)
            return Evidence(payload)
        layout = result.get("layout", {})
        document = result.get("document", {}).get("name", "")
        if view == "overview":
            payload["overview"] = {
                "document": document,
                "format": layout.get("format"),
                "arch": layout.get("arch"),
                "sections": len(layout.get("sections", [])),
                "libraries": layout.get("libraries", []),
                "procedure_count": layout.get("procedure_count"),
            }
        elif view == "feature_seeds":
            names = [s["name"] for s in layout.get("sections", [])] + list(layout.get("libraries", []))
            payload["feature_seeds"] = [n for n in names if query in fold(n)]
        elif view == "graph":
            nodes = [document, *[s["name"] for s in layout.get("sections", [])], *layout.get("libraries", [])]
            edges = [{"from": document, "to": s["name"], "relation": "has_section"} for s in layout.get("sections", [])]
            edges += [{"from": document, "to": lib, "relation": "links"} for lib in layout.get("libraries", [])]
            payload["graph"] = {"nodes": [n for n in nodes if query in fold(n)], "edges": edges}
        else:
            findings = []
            for section in layout.get("sections", []):
                flags = section.get("flags", [])
                if "write" in flags and "exec" in flags:
                    findings.append({"kind": "writable_executable_section", "section": section["name"]})
            payload["findings"] = findings
        return Evidence(payload)

    # -- artifacts ------------------------------------------------------------------------------

    def _manifest_items(self) -> list[Item]:
        return [make_item(m.number, m.id, (m.target_label,)) for m in self.session.artifacts.all()]

    async def inventory_artifact(self, args: dict[str, Any], call: CallContext) -> Outcome:
        target = self._target()
        if isinstance(target, Failure):
            return target
        offset, limit = int(args.get("offset", 0)), int(args.get("limit", 100))
        if is_missing(args.get("manifest")):
            manifest = await anyio.to_thread.run_sync(self.session.artifacts.mint, target)
        else:
            found = resolve(args["manifest"], self._manifest_items(), argument="manifest", noun="manifest")
            if isinstance(found, Narrowing):
                return found
            manifest = self.session.artifacts.get(found.name)  # type: ignore[assignment]
            assert manifest is not None
            if manifest.target != target.path:
                return Failure(
                    f"Manifest {manifest.id} inventories {manifest.target_label}; open that target "
                    "first: inventory acts on the active target."
                )
        if offset > len(manifest.occurrences):
            return Failure(f"offset {offset} is past the end ({len(manifest.occurrences)} occurrences)")
        return Evidence(manifest.inventory_result(offset, limit))

    async def inspect_artifact(self, args: dict[str, Any], call: CallContext) -> Outcome:
        target = self._target()
        if isinstance(target, Failure):
            return target
        found = resolve(args.get("manifest"), self._manifest_items(), argument="manifest", noun="manifest")
        if isinstance(found, Narrowing):
            return found
        manifest = self.session.artifacts.get(found.name)
        assert manifest is not None
        if manifest.target != target.path:
            return Failure(
                f"Manifest {manifest.id} belongs to {manifest.target_label}, not the active target. "
                "Open that target first: inspection acts on the active target."
            )
        described = manifest.describe()
        occurrence = args.get("occurrence")
        if is_missing(occurrence):
            return Evidence({"manifest": described, **artifact_store.manifest_findings(manifest, target)})
        occ_items = [make_item(i, o["occurrence_id"], (o["name"],)) for i, o in enumerate(manifest.occurrences, 1)]
        chosen = resolve(
            str(occurrence),
            occ_items,
            argument="occurrence",
            noun="occurrence",
            scoped_by={"manifest": manifest.id},
        )
        if isinstance(chosen, Narrowing):
            return chosen
        occ = dict(manifest.occurrences[chosen.id - 1])
        detail: dict[str, Any] = {}
        doc = target.document(occ["document"])
        if occ["kind"] == "section" and doc is not None and occ.get("address"):
            head = doc.backend.read(int(occ["address"], 16), 64)
            detail["first_bytes"] = head.hex()
        if occ["kind"] == "library":
            provided = {os.path.basename(d.name) for d in target.documents}
            detail["provided_by_target"] = os.path.basename(occ["name"]) in provided
        if occ["kind"] == "file" and doc is not None:
            detail["procedure_count"] = len(doc.backend.inventory.records)
        return Evidence({"manifest": described, "occurrence": occ, "detail": detail})

    # -- residual unknowns ----------------------------------------------------------------------

    def _unknown_items(self) -> list[Item]:
        return [make_item(u.number, u.id, (u.question,)) for u in self.session.unknowns.heads()]

    async def record_unknown(self, args: dict[str, Any], call: CallContext) -> Outcome:
        supersedes = None
        if not is_missing(args.get("supersedes")):
            found = resolve(args["supersedes"], self._unknown_items(), argument="supersedes", noun="unknown head")
            if isinstance(found, Narrowing):
                return found
            supersedes = self.session.unknowns.by_number(found.id)
        evidence = [str(e) for e in args.get("evidence", [])]
        missing = [e for e in evidence if self.session.ledger.get(e) is None]
        if missing:
            return Failure(f"Not retained in this session: {', '.join(missing)}.")
        item = self.session.unknowns.record(
            str(args["question"]), args.get("context"), evidence, self.session.target_path, supersedes
        )
        return Evidence({"unknown": item.describe()})

    async def resolve_unknown(self, args: dict[str, Any], call: CallContext) -> Outcome:
        found = resolve(args.get("unknown"), self._unknown_items(), argument="unknown", noun="unknown head")
        if isinstance(found, Narrowing):
            return found
        entry = self.session.ledger.get(str(args["evidence"]))
        if entry is None:
            return Failure(
                f"Evidence {args['evidence']!r} is not retained in this session; a resolution must "
                "cite retained evidence."
            )
        item = self.session.unknowns.by_number(found.id)
        assert item is not None
        item.status = "resolved"
        item.resolution = str(args["resolution"])
        item.resolution_evidence = entry.id
        return Evidence({"unknown": item.describe()})

    async def list_unknowns(self, args: dict[str, Any], call: CallContext) -> Outcome:
        status = str(args.get("status") or "open")
        items = self.session.unknowns.all()
        chosen = items if status == "all" else [u for u in items if u.status == status]
        return Evidence({"status": status, "unknowns": [u.describe() for u in chosen]})

    # -- process capture -------------------------------------------------------------------------

    async def run_process_capture(self, args: dict[str, Any], call: CallContext) -> Outcome:
        target = self._target()
        if isinstance(target, Failure):
            return target
        if target.kind != "synthetic" and not target.main_executable:
            return Failure("The active target has no main executable to run.")
        params: dict[str, Any] = {
            "arguments": str(args.get("arguments", "")),
            "timeout_seconds": int(args.get("timeout_seconds", 5)),
            "capture_environment": bool(args.get("capture_environment", False)),
        }
        if not args.get("confirm"):
            decision = await self._confirm_capture(target, params, call)
            if isinstance(decision, (NeedsInput, Plain, Failure)):
                return decision
            params = decision
        limit = self.session.options.capture_timeout_max
        timeout = max(1, min(int(params["timeout_seconds"]), limit))
        try:
            split_arguments(params["arguments"])
        except ValueError as exc:
            return Failure(f"Could not split the arguments: {exc}")
        if target.kind == "synthetic":
            result = await simulate_capture(
                target.path or "synthetic",
                params["arguments"],
                timeout,
                params["capture_environment"],
                call.progress,
            )
        else:
            assert target.main_executable is not None
            result = await run_capture(
                target.main_executable,
                params["arguments"],
                timeout,
                self.session.options.capture_output_bytes,
                params["capture_environment"],
                call.progress,
            )
        return Evidence(result)

    async def _confirm_capture(
        self, target: Target, params: dict[str, Any], call: CallContext
    ) -> dict[str, Any] | NeedsInput | Plain | Failure:
        cap = self.session.options.capture_output_bytes
        message = (
            f"Run {target.main_executable or target.label} once (no shell), for at most "
            f"{params['timeout_seconds']} s with output capped at {cap} bytes per stream? "
            "Adjust the parameters or decline."
        )
        form = {**CAPTURE_FORM, "properties": {k: dict(v) for k, v in CAPTURE_FORM["properties"].items()}}
        form["properties"]["arguments"]["default"] = params["arguments"]
        form["properties"]["timeout_seconds"]["default"] = params["timeout_seconds"]
        form["properties"]["capture_environment"]["default"] = params["capture_environment"]
        answer: types.ElicitResult | None
        if call.modern:
            responses = call.input_responses or {}
            raw = responses.get(CAPTURE_CONFIRM_KEY)
            if raw is None or call.request_state != CAPTURE_STATE:
                if not call.can_elicit:
                    return _not_run(
                        "the client cannot be asked to confirm (no form elicitation capability); "
                        "call again with confirm=true once the user approved"
                    )
                request = types.ElicitRequest(
                    params=types.ElicitRequestFormParams(message=message, requested_schema=form)
                )
                return NeedsInput(
                    types.InputRequiredResult(
                        input_requests={CAPTURE_CONFIRM_KEY: request}, request_state=CAPTURE_STATE
                    )
                )
            answer = raw if isinstance(raw, types.ElicitResult) else None
            if answer is None:
                return Failure("The confirmation answer was not an elicitation result.")
        else:
            if not call.can_elicit:
                return _not_run(
                    "the client cannot be asked to confirm (no form elicitation capability); "
                    "call again with confirm=true once the user approved"
                )
            answer = await call.elicit(message, form)
            if answer is None:
                return _not_run("the confirmation request failed")
        if answer.action != "accept":
            return _not_run(f"the user chose {answer.action}")
        content = answer.content or {}
        merged = dict(params)
        if isinstance(content.get("arguments"), str):
            merged["arguments"] = content["arguments"]
        timeout = content.get("timeout_seconds")
        if isinstance(timeout, int | float) and not isinstance(timeout, bool):
            merged["timeout_seconds"] = int(timeout)
        if isinstance(content.get("capture_environment"), bool):
            merged["capture_environment"] = content["capture_environment"]
        return merged


def _shown(value: Any) -> str:
    text = escape_unsafe(str(value))
    return text if len(text) <= 60 else text[:57] + "..."


def _not_run(reason: str) -> Plain:
    return Plain({"status": "not_run", "reason": reason, "ran": False})


def _count(values: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts


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


def _check_path(path: str) -> dict[str, Any]:
    full = os.path.realpath(os.path.expanduser(path))
    check: dict[str, Any] = {"path": path, "resolved": full, "exists": os.path.exists(full)}
    if not check["exists"]:
        check.update(openable=False, reason="no such file or directory")
        return check
    if os.path.isfile(full):
        fmt = sniff_format(full)
        check.update(
            kind="file",
            format=fmt,
            openable=fmt is not None,
            reason=None if fmt else "not an ELF, Mach-O or PE binary",
        )
        return check
    is_app = full.rstrip(os.sep).endswith(".app") and os.path.isdir(os.path.join(full, "Contents"))
    javascript_app = is_javascript_application(full)
    check.update(kind="app" if is_app else "directory", javascript=javascript_app)
    if is_app:
        check.update(openable=True, reason=None)
    elif javascript_app:
        check.update(
            openable=False,
            available_operation="analyze_javascript_application",
            reason="a JavaScript/Electron application directory: analyze it with input_path",
        )
    else:
        check.update(openable=True, reason="opens as a directory of binaries when it contains any")
    return check
