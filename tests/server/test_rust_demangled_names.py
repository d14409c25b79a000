"""Rust names demangled beside the mangled ones, measured against binutils' `c++filt -s rust`.

The fixtures (tests/server/fixtures/kinds/rust-hello-legacy.so and rust-hello-v0.so, built by build.sh
with rustc from rust_hello.rs; rustc is not needed here) are one small `no_std` library mangled in each of
Rust's two schemes. Truth: the defined FUNC symbols `readelf -sW` lists whose names are Rust-mangled
(`_ZN...17h<hash>E`, `_R...`), demangled by `c++filt -s rust --no-verbose` (the form `objdump -C` prints:
no legacy hash, no v0 crate disambiguator). The server is the real one over stdio with each file as its
target: every such procedure carries both names, completion of `hello::` offers the demangled names by
the seeds' rule (computed here independently), and the name-taking tools accept a demangled name.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from hypothesis import given, settings
from hypothesis import strategies as st

from rea_tui.server.providers.demangling import demangled
from tests.server.live import LiveServer, expected_procedure_values, matching

KINDS = Path(__file__).resolve().parent / "fixtures" / "kinds"
FIXTURES = ("rust-hello-legacy.so", "rust-hello-v0.so")
RUST_MANGLED = re.compile(r"_ZN.*17h[0-9a-f]{16}E|_R.+")
"""How the truth picks Rust names from the symbol table: a legacy path ending in its hash element, or v0."""
CRATE_PREFIX = "hello::"
SUFFIXES = (".llvm.4160305372856402418", ".cold")
"""Suffixes compiler passes append to a mangled name (LTO's promoted locals, hot/cold splitting)."""
# Each fixture defines five Rust functions: two trait methods, two generic instances and one free function.
RUST_FUNCTIONS = 5


def rust_functions(path: Path) -> list[tuple[int, str, str]]:
    """`(address, mangled, demangled)` of the defined Rust-mangled FUNC symbols; c++filt demangles."""
    if shutil.which("readelf") is None or shutil.which("c++filt") is None:
        pytest.fail("binutils missing: readelf and c++filt (install binutils; CI has it)")
    listing = subprocess.run(["readelf", "-sW", str(path)], capture_output=True, text=True, check=True).stdout
    pairs: dict[tuple[int, str], None] = {}
    for line in listing.splitlines():
        parts = line.split()
        if len(parts) == 8 and parts[3] == "FUNC" and parts[6] != "UND" and RUST_MANGLED.fullmatch(parts[7]):
            pairs[(int(parts[1], 16), parts[7])] = None
    plain = cxxfilt_rust([name for _address, name in pairs])
    return [(address, name, text) for (address, name), text in zip(pairs, plain, strict=True)]


def cxxfilt_rust(names: list[str]) -> list[str]:
    out = subprocess.run(
        ["c++filt", "-s", "rust", "--no-verbose"], input="\n".join(names) + "\n", capture_output=True, text=True
    ).stdout.splitlines()
    assert len(out) == len(names)
    return out


@pytest.mark.parametrize("fixture", FIXTURES)
def test_every_rust_name_demangles_as_cxxfilt_does(fixture: str) -> None:
    truth = rust_functions(KINDS / fixture)
    assert len(truth) == RUST_FUNCTIONS
    for _address, mangled, plain in truth:
        assert plain != mangled, f"c++filt did not demangle {mangled}"
        assert demangled(mangled) == plain
        # Mach-O puts an underscore before the name: `__ZN...`, `__R...`.
        assert demangled("_" + mangled, macho=True) == plain
    suffixed = [mangled + suffix for _a, mangled, _p in truth for suffix in SUFFIXES]
    assert [demangled(name) for name in suffixed] == cxxfilt_rust(suffixed)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(("_R", "_ZN", "__R", "__ZN")), st.text(max_size=200), st.booleans())
def test_hostile_names_never_raise(prefix: str, rest: str, macho: bool) -> None:
    result = demangled(prefix + rest, macho)
    assert result is None or isinstance(result, str)


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=FIXTURES)
async def served(request: pytest.FixtureRequest) -> AsyncIterator[tuple[LiveServer, str, Path]]:
    path = KINDS / request.param
    live = await LiveServer("--target", str(path), mode="2026-07-28").start()
    documents = (await live.structured("list_documents"))["documents"]
    document = next(d["name"] for d in documents if d["path"] and os.path.samefile(d["path"], path))
    yield live, document, path
    await live.stop()


@pytest.mark.asyncio(loop_scope="module")
async def test_the_server_offers_and_matches_demangled_rust_names(served: tuple[LiveServer, str, Path]) -> None:
    live, document, path = served
    truth = rust_functions(path)
    procedures: list[dict[str, Any]] = await live.all_procedures(document)
    names = {int(p["address"], 16): set(p["names"]) for p in procedures}
    both = sum(1 for address, mangled, plain in truth if {mangled, plain} <= names.get(address, set()))
    print(f"\n{path.name}: Rust functions {len(truth)}, with c++filt's name beside the mangled one {both}")
    assert both == len(truth)

    expected = matching(expected_procedure_values(procedures), CRATE_PREFIX)
    page = await live.complete("procedure", CRATE_PREFIX, {"document": document})
    print(f"{path.name}: {CRATE_PREFIX} completion {sorted(page.values)}")
    assert page.total == len(expected) and sorted(page.values) == expected
    owners: dict[str, set[int]] = {}
    for address, _mangled, plain in truth:
        owners.setdefault(plain, set()).add(address)
    unique = {plain: address for plain, where in owners.items() for address in where if len(where) == 1}
    assert {p for p in unique if p.startswith(CRATE_PREFIX)} <= set(page.values)

    plain, address = sorted(unique.items())[0]
    reply = await live.structured("inspect_procedure", {"procedure": plain, "document": document})
    assert int(reply["procedure"]["address"], 16) == address and plain in reply["procedure"]["names"]
