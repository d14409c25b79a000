"""Numeric bounds of the completion and narrowing contract, in one place."""

from __future__ import annotations

from typing import Final

MAX_VALUE_CHARS: Final = 4096
"""Longest completion value offered, and longest request value accepted."""

MAX_COMPLETION_VALUES: Final = 100
"""The MCP limit on `completion.values`."""

DEFAULT_DISCOVERY_LIMIT: Final = 1_000_000
"""Unique procedure addresses discovered per document before discovery stops.

Seed 001 bounded discovery at 5,000; seed 002 derives completion from the
complete inventory, so the bound is only a safety limit, far above real
applications (libpython has about 5,400 procedures, large apps a few 100,000).
`--discovery-limit 5000` reproduces the old behaviour.
"""

DEFAULT_DISCOVERY_TIME_BUDGET: Final = 10.0
"""Seconds one document's discovery may take before it stops (checked after each page)."""

DEFAULT_PAGE_SIZE: Final = 500
"""Page size used when discovery pages through `list_procedures`."""

MAX_CANDIDATES: Final = 25
"""Cap on the candidates of a narrowing reply (seed 003)."""

MAX_SYNTHETIC_PROCEDURES: Final = 100_000

MAX_LIST_PAGE: Final = 500
"""Largest page the listing tools return."""

DEFAULT_LIST_PAGE: Final = 100

TARGET_READY_WAIT_SECONDS: Final = 60.0
"""How long a tool call made while the startup target opens waits for it before saying so."""

OPENING_READ_WAIT_SECONDS: Final = 5.0
"""How long `rea://session` and `prompts/get` wait for a target that is opening before answering that it is."""
