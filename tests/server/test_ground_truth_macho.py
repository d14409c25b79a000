"""Mach-O: every slice of a universal binary, and a stripped file's procedures from `LC_FUNCTION_STARTS`,
against LLVM's own tools on the same files.

The fixtures (tests/server/fixtures/kinds/macho-*, built by build.sh beside them from macho.c with clang
and ld64.lld) are an unstripped arm64 and x86_64 program, a stripped copy of the x86_64 one, and a
universal file whose two slices (arm64, x86_64) are both stripped. Truth, per file and per slice
(`--arch`): `llvm-objdump --macho --function-starts` (where procedures start), `llvm-objdump -h` (the end
of `__text`, where the last one ends), `llvm-nm` of the unstripped files (names), `llvm-objdump --macho
--exports-trie` (the names a stripped file keeps) and `llvm-objdump -d --macho` (instructions, and the
string each instruction's "literal pool" comment names). The server is the real one over stdio.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import struct
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from rea_tui.server.providers.lief_documents import open_documents
from tests.server.live import LiveServer

on_the_module_loop = pytest.mark.asyncio(loop_scope="module")
"""The async tests share the module's server (its fixture lives on the module's loop)."""

KINDS = Path(__file__).resolve().parent / "fixtures" / "kinds"
UNSTRIPPED = {"arm64": KINDS / "macho-arm64", "x86_64": KINDS / "macho-x86_64"}
STRIPPED_X86_64 = KINDS / "macho-x86_64-stripped"
UNIVERSAL = KINDS / "macho-universal"
SLICE_ARCH = {"arm64": "ARM64", "x86_64": "X86_64"}
"""lipo's architecture name -> the `arch` the server reports for the document."""
BAR = 0.95
"""Share of the function starts the issue asks to see as procedures at the right address (and size)."""
LLVM_PACKAGE = "llvm"
MIN_STRING = 4
"""The server's strings are runs of at least this many printable characters."""
STRIPPED_NAMES = {"__mh_execute_header"}
"""The one symbol llvm-strip leaves in an executable: the Mach header's, which is no procedure."""
MAX_INSTRUCTIONS = 512
"""inspect_procedure's largest page."""

_HEX_LINE = re.compile(r"^([0-9a-f]{8,16})$")
_SECTION = re.compile(r"^\s*\d+ (\S+)\s+([0-9a-f]+) ([0-9a-f]+)")
_NM = re.compile(r"^([0-9a-f]{16}) ([a-zA-Z]) (\S+)$")
_EXPORT = re.compile(r"^0x([0-9A-Fa-f]+)\s+(\S+)$")
_INSN = re.compile(r"^([0-9a-f]+):\t[0-9a-f ]+\t(\S+)(?:\t(.*))?$")
_LITERAL = re.compile(r'literal pool for: "(.*)"$')


def llvm(tool: str) -> str:
    found = shutil.which(tool)
    if found is None:
        pytest.fail(f"{tool} is missing: apt-get install {LLVM_PACKAGE} (CI's .ci/run installs it)")
    return found


def run(*args: str) -> str:
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


@dataclass(frozen=True, slots=True)
class Instruction:
    address: int
    mnemonic: str
    literal: str | None
    """The C string llvm-objdump's comment says the instruction's operand points to."""


@dataclass(frozen=True, slots=True)
class SliceTruth:
    starts: dict[int, int]
    """Function start -> size: to the next start, the last to the end of `__text`."""
    exports: dict[int, str]
    """Address -> name, from the exports trie."""
    instructions: list[Instruction]


