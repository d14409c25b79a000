"""Requests a server makes of the analyst: elicitation (form or URL) and sampling.

The connection turns the SDK's callbacks into these plain objects and hands
them to whichever handler the front end (TUI or CLI) installed. Without a
handler, elicitation is declined and sampling refused: nothing is answered on
the analyst's behalf.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

ElicitAction = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True)
class ElicitationRequest:
    server: str
    message: str
    mode: Literal["form", "url"]
    requested_schema: dict[str, Any] = field(default_factory=dict)
    url: str = ""
    elicitation_id: str | None = None


@dataclass(frozen=True)
class ElicitationAnswer:
    action: ElicitAction
    content: dict[str, Any] | None = None


@dataclass(frozen=True)
class SamplingMessage:
    role: str
    text: str


@dataclass(frozen=True)
class SamplingRequest:
    server: str
    messages: tuple[SamplingMessage, ...]
    system_prompt: str | None
    max_tokens: int


@dataclass(frozen=True)
class SamplingAnswer:
    """The analyst's reply text, or None to decline."""

    text: str | None
    model: str = "human (rea-tui)"


# The error a server gets when the analyst (or the lack of a handler) declines its sampling request.
SAMPLING_DECLINED = "The analyst declined the sampling request"

ElicitationHandler = Callable[[ElicitationRequest], Awaitable[ElicitationAnswer]]
SamplingHandler = Callable[[SamplingRequest], Awaitable[SamplingAnswer]]
