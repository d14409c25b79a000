"""Bounded procedure discovery: when the bound cuts discovery short, only observed addresses."""

from __future__ import annotations

from collections.abc import AsyncIterator

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