def slice_truth(path: Path, arch: str) -> SliceTruth:
    objdump = llvm("llvm-objdump")
    starts_out = run(objdump, "--macho", "--function-starts", "--arch", arch, str(path))
    starts = sorted(int(m.group(1), 16) for line in starts_out.splitlines() if (m := _HEX_LINE.match(line)))
    sections = run(objdump, "-h", "--arch", arch, str(path))
    text = next(m for line in sections.splitlines() if (m := _SECTION.match(line)) and m.group(1) == "__text")
    text_end = int(text.group(3), 16) + int(text.group(2), 16)
    ends = [*starts[1:], text_end]
    exports_out = run(objdump, "--macho", "--exports-trie", "--arch", arch, str(path))
    exports = {int(m.group(1), 16): m.group(2) for line in exports_out.splitlines() if (m := _EXPORT.match(line))}
    syntax = ["-M", "intel"] if arch == "x86_64" else []
    listing = run(objdump, "-d", "--macho", "--arch", arch, *syntax, str(path))
    instructions = []
    for line in listing.splitlines():
        found = _INSN.match(line)
        if found is not None:
            literal = _LITERAL.search(found.group(3) or "")
            mnemonic = found.group(2)
            instructions.append(Instruction(int(found.group(1), 16), mnemonic, literal.group(1) if literal else None))
    return SliceTruth(
        dict(zip(starts, (end - start for start, end in zip(starts, ends, strict=True)), strict=True)),
        exports,
        instructions,
    )


def nm_functions(path: Path) -> dict[int, str]:
    """Address -> name of the text symbols (`t`/`T`) of an unstripped file, from llvm-nm."""
    out = run(llvm("llvm-nm"), str(path))
    rows = [m for line in out.splitlines() if (m := _NM.match(line))]
    return {int(m.group(1), 16): m.group(3) for m in rows if m.group(2) in "tT" and m.group(3) not in STRIPPED_NAMES}


def agreement(label: str, truth: dict[int, int], procedures: dict[int, dict[str, Any]]) -> tuple[float, float]:
    at_address = sum(1 for start in truth if start in procedures)
    sized = sum(1 for start, size in truth.items() if procedures.get(start, {}).get("size") == size)
    print(
        f"\n{label}: function starts {len(truth)}, server procedures {len(procedures)}, "
        f"at the address {at_address} ({at_address / len(truth):.2%}), with the size {sized} ({sized / len(truth):.2%})"
    )
    return at_address / len(truth), sized / len(truth)


@dataclass(slots=True)
class Opened:
    server: LiveServer
    documents: dict[str, dict[str, Any]]
    """list_documents' rows by name."""
    procedures: dict[str, dict[int, dict[str, Any]]]
    """Document name -> address -> list_procedures row."""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def opened(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Opened]:
    """One server over a directory holding every fixture, so each is a document (a universal file, two)."""
    folder = tmp_path_factory.mktemp("macho")
    for fixture in (*UNSTRIPPED.values(), STRIPPED_X86_64, UNIVERSAL):
        shutil.copyfile(fixture, folder / fixture.name)
    server = await LiveServer("--target", str(folder), mode="2026-07-28").start()
    try:
        rows = (await server.structured("list_documents"))["documents"]
        documents = {row["name"]: row for row in rows}
        procedures = {name: {int(p["address"], 16): p for p in await server.all_procedures(name)} for name in documents}
        yield Opened(server, documents, procedures)
    finally:
        await server.stop()


@on_the_module_loop
async def test_every_slice_of_a_universal_binary_is_a_document(opened: Opened) -> None:
    lipo_order = ["x86_64", "arm64"]  # llvm-lipo writes the slices by alignment, x86_64 (4 KiB pages) first
    names = [name for name in opened.documents if name.startswith(UNIVERSAL.name)]
    assert names == [f"{UNIVERSAL.name} ({arch})" for arch in lipo_order], names
    for arch in lipo_order:
        document = opened.documents[f"{UNIVERSAL.name} ({arch})"]
        assert document["arch"] == SLICE_ARCH[arch] and document["format"] == "MachO", document
        assert Path(document["path"]).name == UNIVERSAL.name
        assert "not_decoded" not in document and "error" not in document, document
        truth = slice_truth(UNIVERSAL, arch)
        procedures = opened.procedures[document["name"]]
        at_address, sized = agreement(f"{UNIVERSAL.name} ({arch})", truth.starts, procedures)
        assert at_address >= BAR and sized >= BAR
        assert document["procedure_count"] == len(procedures)


