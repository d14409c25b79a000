"""Calls to imported functions as a toolchain's objdump names them: `bl 6b0 <puts@plt>`.

objdump labels each PLT stub `<name@plt>` (from the relocation its slot
carries) and prints every direct call to one with that label; the tests
compare the server's names for the same call sites with these.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from tests.server.live import LiveServer
from tests.server.test_ground_truth_kinds import missing

_FUNCTION = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
_DIRECT = re.compile(r"^\s*([0-9a-f]+):\t[0-9a-f ]+\t(\S+)\s+([0-9a-f]+) <([^>+]+@plt)>")
"""`  8a4:\tebfffff7 \tbl\t6b0 <puts@plt>`: site, mnemonic, target and the stub's label."""


def objdump_text(tool_name: str, package: str, path: Path, *options: str) -> str:
    tool = shutil.which(tool_name)
    if tool is None:
        missing(f"{tool_name} is not installed (apt-get install {package})")
        return ""
    return subprocess.run([tool, *options, str(path)], capture_output=True, text=True, check=True).stdout


def plt_labels(disassembly: str) -> dict[int, str]:
    """Stub address -> `name@plt`, from `objdump -d`'s labels."""
    return {
        int(found.group(1), 16): found.group(2)
        for line in disassembly.splitlines()
        if (found := _FUNCTION.match(line)) is not None and found.group(2).endswith("@plt")
    }


def plt_calls(disassembly: str) -> dict[str, dict[int, tuple[int, str]]]:
    """Function -> {call site: (stub address, `name@plt`)} for every branch objdump prints to a stub."""
    calls: dict[str, dict[int, tuple[int, str]]] = {}
    current: dict[int, tuple[int, str]] | None = None
    for line in disassembly.splitlines():
        header = _FUNCTION.match(line)
        if header is not None:
            current = calls.setdefault(header.group(2), {})
            continue
        call = _DIRECT.match(line)
        if call is not None and current is not None:
            current[int(call.group(1), 16)] = (int(call.group(3), 16), call.group(4))
    return calls


async def assert_stub_calls_named(
    server: LiveServer, functions: tuple[str, ...], calls: dict[str, dict[int, tuple[int, str]]]
) -> int:
    """Each function's calls to stubs, as objdump names them, are named so by the listing and by callees;
    returns how many were compared."""
    compared = 0
    for function in functions:
        wanted = calls[function]
        listing = await server.structured("inspect_procedure", {"procedure": function, "max_instructions": 500})
        targets = {
            int(row["address"], 16): (int(row["target"]["address"], 16), row["target"]["name"])
            for row in listing["disassembly"]["instructions"]
            if "target" in row
        }
        for site, truth in wanted.items():
            assert targets.get(site) == truth, (function, hex(site), targets.get(site), truth)
        named_calls = {int(c["at"], 16): c["names"] for c in listing["disassembly"]["calls"]}
        assert all(named_calls.get(site) == [name] for site, (_stub, name) in wanted.items()), named_calls
        callees = await server.structured("callees", {"procedure": function})
        by_target = {int(row["target"], 16): row for row in callees["callees"]}
        for site, (stub, name) in wanted.items():
            row = by_target[stub]
            assert row["names"] == [name] and row["import"] == name.removesuffix("@plt"), row
            assert site in {int(s["at"], 16) for s in row["sites"]}, row
        compared += len(wanted)
    return compared


_IMAGE_BASE = re.compile(r"^ImageBase\s+([0-9a-f]+)$")
_DESCRIPTOR = re.compile(r"^ ([0-9a-f]{8})\t[0-9a-f]{8} [0-9a-f]{8} [0-9a-f]{8} [0-9a-f]{8} ([0-9a-f]{8})$")
"""An import descriptor's row in `objdump -p`: its address, then the IAT's (First Thunk) RVA last."""
_MEMBER = re.compile(r"^\t([0-9a-f]+)\t\s*(\d+)\s+(\S+)")
IAT_ENTRY_BYTES = 8
"""A PE32+ IAT entry: one 64-bit address."""
_PE_SLOT_BRANCH = re.compile(
    r"^\s*([0-9a-f]+):\t[0-9a-f ]+\t(?:rex\.W )?(call|jmp)\s+\*-?0x[0-9a-f]+\(%rip\)\s+# 0x([0-9a-f]+)"
)
_PE_DIRECT = re.compile(r"^\s*([0-9a-f]+):\t[0-9a-f ]+\t(call|jmp)\s+0x([0-9a-f]+)")


def pe_iat(private_headers: str) -> dict[int, tuple[str, str]]:
    """IAT entry address -> (DLL, function), from `objdump -p`'s import tables (each DLL's entries in
    order from its First Thunk)."""
    base = 0
    iat: dict[int, tuple[str, str]] = {}
    first_thunks: list[int] = []
    library, entry, listed = "", 0, 0
    for line in private_headers.splitlines():
        if (found := _IMAGE_BASE.match(line)) is not None:
            base = int(found.group(1), 16)
        elif (found := _DESCRIPTOR.match(line)) is not None and int(found.group(2), 16):
            first_thunks.append(int(found.group(2), 16))
        elif line.strip().startswith("DLL Name:"):
            library = line.split(":", 1)[1].strip()
            entry = base + first_thunks[listed]  # the DLLs are listed in their descriptors' order
            listed += 1
        elif (found := _MEMBER.match(line)) is not None and library:
            iat[entry] = (library, found.group(3))
            entry += IAT_ENTRY_BYTES
        elif line.startswith("There is an export table") or line.startswith("The Export Tables"):
            library = ""
    return iat


def pe_import_calls(disassembly: str, iat: dict[int, tuple[str, str]]) -> tuple[dict[int, int], dict[int, int]]:
    """`call`/`jmp [rip + IAT entry]` sites -> the entry (the thunks' own jumps left out), and direct call/jump
    sites -> the thunk they reach (a plain `jmp [rip + IAT entry]` that objdump decodes at the target)."""
    through_iat: dict[int, int] = {}
    plain_jumps: dict[int, int] = {}
    direct: dict[int, int] = {}
    for line in disassembly.splitlines():
        if (found := _PE_SLOT_BRANCH.match(line)) is not None and int(found.group(3), 16) in iat:
            through_iat[int(found.group(1), 16)] = int(found.group(3), 16)
            if found.group(2) == "jmp" and "rex.W" not in line:
                plain_jumps[int(found.group(1), 16)] = int(found.group(3), 16)
        elif (found := _PE_DIRECT.match(line)) is not None:
            direct[int(found.group(1), 16)] = int(found.group(3), 16)
    to_thunks = {site: target for site, target in direct.items() if target in plain_jumps}
    # A thunk's own jump is the stub, not a call from a procedure (as a PLT stub's is not).
    thunks = set(to_thunks.values())
    return {site: slot for site, slot in through_iat.items() if site not in thunks}, to_thunks


def thunk_slots(disassembly: str, iat: dict[int, tuple[str, str]]) -> dict[int, int]:
    """Thunk address -> the IAT entry its plain `jmp [rip + entry]` goes through, for every thunk called."""
    jumps = {
        int(m.group(1), 16): int(m.group(3), 16)
        for line in disassembly.splitlines()
        if (m := _PE_SLOT_BRANCH.match(line)) is not None and m.group(2) == "jmp" and "rex.W" not in line
    }
    _through, to_thunks = pe_import_calls(disassembly, iat)
    return {thunk: jumps[thunk] for thunk in set(to_thunks.values())}
