"""Following `nextCursor` through a paginated list, the one rule every client of the host applies."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

# One request of a list method: its params (None, or the cursor) to its result.
PageRequest = Callable[[str, Mapping[str, Any] | None], Awaitable[dict[str, Any]]]

# Pages followed at most, so a server that always hands out a new cursor cannot keep a list loading.
PAGE_LIMIT = 100


def next_cursor(result: Mapping[str, Any], current: str | None) -> str | None:
    """The cursor of the next page; None at the last (no cursor, an empty one, or the same one again)."""
    cursor = result.get("nextCursor")
    if not isinstance(cursor, str) or not cursor or cursor == current:
        return None
    return cursor


async def all_pages(request: PageRequest, method: str, key: str, page_limit: int = PAGE_LIMIT) -> list[Any]:
    """Every item of a paginated list method, asking `request` for each page; a page without a list adds none."""
    items: list[Any] = []
    cursor: str | None = None
    for _ in range(page_limit):
        result = await request(method, {"cursor": cursor} if cursor else None)
        page = result.get(key)
        if isinstance(page, list):
            items.extend(page)
        cursor = next_cursor(result, cursor)
        if cursor is None:
            break
    return items
