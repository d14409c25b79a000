"""Data references of a PE (base relocations) and a Mach-O (rebases and binds), against the toolchains' own tools.

- exports.dll and exports-i686.dll (tests/server/fixtures/kinds, mingw-w64) and pip's vendored t64.exe
  launcher: every DIR64 and HIGHLOW entry mingw-w64 `objdump -p` prints in its base relocation table, with the word `objdump -s` shows at
  the site, is a relocation the server reads, and it reads no other.
- The Mach-O fixtures (clang and ld64.lld): every rebase `llvm-objdump --macho --rebase` prints, with the word
  `llvm-objdump -s` shows at the site, and every bind to this image (`llvm-objdump --macho --bind`).
- exports.c's and macho.c's `table_names`, a table of two string pointers that no code reads: find_references on
  each string, through the real server over stdio, gives the table's entry as its data reference, named by the
  table's symbol (the PE's export, the Mach-O's symbol table) and its offset.
- Damaged copies (hypothesis): bytes of `.reloc` and of the rebase opcodes overwritten; the server reads them
  without an exception and in bounded time, names a damaged table, and where llvm-objdump still reads a damaged
  rebase stream whole the server's rebases are llvm-objdump's.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import struct
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from rea_tui.server.providers.lief_documents import LiefDocument
from rea_tui.server.providers.macho_rebases import RebaseCheck, Segment, check_rebase_opcodes
from tests.server.live import LiveServer

KINDS = Path(__file__).resolve().parent / "fixtures" / "kinds"
EXPORTS_DLL = KINDS / "exports.dll"
EXPORTS_I686 = KINDS / "exports-i686.dll"
"""The same source for 32-bit x86: HIGHLOW relocations, 4-byte pointers."""
MACHO = {"arm64": KINDS / "macho-arm64", "x86_64": KINDS / "macho-x86_64"}
UNIVERSAL = KINDS / "macho-universal"
MINGW_PACKAGE = "binutils-mingw-w64-x86-64"
MINGW_OBJDUMP = "x86_64-w64-mingw32-objdump"
LLVM_PACKAGE = "llvm"
TABLE_STRINGS = ("alpha table entry", "beta table entry")
"""The strings `table_names` points to, in order (exports.c, macho.c)."""
POINTER_BYTES = 8
REBASE_32_BYTES = 4
"""The width REBASE_TYPE_TEXT_ABSOLUTE32 patches."""
POINTER_WIDTHS = {"DIR64": 8, "HIGHLOW": 4}
"""PE base relocation types that relocate a pointer, and its width."""
HEX_GROUPS_CHARS = 35
"""An `objdump -s` line's hex column: four groups of eight digits and the three spaces between them."""

_IMAGE_BASE = re.compile(r"^ImageBase\s+([0-9a-f]+)$")
_BASE_RELOC = re.compile(r"^\treloc\s+\d+ offset\s+[0-9a-f]+ \[([0-9a-f]+)\] (\S+)$")
_DUMP_LINE = re.compile(r"^ ([0-9a-f]+) ")
_REBASE = re.compile(r"^\S+\s+\S+\s+0x([0-9A-F]+)\s+(pointer|text abs32|text rel32)$")
ADDRESS_REBASES = ("pointer", "text abs32")
"""llvm-objdump's names of the rebase types that hold an address (a `text rel32` rebase holds an offset)."""
_BIND = re.compile(r"^\S+\s+\S+\s+0x([0-9A-F]+)\s+pointer\s+(-?\d+)\s+(\S+)\s+(\S+)$")
_WEAK_BIND = re.compile(r"^\S+\s+\S+\s+0x([0-9A-F]+)\s+pointer\s+(-?\d+)\s+(\S+)$")
_EXPORT = re.compile(r"^0x([0-9A-Fa-f]+)\s+(\S+)$")
_NM = re.compile(r"^([0-9a-f]{16}) ([a-zA-Z]) (\S+)$")
_HEADER_FIELD = re.compile(r"^\s*(rebase_off|rebase_size) (\d+)$")
_SECTION = re.compile(r"^\s*\d+ (\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)")


def missing(reason: str) -> None:
    """A tool the test needs is absent: a failure under CI (.ci/run installs it), else a skip."""
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def tool(name: str, package: str) -> str:
    found = shutil.which(name)
    if found is None:
        missing(f"{name} is not installed (apt-get install {package}; CI's .ci/run installs it)")
    assert found is not None
    return found


