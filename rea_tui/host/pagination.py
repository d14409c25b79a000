"""Following `nextCursor` through a paginated list, the one rule every client of the host applies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Pages followed at most, so a server that always hands out a new cursor cannot keep a list loading.
PAGE_LIMIT = 100


def next_cursor(result: Mapping[str, Any], current: str | None) -> str | None:
    """The cursor of the next page; None at the last (no cursor, an empty one, or the same one again)."""
    cursor = result.get("nextCursor")
    if not isinstance(cursor, str) or not cursor or cursor == current:
        return None
    return cursor
