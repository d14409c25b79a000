"""Ground truth for an x86-64 ELF file, read from binutils' own output (objdump, readelf).

Nothing here reuses the server's code: calls, jumps and RIP-relative operands
come from `objdump -d -w -M intel`, symbols from `readelf -s -W`, function
extents from the `.eh_frame` FDEs (`readelf --debug-dump=frames`), sections
from `readelf -S -W` and relocations from `readelf -r -W`.
"""

from __future__ import annotations

import re
import subprocess
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path

PLT_SECTIONS = (".plt", ".plt.sec", ".plt.got")

_INSN = re.compile(r"^\s*([0-9a-f]+):\t[0-9a-f ]+\t(.*)$")
_HEADER = re.compile(r"^([0-9a-f]+) <(.+)>:$")
_SECTION = re.compile(r"^Disassembly of section (\S+):$")
_PREFIXES = frozenset({"bnd", "notrack", "rep", "repz", "repnz", "lock", "data16", "cs", "ds"})
_DIRECT = re.compile(r"^([0-9a-f]+) <([^>]+)>$")
_RIP_COMMENT = re.compile(r"\[rip[+-]0x[0-9a-f]+\].*# ([0-9a-f]+)")
_FDE = re.compile(r" FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.([0-9a-f]+)")
_ABS_STUB = re.compile(r"^\*ABS\*\+0x([0-9a-f]+)@plt$")


def _run(args: list[str], cache: Path) -> str:
    """A binutils command's output, cached in `cache` for the test session."""
    if not cache.exists():
        # readelf exits 1 over warnings (a missing debug link) while still printing everything.
        done = subprocess.run(args, check=False, capture_output=True, text=True, errors="replace")
        if not done.stdout:
            raise RuntimeError(f"{args[0]} printed nothing: {done.stderr[:200]}")
        out = done.stdout
        cache.write_text(out)
    return cache.read_text()


@dataclass(frozen=True, slots=True)
class Instruction:
    address: int
    verb: str
    """The mnemonic without prefixes (`bnd jmp` -> `jmp`)."""
    operands: str
    direct: int | None
    """A direct branch's target."""
    direct_label: str | None
    rip_target: int | None
    section: str


