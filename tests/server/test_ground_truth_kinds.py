"""Procedures of binary kinds beyond a dynamic ELF with symbols, measured against ground truth on real files.

- Debian's busybox-static: stripped, static, `.eh_frame` without `.eh_frame_hdr`;
  truth is `readelf --debug-dump=frames` (every FDE).
- pip's vendored `t64.exe` launcher (PE x64, no exports): truth is its `.pdata`
  RUNTIME_FUNCTION table, parsed here from the raw bytes and checked against
  mingw-w64 objdump's interpreted function table.
- exports.dll (tests/server/fixtures/kinds, built by build.sh with mingw-w64):
  its exports, named by mingw-w64 objdump's export table, sized by `.pdata`.

The server is the real one over stdio with the file as its target. Figures are
printed (`pytest -s`) and held to the issue's bar: >= 95% of the entries are
procedures at the right address with the right size.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pip
import pytest
import pytest_asyncio

from tests.server.binutils_truth import frame_extents, pe_function_table
from tests.server.live import LiveServer

pytestmark = pytest.mark.asyncio(loop_scope="module")

BAR = 0.95
"""Share of the truth's entries the issue asks to see as procedures."""
BUSYBOX_PACKAGE = "busybox-static"
MINGW_PACKAGE = "binutils-mingw-w64-x86-64"
MINGW_OBJDUMP = "x86_64-w64-mingw32-objdump"
EXCEPTION_DIRECTORY = 3
"""Index of the exception table (`.pdata`) among a PE's data directories."""
RUNTIME_FUNCTION = struct.Struct("<III")
EXPORTS_DLL = Path(__file__).resolve().parent / "fixtures" / "kinds" / "exports.dll"
_EXPORT_RVA = re.compile(r"^\t\[\s*(\d+)\] \+base\[\s*\d+\] ([0-9a-f]+) Export RVA$")
_EXPORT_NAME = re.compile(r"^\t\[\s*(\d+)\] (\S+)$")
"""BeginAddress, EndAddress, UnwindInfoAddress: RVAs."""


def missing(reason: str) -> None:
    """A tool the test needs is absent: a failure under CI (.ci/run installs it), else a skip."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (.ci/run installs it)")
    pytest.skip(reason)


def busybox_static() -> str:
    path = shutil.which("busybox") or "/bin/busybox"
    if not os.path.isfile(path):
        missing(f"{BUSYBOX_PACKAGE} is not installed (apt-get install {BUSYBOX_PACKAGE})")
    headers = subprocess.run(["readelf", "-l", "-S", "-W", path], capture_output=True, text=True, check=False).stdout
    if "INTERP" in headers or ".eh_frame_hdr" in headers:
        missing(f"{path} is not Debian's static busybox (apt-get install {BUSYBOX_PACKAGE})")
    return path


def launcher() -> str:
    return str(next(Path(pip.__file__).parent.rglob("t64.exe")))


def pdata_from_bytes(path: str) -> tuple[int, dict[int, int]]:
    """`(imagebase, begin RVA -> size)` of a PE32+ file's RUNTIME_FUNCTIONs, read from its headers by hand."""
    data = Path(path).read_bytes()
    (pe_offset,) = struct.unpack_from("<I", data, 0x3C)
    assert data[pe_offset : pe_offset + 4] == b"PE\0\0"
    sections, optional_size = struct.unpack_from("<2xH12xH", data, pe_offset + 4)
    optional = pe_offset + 24
    assert struct.unpack_from("<H", data, optional)[0] == 0x20B, "PE32+"
    (imagebase,) = struct.unpack_from("<Q", data, optional + 24)
    rva, size = struct.unpack_from("<II", data, optional + 112 + 8 * EXCEPTION_DIRECTORY)
    table = optional + optional_size
    for index in range(sections):
        virtual_size, virtual_address, raw_size, raw_offset = struct.unpack_from("<8xIIII", data, table + 40 * index)
        if virtual_address <= rva < virtual_address + max(virtual_size, raw_size):
            start = raw_offset + rva - virtual_address
            break
    else:
        raise AssertionError("no section holds the exception directory")
    entries = {}
    for at in range(start, start + size, RUNTIME_FUNCTION.size):
        begin, end, _unwind = RUNTIME_FUNCTION.unpack_from(data, at)
        entries[begin] = end - begin
    return imagebase, entries


@pytest.fixture(scope="module")
def binutils_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("readelf") is None:
        pytest.fail("binutils missing: readelf (install binutils; CI has it)")
    return tmp_path_factory.mktemp("binutils")


async def procedures_of(
    path: str, inspect: int | None = None
) -> tuple[dict[int, dict[str, Any]], dict[str, Any], dict[str, Any] | None]:
    """Address -> procedure row of the file's document, the server's layout of it and, when asked,
    inspect_procedure's disassembly of the procedure at `inspect`."""
    server = await LiveServer("--target", path, mode="2026-07-28").start()
    try:
        documents = (await server.structured("list_documents"))["documents"]
        document = next(d for d in documents if os.path.samefile(d["path"], path))
        rows = await server.all_procedures(document["name"])
        layout = (await server.structured("inspect_binary_layout", {"document": document["name"]}))["layout"]
        listing = None
        if inspect is not None:
            args = {"procedure": hex(inspect), "document": document["name"]}
            listing = (await server.structured("inspect_procedure", args))["disassembly"]
    finally:
        await server.stop()
    return {int(row["address"], 16): row for row in rows}, layout, listing


