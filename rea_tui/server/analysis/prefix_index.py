"""Completion values keyed by their folded forms, for prefix ranges by bisection.

Each key carries the rank of its value in code-point order, so the first
100 values of any range come from a partial sort of small integers instead
of a sort of strings (folding can reorder values, so keys and values differ
in order).
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass

from rea_tui.server.completion.text_forms import fold
from rea_tui.server.limits import MAX_COMPLETION_VALUES, MAX_VALUE_CHARS

_LAST_CODE_POINT = 0x10FFFF


@dataclass(frozen=True, slots=True)
class CompletionPage:
    values: list[str]
    total: int
    has_more: bool

    @classmethod
    def empty(cls) -> CompletionPage:
        return cls([], 0, False)


class PrefixIndex:
    """Values longer than 4,096 characters are dropped before anything is counted."""

    __slots__ = ("_keys", "_ranks", "_values")

    def __init__(self, values: Iterable[str]) -> None:
        unique = sorted({v for v in values if len(v) <= MAX_VALUE_CHARS})
        keyed = sorted((fold(value), rank) for rank, value in enumerate(unique))
        self._values = unique
        self._keys = [k for k, _ in keyed]
        self._ranks = [r for _, r in keyed]

    def __len__(self) -> int:
        return len(self._values)

    def _range(self, key: str) -> tuple[int, int]:
        keys = self._keys
        lo = bisect_left(keys, key)
        last = ord(key[-1])
        if last < _LAST_CODE_POINT:
            return lo, bisect_left(keys, key[:-1] + chr(last + 1), lo)
        hi = lo
        while hi < len(keys) and keys[hi].startswith(key):
            hi += 1
        return lo, hi

    def query(self, prefix: str, limit: int = MAX_COMPLETION_VALUES) -> CompletionPage:
        key = fold(prefix)
        if not key:
            # Every value matches the empty prefix; ranks are already in code-point order.
            total = len(self._values)
            return CompletionPage(self._values[:limit], total, total > limit)
        lo, hi = self._range(key)
        if hi == lo:
            return CompletionPage.empty()
        matched = self._ranks[lo:hi]
        total = len(matched)
        chosen = sorted(matched) if total <= limit else sorted(heapq.nsmallest(limit, matched))
        values = [self._values[r] for r in chosen]
        return CompletionPage(values, total, total > len(values))