@on_the_module_loop
async def test_a_stripped_file_has_its_function_starts_as_procedures(opened: Opened) -> None:
    """The stripped x86_64 file and both stripped slices: every function start a procedure, sized to the
    next; the exported functions named from the exports trie, the static ones unnamed."""
    stripped = {"macho-x86_64-stripped": (STRIPPED_X86_64, "x86_64")}
    stripped |= {f"{UNIVERSAL.name} ({arch})": (UNIVERSAL, arch) for arch in SLICE_ARCH}
    for name, (path, arch) in stripped.items():
        truth = slice_truth(path, arch)
        procedures = opened.procedures[name]
        at_address, sized = agreement(name, truth.starts, procedures)
        assert at_address >= BAR and sized >= BAR
        exported = {a: n for a, n in truth.exports.items() if a in truth.starts}
        unnamed = set(truth.starts) - set(exported)
        assert exported and unnamed, "the fixture has both exported and static functions"
        named = sum(1 for address, export in exported.items() if export in procedures.get(address, {}).get("names", []))
        print(f"{name}: exported functions {len(exported)}, named {named}; static ones unnamed {len(unnamed)}")
        assert named == len(exported)
        assert all(procedures[address]["names"] == [] for address in unnamed if address in procedures)
        header = next(a for a, n in truth.exports.items() if n in STRIPPED_NAMES)
        assert header not in procedures, "the Mach header is no procedure"


@on_the_module_loop
async def test_an_unstripped_file_names_every_function(opened: Opened) -> None:
    for arch, path in UNSTRIPPED.items():
        truth = slice_truth(path, arch)
        symbols = nm_functions(path)
        assert set(symbols) == set(truth.starts), "every text symbol of the fixture starts a function"
        procedures = opened.procedures[path.name]
        at_address, sized = agreement(path.name, truth.starts, procedures)
        named = sum(1 for address, name in symbols.items() if name in procedures.get(address, {}).get("names", []))
        print(f"{path.name}: llvm-nm functions {len(symbols)}, named at their address {named}")
        assert at_address >= BAR and sized >= BAR and named == len(symbols)
        assert set(procedures) == set(truth.starts), "no procedure but a function (no data symbol, no header)"


@on_the_module_loop
async def test_each_slice_is_listed_as_llvm_objdump_decodes_it(opened: Opened) -> None:
    """Every procedure of each slice, disassembled by the server, against `llvm-objdump -d --arch`."""
    for arch in SLICE_ARCH:
        document = f"{UNIVERSAL.name} ({arch})"
        truth = {i.address: i.mnemonic for i in slice_truth(UNIVERSAL, arch).instructions}
        listed: dict[int, str] = {}
        for address in opened.procedures[document]:
            offset: int | None = 0
            while offset is not None:
                args = {"procedure": hex(address), "document": document, "offset": offset}
                reply = await opened.server.structured(
                    "inspect_procedure", {**args, "max_instructions": MAX_INSTRUCTIONS}
                )
                disassembly = reply["disassembly"]
                assert disassembly["arch"] == SLICE_ARCH[arch] and disassembly["note"] is None
                listed |= {int(i["address"], 16): i["mnemonic"] for i in disassembly["instructions"]}
                offset = disassembly["next_offset"]
        agree = sum(1 for address, mnemonic in truth.items() if listed.get(address) == mnemonic)
        print(
            f"\n{document}: llvm-objdump instructions {len(truth)}, listed {len(listed)}, same address and mnemonic {agree}"
        )
        assert set(listed) == set(truth)
        assert agree / len(truth) >= BAR


@on_the_module_loop
async def test_each_slice_finds_the_code_that_uses_a_string(opened: Opened) -> None:
    """Strings by search_strings and their users by find_references, per slice, against the functions
    whose instructions llvm-objdump comments with the string (x86-64 RIP-relative, arm64 adrp + add)."""
    for arch in SLICE_ARCH:
        document = f"{UNIVERSAL.name} ({arch})"
        truth = slice_truth(UNIVERSAL, arch)
        starts = sorted(truth.starts)
        users: dict[str, set[int]] = {}
        for instruction in truth.instructions:
            if instruction.literal is not None and len(instruction.literal) >= MIN_STRING:
                owner = max(start for start in starts if start <= instruction.address)
                users.setdefault(instruction.literal, set()).add(owner)
        assert {"access granted", "announce: ", "nobody"} <= set(users), users
        for text, functions in users.items():
            found = await opened.server.structured("search_strings", {"query": text, "document": document})
            string = next(s for s in found["strings"] if s["text"] == text)
            refs = await opened.server.structured("find_references", {"string": string["id"], "document": document})
            by_server = {int(r["procedure"]["address"], 16) for r in refs["references"]}
            assert by_server == functions, (document, text, by_server, functions)
        print(f"\n{document}: {len(users)} strings, each found with the functions llvm-objdump says use it")