def run(*args: str) -> str:
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def launcher() -> Path:
    import pip

    return next(Path(pip.__file__).parent.rglob("t64.exe"))


def dumped_bytes(listing: str) -> dict[int, int]:
    """Address -> byte of every section `objdump -s` (or `llvm-objdump -s`) prints."""
    memory: dict[int, int] = {}
    for line in listing.splitlines():
        found = _DUMP_LINE.match(line)
        if found is None:
            continue
        start = len(found.group(0))
        digits = line[start : start + HEX_GROUPS_CHARS].replace(" ", "")
        for offset, byte in enumerate(bytes.fromhex(digits)):
            memory[int(found.group(1), 16) + offset] = byte
    return memory


def word(memory: dict[int, int], address: int, width: int) -> int | None:
    if any(address + i not in memory for i in range(width)):
        return None
    return int.from_bytes(bytes(memory[address + i] for i in range(width)), "little")


def pe_truth(path: Path, damaged: bool = False) -> dict[int, tuple[int, str]]:
    """Site -> (the word there, type) of every pointer entry of the base relocation table, by mingw objdump (of
    a `damaged` file, only those whose site has bytes in the file: a damaged page address may point anywhere)."""
    objdump = tool(MINGW_OBJDUMP, MINGW_PACKAGE)
    headers = run(objdump, "-p", str(path))
    base = next(int(m.group(1), 16) for line in headers.splitlines() if (m := _IMAGE_BASE.match(line)))
    memory = dumped_bytes(run(objdump, "-s", str(path)))
    truth: dict[int, tuple[int, str]] = {}
    for line in headers.splitlines():
        found = _BASE_RELOC.match(line)
        if found is None or found.group(2) not in POINTER_WIDTHS:
            continue
        site = base + int(found.group(1), 16)
        value = word(memory, site, POINTER_WIDTHS[found.group(2)])
        assert value is not None or damaged, f"objdump -s shows no bytes at relocation site 0x{site:x}"
        if value is not None:
            truth[site] = (value, found.group(2))
    return truth


@dataclass(frozen=True, slots=True)
class MachOTruth:
    rebases: dict[int, int]
    """Site -> the word there, of every rebase."""
    own_binds: set[int]
    """Sites of the binds to this image's own symbols."""
    weak_binds: dict[int, str]
    """Site -> symbol of each weak bind (a weak definition's pointer, rebased as well)."""
    symbols: dict[str, int] = field(default_factory=dict)


def macho_truth(path: Path, arch: str) -> MachOTruth:
    objdump = tool("llvm-objdump", LLVM_PACKAGE)
    rebases_out = run(objdump, "--macho", "--rebase", "--arch", arch, str(path))
    binds_out = run(objdump, "--macho", "--bind", "--arch", arch, str(path))
    weak_out = run(objdump, "--macho", "--weak-bind", "--arch", arch, str(path))
    memory = dumped_bytes(run(objdump, "-s", "--arch", arch, str(path)))
    rebases: dict[int, int] = {}
    for line in rebases_out.splitlines():
        found = _REBASE.match(line)
        if found is not None and found.group(2) == "pointer":
            site = int(found.group(1), 16)
            value = word(memory, site, POINTER_BYTES)
            assert value is not None, f"llvm-objdump -s shows no bytes at rebase site 0x{site:x}"
            rebases[site] = value
    own = {
        int(m.group(1), 16)
        for line in binds_out.splitlines()
        if (m := _BIND.match(line)) and m.group(3) == "this-image"
    }
    weak = {int(m.group(1), 16): m.group(3) for line in weak_out.splitlines() if (m := _WEAK_BIND.match(line))}
    return MachOTruth(rebases, own, weak)


def nm_symbols(path: Path) -> dict[str, int]:
    out = run(tool("llvm-nm", LLVM_PACKAGE), str(path))
    return {m.group(3): int(m.group(1), 16) for line in out.splitlines() if (m := _NM.match(line))}


def served_relocations(path: Path, slice_arch: str | None = None) -> dict[int, tuple[int, str]]:
    """Site -> (target, type) of the relocations the server's document reads (in its own process)."""
    from rea_tui.server.providers.lief_documents import open_documents

    documents = open_documents(str(path))
    doc = next(d for label, d in documents if slice_arch is None or label == slice_arch)
    assert doc.error is None and doc.not_decoded == [], (doc.error, doc.not_decoded)
    tables = doc.data_relocations()
    found = {r.site: (r.target, r.type) for r in tables.relocations}
    assert len(found) == len(tables.relocations), "one relocation per site"
    return found


