"""Session-aware completion: the seeds' argument families over the live session.

Matching is an NFKC-normalized, case-insensitive prefix match over values
kept in their original spelling, deduplicated and sorted by code point; at
most 100 values go out, `total` counts every match and `hasMore` says some
were left out. Values longer than 4,096 characters are dropped before
counting.

Procedure values come from the complete inventory (`procedure_inventory`),
for the document in context, or for the whole target when no document is
given (then a value found in several documents is offered document-qualified,
`malloc@libc.so.6`). When a safety bound cut discovery short, the reply's
`_meta["rea/discovery"]` says so.

Completion only reads: it keeps no cache of results (each request reads the
session as it is, so a target switch shows on the very next request) and
never starts analysis. A document or procedure request that arrives while
the startup target opens waits for it, at most the discovery time budget;
past that it answers an empty list whose `_meta["rea/target"]` says what is
still opening. A cold, failing or malformed provider yields an empty list,
never an unverified identifier.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import anyio.to_thread

from rea_tui.server.analysis.prefix_index import CompletionPage, PrefixIndex
from rea_tui.server.analysis.target_analysis import AUTO_PROVIDER, TargetAnalysis
from rea_tui.server.completion.text_forms import fold
from rea_tui.server.prompts.prompt_declarations import Family
from rea_tui.server.protocol.session_state import Session
from rea_tui.server.providers.base import ProviderError
from rea_tui.server.providers.output_validation import validate_documents

DISCOVERY_META_KEY: Final = "rea/discovery"
"""`{"complete": bool, "limit": int, "addresses": int}`, plus `"reason": "limit" | "time"` when cut."""

TARGET_META_KEY: Final = "rea/target"
"""`{"state": "opening" | "none" | "failed"}` on document and procedure replies while no target is ready
(with `"label"` and `"waited_seconds"` when it is still opening); `{"state": "ready", "waited_seconds": s}`
when the reply waited for the target to open."""

_TARGET_FAMILIES: Final = frozenset({"document", "procedure"})
"""The families read from the target, which wait while it opens."""


@dataclass(frozen=True, slots=True)
class CompletionAnswer:
    page: CompletionPage
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def empty(cls, meta: dict[str, Any] | None = None) -> CompletionAnswer:
        return cls(CompletionPage.empty(), meta or {})


class CompletionEngine:
    def __init__(self, session: Session) -> None:
        self.session = session

    async def complete_when_open(
        self, family: Family | None, prefix: str, context: Mapping[str, str]
    ) -> CompletionAnswer:
        """`complete`, after waiting (at most the discovery time budget) for a target that is opening."""
        session = self.session
        if family not in _TARGET_FAMILIES or session.state != "opening":
            return await self._complete_off_loop_when_cold(family, prefix, context)
        started = time.monotonic()
        await session.wait_until_settled(session.options.discovery_time_budget)
        waited = round(time.monotonic() - started, 3)
        answer = await self._complete_off_loop_when_cold(family, prefix, context)
        if session.state == "opening":
            state = {"state": "opening", "label": session.opening_label, "waited_seconds": waited}
        else:
            state = {"state": session.state, "waited_seconds": waited}
        return CompletionAnswer(answer.page, {**answer.meta, TARGET_META_KEY: state})

    async def _complete_off_loop_when_cold(
        self, family: Family | None, prefix: str, context: Mapping[str, str]
    ) -> CompletionAnswer:
        """`complete`, in a worker thread when it would first build a provider's procedure values
        (discovery pages through the whole inventory), so the event loop keeps answering meanwhile."""
        analysis = self.session.analysis
        provider = context.get("provider") or AUTO_PROVIDER
        cold = analysis is not None and not analysis.completion_built(provider, context.get("document") or None)
        if family == "procedure" and cold:
            return await anyio.to_thread.run_sync(self.complete, family, prefix, context)
        return self.complete(family, prefix, context)

    def complete(self, family: Family | None, prefix: str, context: Mapping[str, str]) -> CompletionAnswer:
        if family is None:
            return CompletionAnswer.empty()
        session = self.session
        if family == "provider":
            names = session.target.provider_names() if session.target else [AUTO_PROVIDER]
            return CompletionAnswer(PrefixIndex(names).query(prefix))
        if family == "evidence":
            return CompletionAnswer(PrefixIndex(session.ledger.ids()).query(prefix))
        if family == "capture":
            return CompletionAnswer(PrefixIndex(session.ledger.capture_ids()).query(prefix))
        if family == "unknown":
            return CompletionAnswer(PrefixIndex(u.id for u in session.unknowns.heads()).query(prefix))
        if family in ("manifest", "occurrence"):
            return CompletionAnswer(self._artifact_index(family, context).query(prefix))
        analysis = session.analysis
        if analysis is None:
            return CompletionAnswer.empty({TARGET_META_KEY: {"state": session.state}})
        try:
            return self._from_provider(analysis, family, prefix, context)
        except ProviderError:
            return CompletionAnswer.empty()

    def _from_provider(
        self, analysis: TargetAnalysis, family: Family, prefix: str, context: Mapping[str, str]
    ) -> CompletionAnswer:
        provider = analysis.target.providers.get(context.get("provider") or AUTO_PROVIDER)
        if provider is None or provider.state != "ready":
            # Reading a cold provider would start analysis; completion never does.
            return CompletionAnswer.empty()
        names = validate_documents(provider.list_documents())
        if family == "document":
            return CompletionAnswer(PrefixIndex(names).query(prefix))
        requested = context.get("document")
        document: str | None = None
        if requested:
            document = self._document(names, requested)
            if document is None:
                return CompletionAnswer.empty()
        completion = analysis.procedure_completion(provider, document)
        return CompletionAnswer(completion.index.query(prefix), {DISCOVERY_META_KEY: completion.report.meta()})

    @staticmethod
    def _document(names: list[str], requested: str) -> str | None:
        """The document named in context: exact, then a unique folded match."""
        if requested in names:
            return requested
        folded = [n for n in names if fold(n) == fold(requested)]
        return folded[0] if len(folded) == 1 else None

    def _artifact_index(self, family: Family, context: Mapping[str, str]) -> PrefixIndex:
        manifests: dict[str, set[str]] = {}
        for entry in self.session.ledger.entries():
            if not entry.is_inventory:
                continue
            manifest = entry.result["manifest"]["manifest_id"]
            occurrences = manifests.setdefault(manifest, set())
            occurrences.update(o["occurrence_id"] for o in entry.result["page"]["occurrences"])
        if family == "manifest":
            return PrefixIndex(manifests)
        wanted = context.get("manifest")
        if wanted:
            return PrefixIndex(manifests.get(wanted.strip().upper(), set()))
        return PrefixIndex(o for occ in manifests.values() for o in occ)