@on_the_module_loop
async def test_a_slice_is_told_apart_by_its_architecture(opened: Opened) -> None:
    """A name both slices export is offered qualified by each slice's document, and each qualified form
    reaches that slice's function (its address in that slice's exports trie)."""
    values = (await opened.server.complete("procedure", "_main")).values
    for arch in SLICE_ARCH:
        qualified = f"_main@{UNIVERSAL.name} ({arch})"
        assert qualified in values, values
        reply = await opened.server.structured("inspect_procedure", {"procedure": qualified, "max_instructions": 1})
        exported = {name: address for address, name in slice_truth(UNIVERSAL, arch).exports.items()}
        assert reply["document"]["name"] == f"{UNIVERSAL.name} ({arch})"
        assert int(reply["procedure"]["address"], 16) == exported["_main"]
        assert reply["disassembly"]["arch"] == SLICE_ARCH[arch]


# -- damaged files: never a crash, and what was not decoded is named ---------------------------------------

FAT_HEADER = struct.Struct(">II")
"""magic, slice count (big-endian)."""
FAT_ARCH = struct.Struct(">iiIII")
"""cputype, cpusubtype, offset, size, align."""
COUNT_AT = 4
"""Where a fat header keeps its slice count (after the magic)."""
OFFSET_AT = 8
SIZE_AT = 12
"""Where a `fat_arch` entry keeps its slice's offset and size."""
UINT32_MAX = 2**32 - 1
MAX_SLICES = 32
"""The most slices the server reads of a fat header (more is no universal binary: a Java class file)."""
ABOVE_THE_BOUND = 8
"""How far past that bound a drawn slice count goes."""
MACH_HEADER_64 = 32
"""Bytes of a 64-bit Mach header, after which the load commands start."""
SIZEOFCMDS_AT = 20
"""Where a Mach header keeps the size of its load commands."""
DAMAGED_PER_SERVER = 8
"""Damaged files one live server opens at once (as one directory)."""


@dataclass(frozen=True, slots=True)
class Damaged:
    damage: tuple[str, ...]
    """What was done to the fixture, for the report of a failing example."""
    data: bytes = field(repr=False)
    lies: tuple[int, ...] = ()
    """Slices (from 1) whose claimed extent the file cannot hold: past its end or inside the header."""
    count: int | None = None

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """What a failing example shows: the damage, not the file's bytes."""
        printer.text(f"Damaged({self.damage}, {len(self.data):,} bytes, lies={self.lies}, count={self.count})")

    """The slice count of a fat header that holds together, else None."""


def claimed_slices(data: bytes) -> tuple[int | None, tuple[int, ...]]:
    """The test's own reading of a fat header: its slice count (None when it cannot hold) and the slices
    whose extent is not in the file."""
    if len(data) < FAT_HEADER.size:
        return None, ()
    _magic, count = FAT_HEADER.unpack_from(data)
    header_end = FAT_HEADER.size + count * FAT_ARCH.size
    if not 0 < count <= MAX_SLICES or header_end > len(data):
        return None, ()
    lies = []
    for index in range(count):
        _cpu, _sub, offset, size, _align = FAT_ARCH.unpack_from(data, FAT_HEADER.size + index * FAT_ARCH.size)
        if offset < header_end or offset + size > len(data) or size == 0:
            lies.append(index + 1)
    return count, tuple(lies)