@pytest.mark.parametrize("which", ["exports.dll", "exports-i686.dll", "t64.exe"])
def test_pe_base_relocations_are_mingw_objdumps(which: str) -> None:
    path = launcher() if which == "t64.exe" else KINDS / which
    truth = pe_truth(path)
    served = served_relocations(path)
    agree = sum(1 for site, entry in truth.items() if served.get(site) == entry)
    print(f"\n{which}: objdump base relocations {len(truth)}, server {len(served)}, same site, word and type {agree}")
    assert len(truth) > 1
    assert served == truth


@pytest.mark.parametrize("arch", ["arm64", "x86_64"])
def test_mach_o_rebases_and_own_binds_are_llvm_objdumps(arch: str) -> None:
    for path, slice_arch in ((MACHO[arch], None), (UNIVERSAL, arch)):
        truth = macho_truth(path, arch)
        served = served_relocations(path, slice_arch)
        rebases = {site: target for site, (target, kind) in served.items() if kind == "REBASE"}
        binds = {site for site, (_target, kind) in served.items() if kind == "BIND"}
        print(
            f"\n{path.name} ({arch}): llvm-objdump rebases {len(truth.rebases)}, server {len(rebases)}; "
            f"binds to this image {len(truth.own_binds)}, server {len(binds)}"
        )
        assert truth.rebases, "the fixture has rebases (table_names)"
        assert rebases == truth.rebases
        assert binds == truth.own_binds
        assert set(served) == set(rebases) | binds
        assert truth.weak_binds, "the fixture has a weak bind (weak_pointer)"
        assert set(truth.weak_binds) <= set(rebases), "a weak definition's pointer is read once, as its rebase"
        if slice_arch is None:
            symbols = nm_symbols(path)
            assert all(rebases[site] == symbols[name] for site, name in truth.weak_binds.items())


async def table_references(path: Path, document: str | None = None) -> list[dict[str, Any]]:
    """find_references on each of table_names' strings, by the live server over stdio."""
    server = await LiveServer("--target", str(path), mode="2026-07-28").start()
    try:
        replies = []
        for text in TABLE_STRINGS:
            scope = {"document": document} if document else {}
            found = await server.structured("search_strings", {"query": text, **scope})
            string = next(s for s in found["strings"] if s["text"] == text)
            reply = await server.structured("find_references", {"string": string["id"], **scope})
            reply["string_address"] = int(string["address"], 16)
            replies.append(reply)
        return replies
    finally:
        await server.stop()


def check_table(
    replies: list[dict[str, Any]], table: int, name: str, kind: str, searched: str, width: int = POINTER_BYTES
) -> None:
    for position, reply in enumerate(replies):
        assert reply["searched"]["data"] == searched and "not_searched" not in reply["searched"], reply["searched"]
        site = table + position * width
        rows = reply["data_references"]
        print(f"  {TABLE_STRINGS[position]!r}: {[(r['at'], r['type'], r['holder']) for r in rows]}")
        assert len(rows) == 1, rows
        row = rows[0]
        assert int(row["at"], 16) == site and int(row["target"], 16) == reply["string_address"]
        assert row["kind"] == "relocation" and row["type"] == kind
        assert row["holder"] == (name if position == 0 else f"{name}+0x{position * width:x}")


@pytest.mark.parametrize(("path", "kind"), [(EXPORTS_DLL, "DIR64"), (EXPORTS_I686, "HIGHLOW")], ids=["x64", "i686"])
def test_a_string_in_an_exported_pe_table_is_found_through_its_relocation(path: Path, kind: str) -> None:
    objdump = tool(MINGW_OBJDUMP, MINGW_PACKAGE)
    from tests.server.test_ground_truth_kinds import DATA_EXPORT, mingw_exports

    headers = run(objdump, "-p", str(path))
    base = next(int(m.group(1), 16) for line in headers.splitlines() if (m := _IMAGE_BASE.match(line)))
    table = base + mingw_exports(objdump, path)[DATA_EXPORT]
    truth = pe_truth(path)
    width = POINTER_WIDTHS[kind]
    assert [truth[table + i * width][1] for i in range(len(TABLE_STRINGS))] == [kind, kind]
    replies = asyncio.run(table_references(path))
    print(f"\n{path.name}: {DATA_EXPORT} at 0x{table:x}")
    check_table(replies, table, DATA_EXPORT, kind, "base relocations (.reloc)", width)


