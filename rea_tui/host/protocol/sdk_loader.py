"""Loading the MCP SDK (about half a second of imports), and what runs once it is loaded.

A connection loads it in a thread while its server starts; code on the event
loop awaits `sdk_ready` before it imports from the SDK. The app settles
its heap right after (see `ui.runtime.settle_heap`): the SDK's objects live
as long as the process, and the collections while the first catalogs come in
would otherwise scan them all. The hooks run in the loading thread, because
the connection that loads the SDK goes on at once (its server may answer
`initialize` first).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

_lock = threading.Lock()
_loaded = False
_hooks: list[Callable[[], None]] = []


def after_sdk_load(hook: Callable[[], None]) -> None:
    """Call `hook` once the SDK is loaded, in the thread that loaded it (at once if it is loaded already)."""
    with _lock:
        if not _loaded:
            _hooks.append(hook)
            return
    hook()


def sdk_loaded() -> bool:
    """Whether the SDK is imported in full (its modules can be imported at no cost and without deadlock)."""
    return _loaded


def load_sdk() -> None:
    """Import the MCP SDK; the first call to finish the import runs the hooks."""
    global _loaded
    import mcp
    import mcp.client.session
    import mcp.shared.subscriptions  # noqa: F401

    with _lock:
        if _loaded:
            return
        _loaded = True
        hooks = list(_hooks)
        _hooks.clear()
    for hook in hooks:
        hook()


async def sdk_ready() -> None:
    """The SDK loaded, before code on the event loop imports any of it: an import there while a loading
    thread is half way through the package deadlocks the two (Python's import locks raise
    `_DeadlockError` in one of them, and the connection that was loading fails)."""
    if not _loaded:
        await asyncio.to_thread(load_sdk)
