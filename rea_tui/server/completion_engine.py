"""Session-aware completion: the seeds' argument families, matching and bounds.

Matching is an NFKC-normalized, case-insensitive prefix match over values
kept in their original spelling, deduplicated and sorted by code point; at
most 100 values go out, `total` counts every match and `hasMore` says some
were left out. Values longer than 4,096 characters are dropped before
counting.

Procedure candidates come from bounded pagination over the provider's
`list_procedures`: addresses are offered from whatever was observed, names
only when discovery was exhaustive and the name identifies exactly one
address in the full inventory. Completion only ever reads a ready provider:
a cold, failing or malformed provider yields an empty list, never an
unverified identifier.
"""

from __future__ import annotations

import heapq
import re
from bisect import bisect_left
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from rea_tui.server.limits import MAX_COMPLETION_VALUES, MAX_VALUE_CHARS
from rea_tui.server.providers.base import MalformedOutput, Provider, ProviderError
from rea_tui.server.session_state import Session
from rea_tui.server.text_forms import fold

Family = Literal["document", "procedure", "provider", "evidence", "capture", "manifest", "occurrence", "unknown"]

FAMILIES: Final[tuple[Family, ...]] = (
    "document",
    "procedure",
    "provider",
    "evidence",
    "capture",
    "manifest",
    "occurrence",
    "unknown",
)

_ADDRESS = re.compile(r"^0x[0-9a-f]+$")


@dataclass(frozen=True, slots=True)
class CompletionPage:
    values: list[str]
    total: int
    has_more: bool

    @classmethod
    def empty(cls) -> CompletionPage:
        return cls([], 0, False)


class PrefixIndex:
    """Values keyed by their folded form, for prefix ranges by bisection.

    Each entry also carries its rank in code-point order of the original
    values, so the first 100 values of any range come from a partial sort of
    small integers instead of a sort of strings.
    """

    __slots__ = ("_keys", "_ranks", "_values")

    def __init__(self, values: Iterable[str]) -> None:
        unique = sorted({v for v in values if len(v) <= MAX_VALUE_CHARS})
        keyed = sorted(zip((fold(v) for v in unique), range(len(unique)), strict=True))
        self._values = unique
        self._keys = [k for k, _ in keyed]
        self._ranks = [r for _, r in keyed]

    def __len__(self) -> int:
        return len(self._values)

    def query(self, prefix: str, limit: int = MAX_COMPLETION_VALUES) -> CompletionPage:
        key = fold(prefix)
        keys = self._keys
        if not key:
            lo, hi = 0, len(keys)
        else:
            lo = bisect_left(keys, key)
            last = ord(key[-1])
            if last < 0x10FFFF:
                hi = bisect_left(keys, key[:-1] + chr(last + 1), lo)
            else:
                hi = lo
                while hi < len(keys) and keys[hi].startswith(key):
                    hi += 1
        total = hi - lo
        if total == 0:
            return CompletionPage.empty()
        if lo == 0 and hi == len(keys):
            chosen = list(range(min(limit, total)))
        elif total <= limit:
            chosen = sorted(self._ranks[lo:hi])
        else:
            chosen = sorted(heapq.nsmallest(limit, self._ranks[lo:hi]))
        values = [self._values[r] for r in chosen]
        return CompletionPage(values, total, total > len(values))


# -- provider output validation -----------------------------------------------------


def validate_documents(raw: Any) -> list[str]:
    if not isinstance(raw, list):
        raise MalformedOutput("list_documents did not return a list")
    names: list[str] = []
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"]:
            raise MalformedOutput("list_documents returned an entry without a string name")
        names.append(item["name"])
    return names


def validate_page(raw: Any) -> tuple[list[tuple[str, list[str]]], int | None]:
    if not isinstance(raw, dict) or not isinstance(raw.get("procedures"), list):
        raise MalformedOutput("list_procedures did not return a page")
    next_offset = raw.get("next_offset")
    if next_offset is not None and (not isinstance(next_offset, int) or isinstance(next_offset, bool)):
        raise MalformedOutput("list_procedures returned a non-integer next_offset")
    records: list[tuple[str, list[str]]] = []
    for item in raw["procedures"]:
        if not isinstance(item, dict):
            raise MalformedOutput("procedure entry is not an object")
        address, names = item.get("address"), item.get("names")
        if not isinstance(address, str) or not _ADDRESS.match(address):
            raise MalformedOutput("procedure address is not a lowercase hex string")
        if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
            raise MalformedOutput("procedure names is not a list of strings")
        records.append((address, names))
    return records, next_offset


