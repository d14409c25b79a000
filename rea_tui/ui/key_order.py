"""Keys and pastes handled in the order they were typed.

Textual hands a key to the focused widget, which takes printable keys at once; a key it does not take
bubbles up through every ancestor's queue, and its bindings (backspace, ctrl+u, tab, a screen's keys)
run only when it is back at the app. A key typed right behind one that bubbles reached the widget
first: a character typed after ctrl+u went in before the deletion and was deleted with it, and text
typed after tab went into the field being left.

So the app lets one key or paste go at a time: a mark posted to the same widget right behind it
bubbles the same way, and reaches the app once the key has been handled all the way up. The next key
goes then, to whatever has the focus by then. A key handled by a priority binding never leaves the
app and holds nothing.
"""

from __future__ import annotations

import asyncio
from collections import deque

from textual import events
from textual.message import Message
from textual.message_pump import MessagePump

# The longest the next key waits for the mark, should the mark be lost (swallowed by a widget, or in the
# queue of one removed before its turn): the keys behind then go on, and the late mark is ignored.
ROUND_TRIP_LIMIT = 0.5

# What goes in order: what the terminal types into the focused widget.
OrderedInput = events.Key | events.Paste


class KeyHandled(Message):
    """The key or paste numbered `number` has been handled up to the app (see the module's docstring)."""

    def __init__(self, number: int) -> None:
        super().__init__()
        self.number = number


class KeyOrder:
    """The app's gate for keys and pastes: one on its way at a time, the rest waiting in order."""

    def __init__(self, app: MessagePump) -> None:
        self._app = app
        self._waiting: deque[OrderedInput] = deque()
        # The marks sent so far; while one is on its way (the last), when the keys behind it go on without it.
        self._count = 0
        self._deadline: asyncio.TimerHandle | None = None

    @property
    def idle(self) -> bool:
        """Nothing on its way and nothing waiting."""
        return self._deadline is None and not self._waiting

    def admit(self, event: OrderedInput) -> bool:
        """Whether `event` goes now; if not, it waits for the one on its way."""
        if self._deadline is None:
            return True
        self._waiting.append(event)  # all of them: what the analyst typed is never dropped
        return False

    def sent(self, event: OrderedInput, target: MessagePump) -> bool:
        """`event` has been given to `target` (or handled by the app itself): whether it is on its way."""
        if not event.is_forwarded:
            return False
        self._count += 1
        if not target.post_message(KeyHandled(self._count)):
            return False
        loop = asyncio.get_running_loop()
        self._deadline = loop.call_later(ROUND_TRIP_LIMIT, self._app.post_message, KeyHandled(self._count))
        return True

    def handled(self, number: int) -> bool:
        """The mark `number` is back: whether the waiting events may go (false for a stale mark)."""
        if self._deadline is None or number != self._count:
            return False
        self._deadline.cancel()
        self._deadline = None
        return True

    def next_waiting(self) -> OrderedInput | None:
        return self._waiting.popleft() if self._waiting else None
