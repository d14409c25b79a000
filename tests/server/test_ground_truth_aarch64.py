"""AArch64 `adrp` + `add`/load/store references, against the toolchain's own objdump and the fixture's C source.

The fixture (tests/server/fixtures/kinds/strings-aarch64) is built by
build.sh beside it from strings.c with Debian's gcc-aarch64-linux-gnu and
committed. Truth: every `adrp` in `aarch64-linux-gnu-objdump -d` output paired
with the next instruction of the same function that adds an immediate to its
register or loads or stores at an immediate offset from it; and what the
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
from tests.server.stub_truth import assert_stub_calls_named, objdump_text, plt_calls, plt_labels
from tests.server.test_ground_truth_kinds import missing

pytestmark = pytest.mark.asyncio(loop_scope="module")

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "kinds" / "strings-aarch64"
OBJDUMP = "aarch64-linux-gnu-objdump"
OBJDUMP_PACKAGE = "binutils-aarch64-linux-gnu"
BAR = 0.95
FUNCTIONS = ("announce", "check_password", "pick", "bump", "main")
"""strings.c's own functions."""
USES = {
    "open sesame": "check_password",
    "access granted": "check_password",
    "access denied": "check_password",
    "announce: %s": "announce",
    "nobody": "main",
}
"""String literal -> the function strings.c uses it in."""
_FUNCTION = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
_INSN = re.compile(r"^\s*([0-9a-f]+):\t[0-9a-f]{8} \t(\S+)\s*(.*)$")
_ADRP = re.compile(r"^(x\d+), ([0-9a-f]+)")
_ADD = re.compile(r"^[wx]\d+, (x\d+), #0x([0-9a-f]+)")
_MEMORY = re.compile(r"\[(x\d+), #(-?\d+|0x[0-9a-f]+)\]$")


def objdump_pairs() -> set[tuple[int, int]]:
    """`(site, address)` of each adrp completed by an add or a load/store offset, by objdump's reading."""
    tool = shutil.which(OBJDUMP)
    if tool is None:
        missing(f"{OBJDUMP} is not installed (apt-get install {OBJDUMP_PACKAGE})")
        return set()
    out = subprocess.run([tool, "-d", "-w", str(FIXTURE)], capture_output=True, text=True, check=True).stdout
    pairs: set[tuple[int, int]] = set()
    pages: dict[str, int] = {}
    in_plt = False
    for line in out.splitlines():
        if line.startswith("Disassembly of section"):
            # PLT stubs are not procedures (as for x86-64): the server names them, it does not index them.
            in_plt = line.rstrip(":").endswith(".plt")
        if _FUNCTION.match(line):
            pages = {}
            continue
        if in_plt:
            continue
        insn = _INSN.match(line)
        if insn is None:
            continue
        site, verb, operands = int(insn.group(1), 16), insn.group(2), insn.group(3).split("//")[0].strip()
        if verb == "adrp":
            page = _ADRP.match(operands)
            if page is not None:
                pages[page.group(1)] = int(page.group(2), 16)
            continue
        added = _ADD.match(operands) if verb == "add" else None
        if added is not None and added.group(1) in pages:
            pairs.add((site, pages.pop(added.group(1)) + int(added.group(2), 16)))
            continue
        memory = _MEMORY.search(operands) if verb.startswith(("ld", "st")) else None
        if memory is not None and memory.group(1) in pages:
            pairs.add((site, pages[memory.group(1)] + int(memory.group(2), 0)))
    return pairs


def symbols() -> dict[str, int]:
    listing = subprocess.run(["readelf", "-s", "-W", str(FIXTURE)], capture_output=True, text=True, check=True).stdout
    found = {}
    for line in listing.splitlines():
        parts = line.split()
        if len(parts) >= 8 and parts[0][:-1].isdigit() and parts[6] != "UND":
            found[parts[7]] = int(parts[1], 16)
    return found


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server() -> AsyncIterator[LiveServer]:
    live = await LiveServer("--target", str(FIXTURE), mode="2026-07-28").start()
    yield live
    await live.stop()


async def page_sites(server: LiveServer, address: int) -> set[int]:
    refs = await server.structured("find_references", {"address": hex(address), "document": FIXTURE.name})
    return {int(s["at"], 16) for row in refs["references"] for s in row["sites"] if s["kind"] == "page_relative"}


async def test_adrp_references_agree_with_objdump(server: LiveServer) -> None:
    truth = objdump_pairs()
    assert len(truth) >= 8, "strings.c builds at least eight adrp pairs"
    got: set[tuple[int, int]] = set()
    for target in sorted({address for _site, address in truth}):
        got |= {(site, target) for site in await page_sites(server, target)}
    hit = len(truth & got)
    recall, precision = hit / len(truth), hit / max(1, len(got))
    print(f"\nstrings-aarch64: objdump pairs {len(truth)} server {len(got)} agree {hit}")
    print(f"recall {recall:.4f} precision {precision:.4f}")
    assert recall >= BAR and precision >= BAR


async def test_strings_lead_to_the_functions_the_source_uses_them_in(server: LiveServer) -> None:
    for text, function in USES.items():
        refs = await server.structured("find_references", {"string": text, "document": FIXTURE.name})
        users = {name for row in refs["references"] for name in row["procedure"]["names"]}
        assert function in users, (text, refs["references"])
        assert "adrp" in refs["searched"]["code"]


async def test_globals_lead_to_their_users_and_the_listing_names_them(server: LiveServer) -> None:
    named = symbols()
    counter_sites = await page_sites(server, named["counter"])
    bump = named["bump"]
    assert len(counter_sites) == 2 and all(bump <= site < bump + 0x20 for site in counter_sites)
    assert await page_sites(server, named["greetings"]), "pick reads the greetings table"
    listing = (await server.structured("inspect_procedure", {"procedure": "check_password"}))["disassembly"]
    quoted = [row["refers_to"].get("string") for row in listing["instructions"] if "refers_to" in row]
    assert '"open sesame"' in quoted and '"access denied"' in quoted, listing["instructions"]


async def test_fixture_is_what_build_sh_describes() -> None:
    """The committed fixture is an AArch64 ELF with the functions strings.c defines."""
    header = FIXTURE.read_bytes()[:20]
    assert header[:4] == b"\x7fELF" and int.from_bytes(header[18:20], "little") == 183  # EM_AARCH64
    assert {"announce", "check_password", "pick", "bump", "main", "greetings", "counter"} <= set(symbols())


async def test_plt_stub_calls_are_named_as_objdump_names_them(server: LiveServer) -> None:
    """Every `bl <puts@plt>` objdump prints in strings.c's functions: the listing and callees name the stub."""
    disassembly = objdump_text(OBJDUMP, OBJDUMP_PACKAGE, FIXTURE, "-d", "-w")
    labels, calls = plt_labels(disassembly), plt_calls(disassembly)
    assert {"puts@plt", "printf@plt", "strcmp@plt"} <= set(labels.values()), labels
    assert await assert_stub_calls_named(server, FUNCTIONS, calls) >= len(("puts", "printf", "strcmp"))
