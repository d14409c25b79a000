"""i386 position-independent code: data reached through a base register, against the toolchain's objdump
and the fixture's C source.

The fixture (tests/server/fixtures/kinds/strings-i386) is built by build.sh from strings.c with Debian's
gcc-i686-linux-gnu and committed. Truth: in `i686-linux-gnu-objdump -d -M intel`, each function's call to
a `__x86.get_pc_thunk.REG` puts its return address in REG, a following `add REG, imm` makes it the GOT's
address, and each operand `[REG +/- disp]` after it names that address plus the displacement; and what the
source says: which function uses which string and global.
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
from tests.server.test_ground_truth_aarch64 import USES
from tests.server.test_ground_truth_kinds import missing

pytestmark = pytest.mark.asyncio(loop_scope="module")

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "kinds" / "strings-i386"
OBJDUMP = "i686-linux-gnu-objdump"
OBJDUMP_PACKAGE = "binutils-i686-linux-gnu"
BAR = 0.95
_FUNCTION = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
_INSN = re.compile(r"^\s*([0-9a-f]+):\t(?:[0-9a-f]{2} )+\s*\t(\S+)\s*(.*)$")
_THUNK_CALL = re.compile(r"^[0-9a-f]+ <__x86\.get_pc_thunk\.(\w+)>$")
_ADD = re.compile(r"^(e\w\w),0x([0-9a-f]+)$")
_BASED = re.compile(r"\[(e\w\w)([+-])0x([0-9a-f]+)\]")


def objdump_pairs() -> set[tuple[int, int]]:
    """`(site, address)` of each operand at an offset from a register a thunk call and an add set."""
    tool = shutil.which(OBJDUMP)
    if tool is None:
        missing(f"{OBJDUMP} is not installed (apt-get install {OBJDUMP_PACKAGE})")
        return set()
    out = subprocess.run([tool, "-d", "-w", "-M", "intel", str(FIXTURE)], capture_output=True, text=True).stdout
    pairs: set[tuple[int, int]] = set()
    bases: dict[str, int] = {}
    lines = out.splitlines()
    for number, line in enumerate(lines):
        if _FUNCTION.match(line):
            bases = {}
            continue
        insn = _INSN.match(line)
        if insn is None:
            continue
        site, verb, operands = int(insn.group(1), 16), insn.group(2), insn.group(3)
        thunk = _THUNK_CALL.match(operands) if verb == "call" else None
        if thunk is not None:
            following = _INSN.match(lines[number + 1])
            assert following is not None
            bases["e" + thunk.group(1)] = int(following.group(1), 16)  # the return address
            continue
        added = _ADD.match(operands) if verb == "add" else None
        if added is not None and added.group(1) in bases:
            bases[added.group(1)] += int(added.group(2), 16)
            continue
        based = _BASED.search(operands)
        if based is not None and based.group(1) in bases:
            offset = int(based.group(3), 16)
            pairs.add((site, bases[based.group(1)] + (offset if based.group(2) == "+" else -offset)))
    return pairs


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server() -> AsyncIterator[LiveServer]:
    live = await LiveServer("--target", str(FIXTURE), mode="2026-07-28").start()
    yield live
    await live.stop()


async def based_sites(server: LiveServer, address: int) -> set[int]:
    refs = await server.structured("find_references", {"address": hex(address), "document": FIXTURE.name})
    return {int(s["at"], 16) for row in refs["references"] for s in row["sites"] if s["kind"] == "base_relative"}


async def test_base_relative_references_agree_with_objdump(server: LiveServer) -> None:
    truth = objdump_pairs()
    assert len(truth) >= 8, "strings.c builds at least eight GOT-relative operands"
    got: set[tuple[int, int]] = set()
    for target in sorted({address for _site, address in truth}):
        got |= {(site, target) for site in await based_sites(server, target)}
    hit = len(truth & got)
    recall, precision = hit / len(truth), hit / max(1, len(got))
    print(f"\nstrings-i386: objdump pairs {len(truth)} server {len(got)} agree {hit}")
    print(f"recall {recall:.4f} precision {precision:.4f}")
    assert recall >= BAR and precision >= BAR


async def test_strings_lead_to_the_functions_the_source_uses_them_in(server: LiveServer) -> None:
    for text, function in USES.items():
        refs = await server.structured("find_references", {"string": text, "document": FIXTURE.name})
        users = {name for row in refs["references"] for name in row["procedure"]["names"]}
        assert function in users, (text, refs["references"])
        assert "get_pc_thunk" in refs["searched"]["code"]
    listing = (await server.structured("inspect_procedure", {"procedure": "check_password"}))["disassembly"]
    quoted = [row["refers_to"].get("string") for row in listing["instructions"] if "refers_to" in row]
    assert '"open sesame"' in quoted and '"access denied"' in quoted, listing["instructions"]
