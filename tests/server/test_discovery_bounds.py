"""Bounded procedure discovery: when a bound cuts discovery short, only observed addresses, and the reply says so.

The default bound (1,000,000 addresses and a time budget) is a safety limit
real binaries do not hit; `--discovery-limit` and `--discovery-time-budget`
make the bounded behaviour visible. A cut inventory is reported in the
completion result's `_meta["rea/discovery"]` as
`{"complete": false, "limit": N, "addresses": seen, "reason": "limit" | "time"}`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import mcp_types as types
import pytest
import pytest_asyncio

from tests.server.live import LiveServer, expected_procedure_values, matching

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def bounded() -> AsyncIterator[LiveServer]:
    """Discovery stops after 200 unique addresses, in pages of 7.

    Notes has 800 procedures (cut short); NotesShare.appex has exactly 200 (exhaustive).
    """
    live = await LiveServer("--synthetic", "2000", "--discovery-limit", "200", "--page-size", "7").start()
    yield live
    await live.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def small_pages() -> AsyncIterator[LiveServer]:
    """Exhaustive discovery in pages of 3: the page size must not change what is offered."""
    live = await LiveServer("--synthetic", "2000", "--page-size", "3", mode="2026-07-28").start()
    yield live
    await live.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def no_time() -> AsyncIterator[LiveServer]:
    """A zero time budget: every document's discovery stops after its first page of 7."""
    live = await LiveServer("--synthetic", "2000", "--discovery-time-budget", "0", "--page-size", "7").start()
    yield live
    await live.stop()


async def discovery(server: LiveServer, value: str, context: dict[str, str] | None = None) -> tuple[Any, list[str]]:
    result = await server.client.complete(
        types.PromptReference(name="investigate_feature"), {"name": "procedure", "value": value}, context
    )
    return (result.meta or {}).get("rea/discovery"), result.completion.values


async def test_a_cut_inventory_says_so_in_meta(bounded: LiveServer) -> None:
    cut, _ = await discovery(bounded, "", {"document": "Notes"})
    assert cut == {"complete": False, "limit": 200, "addresses": 200, "reason": "limit"}
    whole, _ = await discovery(bounded, "", {"document": "NotesShare.appex"})
    assert whole == {"complete": True, "limit": 200, "addresses": 200}


async def test_the_time_budget_cuts_discovery_too(no_time: LiveServer) -> None:
    cut, values = await discovery(no_time, "", {"document": "Notes"})
    assert cut == {"complete": False, "limit": 1_000_000, "addresses": 7, "reason": "time"}
    assert len(values) == 7 and all(v.startswith("0x") for v in values)
    assert (await no_time.complete("procedure", "openDocument", {"document": "Notes"})).values == []


async def test_whole_target_completion_qualifies_everything_while_a_document_is_cut(bounded: LiveServer) -> None:
    meta, _ = await discovery(bounded, "open")
    assert meta == {"complete": False, "limit": 200, "addresses": 200 * 4 + 200, "reason": "limit"}
    # Uniqueness across the target is unknown, so nothing is plain; a complete document still offers
    # its unique names, qualified.
    share = (await bounded.all_procedures("NotesShare.appex"))[0]["names"][0]
    assert (await bounded.complete("procedure", share)).values == [f"{share}@NotesShare.appex"]
    page = await bounded.complete("procedure", "0x")
    assert page.values and all("@" in v for v in page.values)
    assert (await bounded.complete("procedure", "openDocument")).values == []


async def test_names_are_not_offered_from_a_partial_inventory(bounded: LiveServer) -> None:
    ctx = {"document": "Notes"}
    for prefix in ("open", "openDocument", "search", "fileImport"):
        page = await bounded.complete("procedure", prefix, ctx)
        assert page.values == [] and page.total == 0, prefix


async def test_only_observed_addresses_are_offered(bounded: LiveServer) -> None:
    procedures = await bounded.all_procedures("Notes")
    observed = sorted(p["address"] for p in procedures[:200])
    page = await bounded.complete("procedure", "0x", {"document": "Notes"})
    assert page.total == 200 and page.has_more is True
    assert page.values == observed[:100]
    inside = procedures[199]["address"]
    beyond = procedures[250]["address"]
    assert (await bounded.complete("procedure", inside, {"document": "Notes"})).values == [inside]
    assert (await bounded.complete("procedure", beyond, {"document": "Notes"})).values == []


async def test_reaching_the_bound_on_the_last_page_is_still_exhaustive(bounded: LiveServer) -> None:
    procedures = await bounded.all_procedures("NotesShare.appex")
    assert len(procedures) == 200
    expected = expected_procedure_values(procedures)
    page = await bounded.complete("procedure", "", {"document": "NotesShare.appex"})
    assert page.total == len(expected) > 200
    name = next(v for v in sorted(expected) if not v.startswith("0x"))
    assert (await bounded.complete("procedure", name, {"document": "NotesShare.appex"})).values[0] == name


async def test_page_size_does_not_change_the_offered_values(small_pages: LiveServer) -> None:
    expected = expected_procedure_values(await small_pages.all_procedures("Notes"))
    for prefix in ("lateramb", "uniquealias", "duplicate", "export", "0x10000002"):
        page = await small_pages.complete("procedure", prefix, {"document": "Notes"})
        assert page.values == matching(expected, prefix)[:100], prefix
