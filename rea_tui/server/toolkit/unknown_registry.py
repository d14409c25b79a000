"""The residual-unknown registry: open questions and their evidence-qualified resolutions."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

UnknownStatus = Literal["open", "resolved", "superseded"]


@dataclass(slots=True)
class Unknown:
    number: int
    question: str
    context: str | None
    evidence: list[str]
    target: str | None
    status: UnknownStatus = "open"
    resolution: str | None = None
    resolution_evidence: str | None = None
    supersedes: str | None = None
    superseded_by: str | None = None
    created: float = field(default_factory=time.time)

    @property
    def id(self) -> str:
        return f"U-{self.number:04d}"

    @property
    def is_head(self) -> bool:
        """A head is the latest, still unresolved form of a question."""
        return self.status == "open"

    def describe(self) -> dict[str, Any]:
        return {
            "unknown_id": self.id,
            "question": self.question,
            "context": self.context,
            "status": self.status,
            "evidence": list(self.evidence),
            "resolution": self.resolution,
            "resolution_evidence": self.resolution_evidence,
            "supersedes": self.supersedes,
            "superseded_by": self.superseded_by,
            "target": self.target,
        }


class UnknownRegistry:
    def __init__(self, numbers: Iterator[int] | None = None) -> None:
        self._items: dict[str, Unknown] = {}
        self._numbers = numbers if numbers is not None else itertools.count(1)
        """Shared by every session of a process, so no ID is handed out twice by it."""

    def record(
        self,
        question: str,
        context: str | None,
        evidence: list[str],
        target: str | None,
        supersedes: Unknown | None,
    ) -> Unknown:
        item = Unknown(next(self._numbers), question, context, evidence, target)
        if supersedes is not None:
            supersedes.status = "superseded"
            supersedes.superseded_by = item.id
            item.supersedes = supersedes.id
        self._items[item.id] = item
        return item

    def all(self) -> list[Unknown]:
        return list(self._items.values())

    def heads(self) -> list[Unknown]:
        return [u for u in self._items.values() if u.is_head]

    def get(self, unknown_id: str) -> Unknown | None:
        return self._items.get(unknown_id)

    def by_number(self, number: int) -> Unknown | None:
        return self._items.get(f"U-{number:04d}")

    def clear(self) -> None:
        # The counter keeps going: an ID is never handed out twice by one process.
        self._items.clear()
