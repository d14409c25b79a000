"""Changing the active target: the startup open in the background, `open_binary`, `close_binary`.

Switches are serialised by one lock. Parsing a target and building what
completion reads (`TargetAnalysis.prepare`) happen in a worker thread; the
session then changes in one step and the change is announced (prompt
descriptions name the active target, so clients refresh their prompt list).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import anyio
import anyio.to_thread

from rea_tui.server.capture_policy import CapturePolicy
from rea_tui.server.session_state import Session
from rea_tui.server.target import Target, open_path
from rea_tui.server.target_analysis import TargetAnalysis
from rea_tui.server.target_paths import TargetError

logger = logging.getLogger("rea_tui.server")

Announce = Callable[[], Awaitable[None]]
Hold = Callable[[], Awaitable[object]]
Opener = Callable[[], Target]


class TargetSwitcher:
    def __init__(self, session: Session, policy: CapturePolicy) -> None:
        self.session = session
        self.policy = policy
        self.lock = anyio.Lock()
        self._announce: Announce | None = None

    def announce_with(self, announce: Announce) -> None:
        self._announce = announce

    async def _announced(self) -> None:
        if self._announce is not None:
            await self._announce()

    def _analysed(self, opener: Opener) -> TargetAnalysis:
        analysis = TargetAnalysis(opener(), self.session.options.discovery())
        analysis.prepare()
        return analysis

    def begin_startup(self, label: str) -> None:
        """Say the startup target is opening, from now on (call before any request is served)."""
        self.session.begin_opening(label)

    async def open_startup(self, opener: Opener, label: str) -> None:
        """Open the target the server was started with at once; completion stays cold until it is ready."""
        self.begin_startup(label)
        await self.finish_startup(opener)

    async def finish_startup(self, opener: Opener, hold: Hold | None = None) -> None:
        """Open the startup target `begin_startup` announced, after `hold` returns (if given)."""
        async with self.lock:
            if hold is not None:
                await hold()
            try:
                analysis = await anyio.to_thread.run_sync(self._analysed, opener)
            except TargetError as exc:
                logger.warning("cannot open target: %s", exc)
                self.session.fail_opening(str(exc))
            except Exception as exc:  # a parser crash must not take the server down
                logger.exception("opening the target failed")
                self.session.fail_opening(f"{type(exc).__name__}: {exc}")
            else:
                self.policy.record_startup(analysis.target)
                self.session.activate(analysis)
        await self._announced()

    async def open(self, path: str) -> tuple[Target, Target | None]:
        """Open `path` and make it active; the old target stays active until then. Raises TargetError."""
        async with self.lock:
            analysis = await anyio.to_thread.run_sync(self._analysed, lambda: open_path(path))
            previous = self.session.activate(analysis)
        await self._announced()
        return analysis.target, previous

    async def close(self) -> Target | None:
        async with self.lock:
            previous = self.session.close()
        await self._announced()
        return previous
