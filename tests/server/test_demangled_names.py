"""C++ names demangled beside the mangled ones, measured against binutils' `c++filt` on the machine's libstdc++.

Truth: the defined FUNC symbols `readelf -s -W` lists whose names are mangled
(`_Z...`), demangled by `c++filt --no-verbose` (the form `objdump -C` prints). The server is the real one over stdio with
libstdc++ as its target: every such procedure carries both names, completion of
`std::` offers the demangled names by the seeds' rule (computed here
independently), and the name-taking tools accept a demangled name.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from tests.server.live import LiveServer, expected_procedure_values, matching

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the machine's libstdc++.so.6"),
]

BAR = 0.99
"""Share of libstdc++'s mangled functions that must carry c++filt's demangled name beside the mangled one."""
LIBRARY_GLOBS = ("/usr/lib/*-linux-gnu/libstdc++.so.6", "/usr/lib64/libstdc++.so.6", "/usr/lib/libstdc++.so.6")


def libstdcxx() -> str:
    found = sorted(p for pattern in LIBRARY_GLOBS for p in glob.glob(pattern))
    if not found:
        pytest.fail("libstdc++.so.6 not found (the server's demangler needs it too)")
    return os.path.realpath(found[0])


def mangled_functions(path: str) -> list[tuple[int, str, str]]:
    """`(address, mangled, demangled)` of the defined FUNC symbols with an Itanium name; c++filt demangles."""
    if shutil.which("readelf") is None or shutil.which("c++filt") is None:
        pytest.fail("binutils missing: readelf and c++filt (install binutils; CI has it)")
    listing = subprocess.run(["readelf", "-s", "-W", path], capture_output=True, text=True, check=False).stdout
    found: dict[tuple[int, str], None] = {}
    for line in listing.splitlines():
        parts = line.split()
        if len(parts) >= 8 and parts[0].endswith(":") and parts[3] == "FUNC" and parts[6] != "UND":
            name = parts[7].split("@", 1)[0]
            if name.startswith("_Z") and int(parts[1], 16):
                found[(int(parts[1], 16), name)] = None
    pairs = list(found)
    names = "\n".join(name for _address, name in pairs) + "\n"
    # --no-verbose: `std::string`, not its expansion, as `objdump -C` and `readelf -C` print it too.
    plain = subprocess.run(
        ["c++filt", "--no-verbose"], input=names, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert len(plain) == len(pairs)
    return [(address, name, demangled) for (address, name), demangled in zip(pairs, plain, strict=True)]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server() -> AsyncIterator[tuple[LiveServer, str]]:
    path = libstdcxx()
    live = await LiveServer("--target", path, mode="2026-07-28").start()
    documents = (await live.structured("list_documents"))["documents"]
    document = next(d["name"] for d in documents if d["path"] and os.path.realpath(d["path"]) == path)
    yield live, document
    await live.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def procedures(server: tuple[LiveServer, str]) -> list[dict[str, Any]]:
    live, document = server
    return await live.all_procedures(document)


async def test_mangled_functions_carry_cxxfilt_names(procedures: list[dict[str, Any]]) -> None:
    truth = mangled_functions(libstdcxx())
    assert len(truth) > 1000, "libstdc++ defines thousands of C++ functions"
    names = {int(p["address"], 16): set(p["names"]) for p in procedures}
    both = sum(1 for address, mangled, plain in truth if {mangled, plain} <= names.get(address, set()))
    share = both / len(truth)
    print(
        f"\nlibstdc++: mangled functions {len(truth)}, with c++filt's name beside the mangled one {both} ({share:.4f})"
    )
    assert share >= BAR


async def test_completion_of_std_offers_demangled_names(
    server: tuple[LiveServer, str], procedures: list[dict[str, Any]]
) -> None:
    live, document = server
    expected = matching(expected_procedure_values(procedures), "std::")
    assert expected, "libstdc++ has std:: functions with one address"
    page = await live.complete("procedure", "std::", {"document": document})
    print(f"\nstd:: completion: total {page.total}, shown {len(page.values)}, expected {len(expected)}")
    assert page.total == len(expected)
    assert set(page.values) <= set(expected) and len(page.values) == min(len(expected), 100)


async def test_tools_accept_a_demangled_name(server: tuple[LiveServer, str], procedures: list[dict[str, Any]]) -> None:
    live, document = server
    owners: dict[str, set[str]] = {}
    for proc in procedures:
        for name in proc["names"]:
            owners.setdefault(name.casefold(), set()).add(proc["address"])
    truth = mangled_functions(libstdcxx())
    unique = [(a, plain) for a, _mangled, plain in truth if owners.get(plain.casefold()) == {hex(a)}]
    assert unique, "some demangled names identify exactly one function"
    address, plain = unique[len(unique) // 2]
    reply = await live.structured("inspect_procedure", {"procedure": plain, "document": document})
    assert int(reply["procedure"]["address"], 16) == address and plain in reply["procedure"]["names"]
    refs = await live.structured("find_references", {"procedure": plain, "document": document})
    assert int(refs["query"]["procedure"]["address"], 16) == address
