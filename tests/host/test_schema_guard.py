"""The guarded schema check: nothing retrieved, loops and catastrophic patterns stopped, the loop never stalled."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from rea_tui.host import check_against_schema
from rea_tui.host.schemas.guard import CHECK_BUDGET, MAX_SCHEMA_BYTES, MAX_SCHEMA_NESTING
from rea_tui.host.schemas.keywords import MAX_ERRORS, MAX_REF_DEPTH
from tests.support.listeners import CountingListener, LoopWatch, SilentListener

# A check that is stopped still returns within its budget and the thread's notice of it.
SLACK = 0.5
# The longest the event loop may be busy while a check works in its thread.
LOOP_STALL_LIMIT = 0.1
# The longest wall-clock gap in the loop meanwhile (the GIL and a busy machine's scheduler add to it).
GIL_STALL_LIMIT = 0.5
LOOP_SCHEMA = {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}


def obj(properties: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, **extra}


async def test_valid_and_invalid_values_name_their_fields() -> None:
    schema = obj({"count": {"type": "integer", "minimum": 1}, "name": {"type": "string"}}, required=["name"])
    assert (await check_against_schema(schema, {"count": 2, "name": "x"})).ok
    verdict = await check_against_schema(schema, {"count": 0})
    assert not verdict.ok and verdict.refusal is None
    assert [(p.field, p.message) for p in verdict.problems] == [
        ("count", "0 is less than the minimum of 1"),
        ("name", "required"),
    ]


async def test_a_remote_ref_is_never_fetched_and_is_named() -> None:
    with CountingListener() as listener:
        schema = obj({"target": {"$ref": listener.url}, "count": {"type": "integer"}})
        verdict = await check_against_schema(schema, {"target": "x", "count": "three"})
        await asyncio.sleep(0.2)
        assert listener.hits == 0
    # The rest of the schema is still checked; the part behind the ref is reported, naming it.
    assert [p.field for p in verdict.problems] == ["count"]
    assert verdict.unchecked == (
        f"the schema refers to '{listener.url}', which rea-tui does not fetch (schemas are data: no network, no files)",
    )


async def test_a_ref_to_a_host_that_never_answers_does_not_wait() -> None:
    with SilentListener() as listener:
        started = time.monotonic()
        verdict = await check_against_schema({"$ref": listener.url}, {"x": 1})
        elapsed = time.monotonic() - started
        assert listener.hits == 0
    assert elapsed < 1.0, elapsed
    assert verdict.refusal is None and listener.url in verdict.unchecked[0]


async def test_a_file_ref_is_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"type": "string", "description": "SECRET-FILE-CONTENT-7d1f"}), encoding="utf-8")
    verdict = await check_against_schema(obj({"path": {"$ref": secret.as_uri()}}), {"path": 5})
    everything = json.dumps([verdict.refusal, verdict.unchecked, [p.message for p in verdict.problems]])
    assert "SECRET-FILE-CONTENT" not in everything
    assert verdict.ok  # nothing of the file's schema applied: it was not read
    assert "which rea-tui does not fetch" in verdict.unchecked[0]


async def test_refs_that_loop_are_stopped_with_a_message() -> None:
    for schema in ({"$ref": "#"}, obj({"x": {"$ref": "#/$defs/a"}}, **LOOP_SCHEMA)):
        verdict = await check_against_schema(schema, {"x": 1})
        assert verdict.refusal is not None
        assert f"goes more than {MAX_REF_DEPTH} deep" in verdict.refusal
        assert "refers to itself without end" in verdict.refusal


async def test_a_recursive_schema_over_a_finite_value_is_checked() -> None:
    tree = obj({"children": {"type": "array", "items": {"$ref": "#"}}, "size": {"type": "integer"}})
    value: dict[str, Any] = {"size": 1, "children": [{"size": 2, "children": [{"size": "big"}]}]}
    verdict = await check_against_schema(tree, value)
    assert [p.field for p in verdict.problems] == ["children.0.children.0.size"]


async def test_a_catastrophic_pattern_finishes_within_the_budget() -> None:
    schema = obj({"text": {"type": "string", "pattern": "(a+)+$"}})
    started = time.monotonic()
    verdict = await check_against_schema(schema, {"text": "a" * 40 + "!"})
    assert time.monotonic() - started < CHECK_BUDGET
    # The regex module answers this one at once (Python's re would backtrack for hours).
    assert verdict.refusal is None and verdict.problems[0].field == "text"
    assert "does not match the pattern" in verdict.problems[0].message


async def test_a_pattern_that_backtracks_is_stopped_and_the_loop_runs_on() -> None:
    watch = LoopWatch()
    with watch.running():
        for schema, value in (
            (obj({"text": {"type": "string", "pattern": "(a|a)+$"}}), {"text": "a" * 40 + "!"}),
            (obj({}, patternProperties={"(a|a)+$": {}}, additionalProperties=False), {"a" * 40 + "!": 1}),
        ):
            started = time.monotonic()
            verdict = await check_against_schema(schema, value)
            elapsed = time.monotonic() - started
            assert verdict.refusal is not None and "took longer than" in verdict.refusal, verdict
            assert "'(a|a)+$'" in verdict.refusal
            assert elapsed < CHECK_BUDGET, elapsed  # PATTERN_TIMEOUT, overshot on a busy machine
    # The loop's thread does none of the work, and the regex module lets go of the GIL while it matches.
    assert watch.longest_busy < LOOP_STALL_LIMIT, (watch.longest_busy, watch.longest)
    assert watch.longest < GIL_STALL_LIMIT, (watch.longest_busy, watch.longest)


async def test_a_combinatorial_schema_stops_at_the_budget() -> None:
    levels = 40  # each level doubles the work: 2**40 evaluations unguarded
    defs: dict[str, Any] = {f"l{i}": {"anyOf": [{"$ref": f"#/$defs/l{i + 1}"}] * 2} for i in range(levels)}
    defs[f"l{levels}"] = {"type": "string"}
    started = time.monotonic()
    verdict = await check_against_schema({"$defs": defs, "$ref": "#/$defs/l0"}, 5)
    elapsed = time.monotonic() - started
    # The errors of every branch pile up; the check stops at a bound on them (or at its budget).
    assert verdict.refusal in (
        f"the value breaks the schema in more than {MAX_ERRORS:,} ways; stopped",
        f"checking against the schema took longer than {CHECK_BUDGET:g} s; stopped",
    )
    assert elapsed < CHECK_BUDGET + SLACK, elapsed
    # Without errors to pile up, the same shape runs into the time budget.
    cheap = {f"l{i}": {"allOf": [{"$ref": f"#/$defs/l{i + 1}"}] * 2} for i in range(levels)}
    cheap[f"l{levels}"] = {"type": "integer"}
    budget = 0.5
    started = time.monotonic()
    verdict = await check_against_schema({"$defs": cheap, "$ref": "#/$defs/l0"}, 5, budget=budget)
    elapsed = time.monotonic() - started
    assert verdict.refusal == f"checking against the schema took longer than {budget:g} s; stopped"
    assert elapsed < budget + SLACK, elapsed


async def test_schemas_over_the_limits_are_refused() -> None:
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(MAX_SCHEMA_NESTING + 5):
        deep = {"items": deep}
    big = obj({"x": {"description": "x" * (MAX_SCHEMA_BYTES + 1)}})
    nested = await check_against_schema(deep, [])
    assert nested.refusal == f"the schema nests deeper than {MAX_SCHEMA_NESTING} levels; not checked"
    large = await check_against_schema(big, {})
    assert large.refusal is not None and "over rea-tui's limit" in large.refusal
    invalid = await check_against_schema({"type": 5}, {})
    assert invalid.refusal is not None and invalid.refusal.startswith("the schema itself is invalid at type")
    both = await check_against_schema({"patternProperties": {"^a": {}}, "unevaluatedProperties": False}, {})
    assert both.refusal is not None and "unevaluatedProperties" in both.refusal


async def test_the_four_elicitation_formats_are_checked() -> None:
    schema = obj(
        {
            "email": {"type": "string", "format": "email"},
            "day": {"type": "string", "format": "date"},
            "when": {"type": "string", "format": "date-time"},
            "site": {"type": "string", "format": "uri"},
            "other": {"type": "string", "format": "hostname"},  # any other format is an annotation
        }
    )
    good = {"email": "a@example.org", "day": "2024-02-29", "when": "2024-02-29T10:00:00Z", "site": "https://x.org/a"}
    assert (await check_against_schema(schema, {**good, "other": "not a host name!"})).ok
    bad = {"email": "nobody", "day": "2023-02-29", "when": "yesterday", "site": "not a uri"}
    verdict = await check_against_schema(schema, bad)
    assert {p.field: p.message.split(" (")[0] for p in verdict.problems} == {
        "email": "is not a valid email",
        "day": "is not a valid date",
        "when": "is not a valid date-time",
        "site": "is not a valid uri",
    }


async def test_patterns_in_the_ecmascript_style_and_other_dialects() -> None:
    letters = obj({"x": {"type": "string", "pattern": "^\\p{L}+$"}})
    assert (await check_against_schema(letters, {"x": "héllo"})).ok
    assert not (await check_against_schema(letters, {"x": "h3llo"})).ok
    draft7 = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"n": {"type": "integer"}},
        "properties": {"x": {"$ref": "#/definitions/n"}},
    }
    assert [p.field for p in (await check_against_schema(draft7, {"x": "s"})).problems] == ["x"]
    extra = await check_against_schema(
        obj({"a": {}}, patternProperties={"^x-": {"type": "integer"}}, additionalProperties=False),
        {"a": 1, "x-n": "s", "b": 2},
    )
    assert sorted(p.message for p in extra.problems) == [
        "'s' is not of type 'integer'",
        "not allowed here (the schema names no such field): 'b'",
    ]


async def test_a_pattern_the_regex_module_cannot_compile_makes_the_schema_invalid() -> None:
    """The metaschema's `regex` format is checked with the `regex` module, loaded with the first pattern."""
    bad = {"type": "object", "properties": {"a": {"type": "string", "pattern": "(unclosed"}}}
    verdict = await check_against_schema(bad, {"a": "x"})
    assert verdict.refusal == (
        "the schema itself is invalid at properties/a/pattern: is not a valid regex (missing ) at position 9)"
    )
    good = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^y$"}}}
    assert [p.message for p in (await check_against_schema(good, {"a": "x"})).problems] == [
        "does not match the pattern '^y$'"
    ]
