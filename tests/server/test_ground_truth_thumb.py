"""32-bit ARM Thumb code decoded as Thumb, against the toolchain's own objdump.

The fixture (tests/server/fixtures/kinds/strings-thumb) is built by build.sh
beside it from strings.c with Debian's gcc-arm-linux-gnueabihf, which emits
Thumb-2: its function symbols carry bit 0 and `$t` mapping symbols mark the
code. Truth: `arm-linux-gnueabihf-objdump -d`, which follows the mapping
symbols. Decoded as ARM, the instruction boundaries would be every 4 bytes and
the calls wrong (`beq #0x12c2f41`).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from tests.server.live import LiveServer
from tests.server.stub_truth import assert_stub_calls_named, objdump_text, plt_calls, plt_labels
from tests.server.test_ground_truth_kinds import missing

pytestmark = pytest.mark.asyncio(loop_scope="module")

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "kinds" / "strings-thumb"
OBJDUMP = "arm-linux-gnueabihf-objdump"
OBJDUMP_PACKAGE = "binutils-arm-linux-gnueabihf"
BAR = 0.95
FUNCTIONS = ("announce", "check_password", "pick", "bump", "main")
"""strings.c's own functions."""
_FUNCTION = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
_INSN = re.compile(r"^\s*([0-9a-f]+):\t[0-9a-f ]+\t(\S+)\s*(.*)$")
_CALL = re.compile(r"^([0-9a-f]+) <")


def objdump_functions() -> dict[str, tuple[list[int], set[int]]]:
    """Function -> (addresses of its instructions, targets of its bl/blx), data words (`.word`) left out."""
    tool = shutil.which(OBJDUMP)
    if tool is None:
        missing(f"{OBJDUMP} is not installed (apt-get install {OBJDUMP_PACKAGE})")
        return {}
    out = subprocess.run([tool, "-d", "-w", str(FIXTURE)], capture_output=True, text=True, check=True).stdout
    functions: dict[str, tuple[list[int], set[int]]] = {}
    current: tuple[list[int], set[int]] | None = None
    for line in out.splitlines():
        header = _FUNCTION.match(line)
        if header is not None:
            current = functions.setdefault(header.group(2), ([], set()))
            continue
        insn = _INSN.match(line)
        if insn is None or current is None or insn.group(2).startswith("."):
            continue
        current[0].append(int(insn.group(1), 16))
        if insn.group(2) in ("bl", "blx"):
            target = _CALL.match(insn.group(3))
            if target is not None:
                current[1].add(int(target.group(1), 16))
    return functions


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server() -> AsyncIterator[LiveServer]:
    live = await LiveServer("--target", str(FIXTURE), mode="2026-07-28").start()
    yield live
    await live.stop()


async def test_thumb_functions_decode_as_objdump_decodes_them(server: LiveServer) -> None:
    truth = objdump_functions()
    wanted = agreed = listed = 0
    for name in FUNCTIONS:
        addresses, calls = truth[name]
        reply = await server.structured("inspect_procedure", {"procedure": name, "max_instructions": 500})
        assert int(reply["procedure"]["address"], 16) == addresses[0], "the procedure starts where objdump's does"
        got = {int(row["address"], 16) for row in reply["disassembly"]["instructions"]}
        wanted += len(addresses)
        agreed += len(got & set(addresses))
        listed += len(got)
        callees = await server.structured("callees", {"procedure": name})
        assert {int(row["target"], 16) for row in callees["callees"]} == calls, name
    share, precision = agreed / wanted, agreed / max(1, listed)
    print(f"\nstrings-thumb: objdump instructions {wanted}, server's {listed}, at the same addresses {agreed}")
    print(f"recall {share:.4f} precision {precision:.4f} (bar {BAR})")
    assert share >= BAR and precision >= BAR


async def test_literal_pools_are_data_not_instructions(server: LiveServer) -> None:
    """check_password's pool (the `.word`s objdump prints after its last instruction, marked by `$d`)."""
    truth = objdump_functions()
    last = truth["check_password"][0][-1]
    reply = await server.structured("inspect_procedure", {"procedure": "check_password", "max_instructions": 500})
    listing = reply["disassembly"]
    assert int(listing["instructions"][-1]["address"], 16) == last
    assert "literal pools" in listing["note"] and "not decoded" in listing["note"], listing["note"]


async def test_one_procedure_per_thumb_function(server: LiveServer) -> None:
    """Bit 0 of a Thumb symbol is not part of its address: no second, odd-addressed procedure."""
    procedures = await server.all_procedures(FIXTURE.name)
    assert all(int(p["address"], 16) % 2 == 0 for p in procedures), procedures
    named = {name for p in procedures for name in p["names"]}
    assert set(FUNCTIONS) <= named


async def test_thumb_calls_to_arm_plt_stubs_are_named_as_objdump_names_them(server: LiveServer) -> None:
    """Thumb code calls the ARM PLT stubs with `blx`; the server names each stub as objdump labels it."""
    disassembly = objdump_text(OBJDUMP, OBJDUMP_PACKAGE, FIXTURE, "-d", "-w")
    labels, calls = plt_labels(disassembly), plt_calls(disassembly)
    assert {"puts@plt", "printf@plt", "strcmp@plt"} <= set(labels.values()), labels
    assert await assert_stub_calls_named(server, FUNCTIONS, calls) >= len(("puts", "printf", "strcmp"))
