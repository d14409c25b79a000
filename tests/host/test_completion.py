"""CompletionFeed against real servers: context, lint, newest-wins, cancellation."""

from __future__ import annotations

import asyncio

import pytest

from rea_tui.host.features.completion import (
    CompletionFailure,
    CompletionFeed,
    CompletionPage,
    CompletionRef,
    context_for,
    lint_completion,
)
from rea_tui.host.protocol.connection import Connection
from rea_tui.host.protocol.errors import ProtocolError
from tests.conftest import raw_spec, sample_spec

INVESTIGATE = CompletionRef("prompt", "investigate")


@pytest.fixture
async def sample() -> Connection:
    connection = Connection(sample_spec("legacy"))
    await connection.start()
    yield connection  # type: ignore[misc]
    await connection.close()


async def test_context_arguments_narrow_the_values(sample: Connection) -> None:
    feed = CompletionFeed(sample)
    everywhere = await feed.complete(INVESTIGATE, "procedure", "re")
    assert everywhere.values == ("render_page",)
    helper = await feed.complete(
        INVESTIGATE,
        "procedure",
        "",
        context_for("procedure", {"document": "Helper", "procedure": "x", "feature": ""}),
    )
    assert helper.values == ("helper_main", "helper_sync", "render_page")
    sent = feed.log.records[-1]
    assert sent.context == {"document": "Helper"} and sent.outcome == "shown" and sent.count == 3


async def test_total_and_has_more(sample: Connection) -> None:
    page = await CompletionFeed(sample).complete(INVESTIGATE, "procedure", "search_", {"document": "libsearch"})
    assert len(page.values) == 100 and page.total == 250 and page.has_more and not page.warnings
    assert page.latency_ms > 0


async def test_resource_template_variables(sample: Connection) -> None:
    ref = CompletionRef("template", "sample://docs/{document}/procedures/{procedure}")
    page = await CompletionFeed(sample).complete(ref, "document", "h")
    assert page.values == ("Helper",)


def test_context_for_skips_the_argument_itself_and_empty_values() -> None:
    assert context_for("b", {"a": "1", "b": "2", "c": ""}) == {"a": "1"}


def test_lint_flags_every_spec_break() -> None:
    values, total, has_more, warnings = lint_completion(
        {"completion": {"values": [f"v{i}" for i in range(120)] + ["v1", 7], "total": 50, "hasMore": False}}
    )
    assert len(values) == 120 and total == 50 and has_more is False
    assert "1 non-string values (dropped)" in warnings
    assert "122 values sent; the spec allows at most 100" in warnings
    assert "1 duplicate values" in warnings
    assert "total 50 is below the 122 values sent" in warnings
    _, _, _, warnings = lint_completion({"completion": {"values": ["a"], "total": 9, "hasMore": False}})
    assert warnings == ["hasMore is false but total 9 exceeds the 1 values sent"]
    _, _, _, warnings = lint_completion({"completion": {"values": ["a"], "total": "9", "hasMore": "yes"}})
    assert warnings == ["total is not an integer (ignored)", "hasMore is not a boolean (ignored)"]
    with pytest.raises(ProtocolError, match="no completion object"):
        lint_completion({})
    with pytest.raises(ProtocolError, match="not a list"):
        lint_completion({"completion": {"values": "x"}})


async def test_broken_replies_from_a_real_server_are_reported_not_raised() -> None:
    connection = Connection(raw_spec("lint"))
    await connection.start()
    try:
        feed = CompletionFeed(connection)
        page = await feed.complete(CompletionRef("prompt", "odd"), "thing", "a")
        assert page.warnings and len(page.values) == 120
        assert feed.log.records[-1].warnings == page.warnings
    finally:
        await connection.close()
    connection = Connection(raw_spec("garbage"))
    await connection.start()
    try:
        feed = CompletionFeed(connection)
        delivered: list[CompletionPage | CompletionFailure] = []
        feed.submit(CompletionRef("prompt", "odd"), "thing", "a", {}, delivered.append)
        await feed.settle()
        assert isinstance(delivered[0], CompletionFailure)
        assert "not a list" in str(delivered[0].error)
        assert feed.log.records[-1].outcome == "error"
        # The garbage lines the server wrote were recorded, and the connection still works.
        assert any(e.kind == "garbage" for e in connection.traffic.entries())
        assert (await connection.request("ping")) == {}
    finally:
        await connection.close()


async def test_capability_gates_completion() -> None:
    connection = Connection(raw_spec("nocomplete"))
    await connection.start()
    try:
        assert not CompletionFeed(connection).supported
    finally:
        await connection.close()


async def test_burst_newest_value_wins_and_superseded_requests_are_cancelled(sample: Connection) -> None:
    feed = CompletionFeed(sample)
    delivered: list[CompletionPage | CompletionFailure] = []
    in_flight: list[int] = []
    feed.log.subscribe(lambda record: in_flight.append(feed.log.in_flight()))
    # "slow" makes the server sleep 2 s, so the next keystroke must cancel it.
    ref = CompletionRef("prompt", "investigate")
    feed.submit(ref, "feature", "slow", {}, delivered.append)
    await asyncio.sleep(0.2)
    for text in ("s", "se", "sea", "sear"):
        feed.submit(ref, "procedure", text, {}, delivered.append)
        await asyncio.sleep(0.01)
    feed.submit(ref, "feature", "fast", {}, delivered.append)
    await feed.settle()
    assert max(in_flight) <= 2  # one per field
    outcomes = [(r.argument, r.value, r.outcome) for r in feed.log.records]
    assert ("feature", "slow", "cancelled") in outcomes
    final_procedure = [d for d in delivered if d.argument == "procedure"]
    assert [d.value for d in final_procedure][-1] == "sear"
    assert all(d.value != "slow" for d in delivered)
    cancelled = [e for e in sample.traffic.entries() if e.method == "notifications/cancelled"]
    assert cancelled


async def test_one_request_in_flight_per_field(sample: Connection) -> None:
    feed = CompletionFeed(sample)
    delivered: list[CompletionPage | CompletionFailure] = []
    peak = 0

    def watch(_record: object) -> None:
        nonlocal peak
        peak = max(peak, feed.log.in_flight())

    feed.log.subscribe(watch)
    for text in ["r", "re", "ren", "rend", "rende", "render", "render_", "render_p"]:
        feed.submit(INVESTIGATE, "procedure", text, {}, delivered.append)
        await asyncio.sleep(0.002)
    await feed.settle()
    assert peak == 1
    assert delivered and delivered[-1].value == "render_p"
    assert isinstance(delivered[-1], CompletionPage) and delivered[-1].values == ("render_page",)
    # Every record was settled one way or another.
    assert {r.outcome for r in feed.log.records} <= {"shown", "cancelled"}
