"""Stripped Go binaries for Windows (PE) and macOS (Mach-O): functions from the runtime's function table.

The fixtures (tests/server/fixtures/kinds/go-hello.exe and go-hello-darwin-arm64, built by build.sh with
Debian's Go 1.19 from hello.go) keep their symbol tables; each test strips a copy (mingw-w64 strip for the
PE, llvm-strip for the Mach-O), so the server sees what a stripped Go binary offers. Truth is the unstripped
file's own symbol table, read by the toolchains' tools: `x86_64-w64-mingw32-objdump -t` (COFF symbols of
the code section, each at the section's address plus its value) and `llvm-nm -m` (symbols in
`__TEXT,__text`). Every function symbol must be a procedure at its address carrying the name, and its
extent must run to the next symbol's address (the last to `runtime.etext`, the end of Go's text).

The PE has no section of its own for the table: the server finds it in `.rdata` by its header; the header
scan must land where the unstripped build's `runtime.pclntab` symbol says the table is.
"""

from __future__ import annotations

import functools
import itertools
import re
import shutil
import subprocess
from pathlib import Path

import lief
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rea_tui.server.providers.go_functions import find_go_table, read_go_functions
from rea_tui.server.providers.lief_documents import LiefDocument
from tests.server.test_ground_truth_go import as_in_the_function_table
from tests.server.test_ground_truth_kinds import MINGW_PACKAGE, missing, procedures_of

KINDS = Path(__file__).resolve().parent / "fixtures" / "kinds"
GO_PE = KINDS / "go-hello.exe"
GO_MACHO = KINDS / "go-hello-darwin-arm64"
MINGW_OBJDUMP = "x86_64-w64-mingw32-objdump"
MINGW_STRIP = "x86_64-w64-mingw32-strip"
LLVM_PACKAGE = "llvm"
TEXT_START, TEXT_END = "runtime.text", "runtime.etext"
"""The Go linker's marks of its text's bounds: symbols in the code section, but not functions (the ELF
build's readelf gives them size 0); the end mark closes the last function's extent."""
MACHO_SYMBOL_PREFIX = "_"
"""Mach-O puts an underscore before every symbol name; Go's function table does not."""
# `[ 12](sec  1)(fl 0x00)(ty  308)(scl   2) (nx 0) 0x00000000000010e0 runtime/internal/sys.OnesCount64`
_COFF_SYMBOL = re.compile(r"^\[\s*\d+\]\(sec\s+(\d+)\)\(fl 0x\w+\)\(ty\s+\w+\)\(scl\s+\d+\) \(nx \d+\) 0x(\w+) (.*)$")
# `  0 .text         0008e29a  0000000000401000  0000000000401000  00000600  2**4`
_OBJDUMP_SECTION = re.compile(r"^\s*(\d+) (\S+)\s+[0-9a-f]+\s+([0-9a-f]+)\s")
# `000000010008ac90 (__TEXT,__text) external _main.main`
_NM_TEXT = re.compile(r"^([0-9a-f]+) \(__TEXT,__text\) (?:non-)?external (.+)$")


def tool(name: str, package: str) -> str:
    found = shutil.which(name)
    if found is None:
        missing(f"{name} is not installed (apt-get install {package})")
    assert found is not None
    return found


def run(*args: str) -> str:
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def coff_text_symbols(path: Path) -> list[tuple[int, str]]:
    """`(address, name)` of the COFF symbols in the PE's code section, by mingw-w64 objdump."""
    objdump = tool(MINGW_OBJDUMP, MINGW_PACKAGE)
    sections = {
        int(m[1]) + 1: (m[2], int(m[3], 16))
        for m in map(_OBJDUMP_SECTION.match, run(objdump, "-h", str(path)).splitlines())
        if m
    }
    number = next(n for n, (name, _address) in sections.items() if name == ".text")
    symbols = []
    for line in run(objdump, "-t", str(path)).splitlines():
        m = _COFF_SYMBOL.match(line)
        if m and int(m[1]) == number:
            symbols.append((sections[number][1] + int(m[2], 16), m[3]))
    return symbols


def coff_symbol_offset(path: Path, name: str) -> tuple[str, int]:
    """The section and offset in it of a COFF symbol, by mingw-w64 objdump."""
    objdump = tool(MINGW_OBJDUMP, MINGW_PACKAGE)
    sections = {
        int(m[1]) + 1: m[2] for m in map(_OBJDUMP_SECTION.match, run(objdump, "-h", str(path)).splitlines()) if m
    }
    for line in run(objdump, "-t", str(path)).splitlines():
        m = _COFF_SYMBOL.match(line)
        if m and m[3] == name:
            return sections[int(m[1])], int(m[2], 16)
    raise AssertionError(f"{name} is not in {path.name}'s symbol table")


def macho_text_symbols(path: Path) -> list[tuple[int, str]]:
    """`(address, name)` of the symbols in `__TEXT,__text`, by llvm-nm, without Mach-O's underscore."""
    nm = tool("llvm-nm", LLVM_PACKAGE)
    found = (_NM_TEXT.match(line) for line in run(nm, "-m", str(path)).splitlines())
    return [(int(m[1], 16), m[2].removeprefix(MACHO_SYMBOL_PREFIX)) for m in found if m]


