"""The server's session: the active target, its state, and everything retained about it.

One session per connection over stdio, one per MCP session over HTTP (see
`workspaces`). The target moves through four states: `none` (nothing open),
`opening` (the startup target is being read in the background; document and
procedure completion and tool calls wait for it, bounded), `ready`, and
`failed` (the startup target could not be opened).
Switching with `open_binary` keeps the old target active until the new one is
ready, then replaces it in one step, so the very next request sees the change.
Closing the target also clears the evidence ledger, the residual-unknown
registry and the artifact manifests; the identifiers they minted are never
handed out again by this process.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio

from rea_tui.server.analysis.target_analysis import DiscoveryOptions, TargetAnalysis
from rea_tui.server.limits import (
    DEFAULT_DISCOVERY_LIMIT,
    DEFAULT_DISCOVERY_TIME_BUDGET,
    DEFAULT_PAGE_SIZE,
    TARGET_READY_WAIT_SECONDS,
)
from rea_tui.server.target.artifact_store import ArtifactStore
from rea_tui.server.target.target import Target
from rea_tui.server.toolkit.evidence_ledger import EvidenceLedger
from rea_tui.server.toolkit.unknown_registry import UnknownRegistry

TargetState = Literal["none", "opening", "ready", "failed"]

CAPTURE_TIMEOUT_MAX_SECONDS = 30
CAPTURE_OUTPUT_BYTES = 64 * 1024
"""Bytes kept per output stream of a process capture."""


@dataclass(frozen=True, slots=True)
class ServerOptions:
    discovery_limit: int = DEFAULT_DISCOVERY_LIMIT
    discovery_time_budget: float = DEFAULT_DISCOVERY_TIME_BUDGET
    page_size: int = DEFAULT_PAGE_SIZE
    capture_timeout_max: int = CAPTURE_TIMEOUT_MAX_SECONDS
    capture_output_bytes: int = CAPTURE_OUTPUT_BYTES
    target_wait_seconds: float = TARGET_READY_WAIT_SECONDS

    def discovery(self) -> DiscoveryOptions:
        return DiscoveryOptions(self.discovery_limit, self.page_size, self.discovery_time_budget)


@dataclass(frozen=True, slots=True)
class IdNumbers:
    """The counters evidence, unknown and manifest IDs are numbered from, one set per process: sessions
    share them, so an ID is never handed out twice by one server, across sessions and closes."""

    evidence: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    unknowns: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    manifests: Iterator[int] = field(default_factory=lambda: itertools.count(1))


class Session:
    def __init__(self, options: ServerOptions, numbers: IdNumbers | None = None) -> None:
        numbers = numbers or IdNumbers()
        self.options = options
        self.state: TargetState = "none"
        self.target: Target | None = None
        self.analysis: TargetAnalysis | None = None
        self.opening_label: str | None = None
        self.open_error: str | None = None
        self.ledger = EvidenceLedger(numbers.evidence)
        self.unknowns = UnknownRegistry(numbers.unknowns)
        self.artifacts = ArtifactStore(numbers.manifests)
        self.generation = 0
        """Bumped on every switch or close."""
        self.follows_startup = False
        """True while the session waits for the startup target and has opened or closed nothing itself."""
        self._settled: anyio.Event | None = None

    # -- lifecycle -----------------------------------------------------------------

    def begin_opening(self, label: str) -> None:
        """The startup target starts opening in the background (call from the event loop)."""
        self.state = "opening"
        self.follows_startup = True
        self.opening_label = label
        self.open_error = None
        self._settled = anyio.Event()

    def fail_opening(self, message: str) -> None:
        self.state = "failed" if self.target is None else "ready"
        self.open_error = message
        self._settle()

    def activate(self, analysis: TargetAnalysis, *, own: bool = False) -> Target | None:
        """Make the analysed target active (`own`: one this session opened itself, not the startup
        target); returns the target it replaced."""
        previous = self.target
        self.follows_startup = self.follows_startup and not own
        self.target = analysis.target
        self.analysis = analysis
        self.state = "ready"
        self.opening_label = None
        self.open_error = None
        self.generation += 1
        self._settle()
        return previous

    def close(self) -> Target | None:
        previous = self.target
        self.follows_startup = False
        self.target = None
        self.analysis = None
        self.state = "none"
        self.opening_label = None
        self.generation += 1
        self.ledger.clear()
        self.unknowns.clear()
        self.artifacts.clear()
        self._settle()
        return previous

    def _settle(self) -> None:
        if self._settled is not None:
            self._settled.set()
            self._settled = None

    async def wait_until_settled(self, timeout: float) -> bool:
        """Wait (at most `timeout` s) while the startup target is opening; False if it still is."""
        event = self._settled
        if self.state != "opening" or event is None:
            return True
        with anyio.move_on_after(timeout):
            await event.wait()
        return self.state != "opening"

    @property
    def target_path(self) -> str | None:
        return self.target.path if self.target else None

    def describe(self) -> dict[str, Any]:
        counts = {"evidence_count": len(self.ledger), "open_unknowns": len(self.unknowns.heads())}
        if self.target is None:
            info: dict[str, Any] = {
                "state": self.state,
                "target": None,
                "kind": None,
                "label": self.opening_label,
                "documents": [],
                "providers": [{"name": "auto", "state": "cold"}],
                "main_executable": None,
            }
            if self.state == "opening":
                info["opening"] = self.opening_label
                info["note"] = (
                    f"the target {self.opening_label} is still opening; document and procedure completion "
                    "waits for it (at most the discovery time budget), tool calls wait too"
                )
            if self.open_error is not None:
                info["error"] = self.open_error
            return {**info, **counts}
        return {"state": self.state, **self.target.describe(), **counts}
