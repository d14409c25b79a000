"""The one place a value is checked against a server's JSON Schema.

Tool arguments before they are sent, `structuredContent` against a tool's
`outputSchema`, elicitation answers, and the CLI's `name=value` pairs,
`--args` and `--elicit` all come here. A schema is data from an untrusted
server, so a check:

- never retrieves anything: the `referencing` registry refuses every URI that
  is not in the document (no network, no files); a `$ref` to one is reported
  as not checked, naming it;
- refuses schemas over a size, a nesting or a subschema-count limit, `$ref`
  chains that loop, and patterns that backtrack without end, with a message;
- runs in a worker thread with a time budget, so the event loop never waits on
  it; over the budget the check stops and says so.

A check gives a `SchemaVerdict`: the ways the value breaks the schema, the
parts of the schema it could not check, or why the schema could not be used
at all (then nothing may be sent).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from typing import Any

from rea_tui.host.protocol.errors import FieldDiagnostic
from rea_tui.host.schemas.keywords import CURRENT, Budget, SchemaRefused, describe_unresolvable, guarded_keywords

# How long one check may take, in seconds, before it stops and says so.
CHECK_BUDGET = 2.0
# Extra time the awaiting side gives the thread to notice its own deadline before giving up on it.
BUDGET_GRACE = 1.0
# Schemas larger than this (compact JSON) are refused.
MAX_SCHEMA_BYTES = 2_000_000
# At most this many objects and arrays in one schema document.
MAX_SUBSCHEMAS = 100_000
# At most this deep a nesting of objects and arrays in a schema document.
MAX_SCHEMA_NESTING = 64
# A message quotes at most this much of what jsonschema says (its messages can repr a whole value).
MESSAGE_LIMIT = 500
# Checks run here, never on the event loop; two let a new check start while an old one winds down.
CHECK_THREADS = 2

_EXECUTOR = ThreadPoolExecutor(max_workers=CHECK_THREADS, thread_name_prefix="rea-schema-check")


@dataclass(frozen=True)
class SchemaVerdict:
    """What checking a value against a schema found."""

    problems: tuple[FieldDiagnostic, ...] = ()
    # Parts of the schema that checked nothing (a $ref rea-tui does not fetch): field -> why.
    unchecked: tuple[str, ...] = ()
    # Why the schema could not be used at all; then nothing may be sent.
    refusal: str | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems and self.refusal is None


def _screen(schema: Mapping[str, Any]) -> None:
    """Refuse a schema too big or too deep to check, before jsonschema (which recurses) sees it."""
    stack: list[tuple[Any, int]] = [(schema, 1)]
    count = 0
    keywords: set[str] = set()
    while stack:
        node, depth = stack.pop()
        if depth > MAX_SCHEMA_NESTING:
            raise SchemaRefused(f"the schema nests deeper than {MAX_SCHEMA_NESTING} levels; not checked")
        count += 1
        if count > MAX_SUBSCHEMAS:
            raise SchemaRefused(f"the schema has more than {MAX_SUBSCHEMAS:,} parts; not checked")
        children = node.values() if isinstance(node, Mapping) else node
        if isinstance(node, Mapping):
            keywords.update(k for k in ("unevaluatedProperties", "patternProperties") if k in node)
        stack.extend((child, depth + 1) for child in children if isinstance(child, (Mapping, list)))
    size = len(json.dumps(schema, separators=(",", ":"), default=str))
    if size > MAX_SCHEMA_BYTES:
        raise SchemaRefused(f"the schema is {size:,} bytes, over rea-tui's limit of {MAX_SCHEMA_BYTES:,}; not checked")
    if keywords == {"unevaluatedProperties", "patternProperties"}:
        # jsonschema evaluates this pair with Python's `re`, which has no time limit.
        raise SchemaRefused(
            "the schema combines unevaluatedProperties with patternProperties, which rea-tui does not evaluate"
        )


def _refuse_retrieval(uri: str) -> Any:
    from referencing.exceptions import NoSuchResource

    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]


@cache
def _registry() -> Any:
    from referencing import Registry

    return Registry(retrieve=_refuse_retrieval)  # type: ignore[call-arg]  # an attrs alias mypy cannot see


@cache
def _validator_classes() -> dict[str, Any]:
    """rea-tui's guarded validator for each JSON Schema dialect jsonschema knows, by metaschema URI."""
    from jsonschema import validators

    extend: Any = validators.extend  # untyped in jsonschema's stubs
    found: dict[str, Any] = {}
    for stock in (
        validators.Draft4Validator,
        validators.Draft6Validator,
        validators.Draft7Validator,
        validators.Draft201909Validator,
        validators.Draft202012Validator,
    ):
        guarded = extend(stock, guarded_keywords(dict(stock.VALIDATORS)))
        meta = stock.META_SCHEMA
        found[str(meta.get("$id") or meta.get("id")).rstrip("#")] = guarded  # draft 4 says "id"
    return found


