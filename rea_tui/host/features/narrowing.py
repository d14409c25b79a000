"""Progressive-narrowing replies (the resolver contract of seed 003).

A name-taking tool that cannot resolve a name answers with
`{reason, ask_user, candidates, scoped_by}` instead of failing. The host shows
the question with the candidates; choosing one re-runs the same call with the
candidate pinned to the argument the question concerns.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rea_tui.host.protocol.models import ContentBlock, TextBlock, Tool
from rea_tui.host.trust.schema_values import property_schema, schema_types

REASONS = ("ambiguous", "not_found", "missing_required")
MAX_CANDIDATES = 25


@dataclass(frozen=True)
class NarrowingCandidate:
    id: int | str | None
    name: str

    @property
    def label(self) -> str:
        return self.name if self.id is None else f"{self.name} (id {self.id})"


@dataclass(frozen=True)
class NarrowingQuestion:
    reason: str
    ask_user: str
    candidates: tuple[NarrowingCandidate, ...]
    scoped_by: dict[str, Any] = field(default_factory=dict)
    # The tool argument the reply concerns, when the server says so (an REA extension).
    argument: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "reason": self.reason,
            "ask_user": self.ask_user,
            "candidates": [{"id": c.id, "name": c.name} for c in self.candidates],
            "scoped_by": self.scoped_by,
        }
        if self.argument:
            data["argument"] = self.argument
        return data


def _as_question(data: Any) -> NarrowingQuestion | None:
    if not isinstance(data, dict) or data.get("reason") not in REASONS:
        return None
    ask = data.get("ask_user")
    raw_candidates = data.get("candidates")
    if not isinstance(ask, str) or not isinstance(raw_candidates, list):
        return None
    candidates: list[NarrowingCandidate] = []
    for item in raw_candidates[:MAX_CANDIDATES]:
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            ident = item.get("id")
            candidates.append(NarrowingCandidate(id=ident if isinstance(ident, int | str) else None, name=item["name"]))
        elif isinstance(item, str):
            candidates.append(NarrowingCandidate(id=None, name=item))
    scoped = data.get("scoped_by")
    argument = data.get("argument")
    return NarrowingQuestion(
        reason=data["reason"],
        ask_user=ask,
        candidates=tuple(candidates),
        scoped_by=scoped if isinstance(scoped, dict) else {},
        argument=argument if isinstance(argument, str) else None,
    )


def detect_narrowing(structured: Any, content: Sequence[ContentBlock]) -> NarrowingQuestion | None:
    """The question in a tool result, from `structuredContent` or else a JSON text block."""
    question = _as_question(structured)
    if question is not None:
        return question
    for block in content:
        if isinstance(block, TextBlock) and block.text.lstrip().startswith("{"):
            try:
                question = _as_question(json.loads(block.text))
            except ValueError:
                continue
            if question is not None:
                return question
    return None


def concerned_argument(question: NarrowingQuestion, tool: Tool | None, arguments: Mapping[str, Any]) -> str | None:
    """Which argument a choice should be pinned to.

    The server's own `argument` field wins. Otherwise: for missing_required,
    the first required argument not given; for ambiguous / not_found, a given
    argument whose value is named in the question, else the first schema
    property named in the question, else the first property not yet given.
    """
    if question.argument:
        return question.argument
    schema = tool.input_schema if tool else {}
    properties: list[str] = [str(p) for p in schema.get("properties", {}) or {}]
    required = [r for r in schema.get("required", []) or [] if isinstance(r, str)]
    asked = question.ask_user.lower()

    def named(name: str) -> bool:
        words = {name.lower(), name.lower().replace("_", " ")}
        return any(re.search(rf"\b{re.escape(w)}\b", asked) for w in words)

    if question.reason == "missing_required":
        missing = [r for r in required if r not in arguments]
        mentioned = [r for r in missing if named(r)]
        if mentioned or missing:
            return (mentioned or missing)[0]
    if question.reason in ("ambiguous", "not_found"):
        for given, value in arguments.items():
            named_in_question = isinstance(value, str) and value and value.lower() in asked
            if given not in question.scoped_by and named_in_question:
                return str(given)
    for name in properties:
        if name not in arguments and named(name):
            return name
    for name in properties:
        if named(name):
            return name
    unset = [p for p in properties if p not in arguments]
    return unset[0] if unset else None


def pinned_value(question: NarrowingQuestion, candidate: NarrowingCandidate, tool: Tool | None, argument: str) -> Any:
    """The value to send: the candidate's name, or its id when names repeat or the schema wants ids."""
    types = schema_types(property_schema(tool.input_schema, argument)) if tool else []
    same_name = [c for c in question.candidates if c.name.casefold() == candidate.name.casefold()]
    if (len(same_name) > 1 or types == ["integer"]) and candidate.id is not None:
        if isinstance(candidate.id, int) and ("integer" in types or not types):
            return candidate.id
        # A string of digits is an id under the resolver contract.
        return str(candidate.id)
    return candidate.name


def pin(
    arguments: Mapping[str, Any],
    question: NarrowingQuestion,
    candidate: NarrowingCandidate,
    tool: Tool | None,
    argument: str,
) -> dict[str, Any]:
    """The same call's arguments with the candidate pinned."""
    updated = dict(arguments)
    updated[argument] = pinned_value(question, candidate, tool, argument)
    return updated


def find_candidate(question: NarrowingQuestion, pick: str) -> NarrowingCandidate | None:
    """The candidate `pick` names: by id first, then by name (case-insensitive)."""
    for candidate in question.candidates:
        if candidate.id is not None and str(candidate.id) == pick:
            return candidate
    matches = [c for c in question.candidates if c.name.casefold() == pick.casefold()]
    return matches[0] if len(matches) == 1 else None
