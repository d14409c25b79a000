"""What the server cannot decode, it says so by name: an unsupported architecture, a truncated file,
unreadable unwind records. Fixtures are copies of real ELF files made here (cut short, `e_machine`
patched, `.eh_frame` overwritten); the untouched original is the control that carries no note."""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.server.live import LiveServer
from tests.server.test_ground_truth_kinds import busybox_static

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="copies the machine's own ELF files"),
]

EM_PPC64 = 21
E_MACHINE_OFFSET = 18
"""Where an ELF header keeps `e_machine` (after e_ident, e_type)."""
KEPT_BYTES = 20_000
"""How much of the original the truncated copy keeps: the headers, not the code or the section table."""
REAL_ELF = "/bin/true"


async def opened(path: Path) -> tuple[LiveServer, dict[str, Any]]:
    server = await LiveServer("--target", str(path), mode="2026-07-28").start()
    documents = (await server.structured("list_documents"))["documents"]
    return server, next(d for d in documents if d["path"] and os.path.samefile(d["path"], path))


def copy_of(tmp_path: Path, name: str, source: str = REAL_ELF) -> Path:
    path = tmp_path / name
    shutil.copyfile(source, path)
    return path


async def test_untouched_elf_carries_no_note(tmp_path: Path) -> None:
    server, document = await opened(copy_of(tmp_path, "true"))
    try:
        assert "not_decoded" not in document
        layout = (await server.structured("inspect_binary_layout", {"document": document["name"]}))["layout"]
        assert "warnings" not in layout
        page = await server.structured("list_procedures", {"document": document["name"]})
        assert "not_decoded" not in page
        assert page["procedures"], "the real /bin/true has procedures"
    finally:
        await server.stop()


async def test_truncated_elf_says_what_lies_past_its_end(tmp_path: Path) -> None:
    path = copy_of(tmp_path, "true-truncated")
    with open(path, "r+b") as file:
        file.truncate(KEPT_BYTES)
    server, document = await opened(path)
    try:
        assert any("truncated file" in note for note in document["not_decoded"]), document
        layout = (await server.structured("inspect_binary_layout", {"document": document["name"]}))["layout"]
        warning = next(w for w in layout["warnings"] if "truncated file" in w)
        assert f"({KEPT_BYTES:,} bytes)" in warning and "segment LOAD" in warning
        page = await server.structured("list_procedures", {"document": document["name"]})
        assert page["not_decoded"] == layout["warnings"]
    finally:
        await server.stop()


async def test_unsupported_architecture_is_named_in_the_listing(tmp_path: Path) -> None:
    path = copy_of(tmp_path, "true-ppc64le")
    with open(path, "r+b") as file:
        file.seek(E_MACHINE_OFFSET)
        file.write(struct.pack("<H", EM_PPC64))
    server, document = await opened(path)
    try:
        expected = "architecture PPC64 (EM_PPC64, little-endian) is not supported for disassembly"
        assert document["not_decoded"] == [expected]
        first = (await server.structured("list_procedures", {"document": document["name"], "limit": 1}))["procedures"]
        args = {"procedure": first[0]["address"], "document": document["name"]}
        reply = await server.structured("inspect_procedure", args)
        assert reply["disassembly"]["note"] == expected
        assert reply["disassembly"]["instructions"] == []
        assert reply["not_decoded"] == [expected]
        refs = await server.structured(
            "find_references", {"address": first[0]["address"], "document": document["name"]}
        )
        assert refs["searched"]["code"] is None and refs["searched"]["code_not_searched"] == expected
        callees = await server.structured("callees", args)
        assert callees["not_decoded"] == [expected]
    finally:
        await server.stop()


async def test_unreadable_unwind_records_are_named(tmp_path: Path) -> None:
    """A static binary's `.eh_frame` overwritten past its first CIE: the reply names the section."""
    source = busybox_static()
    path = copy_of(tmp_path, "busybox-garbled", source)
    headers = subprocess.run(["readelf", "-S", "-W", str(path)], capture_output=True, text=True, check=True).stdout
    found = re.search(r"\.eh_frame\s+PROGBITS\s+[0-9a-f]+ ([0-9a-f]+) ([0-9a-f]+)", headers)
    assert found is not None
    offset, size = int(found.group(1), 16), int(found.group(2), 16)
    kept = 100
    """Bytes of the section left intact: the first CIE and FDE."""
    with open(path, "r+b") as file:
        file.seek(offset + kept)
        file.write(b"\xa5" * (size - kept))
    server, document = await opened(path)
    try:
        assert any(note.startswith(".eh_frame is malformed at offset") for note in document["not_decoded"]), document
        layout = (await server.structured("inspect_binary_layout", {"document": document["name"]}))["layout"]
        assert layout["warnings"] == document["not_decoded"]
    finally:
        await server.stop()


SWIFT_NAME = b"$s4main5helloyyF"
"""A Swift 5 mangled name (`main.hello() -> ()`), written over a C function's name in a copy."""
RENAMED = b"deregister_tm_clones"
"""A local function's name, only in `.strtab`, long enough to hold the Swift name and its NUL."""
STRINGS_AARCH64 = Path(__file__).resolve().parent / "fixtures" / "kinds" / "strings-aarch64"


async def test_swift_names_are_said_to_stay_mangled(tmp_path: Path) -> None:
    path = copy_of(tmp_path, "strings-swift", str(STRINGS_AARCH64))
    data = path.read_bytes()
    assert data.count(b"\0" + RENAMED + b"\0") == 1
    padded = SWIFT_NAME + b"\0" * (len(RENAMED) - len(SWIFT_NAME))
    path.write_bytes(data.replace(b"\0" + RENAMED + b"\0", b"\0" + padded + b"\0"))
    symbols = subprocess.run(["readelf", "-sW", str(path)], capture_output=True, text=True, check=True).stdout
    swift = [line.split()[1] for line in symbols.splitlines() if line.endswith(" " + SWIFT_NAME.decode())]
    assert len(swift) == 1, "readelf sees the Swift name once"
    server, document = await opened(path)
    try:
        notes = [n for n in document["not_decoded"] if n.startswith("Swift names are not demangled")]
        assert notes == [
            "Swift names are not demangled: 1 of the procedures' names are Swift-mangled and offered only as they are"
        ]
        rows = await server.all_procedures(document["name"])
        row = next(r for r in rows if int(r["address"], 16) == int(swift[0], 16))
        assert row["names"] == [SWIFT_NAME.decode()]
    finally:
        await server.stop()
    control, document = await opened(STRINGS_AARCH64)
    try:
        assert not any(n.startswith("Swift") for n in document.get("not_decoded", []))
    finally:
        await control.stop()