def functions_and_extents(symbols: list[tuple[int, str]]) -> tuple[list[tuple[int, str]], dict[int, int]]:
    """The function symbols (the text's bounds left out) and each address's extent: to the next symbol's
    address, the last to the end of the text."""
    functions = [(a, n) for a, n in symbols if n not in (TEXT_START, TEXT_END)]
    end = next(a for a, n in symbols if n == TEXT_END)
    starts = sorted({a for a, _n in functions} | {end})
    return functions, {a: b - a for a, b in itertools.pairwise(starts)}


async def measure(label: str, symbols: list[tuple[int, str]], stripped: Path) -> None:
    functions, extents = functions_and_extents(symbols)
    procedures, _layout, _listing = await procedures_of(str(stripped))
    named = sum(1 for a, n in functions if as_in_the_function_table(n) in procedures.get(a, {}).get("names", []))
    sized = sum(1 for a, size in extents.items() if procedures.get(a, {}).get("size") == size)
    print(
        f"\n{label}: {len(functions)} function symbols at {len(extents)} addresses; "
        f"named at their address {named}, sized to the next symbol {sized}"
    )
    assert named == len(functions) and sized == len(extents)
    by_name = {n: a for a, n in functions}
    for own in ("main.main", "main.greet"):
        assert own in procedures[by_name[own]]["names"]


@pytest.mark.asyncio(loop_scope="module")
async def test_a_stripped_go_pe_is_read_from_its_function_table_in_rdata(tmp_path: Path) -> None:
    symbols = coff_text_symbols(GO_PE)
    stripped = tmp_path / "go-hello-stripped.exe"
    subprocess.run([tool(MINGW_STRIP, MINGW_PACKAGE), "-o", str(stripped), str(GO_PE)], check=True)
    assert coff_text_symbols(stripped) == [], "the copy still has symbols"
    await measure("go-hello.exe (stripped)", symbols, stripped)


@pytest.mark.asyncio(loop_scope="module")
async def test_a_stripped_go_macho_is_read_from_its_gopclntab(tmp_path: Path) -> None:
    symbols = macho_text_symbols(GO_MACHO)
    stripped = tmp_path / "go-hello-darwin-arm64-stripped"
    subprocess.run([tool("llvm-strip", LLVM_PACKAGE), "-o", str(stripped), str(GO_MACHO)], check=True)
    assert macho_text_symbols(stripped) == [], "the copy still has symbols"
    await measure("go-hello-darwin-arm64 (stripped)", symbols, stripped)


@pytest.mark.asyncio(loop_scope="module")
async def test_unstripped_go_pe_and_macho_read_the_same(tmp_path: Path) -> None:
    """With the symbol table kept the PE's table is found by `runtime.pclntab`; the figures are the same."""
    await measure("go-hello.exe", coff_text_symbols(GO_PE), GO_PE)
    await measure("go-hello-darwin-arm64", macho_text_symbols(GO_MACHO), GO_MACHO)


def test_the_symbol_and_the_header_scan_find_the_same_table(tmp_path: Path) -> None:
    stripped = tmp_path / "go-hello-stripped.exe"
    subprocess.run([tool(MINGW_STRIP, MINGW_PACKAGE), "-o", str(stripped), str(GO_PE)], check=True)
    by_symbol, by_header = LiefDocument(str(GO_PE)), LiefDocument(str(stripped))
    found_by_symbol = by_symbol._go_table(by_symbol._binary)
    found_by_header = by_header._go_table(by_header._binary)
    assert found_by_symbol is not None and found_by_header is not None
    assert found_by_symbol[2] == ".rdata's runtime.pclntab"
    assert found_by_header[2] == "the Go function table in .rdata"
    assert found_by_symbol[:2] == found_by_header[:2]


@functools.cache
def pe_rdata_and_text() -> tuple[bytes, int, int]:
    binary = lief.PE.parse(str(GO_PE))
    assert binary is not None
    text = binary.get_section(".text")
    start = int(binary.imagebase) + int(text.virtual_address)
    return bytes(binary.get_section(".rdata").content), start, start + int(text.virtual_size)


def test_the_header_scan_finds_the_table_where_runtime_pclntab_is() -> None:
    section, offset = coff_symbol_offset(GO_PE, "runtime.pclntab")
    rdata, text_start, text_end = pe_rdata_and_text()
    assert section == ".rdata"
    assert find_go_table(rdata, text_start, text_end) == offset
    read = read_go_functions(rdata[offset:], text_start)
    assert read.version == "Go 1.18" and read.error is None  # Go 1.19 writes the 1.18 format


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_damaged_rdata_gives_a_plausible_table_or_none(data: st.DataObject) -> None:
    """Hostile bytes over the real `.rdata`: never an exception; a table found has a known magic."""
    rdata, text_start, text_end = pe_rdata_and_text()
    table = bytearray(rdata)
    for _ in range(data.draw(st.integers(1, 8))):
        at = data.draw(st.integers(0, len(table) - 1))
        table[at : at + 4] = data.draw(st.binary(min_size=1, max_size=4))
    cut = data.draw(st.integers(0, len(table)))
    found = find_go_table(bytes(table[:cut]), text_start, text_end)
    if found is not None:
        read = read_go_functions(bytes(table[found:cut]), text_start)
        assert read.version is not None
