"""The procedure inventory completion reads: discovered once per document, kept until the target changes.

Discovery pages through the provider's `list_procedures` until it is
exhausted. Two safety bounds can stop it first (real binaries do not hit
them): a number of unique addresses (`--discovery-limit`, seed 001's bound)
and a time budget. A cut inventory offers only the addresses it observed,
because whether a name identifies exactly one address is unknown; the
completion reply says so in `_meta["rea/discovery"]`.

Procedure values of one document are its addresses plus every name that
identifies exactly one address there (every name at a shared address takes
part, even when a later page makes it ambiguous). Across the whole target a
value is offered plain when it identifies exactly one procedure of the whole
target, and document-qualified (`VALUE@DOCUMENT`) when it identifies exactly
one procedure of its document only; a plain value also needs every document's
inventory to be complete. The document comes last so that a qualified value
still starts with what the analyst typed (the contract is a prefix match).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from rea_tui.server.providers.base import MalformedOutput, Provider
from rea_tui.server.providers.output_validation import validate_page

QUALIFIER = "@"
"""Separates a procedure name or address from its document: `malloc@libc.so.6`."""

CutReason = Literal["limit", "time"]


def qualify(document: str, value: str) -> str:
    return f"{value}{QUALIFIER}{document}"


def split_qualified(value: str, documents: Sequence[str]) -> tuple[str, str] | None:
    """`(document, rest)` when `value` ends with `@` and a document name, else None.

    Names may contain `@` themselves, so every `@` is tried from the right and
    the first whose suffix is exactly a document name wins.
    """
    known = set(documents)
    at = value.rfind(QUALIFIER)
    while at > 0:
        if value[at + 1 :] in known:
            return value[at + 1 :], value[:at]
        at = value.rfind(QUALIFIER, 0, at)
    return None


@dataclass(frozen=True, slots=True)
class DiscoveryReport:
    """How far discovery got: the body of `_meta["rea/discovery"]`."""

    complete: bool
    limit: int
    addresses: int
    reason: CutReason | None = None

    def meta(self) -> dict[str, Any]:
        """`{"complete", "limit", "addresses"}` plus `"reason"` when a bound cut discovery."""
        body: dict[str, Any] = {"complete": self.complete, "limit": self.limit, "addresses": self.addresses}
        if self.reason is not None:
            body["reason"] = self.reason
        return body

    @classmethod
    def combined(cls, reports: Sequence[DiscoveryReport], limit: int) -> DiscoveryReport:
        cut = [r for r in reports if not r.complete]
        return cls(
            complete=not cut,
            limit=limit,
            addresses=sum(r.addresses for r in reports),
            reason=cut[0].reason if cut else None,
        )


@dataclass(frozen=True, slots=True)
class DocumentProcedures:
    """What discovery saw of one document."""

    document: str
    addresses: list[str]
    name_addresses: dict[str, set[str]]
    report: DiscoveryReport

    def values(self) -> list[str]:
        """Addresses always; names only from a complete inventory, and only when unique."""
        values = list(self.addresses)
        if self.report.complete:
            values.extend(name for name, where in self.name_addresses.items() if len(where) == 1)
        return values

    def identifiers(self) -> set[str]:
        """Every address and name seen, unique or not: what a plain value must not collide with."""
        return {*self.addresses, *self.name_addresses}


def discover(
    provider: Provider,
    document: str,
    *,
    limit: int,
    page_size: int,
    time_budget: float,
    clock: Callable[[], float] = time.monotonic,
) -> DocumentProcedures:
    """Page through `list_procedures` until exhausted or a bound is reached.

    The time budget is checked after each page, so at least one page is read.
    Raises `ProviderError` (including `MalformedOutput`) unchanged.
    """
    started = clock()
    seen: dict[str, None] = {}
    name_addresses: dict[str, set[str]] = {}
    offset = 0
    reason: CutReason | None = None
    while True:
        rows, next_offset = validate_page(provider.list_procedures(document, offset, page_size))
        for address, names in rows:
            if address not in seen:
                if len(seen) >= limit:
                    reason = "limit"
                    break
                seen[address] = None
            for name in names:
                name_addresses.setdefault(name, set()).add(address)
        if reason is not None or next_offset is None:
            break
        if len(seen) >= limit:
            reason = "limit"
            break
        if clock() - started > time_budget:
            reason = "time"
            break
        if next_offset <= offset:
            raise MalformedOutput("list_procedures did not advance")
        offset = next_offset
    report = DiscoveryReport(complete=reason is None, limit=limit, addresses=len(seen), reason=reason)
    return DocumentProcedures(document, list(seen), name_addresses, report)


def target_entries(documents: Sequence[DocumentProcedures]) -> list[str]:
    """Whole-target completion values.

    A qualified value starts with the name, so typing `mall` reaches
    `malloc@libc.so.6` by the contract's prefix match.
    """
    complete = all(d.report.complete for d in documents)
    presence: Counter[str] = Counter()
    for doc in documents:
        presence.update(doc.identifiers())
    entries: list[str] = []
    for doc in documents:
        for value in doc.values():
            entries.append(value if complete and presence[value] == 1 else qualify(doc.document, value))
    return entries
