"""Calls to imported functions through their slots, without a stub, against binutils' objdump.

The fixture (tests/server/fixtures/kinds/gotcalls.so, built by build.sh from
gotcalls.c with `gcc -O2 -fno-plt`) calls strlen and printf, and its own
exported `measure`, through GOT slots: `call *0x2eae(%rip)  # 3fb8
<strlen@GLIBC_2.2.5>`, and `forward` tail-jumps through measure's slot.
Truth: the call and jump sites and their slots from `objdump -d -w`, each
slot's symbol from `objdump -R` (GLOB_DAT, JUMP_SLOT), function addresses from
objdump's labels. The server names a slot `strlen@got`: objdump's
`strlen@GLIBC_2.2.5` is the symbol's version, which the slot's name compares
without.
"""

from __future__ import annotations

import re
import subprocess
from bisect import bisect_right
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from tests.server.binutils_truth import pe_function_table
from tests.server.live import LiveServer
from tests.server.stub_truth import objdump_text, pe_iat, pe_import_calls, thunk_slots
from tests.server.test_ground_truth_kinds import launcher
from tests.server.test_ground_truth_macho import llvm

pytestmark = pytest.mark.asyncio(loop_scope="module")

KINDS = Path(__file__).resolve().parent / "fixtures" / "kinds"
GOT_CALLS = KINDS / "gotcalls.so"
OBJDUMP = "objdump"
OBJDUMP_PACKAGE = "binutils"
FUNCTIONS = ("measure", "report", "forward")
"""gotcalls.c's own functions."""
_FUNCTION = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
_SLOT_BRANCH = re.compile(r"^\s*([0-9a-f]+):\t[0-9a-f ]+\t(call|jmp)\s+\*-?0x[0-9a-f]+\(%rip\)\s+# ([0-9a-f]+) <")
"""`1104:\tff 15 ae 2e 00 00 \tcall   *0x2eae(%rip)        # 3fb8 <strlen@GLIBC_2.2.5>`."""
_SLOT = re.compile(r"^([0-9a-f]+) R_X86_64_(?:GLOB_DAT|JUMP_SLOT)\s+([^@\s]+)")


def slot_branches() -> tuple[dict[str, int], dict[str, dict[int, tuple[str, int]]], dict[int, str]]:
    """Function addresses; function -> {site: (call or jmp, slot)}; slot -> its symbol, by objdump."""
    disassembly = objdump_text(OBJDUMP, OBJDUMP_PACKAGE, GOT_CALLS, "-d", "-w")
    functions: dict[str, int] = {}
    branches: dict[str, dict[int, tuple[str, int]]] = {}
    current: dict[int, tuple[str, int]] | None = None
    for line in disassembly.splitlines():
        header = _FUNCTION.match(line)
        if header is not None:
            functions[header.group(2)] = int(header.group(1), 16)
            current = branches.setdefault(header.group(2), {})
            continue
        branch = _SLOT_BRANCH.match(line)
        if branch is not None and current is not None:
            current[int(branch.group(1), 16)] = (branch.group(2), int(branch.group(3), 16))
    relocations = objdump_text(OBJDUMP, OBJDUMP_PACKAGE, GOT_CALLS, "-R")
    slots = {int(m.group(1), 16): m.group(2) for line in relocations.splitlines() if (m := _SLOT.match(line))}
    return functions, branches, slots


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server() -> AsyncIterator[LiveServer]:
    live = await LiveServer("--target", str(GOT_CALLS), mode="2026-07-28").start()
    yield live
    await live.stop()


