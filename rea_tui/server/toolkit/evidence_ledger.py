"""The evidence ledger: every tool result, with the ID it was retained under."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rea_tui.server.toolkit.evidence_schemas import is_artifact_inventory, is_process_capture_v4


@dataclass(slots=True)
class EvidenceEntry:
    number: int
    operation: str
    arguments: dict[str, Any]
    target: str | None
    result: dict[str, Any]
    created: float = field(default_factory=time.time)
    is_capture: bool = False
    is_inventory: bool = False

    @property
    def id(self) -> str:
        return evidence_id(self.number)

    def summary(self) -> dict[str, Any]:
        return {"evidence_id": self.id, "operation": self.operation, "target": self.target}


def evidence_id(number: int) -> str:
    return f"E-{number:04d}"


class EvidenceLedger:
    """Session-scoped; cleared when the target is closed (its IDs are not reused)."""

    def __init__(self, numbers: Iterator[int] | None = None) -> None:
        self._entries: dict[str, EvidenceEntry] = {}
        self._numbers = numbers if numbers is not None else itertools.count(1)
        """Shared by every session of a process, so no ID is handed out twice by it."""

    def __len__(self) -> int:
        return len(self._entries)

    def retain(self, operation: str, arguments: dict[str, Any], target: str | None, result: dict[str, Any]) -> str:
        entry = EvidenceEntry(next(self._numbers), operation, dict(arguments), target, result)
        # Validated once at retention: capture and artifact completion trust only these flags.
        entry.is_capture = operation == "run_process_capture" and is_process_capture_v4(result)
        entry.is_inventory = operation == "inventory_artifact" and is_artifact_inventory(result)
        self._entries[entry.id] = entry
        return entry.id

    def get(self, evidence: str) -> EvidenceEntry | None:
        return self._entries.get(evidence.strip().upper())

    def entries(self) -> list[EvidenceEntry]:
        return list(self._entries.values())

    def ids(self) -> list[str]:
        return list(self._entries)

    def capture_ids(self) -> list[str]:
        return [e.id for e in self._entries.values() if e.is_capture]

    def clear(self) -> None:
        # The counter keeps going: an ID is never handed out twice by one process.
        self._entries.clear()