@dataclass(frozen=True, slots=True)
class Discovery:
    addresses: list[str]
    name_addresses: dict[str, set[str]]
    exhaustive: bool

    def offered(self) -> list[str]:
        """Addresses always; names only from an exhaustive inventory and only when unique."""
        values = list(self.addresses)
        if self.exhaustive:
            values.extend(name for name, addrs in self.name_addresses.items() if len(addrs) == 1)
        return values


def discover_procedures(provider: Provider, document: str, limit: int, page_size: int) -> Discovery:
    """Page through `list_procedures` until exhausted or `limit` unique addresses were seen.

    Every name at an address takes part in the uniqueness check, so a name
    seen on page one is withdrawn when a later page shows it at another
    address. Raises `ProviderError` (including `MalformedOutput`) unchanged.
    """
    seen: dict[str, None] = {}
    name_addresses: dict[str, set[str]] = {}
    offset = 0
    exhaustive = False
    while True:
        records, next_offset = validate_page(provider.list_procedures(document, offset, page_size))
        cut = False
        for address, names in records:
            if address not in seen:
                if len(seen) >= limit:
                    cut = True
                    break
                seen[address] = None
            for name in names:
                name_addresses.setdefault(name, set()).add(address)
        if cut:
            break
        if next_offset is None:
            exhaustive = True
            break
        if len(seen) >= limit:
            break
        if next_offset <= offset:
            raise MalformedOutput("list_procedures did not advance")
        offset = next_offset
    return Discovery(list(seen), name_addresses, exhaustive)


# -- the engine --------------------------------------------------------------------------


class CompletionEngine:
    """Answers completion for one session; reads live state on every request."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def complete(self, family: Family | None, prefix: str, context: Mapping[str, str]) -> CompletionPage:
        if family is None:
            return CompletionPage.empty()
        try:
            index = self._index(family, context)
        except ProviderError:
            return CompletionPage.empty()
        if index is None:
            return CompletionPage.empty()
        return index.query(prefix)

    def _provider(self, context: Mapping[str, str]) -> Provider | None:
        target = self.session.target
        if target is None:
            return None
        return target.providers.get(context.get("provider") or "auto")

    def _document(self, provider: Provider, context: Mapping[str, str]) -> str | None:
        """The document named in context (exact, then unique folded match), else the primary one."""
        target = self.session.target
        assert target is not None
        requested = context.get("document")
        names = validate_documents(provider.list_documents())
        if not requested:
            return target.primary.name if target.primary and target.primary.name in names else None
        if requested in names:
            return requested
        folded = [n for n in names if fold(n) == fold(requested)]
        return folded[0] if len(folded) == 1 else None

    def _index(self, family: Family, context: Mapping[str, str]) -> PrefixIndex | None:
        session = self.session
        if family == "provider":
            return PrefixIndex(session.target.provider_names() if session.target else ["auto"])
        if family == "evidence":
            return PrefixIndex(session.ledger.ids())
        if family == "capture":
            return PrefixIndex(session.ledger.capture_ids())
        if family == "unknown":
            return PrefixIndex(u.id for u in session.unknowns.heads())
        if family in ("manifest", "occurrence"):
            return self._artifact_index(family, context)
        provider = self._provider(context)
        if provider is None or provider.state != "ready":
            # Reading a cold provider would start analysis; completion never does.
            return None
        if family == "document":
            return PrefixIndex(validate_documents(provider.list_documents()))
        document = self._document(provider, context)
        if document is None:
            return None
        options = session.options
        key = ("procedure-index", id(provider), document, options.discovery_limit, options.page_size)
        cached = session.memo_get(key)
        if isinstance(cached, PrefixIndex):
            return cached
        discovery = discover_procedures(provider, document, options.discovery_limit, options.page_size)
        index = PrefixIndex(discovery.offered())
        # The memo is keyed by target generation: a switch or close invalidates it.
        session.memo_put(key, index)
        return index

    def _artifact_index(self, family: Family, context: Mapping[str, str]) -> PrefixIndex:
        entries = self.session.ledger.entries()
        manifests: dict[str, set[str]] = {}
        for entry in entries:
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
