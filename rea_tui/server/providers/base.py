"""The provider interface and the inventory records every provider speaks.

A provider answers `list_documents` and paged `list_procedures` with plain
JSON-like data, as an out-of-process analysis backend would. Consumers
(completion, tools) validate that data before trusting it, so a provider that
returns malformed output is caught at the boundary.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Literal

ProviderState = Literal["ready", "cold", "failed"]


class ProviderError(Exception):
    """The provider failed while answering."""


class ProviderNotReady(ProviderError):
    """The provider has not analysed the target; reading it would start analysis."""


class UnsupportedOperation(ProviderError):
    """The provider does not implement this operation."""


class MalformedOutput(ProviderError):
    """The provider answered with data that does not match the inventory schema."""


@dataclass(frozen=True, slots=True)
class ProcedureRecord:
    """One function address and every name the document gives it."""

    address: int
    names: tuple[str, ...]
    size: int | None = None


@dataclass(slots=True)
class DocumentInventory:
    """The procedures of one document, sorted by address, plus per-document extras."""

    records: list[ProcedureRecord]
    error: str | None = None
    """Why the inventory is unavailable (the document could not be parsed)."""
    extra: dict[str, Any] = field(default_factory=dict)


class Provider(ABC):
    """A source of documents and procedure inventories for the active target."""

    name: str

    @property
    @abstractmethod
    def state(self) -> ProviderState: ...

    @abstractmethod
    def list_documents(self) -> Any:
        """`[{"name": str, "format": str}, ...]` for a ready provider."""

    @abstractmethod
    def list_procedures(self, document: str, offset: int, limit: int) -> Any:
        """A page: `{"procedures": [{"address": "0x..", "names": [..]}], "next_offset": int | None}`."""

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "state": self.state}


class InventoryProvider(Provider):
    """A ready provider that serves pages from in-memory inventories."""

    def __init__(self, name: str, documents: list[tuple[str, str]], inventories: dict[str, DocumentInventory]):
        self.name = name
        self._documents = documents
        self._inventories = inventories

    @property
    def state(self) -> ProviderState:
        return "ready"

    def inventory(self, document: str) -> DocumentInventory:
        inv = self._inventories.get(document)
        if inv is None:
            raise ProviderError(f"unknown document {document!r}")
        if inv.error is not None:
            raise ProviderError(inv.error)
        return inv

    def list_documents(self) -> Any:
        return [{"name": name, "format": fmt} for name, fmt in self._documents]

    def list_procedures(self, document: str, offset: int, limit: int) -> Any:
        records = self.inventory(document).records
        page = records[offset : offset + limit]
        end = offset + len(page)
        return {
            "procedures": [{"address": f"0x{r.address:x}", "names": list(r.names)} for r in page],
            "next_offset": end if end < len(records) else None,
            "total": len(records),
        }