@pytest.mark.parametrize("arch", ["arm64", "x86_64"])
def test_a_weak_definition_is_found_through_its_pointer(arch: str) -> None:
    """find_references on `_weak_counter`'s address: the rebase at `_weak_pointer` (llvm-nm), once."""
    symbols = nm_symbols(MACHO[arch])

    async def ask() -> dict[str, Any]:
        server = await LiveServer("--target", str(MACHO[arch]), mode="2026-07-28").start()
        try:
            return await server.structured("find_references", {"address": hex(symbols["_weak_counter"])})
        finally:
            await server.stop()

    reply = asyncio.run(ask())
    rows = [(int(r["at"], 16), r["type"], r["holder"]) for r in reply["data_references"]]
    shown = [(hex(at), kind, holder) for at, kind, holder in rows]
    print(f"\n{MACHO[arch].name}: _weak_counter at 0x{symbols['_weak_counter']:x}, referred to from {shown}")
    assert rows == [(symbols["_weak_pointer"], "REBASE", "_weak_pointer")]


@pytest.mark.parametrize("arch", ["arm64", "x86_64"])
def test_a_string_in_a_mach_o_table_is_found_through_its_rebase(arch: str) -> None:
    """The unstripped file names the table from its symbol table (llvm-nm), the stripped slice of the universal
    file from its exports trie (`llvm-objdump --macho --exports-trie`)."""
    table = nm_symbols(MACHO[arch])["_table_names"]
    assert set(macho_truth(MACHO[arch], arch).rebases) >= {table, table + POINTER_BYTES}
    replies = asyncio.run(table_references(MACHO[arch]))
    print(f"\n{MACHO[arch].name}: _table_names at 0x{table:x}")
    check_table(replies, table, "_table_names", "REBASE", "rebases and binds (LC_DYLD_INFO)")
    trie = run(tool("llvm-objdump", LLVM_PACKAGE), "--macho", "--exports-trie", "--arch", arch, str(UNIVERSAL))
    exported = {m.group(2): int(m.group(1), 16) for line in trie.splitlines() if (m := _EXPORT.match(line))}
    document = f"{UNIVERSAL.name} ({arch})"
    replies = asyncio.run(table_references(UNIVERSAL, document))
    print(f"{document}: _table_names exported at 0x{exported['_table_names']:x}")
    check_table(replies, exported["_table_names"], "_table_names", "REBASE", "rebases and binds (LC_DYLD_INFO)")


# -- damaged tables: no exception, bounded work, the damage named ----------------------------------------------

BLOCK_HEADER = struct.Struct("<II")
"""A base relocation block's page RVA and size."""
UINT32_MAX = 2**32 - 1
MAX_SECONDS = 10.0
"""A damaged file opens and has its relocations read in well under this (the fixture: milliseconds)."""


def section_file_range(path: Path, name: str) -> tuple[int, int]:
    """`(file offset, size)` of a section, from mingw objdump's section headers."""
    out = run(tool(MINGW_OBJDUMP, MINGW_PACKAGE), "-h", str(path))
    found = next(m for line in out.splitlines() if (m := _SECTION.match(line)) and m.group(1) == name)
    return int(found.group(4), 16), int(found.group(2), 16)


def blocks_tile(table: bytes) -> bool:
    """The test's own walk of a base relocation table: blocks of at least their header, laid end to end, that
    fill it exactly."""
    at = 0
    while at < len(table):
        if at + BLOCK_HEADER.size > len(table):
            return False
        _page, size = BLOCK_HEADER.unpack_from(table, at)
        if size < BLOCK_HEADER.size or at + size > len(table):
            return False
        at += size
    return True


@dataclass(frozen=True, slots=True)
class DamagedTable:
    damage: tuple[str, ...]
    data: bytes = field(repr=False)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(f"DamagedTable({self.damage})")


