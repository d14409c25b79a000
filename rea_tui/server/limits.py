"""Numeric bounds of the completion and narrowing contract, in one place."""

from __future__ import annotations

from typing import Final

MAX_VALUE_CHARS: Final = 4096
"""Longest completion value offered, and longest request value accepted."""

MAX_COMPLETION_VALUES: Final = 100
"""The MCP limit on `completion.values`."""

DEFAULT_DISCOVERY_LIMIT: Final = 5000
"""Unique procedure addresses observed before completion stops paging."""

DEFAULT_PAGE_SIZE: Final = 500
"""Page size used when completion pages through `list_procedures`."""

MAX_CANDIDATES: Final = 25
"""Cap on the candidates of a narrowing reply (seed 003)."""

MAX_SYNTHETIC_PROCEDURES: Final = 100_000

MAX_LIST_PAGE: Final = 500
"""Largest page the `list_procedures` tool returns."""
