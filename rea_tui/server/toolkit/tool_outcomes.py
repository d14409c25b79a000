"""What a tool handler returns, and what it may use of the request beyond its arguments.

Every successful result carries its evidence inline and is retained in the
session ledger under an evidence ID. A narrowing reply is a normal result
(not an error) whose structured content is the reply object. Failures that
are the tool's own business (bad path, cold provider, a capture that cannot
be confirmed...) are `isError` results with a clear text, never protocol
errors.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types

from rea_tui.server.completion.name_resolver import Narrowing


@dataclass(slots=True)
class Evidence:
    """A successful result, retained in the ledger."""

    payload: dict[str, Any]


@dataclass(slots=True)
class Plain:
    """A successful result that is not evidence (close_binary, a declined capture)."""

    payload: dict[str, Any]


@dataclass(slots=True)
class Failure:
    message: str
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class NeedsInput:
    """2026-07-28 multi-round-trip: ask the client, then the call is retried."""

    result: types.InputRequiredResult


Outcome = Evidence | Plain | Failure | Narrowing | NeedsInput

ElicitFn = Callable[[str, dict[str, Any]], Awaitable[types.ElicitResult | None]]
ProgressFn = Callable[[float, float, str], Awaitable[None]]


@dataclass(slots=True)
class CallContext:
    """What a handler may use of the request beyond its arguments."""

    modern: bool
    """The request arrived on a 2026-07-28 connection (no server-to-client requests)."""
    elicit: ElicitFn
    """Legacy form elicitation; answers None when the request failed."""
    progress: ProgressFn
    input_responses: dict[str, Any] | None
    request_state: str | None
    can_elicit: bool
    """The client declared form elicitation."""


async def _no_elicit(message: str, schema: dict[str, Any]) -> types.ElicitResult | None:
    return None


async def _no_progress(done: float, total: float, message: str) -> None:
    return None


def internal_context() -> CallContext:
    """For calls the server makes itself (reading a procedure resource): nobody to ask."""
    return CallContext(
        modern=False,
        elicit=_no_elicit,
        progress=_no_progress,
        input_responses=None,
        request_state=None,
        can_elicit=False,
    )
