"""The real LIEF provider on the default target: the interpreter and the libraries it links."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from tests.server.live import LiveServer, expected_procedure_values, matching

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def default_bounds() -> AsyncIterator[LiveServer]:
    """A bound below the size of libpython (and libc) so discovery is cut short on any platform."""
    live = await LiveServer("--discovery-limit", "2000", "--page-size", "250", mode="legacy").start()
    yield live
    await live.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def exhaustive() -> AsyncIterator[LiveServer]:
    live = await LiveServer("--discovery-limit", "50000", mode="2026-07-28").start()
    yield live
    await live.stop()


async def largest_document(server: LiveServer) -> dict[str, Any]:
    docs = (await server.structured("list_documents"))["documents"]
    return max(docs, key=lambda d: d.get("procedure_count", 0))


async def test_the_default_target_is_the_interpreter_and_its_libraries(default_bounds: LiveServer) -> None:
    session = await default_bounds.structured("doctor")
    target = session["session"]
    assert target["kind"] == "default" and target["target"] == os.path.realpath(sys.executable)
    names = [d["name"] for d in target["documents"]]
    assert names[0] == os.path.basename(os.path.realpath(sys.executable))
    assert len(names) >= 2
    libpython = await largest_document(default_bounds)
    assert libpython["procedure_count"] > 1000
    if sys.platform.startswith("linux"):
        assert libpython["name"].startswith("libpython3.11")
        assert any(n.startswith("libc.so") for n in names)


async def test_partial_inventory_offers_addresses_and_no_names(default_bounds: LiveServer) -> None:
    doc = await largest_document(default_bounds)
    assert doc["procedure_count"] > 2000, "the largest default document must exceed the discovery bound"
    procedures = await default_bounds.all_procedures(doc["name"])
    ctx = {"document": doc["name"]}
    for named in [p for p in procedures[:100] if p["names"]][:5]:
        assert (await default_bounds.complete("procedure", named["names"][0], ctx)).values == []
    page = await default_bounds.complete("procedure", "", ctx)
    assert page.total == 2000 and all(v.startswith("0x") for v in page.values)
    inside, beyond = procedures[10]["address"], procedures[2100]["address"]
    assert (await default_bounds.complete("procedure", inside, ctx)).values[0] == inside
    assert beyond not in (await default_bounds.complete("procedure", beyond, ctx)).values


async def test_exhaustive_inventory_offers_unique_names_only(exhaustive: LiveServer) -> None:
    doc = await largest_document(exhaustive)
    procedures = await exhaustive.all_procedures(doc["name"])
    addresses: dict[str, set[str]] = {}
    for proc in procedures:
        for name in proc["names"]:
            addresses.setdefault(name, set()).add(proc["address"])
    several = sorted(n for n, where in addresses.items() if len(where) > 1)
    unique = sorted(n for n, where in addresses.items() if len(where) == 1)
    aliased = [p for p in procedures if len(p["names"]) > 1]
    assert several and unique and aliased, "a real library has shared names and aliases"
    ctx = {"document": doc["name"]}
    for name in several[:5]:
        assert name not in (await exhaustive.complete("procedure", name, ctx)).values
    for name in unique[:: max(1, len(unique) // 5)][:5]:
        assert name in (await exhaustive.complete("procedure", name, ctx)).values
    expected = expected_procedure_values(procedures)
    for prefix in ("Py", "_Py", "0x", "pylist_"):
        page = await exhaustive.complete("procedure", prefix, ctx)
        assert page.total == len(matching(expected, prefix)) and page.values == matching(expected, prefix)[:100]


async def test_inspect_procedure_disassembles_real_code(exhaustive: LiveServer) -> None:
    doc = await largest_document(exhaustive)
    procedures = await exhaustive.all_procedures(doc["name"])
    target = next(p for p in procedures if p["names"] and (p["size"] or 0) > 16)
    result = await exhaustive.structured(
        "inspect_procedure", {"procedure": target["address"], "document": doc["name"], "max_instructions": 8}
    )
    instructions = result["disassembly"]["instructions"]
    assert result["procedure"]["address"] == target["address"]
    assert 0 < len(instructions) <= 8 and instructions[0]["address"] == target["address"]
    assert all(i["mnemonic"] for i in instructions)
    layout = await exhaustive.structured("inspect_binary_layout", {"document": doc["name"]})
    assert any(
        s["name"] == ".text" or "exec" in s["flags"] or s["name"] == "__text" for s in layout["layout"]["sections"]
    )
