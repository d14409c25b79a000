"""The real LIEF provider on the default target: the interpreter and the libraries it links."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import AsyncIterator
from typing import Any

import mcp_types as types
import pytest
import pytest_asyncio

from tests.server.live import (
    LiveServer,
    expected_procedure_values,
    expected_target_values,
    matching,
    matching_target,
)

RIP_OPERAND = re.compile(r"\[rip ([+-]) (0x[0-9a-f]+|[0-9]+)\]")
WELL_KNOWN_MESSAGE = "object of type '%.200s' has no len()"
"""An error message libpython raises from its sequence and mapping size functions."""
LIBPYTHON_PROCEDURES_OVER = 5000
"""libpython has more procedures than seed 001's 5,000-address bound."""

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def default_bounds() -> AsyncIterator[LiveServer]:
    """A bound below the size of libpython (and libc) so discovery is cut short on any platform."""
    live = await LiveServer("--discovery-limit", "2000", "--page-size", "250", mode="legacy").start()
    yield live
    await live.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def exhaustive() -> AsyncIterator[LiveServer]:
    """The default target with the default bounds."""
    live = await LiveServer(mode="2026-07-28").start()
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
    result = await default_bounds.client.complete(
        types.PromptReference(name="investigate_feature"), {"name": "procedure", "value": ""}, ctx
    )
    page = result.completion
    assert page.total == 2000 and all(v.startswith("0x") for v in page.values)
    assert (result.meta or {})["rea/discovery"] == {
        "complete": False,
        "limit": 2000,
        "addresses": 2000,
        "reason": "limit",
    }
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


async def test_the_default_bound_lets_libpython_offer_names(exhaustive: LiveServer) -> None:
    doc = await largest_document(exhaustive)
    assert doc["procedure_count"] > LIBPYTHON_PROCEDURES_OVER
    ctx = {"document": doc["name"]}
    result = await exhaustive.client.complete(
        types.PromptReference(name="investigate_feature"), {"name": "procedure", "value": "Py"}, ctx
    )
    meta = (result.meta or {})["rea/discovery"]
    assert meta == {"complete": True, "limit": 1_000_000, "addresses": doc["procedure_count"]}
    assert result.completion.values and not any(v.startswith("0x") for v in result.completion.values)


async def test_whole_target_completion_on_the_default_target(exhaustive: LiveServer) -> None:
    docs = (await exhaustive.structured("list_documents"))["documents"]
    parsed = [d["name"] for d in docs if "error" not in d]
    expected = expected_target_values({name: await exhaustive.all_procedures(name) for name in parsed})
    assert any("@" in v for v in expected) and any("@" not in v and not v.startswith("0x") for v in expected)
    for prefix in ("mall", "PyList_", "_init", "0x10"):
        page = await exhaustive.complete("procedure", prefix)
        want = matching_target(expected, prefix)
        assert page.total == len(want) and page.values == want[:100], prefix
    qualified = sorted(v for v in expected if "@" in v and not v.startswith("0x"))
    name, document = qualified[0].rsplit("@", 1)
    inspected = await exhaustive.structured("inspect_procedure", {"procedure": qualified[0], "max_instructions": 4})
    assert inspected["document"]["name"] == document and name in inspected["procedure"]["names"]


def rip_target(insn: dict[str, str]) -> int | None:
    found = RIP_OPERAND.search(insn["operands"])
    if found is None:
        return None
    following = int(insn["address"], 16) + len(insn["bytes"]) // 2
    displacement = int(found.group(2), 0)
    return following + displacement if found.group(1) == "+" else following - displacement


async def test_a_libpython_string_and_the_code_that_refers_to_it(exhaustive: LiveServer) -> None:
    found = await exhaustive.structured("search_strings", {"query": "HAS NO LEN()"})
    exact = [s for s in found["strings"] if s["text"] == WELL_KNOWN_MESSAGE]
    assert len(exact) == 1 and exact[0]["document"].startswith(("libpython", "python"))
    string = exact[0]
    refs = await exhaustive.structured("find_references", {"string": str(string["id"])})
    assert refs["document"]["name"] == string["document"] and refs["total"] >= 1
    target = int(string["address"], 16)
    verified = 0
    for row in refs["references"]:
        inspected = await exhaustive.structured(
            "inspect_procedure",
            {"procedure": str(row["procedure"]["id"]), "document": string["document"], "max_instructions": 512},
        )
        decoded = {i["address"]: rip_target(i) for i in inspected["disassembly"]["instructions"]}
        for site in row["sites"]:
            if site["at"] in decoded:  # sites beyond the 1 KiB inspection window cannot be cross-checked
                assert decoded[site["at"]] == target, site
                verified += 1
    assert verified >= 1
    # Its callers call it directly or through its PLT stub; each caller's callees list it back.
    sizer = refs["references"][0]["procedure"]
    callers = await exhaustive.structured("callers", {"procedure": str(sizer["id"]), "limit": 5})
    for row in callers["callers"]:
        callees = await exhaustive.structured("callees", {"procedure": str(row["procedure"]["id"])})
        names = {n for c in callees["callees"] for n in c["names"]}
        assert set(sizer["names"]) & {n.removesuffix("@plt") for n in names}, row["procedure"]["names"]
