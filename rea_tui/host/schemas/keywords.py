"""The JSON Schema keywords rea-tui evaluates differently from jsonschema's defaults.

Every keyword runs under a `Budget`: each evaluation checks the deadline (so a
schema that explodes combinatorially stops instead of spinning), `$ref` and
`$dynamicRef` count how deeply they nest (a schema that refers to itself
without end is stopped with a clear message, not a RecursionError), and a
`$ref` that points outside the document is noted as not checked instead of
being fetched. Regular expressions (`pattern`, the keys of
`patternProperties`, and the `additionalProperties` that depends on them) run
with the `regex` module under a time limit and release the GIL while they
match, so a catastrophic pattern can neither hang the check nor the UI.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from jsonschema.exceptions import ValidationError
from referencing.exceptions import NoSuchAnchor, PointerToNowhere, Unresolvable

# How many `$ref`s may be open inside one another at once. A legitimately recursive schema nests
# once per level of the value it checks; a schema whose refs loop without end reaches this at once.
MAX_REF_DEPTH = 64
# The longest a single regular expression may spend on one string (seconds). The regex module
# looks at the clock between steps, so on a busy machine it overshoots: the check's budget bounds it.
PATTERN_TIMEOUT = 0.25
# A check gives the GIL away this often (seconds of work), for this long, so the event loop's thread
# runs promptly even on a busy machine (a pure-Python check would otherwise hold it in long spans).
YIELD_EVERY = 0.002
YIELD_PAUSE = 0.0005
# A check stops once it has found this many errors (counting those inside anyOf/oneOf branches):
# a schema that multiplies errors would otherwise fill memory, and collecting it stalls every thread.
MAX_ERRORS = 10_000
# How much of a pattern or of a $ref a message quotes.
QUOTE_LIMIT = 120

Keyword = Callable[[Any, Any, Any, dict[str, Any]], Iterable[ValidationError] | None]


class SchemaRefused(Exception):
    """The schema cannot be used to check anything (too big, looping, too slow): nothing is sent."""


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    text = value if isinstance(value, str) else repr(value)
    return repr(text if len(text) <= limit else text[:limit] + "…")


@dataclass
class Budget:
    """The deadline and the counters of one check (one per thread, through a context variable)."""

    deadline: float
    budget: float
    ref_depth: int = 0
    refs: list[str] = field(default_factory=list)
    unchecked: dict[str, str] = field(default_factory=dict)
    yielded: float = field(default_factory=time.monotonic)
    errors: int = 0

    def tick(self) -> None:
        now = time.monotonic()
        if now > self.deadline:
            raise SchemaRefused(f"checking against the schema took longer than {self.budget:g} s; stopped")
        if now - self.yielded > YIELD_EVERY:
            time.sleep(YIELD_PAUSE)
            self.yielded = time.monotonic()

    def remaining(self) -> float:
        return max(self.deadline - time.monotonic(), 0.0)


CURRENT: contextvars.ContextVar[Budget] = contextvars.ContextVar("rea_tui_schema_budget")


def current() -> Budget:
    budget = CURRENT.get(None)
    if budget is None:
        raise RuntimeError("schema keywords run only inside schemas.guard.check_against_schema_now")
    return budget


def search(pattern: str, text: str) -> bool:
    """`pattern` found in `text`, within the time limit (and the check's deadline)."""
    import regex  # with the first pattern: most schemas have none, and a one-shot `call` pays for the import

    budget = current()
    budget.tick()
    limit = min(PATTERN_TIMEOUT, budget.remaining())
    try:
        return regex.search(pattern, text, timeout=limit, concurrent=True) is not None
    except TimeoutError:
        raise SchemaRefused(
            f"the schema's pattern {quoted(pattern)} took longer than {limit:.2g} s on a value of "
            f"{len(text):,} characters (a pattern that backtracks without end?); stopped"
        ) from None
    except regex.error as exc:
        raise SchemaRefused(f"the schema's pattern {quoted(pattern)} is not a regular expression: {exc}") from None


def _pattern(validator: Any, pattern: Any, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and isinstance(pattern, str) and not search(pattern, instance):
        yield ValidationError(f"does not match the pattern {quoted(pattern)}")


def _pattern_properties(
    validator: Any, patterns: Any, instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object") or not isinstance(patterns, dict):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(
    validator: Any, additional: Any, instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    declared = schema.get("properties")
    named = declared if isinstance(declared, dict) else {}
    patterns = schema.get("patternProperties")
    patterned = list(patterns) if isinstance(patterns, dict) else []
    extras = sorted(
        (key for key in instance if key not in named and not any(search(p, key) for p in patterned)), key=str
    )
    if validator.is_type(additional, "object"):
        for key in extras:
            yield from validator.descend(instance[key], additional, path=key)
    elif additional is False and extras:
        listed = ", ".join(quoted(key) for key in extras)
        yield ValidationError(f"not allowed here (the schema names no such field): {listed}")


def describe_unresolvable(error: Exception, ref: str) -> str:
    """Why `ref` led nowhere. The registry retrieves nothing, so any other failure is a URI outside the document."""
    shown = quoted(ref)
    if isinstance(error, PointerToNowhere):
        return f"the schema's $ref {shown} points to nothing in the schema"
    if isinstance(error, NoSuchAnchor):
        return f"the schema's $ref {shown} names an anchor the schema does not define"
    if isinstance(error, Unresolvable):
        return f"the schema refers to {shown}, which rea-tui does not fetch (schemas are data: no network, no files)"
    return f"the schema's $ref {shown} cannot be resolved ({type(error).__name__})"


def _reference(keyword: str) -> Keyword:
    def follow(validator: Any, ref: Any, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
        budget = current()
        if not isinstance(ref, str):
            return
        if budget.ref_depth >= MAX_REF_DEPTH:
            chain = " → ".join(budget.refs[:4])
            raise SchemaRefused(
                f"the schema's {keyword} chain goes more than {MAX_REF_DEPTH} deep ({chain} → …): "
                "it refers to itself without end; stopped"
            )
        try:
            resolved = validator._resolver.lookup(ref)
        except (Unresolvable, ValueError) as exc:
            # Not fetched, not guessed: this part of the schema checks nothing, and the analyst is told.
            budget.unchecked.setdefault(ref, describe_unresolvable(exc, ref))
            return
        budget.ref_depth += 1
        budget.refs.append(quoted(ref, 40))
        try:
            yield from validator.descend(instance, resolved.contents, resolver=resolved.resolver)
        finally:
            budget.ref_depth -= 1
            budget.refs.pop()

    return follow


def _timed(keyword: Keyword) -> Keyword:
    def run(validator: Any, value: Any, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
        budget = current()
        budget.tick()
        for error in keyword(validator, value, instance, schema) or ():
            budget.errors += 1
            if budget.errors > MAX_ERRORS:
                raise SchemaRefused(f"the value breaks the schema in more than {MAX_ERRORS:,} ways; stopped")
            yield error

    return run


def guarded_keywords(stock: dict[str, Keyword]) -> dict[str, Keyword]:
    """A validator class's keywords, each under the budget, with rea-tui's own refs and patterns."""
    replaced: dict[str, Keyword] = {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
        "$ref": _reference("$ref"),
        "$dynamicRef": _reference("$dynamicRef"),
    }
    return {name: _timed(replaced.get(name, keyword)) for name, keyword in stock.items()}