@dataclass(slots=True)
class Truth:
    path: str
    instructions: list[Instruction] = field(default_factory=list)
    sections: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Name -> `[start, end)` of every allocated section."""
    functions: dict[int, int] = field(default_factory=dict)
    """Start -> size of every FUNC/IFUNC symbol and every FDE."""
    symbol_names: dict[int, set[str]] = field(default_factory=dict)
    """Address -> names of the FUNC/IFUNC symbols defined there (versions stripped)."""
    sized_symbols: list[tuple[int, int, str]] = field(default_factory=list)
    """`(address, size, name)` of the FUNC symbols with a size, for sampling."""
    plt_stubs: dict[int, str] = field(default_factory=dict)
    """PLT stub start -> objdump's label (`free@plt`, `*ABS*+0x9f1c0@plt`)."""
    relocations: list[tuple[int, str, int]] = field(default_factory=list)
    """`(offset, type, target)` of the dynamic relocations whose target is known."""
    got_slots: dict[int, tuple[str | None, int]] = field(default_factory=dict)
    """GOT slot (GLOB_DAT, JUMP_SLOT, IRELATIVE) -> its symbol's name (versions stripped; None for IRELATIVE) and
    the address it is filled with when the file defines it (else 0)."""
    file_offsets: dict[str, int] = field(default_factory=dict)
    """Section name -> where its bytes start in the file."""
    all_symbol_names: set[str] = field(default_factory=set)
    """Every defined symbol's name, of any type."""
    _edges: list[Instruction] | None = None
    _starts: list[int] | None = None

    def section_of(self, address: int) -> str | None:
        for name, (start, end) in self.sections.items():
            if start <= address < end:
                return name
        return None

    def read(self, address: int, size: int) -> bytes:
        """Bytes at a virtual address, read from the file through the section table."""
        # Not section_of: .tbss (no file bytes) overlaps the sections after it in address.
        section = next(
            (n for n, (lo, hi) in self.sections.items() if lo <= address < hi and n in self.file_offsets), None
        )
        if section is None:
            return b""
        with open(self.path, "rb") as file:
            file.seek(self.file_offsets[section] + address - self.sections[section][0])
            return file.read(size)

    def c_string(self, address: int, limit: int = 4096) -> bytes:
        """The NUL-terminated bytes at `address`."""
        return self.read(address, limit).split(b"\0", 1)[0]

    def stub_resolves_to(self, stub: int) -> tuple[str | None, int | None]:
        """What a PLT stub's label names: a symbol name, or an IRELATIVE resolver address."""
        label = self.plt_stubs[stub]
        absolute = _ABS_STUB.match(label)
        if absolute is not None:
            return None, int(absolute.group(1), 16)
        return label.removesuffix("@plt"), None

    def is_call_edge(self, insn: Instruction) -> bool:
        """A direct call, or a direct jump (conditional too) that leaves for a function or a PLT stub, or a call
        or jump through a GOT slot (`call [rip+0x2eae]  # 3fb8`, built with -fno-plt)."""
        if insn.section in PLT_SECTIONS:
            return False
        if insn.verb in ("call", "jmp") and insn.rip_target in self.got_slots and insn.operands.startswith("QWORD"):
            return True
        if insn.direct is None:
            return False
        if insn.verb == "call":
            return True
        if not insn.verb.startswith("j"):
            return False
        target = insn.direct
        if target in self.plt_stubs:
            return True
        size = self.functions.get(target)
        if size is None:
            return False
        return not target <= insn.address < target + max(size, 1)

    def call_edges(self) -> list[Instruction]:
        if self._edges is None:
            self._edges = [i for i in self.instructions if self.is_call_edge(i)]
        return self._edges

    def edges_to(self, address: int) -> set[int]:
        """Sites of the call edges that reach the function at `address`, directly or through its PLT stubs."""
        names = self.symbol_names.get(address, set())
        stubs = set()
        for stub in self.plt_stubs:
            name, resolver = self.stub_resolves_to(stub)
            if resolver == address or (name is not None and name in names):
                stubs.add(stub)
        for slot, (name, filled) in self.got_slots.items():
            if filled == address or (not filled and name is not None and name in names):
                stubs.add(slot)
        return {i.address for i in self.call_edges() if i.direct == address or (i.direct or i.rip_target) in stubs}

    def edges_from(self, start: int, size: int) -> set[tuple[int, int]]:
        """`(site, target)` of the call edges inside `[start, start + size)`."""
        at = bisect_right(self._addresses(), start - 1)
        out: set[tuple[int, int]] = set()
        for insn in self.instructions[at:]:
            if insn.address >= start + size:
                break
            target = insn.direct if insn.direct is not None else insn.rip_target
            if self.is_call_edge(insn) and target is not None and not start <= target < start + size:
                out.add((insn.address, target))
        return out

    def _addresses(self) -> list[int]:
        if self._starts is None:
            self._starts = [i.address for i in self.instructions]
        return self._starts


def _strip_version(name: str) -> str:
    return name.split("@", 1)[0]