@st.composite
def damaged_universal(draw: st.DrawFn) -> Damaged:
    data = bytearray(UNIVERSAL.read_bytes())
    count = FAT_HEADER.unpack_from(data)[1]
    damage: list[str] = []
    for _ in range(draw(st.integers(0, 3))):
        slice_index = draw(st.integers(0, count - 1))
        entry = FAT_HEADER.size + slice_index * FAT_ARCH.size
        part = draw(st.sampled_from(["offset", "size", "count", "load commands"]))
        if part in ("offset", "size"):
            value = draw(st.integers(0, UINT32_MAX))
            struct.pack_into(">I", data, entry + (OFFSET_AT if part == "offset" else SIZE_AT), value)
            damage.append(f"slice {slice_index + 1} {part} 0x{value:x}")
        elif part == "count":
            value = draw(st.integers(0, MAX_SLICES + ABOVE_THE_BOUND))
            struct.pack_into(">I", data, COUNT_AT, value)
            damage.append(f"count {value}")
        else:
            start = FAT_ARCH.unpack_from(data, entry)[2]
            commands = (
                struct.unpack_from("<I", data, start + SIZEOFCMDS_AT)[0] if start + MACH_HEADER_64 < len(data) else 0
            )
            if commands:
                at = draw(st.integers(start + MACH_HEADER_64, min(len(data), start + MACH_HEADER_64 + commands) - 1))
                written = draw(st.binary(min_size=1, max_size=4))
                data[at : at + len(written)] = written
                damage.append(f"bytes {written.hex()} at 0x{at:x}")
    cut = draw(st.integers(0, len(data)))
    if draw(st.booleans()):
        del data[cut:]
        damage.append(f"cut at 0x{cut:x}")
    count_read, lies = claimed_slices(bytes(data))
    return Damaged(tuple(damage), bytes(data), lies, count_read)


@dataclass(frozen=True, slots=True)
class DamagedThin:
    damage: tuple[str, ...]
    data: bytes = field(repr=False)
    garbled: bool = False
    """Whether its load commands were overwritten (then a cut need not fall past a segment's end)."""

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(f"DamagedThin({self.damage}, {len(self.data):,} bytes)")


@st.composite
def damaged_thin(draw: st.DrawFn) -> DamagedThin:
    """The stripped thin file cut short, its load commands overwritten in places."""
    data = bytearray(STRIPPED_X86_64.read_bytes())
    commands = struct.unpack_from("<I", data, SIZEOFCMDS_AT)[0]
    damage: list[str] = []
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(MACH_HEADER_64, MACH_HEADER_64 + commands - 1))
        written = draw(st.binary(min_size=1, max_size=4))
        data[at : at + len(written)] = written
        damage.append(f"bytes {written.hex()} at 0x{at:x}")
    cut = draw(st.integers(0, len(data)))
    damage.append(f"cut at 0x{cut:x}")
    return DamagedThin(tuple(damage), bytes(data[:cut]), garbled=len(damage) > 1)


def said(texts: list[str], slice_index: int, count: int) -> bool:
    return any(f"slice {slice_index} of {count}" in text for text in texts)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged=damaged_universal())