async def test_calls_through_got_slots_are_named_after_the_import(server: LiveServer) -> None:
    """Each `call`/`jmp *slot(%rip)` objdump prints: callees and the listing name the slot's function."""
    functions, branches, slots = slot_branches()
    compared = 0
    for function in FUNCTIONS:
        callees = await server.structured("callees", {"procedure": function})
        by_target = {int(row["target"], 16): row for row in callees["callees"]}
        listing = await server.structured("inspect_procedure", {"procedure": function})
        listed = {int(c["at"], 16): (int(c["target"], 16), c["names"]) for c in listing["disassembly"]["calls"]}
        for site, (verb, slot) in branches[function].items():
            symbol = slots[slot]
            row = by_target[slot]
            assert row["names"] == [f"{symbol}@got"] and row["import"] == symbol, row
            reaches = None if symbol not in functions else hex(functions[symbol])
            assert row["reaches"] == reaches, row
            kind = "slot_call" if verb == "call" else "slot_jump"
            assert {"at": hex(site), "kind": kind} in row["sites"], (row, hex(site))
            assert listed[site] == (slot, [f"{symbol}@got"]), listed
            compared += 1
    assert compared >= len(("strlen", "measure", "printf", "forward's jmp")), branches


async def test_callers_of_a_function_called_through_its_slot(server: LiveServer) -> None:
    """measure is called through its GOT slot (report) and tail-jumped to through it (forward)."""
    functions, branches, slots = slot_branches()
    through_slot = {
        site for sites in branches.values() for site, (_verb, slot) in sites.items() if slots.get(slot) == "measure"
    }
    assert len(through_slot) >= len(("report", "forward")), branches
    callers = await server.structured("callers", {"procedure": "measure"})
    got = {int(site["at"], 16) for row in callers["callers"] for site in row["sites"]}
    assert got == through_slot
    sources = {name for row in callers["callers"] for name in row["procedure"]["names"]}
    assert sources == {"report", "forward"}
    refs = await server.structured("find_references", {"procedure": "measure"})
    assert {int(site["at"], 16) for row in refs["references"] for site in row["sites"]} >= through_slot
    assert functions["measure"] == int(callers["procedure"]["address"], 16)


MINGW_OBJDUMP = "x86_64-w64-mingw32-objdump"
MINGW_PACKAGE = "binutils-mingw-w64-x86-64"
PE_BAR = 0.95
PE_FILES = {"exports.dll": KINDS / "exports.dll", "t64.exe": Path(launcher())}
"""mingw-w64's DLL (thunks for its msvcrt calls) and MSVC's launcher pip vendors (`call [rip + IAT]`)."""
CHECKED_PROCEDURES = 40
"""Procedures whose callees are compared name by name (the rest by site)."""


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=sorted(PE_FILES))
async def pe_server(request: pytest.FixtureRequest) -> AsyncIterator[tuple[LiveServer, Path]]:
    path = PE_FILES[request.param]
    live = await LiveServer("--target", str(path), mode="2026-07-28").start()
    yield live, path
    await live.stop()