@st.composite
def damaged_reloc(draw: st.DrawFn) -> DamagedTable:
    data = bytearray(EXPORTS_DLL.read_bytes())
    offset, size = section_file_range(EXPORTS_DLL, ".reloc")
    damage: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            at = draw(st.integers(offset, offset + size - 1))
            written = draw(st.binary(min_size=1, max_size=4))
            data[at : at + len(written)] = written
            damage.append(f"bytes {written.hex()} at 0x{at:x}")
        else:
            # A block's size word (the first block's, or one found by walking from it): the usual damage.
            at = offset + 4
            value = draw(st.sampled_from([0, 1, 7, 8, 9, UINT32_MAX, draw(st.integers(0, UINT32_MAX))]))
            struct.pack_into("<I", data, at, value)
            damage.append(f"first block size 0x{value:x}")
    return DamagedTable(tuple(damage), bytes(data))


def rebase_range(path: Path) -> tuple[int, int]:
    out = run(tool("llvm-objdump", LLVM_PACKAGE), "--macho", "--private-headers", str(path))
    fields = {m.group(1): int(m.group(2)) for line in out.splitlines() if (m := _HEADER_FIELD.match(line))}
    return fields["rebase_off"], fields["rebase_size"]


@st.composite
def damaged_rebases(draw: st.DrawFn) -> DamagedTable:
    data = bytearray(MACHO["arm64"].read_bytes())
    offset, size = rebase_range(MACHO["arm64"])
    damage: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(offset, offset + size - 1))
        written = draw(st.binary(min_size=1, max_size=size))[: offset + size - at]
        data[at : at + len(written)] = written
        damage.append(f"bytes {written.hex()} at 0x{at:x}")
    return DamagedTable(tuple(damage), bytes(data))


def read_in_bounds(path: Path) -> LiefDocument:
    """The server's document of a damaged file: it opens and reads its relocations without an exception, each
    target the word at its site."""
    import time

    started = time.monotonic()
    doc = LiefDocument(str(path))
    tables = doc.data_relocations()
    doc.data_symbols()
    assert time.monotonic() - started < MAX_SECONDS
    for reloc in tables.relocations:
        if reloc.type in POINTER_WIDTHS:
            assert int.from_bytes(doc.read(reloc.site, POINTER_WIDTHS[reloc.type]), "little") == reloc.target
        elif reloc.type == "REBASE":  # a pointer, or a 32-bit absolute address in text (REBASE_TYPE_TEXT_ABSOLUTE32)
            words = {
                int.from_bytes(doc.read(reloc.site, width), "little") for width in (POINTER_BYTES, REBASE_32_BYTES)
            }
            assert reloc.target in words
    return doc


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged=damaged_reloc())
def test_a_damaged_base_relocation_table_is_read_as_far_as_it_holds(
    damaged: DamagedTable, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = tmp_path_factory.mktemp("reloc") / "exports.dll"
    path.write_bytes(damaged.data)
    doc = read_in_bounds(path)
    if doc.error is not None:
        return
    offset, _size = section_file_range(EXPORTS_DLL, ".reloc")
    directory_size = _reloc_directory_size(path)
    table = damaged.data[offset : offset + directory_size]
    named = any("base relocations (.reloc)" in note for note in doc.not_decoded)
    if not blocks_tile(table):
        assert named, (damaged.damage, doc.not_decoded)
    # What mingw objdump reads of the damaged table (entries at sites with bytes), site, type and word alike,
    # or the damage named.
    served = {r.site: (r.target, r.type) for r in doc.data_relocations().relocations}
    truth = pe_truth(path, damaged=True)
    assert named or served == truth, (damaged.damage, len(served), len(truth))


def _reloc_directory_size(path: Path) -> int:
    """The base relocation directory's size, from mingw objdump's data directory list (entry 5)."""
    out = run(tool(MINGW_OBJDUMP, MINGW_PACKAGE), "-p", str(path))
    found = next(line for line in out.splitlines() if line.startswith("Entry 5 "))
    return int(found.split()[3], 16)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged=damaged_rebases())
