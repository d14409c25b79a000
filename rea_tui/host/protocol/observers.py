"""The one observer mechanism of the host: a publisher's listeners, called in order."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

EventT = TypeVar("EventT")
Listener = Callable[[EventT], None]
Unsubscribe = Callable[[], None]


class Listeners(Generic[EventT]):
    """Who wants to hear of each `EventT`; `subscribe` returns the way to stop."""

    def __init__(self) -> None:
        self._listeners: list[Callable[[EventT], None]] = []

    def subscribe(self, listener: Callable[[EventT], None]) -> Unsubscribe:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def emit(self, event: EventT) -> None:
        # A copy: a listener may unsubscribe while it is called.
        for listener in list(self._listeners):
            listener(event)

    def __len__(self) -> int:
        return len(self._listeners)


def hears_nothing(_listener: Callable[[Any], None]) -> Unsubscribe:
    """The `subscribe` of a publisher that never emits: a lean one-shot connection reads each list once,
    so it follows no list_changed (the catalogs subscribe to mark themselves stale, as on a full one)."""
    return lambda: None