def agreement(name: str, truth: dict[int, int], procedures: dict[int, dict[str, Any]]) -> float:
    at_address = sum(1 for start in truth if start in procedures)
    sized = sum(1 for start, size in truth.items() if procedures.get(start, {}).get("size") == size)
    share = sized / len(truth)
    print(f"\n{name}: truth {len(truth)} server {len(procedures)} at the address {at_address} with the size {sized}")
    print(f"{name}: share {share:.4f} (bar {BAR})")
    return share


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def busybox() -> AsyncIterator[tuple[str, dict[int, dict[str, Any]], dict[str, Any]]]:
    path = busybox_static()
    procedures, layout, _listing = await procedures_of(path)
    yield path, procedures, layout


async def test_static_stripped_elf_procedures_are_its_fdes(
    busybox: tuple[str, dict[int, dict[str, Any]], dict[str, Any]], binutils_cache: Path
) -> None:
    path, procedures, layout = busybox
    truth = frame_extents(path, binutils_cache)
    assert len(truth) > 1000, "Debian's busybox-static has about 2,000 FDEs"
    assert agreement("busybox", truth, procedures) >= BAR
    assert layout["procedure_count"] == len(procedures)


async def test_pe_procedures_are_its_pdata_entries() -> None:
    path = launcher()
    imagebase, pdata = pdata_from_bytes(path)
    assert len(pdata) > 100, "pip's t64.exe has 240 .pdata entries"
    largest = max(pdata, key=lambda begin: pdata[begin])
    procedures, layout, listing = await procedures_of(path, inspect=imagebase + largest)
    assert int(layout["imagebase"], 16) == imagebase
    truth = {imagebase + begin: size for begin, size in pdata.items()}
    assert agreement("t64.exe", truth, procedures) >= BAR
    # A procedure's listing spans its RUNTIME_FUNCTION, not a scan to a fixed bound.
    assert listing is not None
    assert listing["window"]["bytes"] == pdata[largest], listing["window"]


async def test_pdata_parsed_here_agrees_with_mingw_objdump(binutils_cache: Path) -> None:
    """The PE test's hand-read truth is the toolchain's own: mingw-w64 objdump's function table."""
    objdump = shutil.which(MINGW_OBJDUMP)
    if objdump is None:
        missing(f"{MINGW_OBJDUMP} is not installed (apt-get install {MINGW_PACKAGE})")
        return
    path = launcher()
    imagebase, pdata = pdata_from_bytes(path)
    table = pe_function_table(objdump, path, binutils_cache)
    assert table == {imagebase + begin: size for begin, size in pdata.items()}


DATA_EXPORT = "table_names"
"""exports.c's one exported object (a table of string pointers in .rdata), not a function."""


def mingw_exports(objdump: str, path: Path) -> dict[str, int]:
    """Export name -> RVA, from mingw-w64 objdump's export address and name pointer tables."""
    out = subprocess.run([objdump, "-p", str(path)], capture_output=True, text=True, check=True).stdout
    rvas: dict[int, int] = {}
    names: dict[int, str] = {}
    in_names = False
    for line in out.splitlines():
        if line.startswith("[Ordinal/Name Pointer] Table"):
            in_names = True
            continue
        rva = _EXPORT_RVA.match(line)
        if rva is not None:
            rvas[int(rva.group(1))] = int(rva.group(2), 16)
            continue
        name = _EXPORT_NAME.match(line) if in_names else None
        if name is not None:
            names[int(name.group(1))] = name.group(2)
        elif in_names and line.strip():
            in_names = False
    return {names[index]: rvas[index] for index in names}


async def test_pe_exports_are_named_and_sized_by_pdata() -> None:
    objdump = shutil.which(MINGW_OBJDUMP)
    if objdump is None:
        missing(f"{MINGW_OBJDUMP} is not installed (apt-get install {MINGW_PACKAGE})")
        return
    exports = mingw_exports(objdump, EXPORTS_DLL)
    assert set(exports) == {"leaf_add", "greet", "check_password", "sum_table", DATA_EXPORT}
    imagebase, pdata = pdata_from_bytes(str(EXPORTS_DLL))
    procedures, _layout, listing = await procedures_of(str(EXPORTS_DLL), inspect=imagebase + exports["check_password"])
    assert imagebase + exports[DATA_EXPORT] not in procedures, "an exported table is no procedure"
    for name, rva in exports.items():
        if name == DATA_EXPORT:
            continue
        row = procedures.get(imagebase + rva)
        assert row is not None and name in row["names"], (name, row)
        assert row["size"] == pdata[rva], (name, row)
    assert listing is not None and listing["window"]["bytes"] == pdata[exports["check_password"]]
    sized = {imagebase + begin: size for begin, size in pdata.items()}
    assert agreement("exports.dll", sized, procedures) >= BAR