def test_damaged_rebase_opcodes_are_read_as_far_as_they_hold(
    damaged: DamagedTable, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The server's rebases are llvm-objdump's (those it prints before any error), or the server names the
    damaged stream."""
    path = tmp_path_factory.mktemp("rebases") / "macho-arm64"
    path.write_bytes(damaged.data)
    doc = read_in_bounds(path)
    if doc.error is not None:
        return
    objdump = tool("llvm-objdump", LLVM_PACKAGE)
    listed = subprocess.run([objdump, "--macho", "--rebase", str(path)], capture_output=True, text=True, check=False)
    named = any("rebase opcodes" in note for note in doc.not_decoded)
    rows = [m for line in listed.stdout.splitlines() if (m := _REBASE.match(line))]
    rebases = {int(m.group(1), 16) for m in rows if m.group(2) in ADDRESS_REBASES}
    served = {r.site for r in doc.data_relocations().relocations if r.type == "REBASE"}
    # Read whole, or up to the damage it names (then stopping): llvm-objdump's rebases are the server's, or the
    # server names the damage. (The two differ where dyld and llvm-objdump do: a repeat count of 0.)
    assert named or served == rebases, (damaged.damage, listed.stderr[:300], sorted(served), sorted(rebases))


async def answers(folder: Path) -> list[dict[str, Any]]:
    server = await LiveServer("--target", str(folder), mode="2026-07-28").start()
    try:
        replies = []
        for document in (await server.structured("list_documents"))["documents"]:
            if "error" in document:
                continue
            found = await server.structured("search_strings", {"query": "table entry", "document": document["name"]})
            for string in found["strings"]:
                args = {"string": string["id"], "document": document["name"]}
                replies.append({"document": document, "reply": await server.structured("find_references", args)})
        return replies
    finally:
        await server.stop()


@settings(
    max_examples=2,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # a server start per try: shrinking would take minutes
)
@given(
    relocs=st.lists(damaged_reloc(), min_size=3, max_size=3),
    rebases=st.lists(damaged_rebases(), min_size=3, max_size=3),
)
def test_the_live_server_answers_about_damaged_relocation_tables(
    relocs: list[DamagedTable], rebases: list[DamagedTable], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The real server over stdio, on a directory of damaged copies: find_references answers for each table
    string (no tool error, no crash), with what it searched and the damage it found."""
    folder = tmp_path_factory.mktemp("damaged-tables")
    for number, damaged in enumerate(relocs):
        (folder / f"exports-{number}.dll").write_bytes(damaged.data)
    for number, damaged in enumerate(rebases):
        (folder / f"macho-{number}").write_bytes(damaged.data)
    replies = asyncio.run(answers(folder))
    assert replies, "the damaged copies keep their strings"
    for entry in replies:
        reply, document = entry["reply"], entry["document"]
        assert reply["searched"]["data"] in ("base relocations (.reloc)", "rebases and binds (LC_DYLD_INFO)")
        assert reply.get("not_decoded", []) == document.get("not_decoded", [])


# -- the rebase-opcode check on streams written here --------------------------------------------------------

SEGMENTS = [
    Segment(0, 0x1000),  # __PAGEZERO: no sections
    Segment(0x4000, 0x8000, ((0x4000, 0x4008), (0x4008, 0x4020))),  # __got, then __const right after it
]
SET_POINTER_TYPE = bytes([0x11])
SET_SEGMENT_1 = bytes([0x21])
DONE = bytes([0x00])


def test_a_run_of_rebases_may_go_on_into_the_next_section() -> None:
    stream = SET_POINTER_TYPE + SET_SEGMENT_1 + b"\x00" + bytes([0x54]) + DONE  # four pointers from __got on
    assert check_rebase_opcodes(stream, SEGMENTS, POINTER_BYTES) == RebaseCheck(4, None)


def test_a_hostile_repeat_count_is_named_without_being_stepped_through() -> None:
    huge = bytes([0xFF] * 9 + [0x01])  # ULEB128 of 2**63 + ...: 64 bits
    stream = SET_POINTER_TYPE + SET_SEGMENT_1 + b"\x00" + bytes([0x60]) + huge + DONE
    check = check_rebase_opcodes(stream, SEGMENTS, POINTER_BYTES)
    assert check.rebases == 0 and check.error is not None and "leave the sections" in check.error


def test_a_segment_the_file_lacks_and_a_stream_cut_short_are_named() -> None:
    wrong_segment = SET_POINTER_TYPE + bytes([0x27]) + b"\x00" + bytes([0x51])
    cut = SET_POINTER_TYPE + SET_SEGMENT_1 + b"\x80"
    for stream, said in ((wrong_segment, "segment 7"), (cut, "past the end")):
        check = check_rebase_opcodes(stream, SEGMENTS, POINTER_BYTES)
        assert check.error is not None and said in check.error, check