async def test_pe_calls_through_the_iat_and_thunks_are_named_after_the_import(
    pe_server: tuple[LiveServer, Path], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Every `call`/`jmp [rip + IAT entry]` objdump decodes in a .pdata function is a slot call to that entry's
    import, and every direct call from one to a thunk a call to it; callees name them `__imp_X` and `X`, with
    their DLL. (Code outside .pdata, the thunks among it, is no procedure's.)"""
    server, path = pe_server
    iat = pe_iat(objdump_text(MINGW_OBJDUMP, MINGW_PACKAGE, path, "-p"))
    disassembly = objdump_text(MINGW_OBJDUMP, MINGW_PACKAGE, path, "-d", "-w")
    through_iat, to_thunks = pe_import_calls(disassembly, iat)
    thunks = thunk_slots(disassembly, iat)
    assert through_iat, "the file calls imports through its IAT"
    functions = sorted(pe_function_table(MINGW_OBJDUMP, str(path), tmp_path_factory.mktemp("pdata")).items())
    starts = [begin for begin, _size in functions]

    def in_function(site: int) -> bool:
        at = bisect_right(starts, site) - 1
        return at >= 0 and site < functions[at][0] + functions[at][1]

    wanted = {(site, target) for site, target in (*through_iat.items(), *to_thunks.items()) if in_function(site)}
    got: set[tuple[int, int]] = set()
    procedures: dict[int, dict[str, object]] = {}
    for target in sorted({*through_iat.values(), *to_thunks.values()}):
        refs = await server.structured("find_references", {"address": hex(target), "limit": 500})
        for row in refs["references"]:
            procedures[int(str(row["procedure"]["address"]), 16)] = row["procedure"]
            for site in row["sites"]:
                if site["kind"] in ("slot_call", "slot_jump", "call", "jump"):
                    got.add((int(site["at"], 16), target))
    hit = len(wanted & got)
    recall, precision = hit / len(wanted), hit / max(1, len(got))
    print(f"\n{path.name}: import calls {len(wanted)} server {len(got)} agree {hit}")
    print(f"recall {recall:.4f} precision {precision:.4f}")
    assert recall >= PE_BAR and precision >= PE_BAR
    named = 0
    for address in sorted(procedures)[:CHECKED_PROCEDURES]:
        callees = await server.structured("callees", {"procedure": hex(address)})
        for row in callees["callees"]:
            target = int(row["target"], 16)
            slot, label = (target, "__imp_{}") if target in iat else (thunks.get(target), "{}")
            if slot is None:
                continue
            library, function = iat[slot]
            assert row["names"] == [label.format(function)], row
            assert (row["import"], row["library"]) == (function, library), row
            named += 1
    assert named, "callees name the imports"


MACHO_FILES = {arch: KINDS / f"macho-imports-{arch}" for arch in ("arm64", "x86_64")}
"""macho-imports.c built by build.sh with clang and ld64.lld: calls to puts and strcmp through `__stubs`."""
_STUB_CALL = re.compile(r"^([0-9a-f]+):\t.*\t(\S+)\t0x([0-9a-f]+) (?:##|;) symbol stub for: (\S+)$")
"""`100000570:\t14 00 00 94\tbl\t0x1000005c0 ; symbol stub for: _strcmp` (`##` on x86_64)."""
_MACHO_FUNCTION = re.compile(r"^(_\w+):$")


def macho_stub_calls(path: Path) -> dict[str, dict[int, tuple[int, str]]]:
    """Function -> {site: (stub, symbol)} for every branch `llvm-objdump --macho -d` says goes to a stub."""
    calls: dict[str, dict[int, tuple[int, str]]] = {}
    current: dict[int, tuple[int, str]] | None = None
    listing = subprocess.run(
        [llvm("llvm-objdump"), "--macho", "-d", str(path)], capture_output=True, text=True, check=True
    )
    for line in listing.stdout.splitlines():
        header = _MACHO_FUNCTION.match(line)
        if header is not None:
            current = calls.setdefault(header.group(1), {})
            continue
        call = _STUB_CALL.match(line)
        if call is not None and current is not None:
            current[int(call.group(1), 16)] = (int(call.group(3), 16), call.group(4))
    return calls


@pytest.mark.parametrize("arch", sorted(MACHO_FILES))
async def test_macho_stub_calls_are_named_as_llvm_objdump_names_them(arch: str) -> None:
    """Each call llvm-objdump says goes to a `symbol stub for: _puts`: the listing and callees name the stub
    `_puts`, the symbol it is for (read through the indirect symbol table and the stub's pointer)."""
    path = MACHO_FILES[arch]
    truth = macho_stub_calls(path)
    assert {name for sites in truth.values() for _stub, name in sites.values()} == {"_puts", "_strcmp"}
    live = await LiveServer("--target", str(path), mode="2026-07-28").start()
    try:
        compared = 0
        for function, sites in truth.items():
            listing = await live.structured("inspect_procedure", {"procedure": function})
            targets = {
                int(row["address"], 16): (int(row["target"]["address"], 16), row["target"]["name"])
                for row in listing["disassembly"]["instructions"]
                if "target" in row
            }
            callees = await live.structured("callees", {"procedure": function})
            by_target = {int(row["target"], 16): row for row in callees["callees"]}
            for site, (stub, name) in sites.items():
                assert targets.get(site) == (stub, name), (function, hex(site), targets.get(site))
                row = by_target[stub]
                assert row["names"] == [name] and row["import"] == name and row["procedure"] is None, row
                assert hex(site) in {s["at"] for s in row["sites"]}, row
                compared += 1
        assert compared >= len(("strcmp", "puts"))
    finally:
        await live.stop()
