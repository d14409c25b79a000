"""The server's session: the active target and everything retained about it.

One session per server process. Opening or switching a target replaces the
documents and providers immediately (completion has no cache of its own, so
the very next request sees the change) and drops the resolver's inventory
snapshots. Closing the target also clears the evidence ledger, the
residual-unknown registry and the artifact manifests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rea_tui.server.artifact_store import ArtifactStore
from rea_tui.server.evidence_ledger import EvidenceLedger
from rea_tui.server.limits import DEFAULT_DISCOVERY_LIMIT, DEFAULT_PAGE_SIZE
from rea_tui.server.target import Target
from rea_tui.server.unknown_registry import UnknownRegistry


@dataclass(frozen=True, slots=True)
class ServerOptions:
    discovery_limit: int = DEFAULT_DISCOVERY_LIMIT
    page_size: int = DEFAULT_PAGE_SIZE
    capture_timeout_max: int = 30
    capture_output_bytes: int = 64 * 1024


class Session:
    def __init__(self, options: ServerOptions) -> None:
        self.options = options
        self.target: Target | None = None
        self.ledger = EvidenceLedger()
        self.unknowns = UnknownRegistry()
        self.artifacts = ArtifactStore()
        self.generation = 0
        """Bumped on every open/switch/close; keys every per-target memo."""
        self._memo: dict[Any, Any] = {}

    # -- lifecycle -----------------------------------------------------------------

    def activate(self, target: Target) -> Target | None:
        """Make `target` active; returns the target it replaced."""
        previous = self.target
        self.target = target
        self.generation += 1
        self._memo.clear()
        return previous

    def close(self) -> Target | None:
        previous = self.target
        self.target = None
        self.generation += 1
        self._memo.clear()
        self.ledger.clear()
        self.unknowns.clear()
        self.artifacts.clear()
        return previous

    # -- per-target memo -------------------------------------------------------------

    def memo_get(self, key: Any) -> Any:
        return self._memo.get((self.generation, key))

    def memo_put(self, key: Any, value: Any) -> None:
        self._memo[(self.generation, key)] = value

    @property
    def target_path(self) -> str | None:
        return self.target.path if self.target else None

    def describe(self) -> dict[str, Any]:
        if self.target is None:
            return {
                "target": None,
                "kind": None,
                "label": None,
                "documents": [],
                "providers": [{"name": "auto", "state": "cold"}],
                "main_executable": None,
                "evidence_count": len(self.ledger),
                "open_unknowns": len(self.unknowns.heads()),
            }
        info = self.target.describe()
        info["evidence_count"] = len(self.ledger)
        info["open_unknowns"] = len(self.unknowns.heads())
        return info
