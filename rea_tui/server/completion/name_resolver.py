"""Progressive narrowing (seed 003): resolve a name or id, or say how to narrow.

A name-taking tool never fails on a missing, unknown or ambiguous name. It
answers `{reason, ask_user, candidates, scoped_by}` (plus `argument`, naming
the tool argument the reply concerns) and the caller repeats the call with
the value pinned. Candidates are pre-filtered by everything already pinned
and capped at 25.

Decision tree:

    missing                      -> missing_required, candidates: all in scope
    int, or a string of digits   -> that id, if it exists in scope
    one exact (case-insensitive) -> that item
    several exact                -> ambiguous, candidates: those
    one substring match          -> that item
    several substring matches    -> ambiguous, candidates: those
    nothing                      -> not_found, candidates: all in scope, closest first

Not-found candidates are ordered by closeness to what the caller typed:
difflib's ratio of each folded form against the folded value (as
`difflib.get_close_matches` computes it), the best over an item's names and
aliases; ties in code-point order of the name. So the likely meant item is
among the 25.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any, Literal

from rea_tui.server.completion.text_forms import escape_unsafe, fold
from rea_tui.server.limits import MAX_CANDIDATES

Reason = Literal["ambiguous", "not_found", "missing_required"]

CLOSENESS_CHARS = 256
"""Characters of each form compared for closeness; longer names cost more and add nothing."""


@dataclass(frozen=True, slots=True)
class Item:
    """Something a name can resolve to."""

    id: int
    name: str
    aliases: tuple[str, ...] = ()
    extra: tuple[tuple[str, Any], ...] = ()
    keys: tuple[str, ...] = field(default=())
    """Folded forms of `name` and `aliases`; filled by `make_item`."""

    def get(self, key: str) -> Any:
        for name, value in self.extra:
            if name == key:
                return value
        return None

    def candidate(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, **dict(self.extra)}


def make_item(id: int, name: str, aliases: Sequence[str] = (), **extra: Any) -> Item:
    names = (name, *[a for a in aliases if a != name])
    return Item(id, name, tuple(aliases), tuple(extra.items()), tuple(dict.fromkeys(fold(n) for n in names)))


@dataclass(frozen=True, slots=True)
class Narrowing:
    reason: Reason
    argument: str
    ask_user: str
    candidates: list[Item]
    scoped_by: dict[str, Any]
    total_candidates: int

    def reply(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "ask_user": self.ask_user,
            "candidates": [c.candidate() for c in self.candidates],
            "scoped_by": dict(self.scoped_by),
            "argument": self.argument,
        }


def _display(name: str) -> str:
    shown = escape_unsafe(name)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def listing(items: Sequence[Item], total: int) -> str:
    names = ", ".join(_display(i.name) for i in items[:10])
    more = total - min(len(items), 10)
    return f"{names}, and {more} more" if more > 0 else names


def narrowing(
    reason: Reason,
    argument: str,
    noun: str,
    items: Sequence[Item],
    scoped_by: dict[str, Any],
    value: Any = None,
    *,
    question: str | None = None,
    total: int | None = None,
) -> Narrowing:
    """`total` is the size of the scope when `items` holds only the first (closest) part of it."""
    capped = list(items[:MAX_CANDIDATES])
    count = len(items) if total is None else total
    where = ""
    if scoped_by:
        where = " in " + ", ".join(f"{k} {_display(str(v))}" for k, v in scoped_by.items())
    available = f" Available: {listing(capped, count)}." if items else f" There are no {noun}s{where}."
    if question is not None:
        question = f"{question}{available}"
    elif reason == "missing_required":
        question = f"Which {noun}{where}?{available}"
    elif reason == "ambiguous":
        question = f"{_display(str(value))!s} matches {count} {noun}s{where}. Which one?{available}"
    else:
        question = f"No {noun} matches {_display(str(value))}{where}. Which {noun}?{available}"
    return Narrowing(reason, argument, question, capped, scoped_by, count)


class _Ranked:
    """Heap entry: a higher score ranks higher; on a tie the smaller name does."""

    __slots__ = ("item", "score")

    def __init__(self, score: float, item: Item) -> None:
        self.score = score
        self.item = item

    def __lt__(self, other: _Ranked) -> bool:
        # The heap keeps its worst entry on top: lower score, or the later name on a tie.
        if self.score != other.score:
            return self.score < other.score
        return self.item.name > other.item.name


def closest_first(value: Any, items: Sequence[Item], limit: int = MAX_CANDIDATES) -> list[Item]:
    """The `limit` items closest to `value`, closest first."""
    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(fold(str(value).strip())[:CLOSENESS_CHARS])
    heap: list[_Ranked] = []
    for item in items:
        cutoff = heap[0].score if len(heap) >= limit else 0.0
        best = -1.0
        for key in item.keys:
            matcher.set_seq1(key[:CLOSENESS_CHARS])
            # The cheap upper bounds skip most forms that cannot beat the current worst.
            if matcher.real_quick_ratio() < cutoff or matcher.quick_ratio() < cutoff:
                continue
            best = max(best, matcher.ratio())
        if best < 0:
            continue
        entry = _Ranked(best, item)
        if len(heap) < limit:
            heapq.heappush(heap, entry)
        elif heap[0] < entry:
            heapq.heapreplace(heap, entry)
    return [entry.item for entry in sorted(heap, reverse=True)]


def as_id(value: Any) -> int | None:
    """An integer id from an int or an ASCII digit string, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.isascii() and text.isdigit():
            return int(text)
    return None


def is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


MatchKind = Literal["id", "exact", "substring", "none"]


def match(value: Any, items: Sequence[Item]) -> tuple[MatchKind, list[Item]]:
    """The items `value` selects and how: by id, exact name, substring, or none."""
    ident = as_id(value)
    if ident is not None:
        return "id", [item for item in items if item.id == ident][:1]
    key = fold(str(value).strip())
    exact = [i for i in items if key in i.keys]
    if exact:
        return "exact", exact
    partial = [i for i in items if any(key in k for k in i.keys)]
    return ("substring", partial) if partial else ("none", [])


def resolve(
    value: Any,
    items: Sequence[Item],
    *,
    argument: str,
    noun: str,
    scoped_by: dict[str, Any] | None = None,
) -> Item | Narrowing:
    """Run the seed-003 decision tree over `items` (already scoped by what is pinned)."""
    scope = dict(scoped_by or {})
    if is_missing(value):
        return narrowing("missing_required", argument, noun, items, scope)
    _kind, found = match(value, items)
    if len(found) == 1:
        return found[0]
    if found:
        return narrowing("ambiguous", argument, noun, found, scope, value)
    return not_found(argument, noun, items, scope, value)


def not_found(argument: str, noun: str, items: Sequence[Item], scoped_by: dict[str, Any], value: Any) -> Narrowing:
    """A not_found reply over everything in scope, the closest candidates first."""
    return narrowing("not_found", argument, noun, closest_first(value, items), scoped_by, value, total=len(items))