def _validator_class(schema: Mapping[str, Any]) -> Any:
    classes = _validator_classes()
    dialect = schema.get("$schema")
    latest = classes["https://json-schema.org/draft/2020-12/schema"]
    # MCP schemas are 2020-12 unless they say otherwise; an unknown dialect is read as 2020-12 too.
    return classes.get(dialect.rstrip("#"), latest) if isinstance(dialect, str) else latest


def _field_of(error: Any) -> str:
    path = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "required" and isinstance(error.instance, Mapping):
        for name in error.validator_value or ():
            if name not in error.instance and error.message.startswith(repr(name)):
                return ".".join(p for p in (path, str(name)) if p)
    return path or "(value)"


def _message(error: Any) -> str:
    text = str(error.message)
    if error.validator == "required":
        return "required"
    if error.validator == "format":
        text = f"is not a valid {error.validator_value}" + (f" ({error.cause})" if error.cause else "")
    return text if len(text) <= MESSAGE_LIMIT else text[:MESSAGE_LIMIT] + "…"


def check_against_schema_now(
    schema: Mapping[str, Any] | None, instance: Any, *, budget: float = CHECK_BUDGET
) -> SchemaVerdict:
    """Check `instance` against `schema` in this thread (call it through `check_against_schema`, off the event loop)."""
    from jsonschema.exceptions import best_match
    from referencing.exceptions import Unresolvable

    from rea_tui.host.schemas.formats import schema_checker, value_checker

    started = time.monotonic()
    document: Mapping[str, Any] = schema if schema else {"type": "object"}
    state = Budget(deadline=started + budget, budget=budget)
    token = CURRENT.set(state)
    try:
        _screen(document)
        validator_class = _validator_class(document)
        meta = validator_class(validator_class.META_SCHEMA, registry=_registry(), format_checker=schema_checker())
        invalid = best_match(meta.iter_errors(document))
        if invalid is not None:
            where = "/".join(str(p) for p in invalid.absolute_path) or "(root)"
            raise SchemaRefused(f"the schema itself is invalid at {where}: {_message(invalid)}")
        validator = validator_class(document, registry=_registry(), format_checker=value_checker())
        errors = list(validator.iter_errors(instance))
        found = (FieldDiagnostic(field=_field_of(e), message=_message(e)) for e in errors)
        problems = tuple(sorted(found, key=lambda p: p.field))
        return SchemaVerdict(problems, tuple(state.unchecked.values()), None, time.monotonic() - started)
    except SchemaRefused as exc:
        return SchemaVerdict(refusal=str(exc), seconds=time.monotonic() - started)
    except Unresolvable as exc:
        # Raised outside a $ref keyword (unevaluatedProperties follows refs itself).
        return SchemaVerdict(refusal=describe_unresolvable(exc, exc.ref), seconds=time.monotonic() - started)
    except RecursionError:
        return SchemaVerdict(
            refusal="the schema refers to itself too deeply to check; stopped", seconds=time.monotonic() - started
        )
    except Exception as exc:
        # A schema is hostile input: whatever jsonschema trips over is a refusal, never a crash.
        detail = f"{type(exc).__name__}: {exc}"[:MESSAGE_LIMIT]
        return SchemaVerdict(refusal=f"the schema could not be used ({detail})", seconds=time.monotonic() - started)
    finally:
        CURRENT.reset(token)


async def check_against_schema(
    schema: Mapping[str, Any] | None, instance: Any, *, budget: float = CHECK_BUDGET
) -> SchemaVerdict:
    """Check `instance` against `schema` in a worker thread; the caller awaits the verdict, the loop runs on."""
    loop = asyncio.get_running_loop()
    started = time.monotonic()
    work = loop.run_in_executor(_EXECUTOR, lambda: check_against_schema_now(schema, instance, budget=budget))
    try:
        return await asyncio.wait_for(asyncio.shield(work), budget + BUDGET_GRACE)
    except TimeoutError:
        # The thread stops at its own deadline; nothing waits for it any longer.
        return SchemaVerdict(
            refusal=f"checking against the schema took longer than {budget:g} s; stopped",
            seconds=time.monotonic() - started,
        )