def load(path: str, cache: Path) -> Truth:
    cache.mkdir(parents=True, exist_ok=True)
    stem = Path(path).name
    truth = Truth(path)
    for line in _run(["readelf", "-S", "-W", path], cache / f"{stem}.sections").splitlines():
        found = re.match(
            r"^\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+([0-9a-f]{8,})\s+([0-9a-f]+)\s+([0-9a-f]+)\s+\S+\s+(\S*A\S*)", line
        )
        if found is not None and int(found.group(3), 16):
            start = int(found.group(3), 16)
            truth.sections[found.group(1)] = (start, start + int(found.group(5), 16))
            if found.group(2) != "NOBITS":
                truth.file_offsets[found.group(1)] = int(found.group(4), 16)
    for line in _run(["readelf", "-s", "-W", path], cache / f"{stem}.symbols").splitlines():
        parts = line.split()
        if len(parts) >= 8 and parts[0].endswith(":") and parts[6] != "UND":
            truth.all_symbol_names.add(_strip_version(parts[7]))
        if len(parts) < 8 or not parts[0].endswith(":") or parts[3] not in ("FUNC", "IFUNC") or parts[6] == "UND":
            continue
        address, size = int(parts[1], 16), int(parts[2], 0)
        if not address:
            continue
        name = _strip_version(parts[7])
        truth.symbol_names.setdefault(address, set()).add(name)
        truth.functions[address] = max(truth.functions.get(address, 0), size)
        if size:
            truth.sized_symbols.append((address, size, name))
    for found in _FDE.finditer(_run(["readelf", "--debug-dump=frames", path], cache / f"{stem}.frames")):
        start, end = int(found.group(1), 16), int(found.group(2), 16)
        truth.functions.setdefault(start, end - start)
    relr = False
    for line in _run(["readelf", "-r", "-W", path], cache / f"{stem}.relocations").splitlines():
        parts = line.split()
        if line.startswith("Relocation section"):
            relr = ".relr." in line
            continue
        if relr and len(parts) == 1 and re.fullmatch(r"[0-9a-f]{8,}", parts[0]):
            # RELR lists only offsets: the address to relocate is the word already at each one.
            offset = int(parts[0], 16)
            truth.relocations.append((offset, "RELR", int.from_bytes(truth.read(offset, 8), "little")))
            continue
        if len(parts) < 4 or not parts[2].startswith("R_X86_64_"):
            continue
        kind = parts[2].removeprefix("R_X86_64_")
        try:
            offset = int(parts[0], 16)
            if kind in ("GLOB_DAT", "JUMP_SLOT") and len(parts) >= 5:
                truth.got_slots[offset] = (_strip_version(parts[4]), int(parts[3], 16))
            elif kind == "IRELATIVE":
                truth.got_slots[offset] = (None, int(parts[3], 16))
            if kind in ("RELATIVE", "IRELATIVE"):
                target = int(parts[3], 16)
            elif len(parts) >= 7 and parts[5] == "+":
                target = int(parts[3], 16) + int(parts[6], 16)
            else:
                continue
        except ValueError:
            continue
        truth.relocations.append((offset, kind, target))
    section = ""
    for line in _run(["objdump", "-d", "-w", "-M", "intel", path], cache / f"{stem}.objdump").splitlines():
        insn = _INSN.match(line)
        if insn is None:
            header = _HEADER.match(line)
            if header is not None and section in PLT_SECTIONS and header.group(2).endswith("@plt"):
                truth.plt_stubs[int(header.group(1), 16)] = header.group(2)
            named = _SECTION.match(line)
            if named is not None:
                section = named.group(1)
            continue
        text = insn.group(2)
        words = text.split(None, 1)
        while words and words[0] in _PREFIXES and len(words) > 1:
            words = words[1].split(None, 1)
        if not words:
            continue
        verb, operands = words[0], (words[1] if len(words) > 1 else "")
        direct = _DIRECT.match(operands.strip())
        rip = _RIP_COMMENT.search(operands)
        truth.instructions.append(
            Instruction(
                address=int(insn.group(1), 16),
                verb=verb,
                operands=operands,
                direct=int(direct.group(1), 16)
                if direct and (verb == "call" or verb.startswith(("j", "loop")))
                else None,
                direct_label=direct.group(2) if direct else None,
                rip_target=int(rip.group(1), 16) if rip else None,
                section=section,
            )
        )
    return truth


def frame_extents(path: str, cache: Path) -> dict[int, int]:
    """Start -> size of every FDE with a non-empty range, from `readelf --debug-dump=frames`."""
    cache.mkdir(parents=True, exist_ok=True)
    out = _run(["readelf", "--debug-dump=frames", path], cache / f"{Path(path).name}.frames")
    extents: dict[int, int] = {}
    for found in _FDE.finditer(out):
        start, end = int(found.group(1), 16), int(found.group(2), 16)
        if end > start:
            extents.setdefault(start, end - start)
    return extents


_PE_FUNCTION = re.compile(r"^\s*[0-9a-f]+:\s+([0-9a-f]{8,16}) ([0-9a-f]{8,16}) [0-9a-f]{8,16}\s*$")


def pe_function_table(objdump: str, path: str, cache: Path) -> dict[int, int]:
    """Begin -> size of every `.pdata` RUNTIME_FUNCTION, from mingw objdump's interpreted function table."""
    cache.mkdir(parents=True, exist_ok=True)
    out = _run([objdump, "-x", path], cache / f"{Path(path).name}.pe-headers")
    table: dict[int, int] = {}
    inside = False
    for line in out.splitlines():
        if line.startswith("The Function Table"):
            inside = True
            continue
        if inside:
            found = _PE_FUNCTION.match(line)
            if found is not None:
                begin, end = int(found.group(1), 16), int(found.group(2), 16)
                table[begin] = end - begin
            elif line.strip() and not line.startswith("vma:"):
                inside = False
    return table
