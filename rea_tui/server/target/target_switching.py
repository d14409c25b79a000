"""Changing one session's active target: `open_binary` and `close_binary`.

Switches of a session are serialised by its lock. Parsing a target and
building what completion reads (`TargetAnalysis.prepare`) happen in a worker
thread; the session then changes in one step and the change is announced
(prompt descriptions name the active target, so clients refresh their prompt
list). The startup target, shared by every session, is opened by `workspaces`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import anyio
import anyio.to_thread

from rea_tui.server.protocol.session_state import Session
from rea_tui.server.target.memory_release import release_freed_memory
from rea_tui.server.target.target import Target, open_path

if TYPE_CHECKING:
    from rea_tui.server.analysis.target_analysis import TargetAnalysis


class AnalysisCache(Protocol):
    """Where a switch gets a file's analysis (workspaces.AnalysisCache: parsed once, shared by sessions)."""

    def analysed(self, path: str, opener: Callable[[], Target]) -> TargetAnalysis: ...


Announce = Callable[[], Awaitable[None]]


class TargetSwitcher:
    def __init__(self, session: Session, analyses: AnalysisCache) -> None:
        self.session = session
        self.analyses = analyses
        self.lock = anyio.Lock()
        self._announce: Announce | None = None

    def announce_with(self, announce: Announce) -> None:
        self._announce = announce

    async def _announced(self) -> None:
        if self._announce is not None:
            await self._announce()

    async def open(self, path: str) -> tuple[Target, Replaced]:
        """Open `path` and make it active; the old target stays active until then. Raises TargetError."""
        async with self.lock:
            analysis = await anyio.to_thread.run_sync(self.analyses.analysed, path, lambda: open_path(path))
            replaced = Replaced.of(self.session.activate(analysis, own=True))
        await self._released(replaced)
        await self._announced()
        return analysis.target, replaced

    async def close(self) -> Replaced:
        async with self.lock:
            replaced = Replaced.of(self.session.close())
        await self._released(replaced)
        await self._announced()
        return replaced

    @staticmethod
    async def _released(replaced: Replaced) -> None:
        """Hand the memory of a replaced target back to the system, off the event loop (nothing here holds
        the target any more, so what only it used is free by now)."""
        if replaced.any:
            await anyio.to_thread.run_sync(release_freed_memory)


@dataclass(frozen=True, slots=True)
class Replaced:
    """The target a switch replaced, by path only (holding it would keep its memory)."""

    any: bool
    path: str | None

    @classmethod
    def of(cls, target: Target | None) -> Replaced:
        return cls(target is not None, target.path if target is not None else None)