def test_a_damaged_universal_file_is_read_as_far_as_it_holds(
    damaged: Damaged, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """In the server's own process: no exception, a document per slice the header lists, and every slice
    whose claimed extent the file cannot hold named, on its document's error or not_decoded."""
    path = tmp_path_factory.mktemp("damaged") / "universal"
    path.write_bytes(damaged.data)
    documents = open_documents(str(path))
    texts = [text for _label, doc in documents for text in [*doc.not_decoded, doc.error or ""]]
    if damaged.count is None:
        assert len(documents) == 1 and documents[0][1].error is not None
        return
    assert len(documents) == damaged.count
    for index in damaged.lies:
        assert said(texts, index, damaged.count), (index, texts)
    for _label, doc in documents:
        addresses = [r.address for r in doc.inventory.records]
        assert addresses == sorted(set(addresses))
        assert all(r.size is None or r.size > 0 for r in doc.inventory.records)


async def served(folder: Path) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Every document of `folder` by the live server, each with the replies about its first procedure."""
    server = await LiveServer("--target", str(folder), mode="2026-07-28").start()
    try:
        documents = (await server.structured("list_documents"))["documents"]
        replies: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
        for document in documents:
            if "error" in document:
                replies.append((document, []))
                continue
            page = await server.structured("list_procedures", {"document": document["name"], "limit": 1})
            about = [page, await server.structured("inspect_binary_layout", {"document": document["name"]})]
            if page["procedures"]:
                args = {"procedure": page["procedures"][0]["address"], "document": document["name"]}
                about.append(await server.structured("inspect_procedure", args))
                where = {"address": args["procedure"], "document": document["name"]}
                about.append(await server.structured("find_references", where))
            replies.append((document, about))
        assert (await server.session_state())["state"] != "opening"
        return replies
    finally:
        await server.stop()


@settings(
    max_examples=3,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # a server start per try: shrinking would take minutes
)
@given(
    universal=st.lists(damaged_universal(), min_size=DAMAGED_PER_SERVER // 2, max_size=DAMAGED_PER_SERVER // 2),
    thin=st.lists(damaged_thin(), min_size=DAMAGED_PER_SERVER // 2, max_size=DAMAGED_PER_SERVER // 2),
)
def test_the_live_server_answers_about_damaged_mach_o_files(
    universal: list[Damaged], thin: list[DamagedThin], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The real server over stdio, on a directory of damaged universal and thin files: it answers for each
    document (no tool error, no crash), and names what it did not decode."""
    folder = tmp_path_factory.mktemp("damaged-served")
    expected: dict[str, Damaged] = {}
    for number, damaged in enumerate(universal):
        (folder / f"universal-{number}").write_bytes(damaged.data)
        expected[f"universal-{number}"] = damaged
    garbled: dict[str, bool] = {}
    for number, damaged_file in enumerate(thin):
        (folder / f"thin-{number}").write_bytes(damaged_file.data)
        garbled[f"thin-{number}"] = damaged_file.garbled
    replies = asyncio.run(served(folder))
    for name, damaged in expected.items():
        rows = [document for document, _about in replies if document["name"].split(" (")[0] == name]
        if not rows:
            continue  # a cut too short to carry a magic number is no binary: the directory leaves it out
        texts = [text for row in rows for text in [*row.get("not_decoded", []), row.get("error", "")]]
        if damaged.count is not None:
            assert len(rows) == damaged.count, (name, rows)
            for index in damaged.lies:
                assert said(texts, index, damaged.count), (name, index, texts)
    for document, about in replies:
        for reply in about:
            assert reply.get("not_decoded", []) == document.get("not_decoded", []) or "layout" in reply
        if document["name"] in garbled and not garbled[document["name"]] and "error" not in document:
            size = (folder / document["name"]).stat().st_size
            truncated = size < STRIPPED_X86_64.stat().st_size
            notes = document.get("not_decoded", [])
            assert not truncated or any("truncated file" in note for note in notes), (document, size)


FAT_MAGIC_64 = 0xCAFEBABF
FAT_ARCH_64 = struct.Struct(">iiQQII")
"""cputype, cpusubtype, offset, size, align, reserved."""


def test_a_universal_header_with_64_bit_offsets_reads_the_same_slices(tmp_path: Path) -> None:
    """`lipo -fat64`'s header (64-bit offsets and sizes), written here over the fixture's: the same slices."""
    data = bytearray(UNIVERSAL.read_bytes())
    count = FAT_HEADER.unpack_from(data)[1]
    entries = [FAT_ARCH.unpack_from(data, FAT_HEADER.size + i * FAT_ARCH.size) for i in range(count)]
    wide = FAT_HEADER.pack(FAT_MAGIC_64, count) + b"".join(FAT_ARCH_64.pack(*entry, 0) for entry in entries)
    assert len(wide) <= min(entry[2] for entry in entries), "the wider header still ends before the first slice"
    data[: FAT_HEADER.size + count * FAT_ARCH.size] = bytes(FAT_HEADER.size + count * FAT_ARCH.size)
    data[: len(wide)] = wide
    path = tmp_path / "universal-fat64"
    path.write_bytes(bytes(data))
    narrow = open_documents(str(UNIVERSAL))
    read = open_documents(str(path))
    assert [label for label, _doc in read] == [label for label, _doc in narrow] == ["x86_64", "arm64"]
    for (_label, doc), (_same, expected) in zip(read, narrow, strict=True):
        assert doc.error is None and doc.not_decoded == []
        assert doc.inventory.records == expected.inventory.records and len(doc.inventory.records) == len(
            slice_truth(UNIVERSAL, "x86_64" if doc.arch == "X86_64" else "arm64").starts
        )
