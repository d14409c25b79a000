"""Real documents: LIEF reads ELF, Mach-O and PE (imported when a real target first opens).

A procedure is a function address together with every name the binary gives
it (static and dynamic symbols, exports, function starts). Parsing happens once
when a target opens; completion and tools only read the resulting inventory.
Besides the inventory a document hands out its data sections (for strings),
its mapped ranges and PLT stubs (for code references) and byte access (for
disassembly, done by capstone elsewhere).
"""

from __future__ import annotations

import contextlib
import functools
import io
import itertools
import math
import os
import re
import warnings
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import lief

from rea_tui.server.analysis.code_listing import DataSymbol
from rea_tui.server.analysis.code_references import SlotTarget
from rea_tui.server.analysis.data_references import Relocation, RelocationTables
from rea_tui.server.analysis.disassembly import CapstoneMode, capstone_mode, thumb_mode, unsupported_architecture
from rea_tui.server.analysis.string_index import SectionBytes
from rea_tui.server.completion.text_forms import hex_address
from rea_tui.server.providers.base import DocumentInventory, ProcedureRecord
from rea_tui.server.providers.demangling import demangled, swift_mangled
from rea_tui.server.providers.frame_entries import EH_FRAME, read_frame_entries
from rea_tui.server.providers.go_functions import (
    GOPCLNTAB,
    MACHO_GOPCLNTAB,
    PCLNTAB_SYMBOL,
    find_go_table,
    read_go_functions,
)
from rea_tui.server.providers.macho_functions import (
    FUNCTION_STARTS,
    CodeSection,
    function_extents,
    read_export_trie,
)
from rea_tui.server.providers.macho_rebases import Segment, check_rebase_opcodes
from rea_tui.server.providers.macho_slices import (
    CPU_SUBTYPE_MASK,
    FAT_ARCH_64,
    FAT_HEADER,
    MAX_SLICES,
    FatSlice,
    architecture_name,
    is_fat,
    read_fat_header,
)
from rea_tui.server.target.binary_formats import sniff_format
from rea_tui.server.target.stored_bytes import BinaryImage, UnreadableFile, binary_image

# LIEF logs parse warnings itself; the server's stdout is the JSON-RPC channel
# and its stderr is a log pane, so silence it and report errors ourselves.
lief.logging.disable()
# LIEF objects still alive when the interpreter exits (the open target's) make nanobind print pages of
# "leaked instance" lines on stderr, which the host shows as the server's log: not a leak while it runs.
lief.disable_leak_warning()
# LIEF's bindings warn when a field holds a value its enum has no name for (a damaged rebase type); the value
# still comes back as an int, and the damage is named in not_decoded, not on stderr.
warnings.filterwarnings("ignore", message=r"^-?\d+ is not a valid [A-Za-z_]+\.$", category=RuntimeWarning)


def clean_name(name: str | bytes) -> str:
    """Names must encode as UTF-8 on the wire; LIEF may hand back lone surrogates, or bytes where a
    name is not UTF-8 (a damaged Mach-O's segment name)."""
    if isinstance(name, bytes):
        return name.decode("utf-8", "backslashreplace")
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return name.encode("utf-8", "backslashreplace").decode("utf-8")
    return name


def name_of(item: Any, attribute: str = "name") -> str:
    """A LIEF object's name as wire-safe text. LIEF's binding raises on a name that is not UTF-8 (a
    damaged Mach-O's section, segment or symbol); the exception holds the raw bytes."""
    try:
        value = getattr(item, attribute)
    except UnicodeDecodeError as exc:
        return clean_name(bytes(exc.object))
    return clean_name(value)


@dataclass(slots=True)
class _ExecRange:
    start: int
    end: int

    def __contains__(self, address: object) -> bool:
        return isinstance(address, int) and self.start <= address < self.end


def _symbols(binary: Any, kind: str) -> list[Any]:
    """Every symbol of an ELF or Mach-O binary. An ELF's are read table by table: LIEF's combined
    `symbols` view walks its chain again for every item (node's 184,833 symbols: 22-27 s, against
    0.7 s for `symtab_symbols` and `dynamic_symbols`)."""
    if kind == "ELF":
        return [*binary.symtab_symbols, *binary.dynamic_symbols]
    return list(binary.symbols) if kind == "MachO" else []


class LiefDocument:
    """One parsed binary (a file, or one slice of a universal Mach-O): its inventory, its layout and byte
    access for disassembly."""

    def __init__(self, path: str, fat_slice: FatSlice | None = None, fat_error: str | None = None) -> None:
        self.path = path
        self.format = sniff_format(path) or "unknown"
        self.arch = "unknown"
        self.bits = 0
        self.error: str | None = None
        self._binary: Any = None
        self._kind = "unknown"
        self.libraries: list[str] = []
        """Shared libraries this binary links against (DT_NEEDED, load commands, imports)."""
        self.interpreter: str | None = None
        self.inventory = DocumentInventory(records=[])
        self.read_note: str | None = None
        """What of the file was not read (a sparse file's hole), when something was not."""
        self.frame_note: str | None = None
        """Why `.eh_frame`'s FDEs could not be read, when they were needed and could not be."""
        self.go_note: str | None = None
        """Why Go's function table could not be read whole, when it could not."""
        self.function_starts_note: str | None = None
        """What of a Mach-O's `LC_FUNCTION_STARTS` could not be read, when something could not."""
        self.exports_note: str | None = None
        """Where a Mach-O's exports trie stopped holding together, when it did."""
        self.swift_note: str | None = None
        """That Swift-mangled names are offered mangled only, when the binary has some."""
        self.slice_note: str | None = None
        """What is wrong with where a universal binary's header puts this slice, when something is."""
        self.code_note: str | None = None
        """Why the code cannot be disassembled (an architecture capstone is not set up for), when it cannot."""
        self.truncation_note: str | None = None
        """Which sections or segments lie past the end of the file, when some do."""
        self.relocation_note: str | None = None
        """Where a PE's base relocation table or a Mach-O's rebase opcodes stop holding together, when they do."""
        self._thumb: frozenset[int] = frozenset()
        """32-bit ARM procedures in Thumb code: by the symbol's address bit 0 or a `$t` mapping symbol."""
        self._data_in_code: list[tuple[int, int]] = []
        """`[start, end)` of data among code (ARM and AArch64 literal pools), from `$d` mapping symbols."""
        binary: Any
        available: int | None = None
        """Bytes of this document the file holds: a slice's, else the file's (None: the file's size)."""
        try:
            if fat_error is not None:
                raise UnreadableFile(f"{os.path.basename(path)}: {fat_error}")
            image = binary_image(path)
            self.read_note = image.note
            if fat_slice is None:
                binary = _parse(image.source, self.format)
            else:
                self.slice_note = fat_slice.problem
                available = fat_slice.readable
                binary = _parse_slice(image, fat_slice)
        except UnreadableFile as exc:
            binary = None
            self.error = str(exc)
        except Exception as exc:  # LIEF raises assorted native errors on hostile input
            binary = None
            self.error = f"LIEF could not parse {os.path.basename(path)}: {type(exc).__name__}"
        if binary is None and fat_slice is not None:
            self.error = self.error or _slice_error(path, fat_slice)
        if binary is None:
            self.error = self.error or f"LIEF could not parse {os.path.basename(path)}"
            self.inventory = DocumentInventory(records=[], error=self.error)
            return
        self._binary = binary
        self._kind = _kind(binary)
        header = binary.abstract.header
        self.arch = str(header.architecture).rsplit(".", 1)[-1]
        self.bits = 64 if header.is_64 else 32
        self.format = {"MACHO": "MachO"}.get(str(binary.format).rsplit(".", 1)[-1], self.format)
        if fat_slice is not None:
            self._check_slice_architecture(binary, fat_slice)
        libraries: list[Any] = list(binary.libraries)
        self.libraries = [clean_name(lib) if isinstance(lib, str) else name_of(lib) for lib in libraries]
        if self._kind == "ELF" and binary.has_interpreter:
            self.interpreter = clean_name(binary.interpreter)
        if self.disassembly_target() is None:
            self.code_note = unsupported_architecture(self.arch, _machine(binary, self._kind), _endianness(header))
        # The apparent size: a sparse file's unread trailing hole is its read_note's to report, not truncation.
        with contextlib.suppress(OSError):
            size = available if available is not None else os.path.getsize(path)
            self.truncation_note = _truncation(binary, self._kind, size, "file" if available is None else "slice")
        self.inventory = DocumentInventory(records=self._collect_procedures(binary))
        self.relocation_note = self._relocation_damage(binary)

    # -- inventory --------------------------------------------------------------

    def _imagebase(self, binary: Any) -> int:
        return int(binary.imagebase) if self._kind == "PE" else 0

    def _exec_ranges(self, binary: Any) -> list[_ExecRange]:
        ranges: list[_ExecRange] = []
        segments: list[Any] = list(binary.segments) if self._kind in ("ELF", "MachO") else []
        if self._kind == "ELF":
            for seg in segments:
                if seg.type == lief.ELF.Segment.TYPE.LOAD and seg.has(lief.ELF.Segment.FLAGS.X):
                    ranges.append(_ExecRange(seg.virtual_address, seg.virtual_address + seg.virtual_size))
        elif self._kind == "MachO":
            # Code sections, not executable segments: __TEXT also maps the Mach header (where
            # `__mh_execute_header` points), C strings and constants, none of them procedures.
            ranges = [_ExecRange(s.start, s.end) for s in _code_sections(binary)]
            if not ranges:
                for seg in segments:
                    if seg.init_protection & VM_PROT_EXECUTE:
                        ranges.append(_ExecRange(seg.virtual_address, seg.virtual_address + seg.virtual_size))
        elif self._kind == "PE":
            base = self._imagebase(binary)
            sections: list[Any] = list(binary.sections)
            for sec in sections:
                if sec.has_characteristic(lief.PE.Section.CHARACTERISTICS.MEM_EXECUTE):
                    start = base + sec.virtual_address
                    ranges.append(_ExecRange(start, start + max(sec.virtual_size, sec.size)))
        return ranges

    def _collect_procedures(self, binary: Any) -> list[ProcedureRecord]:
        names: dict[int, set[str]] = defaultdict(set)
        sizes: dict[int, int] = {}
        base = self._imagebase(binary)
        ranges = self._exec_ranges(binary)

        def executable(address: int) -> bool:
            return any(address in r for r in ranges) if ranges else True

        stubs = self._plt_ranges(binary)
        # LIEF invents names for the ELF functions it finds without a symbol
        # (`__dt_init_array` for each init_array entry); ELF names come from symbols only.
        function_names = self._kind != "ELF"
        thumb: set[int] = set()
        arm = self.arch == "ARM"
        if self._kind == "MachO":
            for address, size in self._function_starts(binary):
                names.setdefault(address, set())  # a function start is a procedure even without a name
                sizes.setdefault(address, size)
        for fn in binary.functions:
            address = int(fn.address)
            if base and address < base:
                address += base
            if arm and address & THUMB_BIT:
                address &= ~THUMB_BIT  # the ARM ELF ABI marks a Thumb function by bit 0
                thumb.add(address)
            if address <= 0 or not executable(address) or any(lo <= address < hi for lo, hi in stubs):
                continue  # PLT sections are stubs, shown as sections, not procedures
            bucket = names[address]
            if fn.name and function_names:
                bucket.add(clean_name(fn.name))
            if fn.size:
                sizes.setdefault(address, int(fn.size))
        frame_section = binary.get_section(EH_FRAME) if self._kind == "ELF" and binary.has_section(EH_FRAME) else None
        if frame_section is not None and not self._has_frame_table(binary):
            little = not str(binary.abstract.header.endianness).endswith("BIG")
            content = bytes(frame_section.content)
            frames = read_frame_entries(content, int(frame_section.virtual_address), self.bits // 8, little)
            self.frame_note = frames.error
            for address, size in frames.extents:
                if executable(address) and not any(lo <= address < hi for lo, hi in stubs):
                    names.setdefault(address, set())  # an FDE is a procedure even without a name
                    sizes.setdefault(address, size)
        go_table = self._go_table(binary)
        if go_table is not None:
            go = read_go_functions(*go_table)
            self.go_note = go.error
            for function in go.functions:
                if executable(function.address):
                    # A stripped Go binary's names are in its function table; its size runs to the next
                    # function (alignment padding included), a symbol's exact size wins where there is one.
                    names[function.address].add(clean_name(function.name))
                    sizes.setdefault(function.address, function.size)
        symbols = _symbols(binary, self._kind)
        if self._kind == "ELF":
            func_types = (lief.ELF.Symbol.TYPE.FUNC, lief.ELF.Symbol.TYPE.GNU_IFUNC)
            for sym in symbols:
                if sym.type in func_types and sym.value and sym.shndx != 0 and sym.name:
                    address = int(sym.value)
                    if arm and address & THUMB_BIT:
                        address &= ~THUMB_BIT  # the ARM ELF ABI marks a Thumb function by bit 0
                        thumb.add(address)
                    names[address].add(clean_name(sym.name))
                    if sym.size:
                        sizes.setdefault(address, int(sym.size))
            if arm:
                thumb |= _thumb_by_mapping(symbols, names.keys())
            if self.arch in ("ARM", "ARM64"):
                self._data_in_code = _data_by_mapping(symbols)
        elif self._kind == "MachO":
            for sym in symbols:
                name = name_of(sym)
                if name and sym.value and executable(int(sym.value)):
                    names[int(sym.value)].add(name)
            # A stripped binary keeps its exported names in the exports trie, each as an offset from
            # the Mach header; LIEF gives these symbols the value 0.
            image_base = int(binary.imagebase)
            for name, offset in self._exports(binary):
                if name and executable(image_base + offset):
                    names[image_base + offset].add(clean_name(name))
        elif self._kind == "PE":
            exported: list[Any] = list(binary.exported_functions)
            for fn in exported:
                address = int(fn.address)
                if address < base:
                    address += base
                if fn.name and executable(address):
                    names[address].add(clean_name(fn.name))
        self._thumb = frozenset(thumb)
        macho = self._kind == "MachO"
        swift = 0
        for bucket in names.values():
            plain = [d for d in (demangled(name, macho) for name in bucket) if d is not None]
            swift += sum(1 for name in bucket if swift_mangled(name, macho))
            bucket.update(clean_name(d) for d in plain)
        if swift:
            self.swift_note = (
                f"Swift names are not demangled: {swift:,} of the procedures' names are Swift-mangled "
                "and offered only as they are"
            )
        return [ProcedureRecord(address=a, names=tuple(sorted(names[a])), size=sizes.get(a)) for a in sorted(names)]

    def _go_table(self, binary: Any) -> tuple[bytes, int, str] | None:
        """A Go binary's function table: its bytes (from its header to the end of what holds it), the
        address of the text its entries count from, and what to call it; None when there is none."""
        if self._kind == "ELF" and binary.has_section(GOPCLNTAB):
            text = binary.get_section(".text") if binary.has_section(".text") else None
            text_address = int(text.virtual_address) if text is not None else 0
            return bytes(binary.get_section(GOPCLNTAB).content), text_address, GOPCLNTAB
        if self._kind == "MachO":
            sections: list[Any] = list(binary.sections)
            table = next((s for s in sections if name_of(s) == MACHO_GOPCLNTAB), None)
            if table is None:
                return None
            code = _code_sections(binary)
            where = f"{name_of(table, 'segment_name')},{MACHO_GOPCLNTAB}"
            return bytes(table.content), min((c.start for c in code), default=0), where
        if self._kind == "PE":
            return self._pe_go_table(binary)
        return None

    def _pe_go_table(self, binary: Any) -> tuple[bytes, int, str] | None:
        """A Go PE's function table, inside `.rdata`: where the `runtime.pclntab` COFF symbol points, else
        (a stripped binary) where a header that holds together and names this text starts."""
        base = self._imagebase(binary)
        sections: list[Any] = list(binary.sections)
        code = [s for s in sections if s.has_characteristic(lief.PE.Section.CHARACTERISTICS.MEM_EXECUTE)]
        if not code:
            return None
        text_start = base + int(code[0].virtual_address)
        text_end = text_start + max(int(code[0].virtual_size), int(code[0].size))
        symbols: list[Any] = list(binary.symbols)
        for sym in symbols:
            # A COFF symbol's section number counts from 1 (0 and the negatives: undefined, absolute, debug).
            number = int(sym.section_idx)
            if name_of(sym) == PCLNTAB_SYMBOL and 1 <= number <= len(sections):
                section = sections[number - 1]
                content = bytes(section.content)
                if 0 <= int(sym.value) < len(content):
                    where = f"{name_of(section)}'s {PCLNTAB_SYMBOL}"
                    return content[int(sym.value) :], text_start, where
        for section in sections:
            if name_of(section) != PE_READ_ONLY_DATA:
                continue
            content = bytes(section.content)
            at = find_go_table(content, text_start, text_end)
            if at is not None:
                return content[at:], text_start, f"the Go function table in {PE_READ_ONLY_DATA}"
        return None

    @property
    def not_decoded(self) -> list[str]:
        """What of the document the server could not decode: unsupported code, a truncated file, unwind records."""
        notes = (
            self.slice_note,
            self.code_note,
            self.truncation_note,
            self.frame_note,
            self.go_note,
            self.function_starts_note,
            self.exports_note,
            self.swift_note,
            self.relocation_note,
        )
        return [note for note in notes if note is not None]

    def _function_starts(self, binary: Any) -> list[tuple[int, int]]:
        """`(address, size)` of each function in a Mach-O's `LC_FUNCTION_STARTS`, sized to the next start
        or the end of its code section; what could not be read goes to `function_starts_note`."""
        if not binary.has_function_starts:
            return []
        table = binary.function_starts
        offsets: list[int] = list(table.functions)
        if int(table.data_size) and not offsets:
            self.function_starts_note = (
                f"{FUNCTION_STARTS}: its {int(table.data_size):,} bytes at offset 0x{int(table.data_offset):x} "
                "could not be read (past the end of the file, or malformed), so functions without a symbol are missing"
            )
            return []
        text = binary.get_segment("__TEXT")
        if text is None:
            self.function_starts_note = f"{FUNCTION_STARTS}: no __TEXT segment, from which its offsets count"
            return []
        starts = function_extents(offsets, int(text.virtual_address), _code_sections(binary))
        self.function_starts_note = starts.error
        return list(starts.extents)

    def _exports(self, binary: Any) -> list[tuple[str, int]]:
        """`(name, offset from the Mach header)` of a Mach-O's exports, from the raw bytes of its exports
        trie (`LC_DYLD_INFO` or `LC_DYLD_EXPORTS_TRIE`); where it does not hold together goes to `exports_note`."""
        tries: list[bytes] = []
        if binary.has_dyld_info:
            tries.append(bytes(binary.dyld_info.export_trie))
        if binary.has_dyld_exports_trie:
            tries.append(bytes(binary.dyld_exports_trie.content))
        exports: list[tuple[str, int]] = []
        for trie in tries:
            read = read_export_trie(trie)
            exports.extend(read.exports)
            self.exports_note = self.exports_note or read.error
        return exports

    def _check_slice_architecture(self, binary: Any, fat_slice: FatSlice) -> None:
        """A slice whose own header names another architecture than the universal header does: said."""
        header = binary.header
        own = architecture_name(int(header.cpu_type), int(header.cpu_subtype) & CPU_SUBTYPE_MASK)
        if own != fat_slice.architecture:
            mismatch = (
                f"universal binary: slice {fat_slice.index} is listed as {fat_slice.architecture} but its own "
                f"header says {own}"
            )
            self.slice_note = f"{self.slice_note}; {mismatch}" if self.slice_note else mismatch

    @staticmethod
    def _has_frame_table(binary: Any) -> bool:
        """Whether LIEF found `.eh_frame_hdr`'s search table (PT_GNU_EH_FRAME), from which it reads functions."""
        segments: list[Any] = list(binary.segments)
        return any(seg.type == lief.ELF.Segment.TYPE.GNU_EH_FRAME for seg in segments)

    def _plt_ranges(self, binary: Any) -> list[tuple[int, int]]:
        if self._kind != "ELF":
            return []
        found = (binary.get_section(name) for name in _PLT_SECTIONS if binary.has_section(name))
        return [(int(s.virtual_address), int(s.virtual_address) + int(s.size)) for s in found]

    @property
    def position_independent(self) -> bool:
        """Whether the code runs at any address, so it holds no absolute addresses.

        An ELF shared object or PIE has type ET_DYN whether or not it has an
        interpreter (LIEF's `is_pie` asks for PT_INTERP, so it calls libpython
        fixed-address).
        """
        binary = self._binary
        if binary is None:
            return False
        if self._kind == "ELF":
            return bool(binary.header.file_type == lief.ELF.Header.FILE_TYPE.DYN)
        return bool(binary.is_pie)

    # -- bytes and layout ----------------------------------------------------------

    def read(self, address: int, size: int) -> bytes:
        if self._binary is None:
            return b""
        try:
            return bytes(self._binary.get_content_from_virtual_address(address, size))
        except Exception:  # unmapped or out-of-file addresses
            return b""

    def view(self, address: int, size: int) -> bytes | memoryview:
        if self._binary is None:
            return b""
        try:
            # LIEF answers a view of the file it holds: no copy of the code (libLLVM's .text is 53 MB).
            return self._binary.get_content_from_virtual_address(address, size)  # type: ignore[no-any-return]
        except Exception:  # unmapped or out-of-file addresses
            return b""

    def layout(self) -> dict[str, Any]:
        binary = self._binary
        if binary is None:
            return {"format": self.format, "error": self.error}
        base = self._imagebase(binary)
        sections: list[dict[str, Any]] = []
        raw_sections: list[Any] = list(binary.sections)[:256]
        for sec in raw_sections:
            entry: dict[str, Any] = {
                "name": name_of(sec),
                "address": hex_address(base + int(sec.virtual_address)),
                "size": int(sec.size),
                "offset": int(sec.offset),
            }
            entropy = float(sec.entropy) if sec.size else 0.0
            entry["entropy"] = round(entropy, 3) if math.isfinite(entropy) else None
            entry["flags"] = _section_flags(self._kind, sec)
            sections.append(entry)
        segments: list[dict[str, Any]] = []
        if self._kind in ("ELF", "MachO"):
            raw_segments: list[Any] = list(binary.segments)[:128]
            for seg in raw_segments:
                name = name_of(seg) if self._kind == "MachO" else str(seg.type).rsplit(".", 1)[-1]
                segments.append(
                    {
                        "name": clean_name(name),
                        "address": hex_address(int(seg.virtual_address)),
                        "size": int(seg.virtual_size),
                        "flags": _segment_flags(self._kind, seg),
                    }
                )
        libraries = self.libraries[:256]
        return {
            "format": self.format,
            "arch": self.arch,
            "bits": self.bits,
            "entrypoint": hex_address(int(binary.entrypoint)),
            "imagebase": hex_address(int(binary.imagebase)),
            "pie": self.position_independent,
            "nx": bool(binary.has_nx),
            "sections": sections,
            "segments": segments,
            "libraries": libraries,
            "procedure_count": len(self.inventory.records),
            **({"warnings": self.not_decoded} if self.not_decoded else {}),
        }

    def disassembly_target(self) -> CapstoneMode | None:
        return capstone_mode(self.arch, self.bits)

    def code_mode(self, address: int) -> CapstoneMode | None:
        return thumb_mode() if address in self._thumb else self.disassembly_target()

    def code_spans(self, start: int, end: int) -> list[tuple[int, int]]:
        """The parts of `[start, end)` that are code: all of it, less the data `$d` mapping symbols mark."""
        spans: list[tuple[int, int]] = []
        at = start
        first = max(0, bisect_right(self._data_in_code, (start, start)) - 1)
        for low, high in self._data_in_code[first:]:
            if low >= end:
                break
            if high <= at:
                continue
            if low > at:
                spans.append((at, low))
            at = max(at, high)
        if at < end:
            spans.append((at, end))
        return spans

    # -- what strings and references read ---------------------------------------------

    def data_sections(self) -> list[SectionBytes]:
        """Allocated, non-executable sections that hold initialised data (not tables the loader reads)."""
        binary = self._binary
        if binary is None:
            return []
        base = self._imagebase(binary)
        chosen: list[SectionBytes] = []
        raw_sections: list[Any] = list(binary.sections)
        for sec in raw_sections:
            if _holds_data(self._kind, sec):
                chosen.append(SectionBytes(name_of(sec), base + int(sec.virtual_address), bytes(sec.content)))
        return chosen

    def absolute_ranges(self) -> list[tuple[int, int]]:
        """Where an absolute address in code can point; empty for position-independent code."""
        binary = self._binary
        if binary is None or self.position_independent:
            return []
        base = self._imagebase(binary)
        raw_sections: list[Any] = list(binary.sections)
        return [
            (base + int(s.virtual_address), base + int(s.virtual_address) + int(s.size))
            for s in raw_sections
            if int(s.virtual_address) and int(s.size)
        ]

    def stub_sections(self) -> list[SectionBytes]:
        """ELF PLT sections, whose stubs jump through the GOT slots of imported functions; a PE's code
        sections, among which its import thunks sit."""
        binary = self._binary
        if binary is not None and self._kind == "MachO":
            macho_sections: list[Any] = list(binary.sections)
            return [
                SectionBytes(name_of(s), int(s.virtual_address), bytes(s.content))
                for s in macho_sections
                if s.type == lief.MachO.Section.TYPE.SYMBOL_STUBS and int(s.size)
            ]
        if binary is not None and self._kind == "PE":
            base = self._imagebase(binary)
            code = lief.PE.Section.CHARACTERISTICS.MEM_EXECUTE
            pe_sections: list[Any] = list(binary.sections)
            return [
                SectionBytes(name_of(s), base + int(s.virtual_address), bytes(s.content))
                for s in pe_sections
                if s.has_characteristic(code) and int(s.size)
            ]
        if binary is None or self._kind != "ELF":
            return []
        return [
            SectionBytes(name, int(binary.get_section(name).virtual_address), bytes(binary.get_section(name).content))
            for name in _PLT_SECTIONS
            if binary.has_section(name)
        ]

    def data_symbols(self) -> list[DataSymbol]:
        """Data objects this document defines, for naming what code and pointers reach: ELF OBJECT and TLS
        symbols; a Mach-O's symbol table entries in data sections; a PE's exports in data sections."""
        binary = self._binary
        if binary is None:
            return []
        if self._kind == "MachO":
            return self._macho_data_symbols(binary)
        if self._kind == "PE":
            return self._pe_data_symbols(binary)
        if self._kind != "ELF":
            return []
        kinds = (lief.ELF.Symbol.TYPE.OBJECT, lief.ELF.Symbol.TYPE.TLS)
        found: dict[int, DataSymbol] = {}
        symbols: list[Any] = list(binary.symbols)
        for sym in symbols:
            if sym.type in kinds and sym.value and sym.shndx != 0 and sym.name:
                address = int(sym.value)
                named = DataSymbol(address, int(sym.size), clean_name(sym.name))
                kept = found.get(address)
                # One name per address: the larger object, then the first name in sort order.
                if kept is None or (named.size, kept.name) > (kept.size, named.name):
                    found[address] = named
        return sorted(found.values(), key=lambda s: s.address)

    def _macho_data_symbols(self, binary: Any) -> list[DataSymbol]:
        """Symbols defined in a Mach-O's data sections (N_SECT, by their section number) and exports there (the
        trie: all a stripped file keeps). The format gives no sizes: each runs to the next symbol in its section
        or the section's end; one in a C-string section is its string (NUL included), so it does not swallow
        the literals after it."""
        sections: list[Any] = list(binary.sections)
        cstrings = lief.MachO.Section.TYPE.CSTRING_LITERALS
        placed: dict[int, list[tuple[int, str]]] = defaultdict(list)
        symbols: list[Any] = list(binary.symbols)
        for sym in symbols[:MAX_DATA_SYMBOLS]:
            number = int(sym.numberof_sections)  # n_sect: 1-based, 0 for none
            if sym.type != lief.MachO.Symbol.TYPE.SECTION or not 0 < number <= len(sections):
                continue
            section = sections[number - 1]
            start, address = int(section.virtual_address), int(sym.value)
            if _is_code_section(section) or not start <= address < start + int(section.size):
                continue
            name = name_of(sym)
            if name:
                placed[number - 1].append((address, name))
        # A stripped file keeps its exported names in the exports trie only, as offsets from the Mach header.
        image_base = int(binary.imagebase)
        data = [
            (index, int(sec.virtual_address), int(sec.virtual_address) + int(sec.size))
            for index, sec in enumerate(sections)
            if int(sec.size) and not _is_code_section(sec)
        ]
        for name, offset in self._exports(binary)[:MAX_DATA_SYMBOLS]:
            address = image_base + offset
            holding = next((index for index, low, high in data if low <= address < high), None)
            if name and holding is not None:
                placed[holding].append((address, clean_name(name)))
        found: dict[int, DataSymbol] = {}
        for index, named in placed.items():
            section = sections[index]
            for address, size, name in _sized_to_next(named, int(section.virtual_address) + int(section.size)):
                if section.type == cstrings:
                    text = self.read(address, size)
                    size = text.index(b"\0") + 1 if b"\0" in text else size
                found.setdefault(address, DataSymbol(address, size, name, sized=False))
        return sorted(found.values(), key=lambda s: s.address)

    def _pe_data_symbols(self, binary: Any) -> list[DataSymbol]:
        """A PE's exports that lie in a data section, each running to the next export there or the
        section's end (the export table gives no sizes). COFF symbol tables are not read."""
        if not binary.has_exports:
            return []
        base = self._imagebase(binary)
        entries: list[Any] = list(binary.get_export().entries)[:MAX_DATA_SYMBOLS]
        sections = [
            (
                base + int(sec.virtual_address),
                base + int(sec.virtual_address) + max(int(sec.virtual_size), int(sec.size)),
            )
            for sec in list(binary.sections)
            if _holds_data(self._kind, sec)
        ]
        placed: dict[tuple[int, int], list[tuple[int, str]]] = defaultdict(list)
        for entry in entries:
            if entry.is_extern or not entry.name:
                continue  # a forwarder names another DLL's function, not an address here
            address = base + int(entry.address)
            holding = next(((lo, hi) for lo, hi in sections if lo <= address < hi), None)
            if holding is not None:
                placed[holding].append((address, name_of(entry)))
        found: dict[int, DataSymbol] = {}
        for (_low, high), named in placed.items():
            for address, size, name in _sized_to_next(named, high):
                found.setdefault(address, DataSymbol(address, size, name, sized=False))
        return sorted(found.values(), key=lambda s: s.address)

    def data_relocations(self) -> RelocationTables:
        """Relocations that write an address the document defines: its pointers. An ELF's dynamic
        relocations, a PE's base relocations, a Mach-O's rebases and binds to its own symbols."""
        binary = self._binary
        if binary is None:
            return RelocationTables([])
        if self._kind == "PE":
            return self._pe_relocations(binary)
        if self._kind == "MachO":
            return self._macho_relocations(binary)
        if self._kind != "ELF":
            return RelocationTables([])
        width = self.bits // 8
        found: list[Relocation] = []
        # One relocation object at a time, not a list of them all: libLLVM's 382,000 are 70 MB as objects.
        relocations: Iterable[Any] = binary.relocations
        for reloc in relocations:
            kind = relocation_kind(reloc)
            site = int(reloc.address)
            if kind in ("RELATIVE", "IRELATIVE", "RELR"):
                target = int(reloc.addend)
                if _type_name(reloc.encoding) == "RELR":
                    kind = "RELR"
                if not target:  # RELR and REL keep the addend in the slot itself
                    target = int.from_bytes(self.read(site, width), "little")
            elif kind in _SLOT_RELOCATIONS and reloc.has_symbol and reloc.symbol.shndx != 0 and reloc.symbol.value:
                target = int(reloc.symbol.value) + int(reloc.addend)
            else:
                continue  # imports, TLS offsets, copies: no address of this document
            if target:
                found.append(Relocation(site, target, kind))
        return RelocationTables(found, read=("dynamic relocations",))

    def _pe_relocations(self, binary: Any) -> RelocationTables:
        """The DIR64 and HIGHLOW entries of a PE's base relocation table: each site (image base + RVA) and
        the absolute address the word there holds (what the loader adds its slide to)."""
        if not _pe_relocation_directory_size(binary):
            return RelocationTables([])
        base = self._imagebase(binary)
        found: list[Relocation] = []
        for entry in itertools.islice(_pe_relocation_entries(binary), MAX_DATA_RELOCATIONS):
            # The entry's raw type (its top 4 bits): LIEF warns when it names a type it has no name for.
            named = _PE_POINTER_RELOCATIONS.get(int(entry.data) >> PE_RELOCATION_TYPE_SHIFT)
            if named is None:
                continue  # ABSOLUTE is padding; other types patch instruction fields, not pointers
            kind, width = named
            site = base + int(entry.address)
            word = self.read(site, width)
            if len(word) == width:
                found.append(Relocation(site, int.from_bytes(word, "little"), kind))
        return RelocationTables(found, read=(PE_BASE_RELOCATIONS,))

    def _macho_relocations(self, binary: Any) -> RelocationTables:
        """A Mach-O's rebases (dyld info: site, and the unslid address the word there holds) and its binds to
        symbols it defines itself (the symbol's address plus the addend). Binds to other images are
        imports, no address of this document; chained fixups are named as not read."""
        read: tuple[str, ...] = ()
        found: list[Relocation] = []
        if binary.has_dyld_info:
            read = (MACHO_DYLD_INFO,)
            relocations: list[Any] = list(itertools.islice(binary.relocations, MAX_DATA_RELOCATIONS))
            for reloc in relocations:
                if reloc.origin != lief.MachO.Relocation.ORIGIN.DYLDINFO:
                    continue  # an object file's section relocations
                if int(reloc.type) not in _MACHO_REBASE_WIDTHS:
                    continue  # a PC-relative text rebase holds no address
                width = _MACHO_REBASE_WIDTHS[int(reloc.type)] or self.bits // 8
                word = self.read(int(reloc.address), width)
                if len(word) == width:
                    found.append(Relocation(int(reloc.address), int.from_bytes(word, "little"), "REBASE"))
            bindings: list[Any] = list(itertools.islice(binary.dyld_info.bindings, MAX_DATA_RELOCATIONS))
            for binding in bindings:
                if binding.binding_class == lief.MachO.DyldBindingInfo.CLASS.WEAK:
                    continue  # a weak definition's pointer: rebased too, so already read as a REBASE
                if int(binding.library_ordinal) != BIND_SPECIAL_DYLIB_SELF:
                    continue  # an import: another image's address
                symbol = binding.symbol if binding.has_symbol else None
                if symbol is None or symbol.type != lief.MachO.Symbol.TYPE.SECTION or not int(symbol.value):
                    continue  # a name this image does not define after all
                found.append(Relocation(int(binding.address), int(symbol.value) + int(binding.addend), "BIND"))
        not_read = (MACHO_CHAINED_FIXUPS,) if binary.has_dyld_chained_fixups else ()
        return RelocationTables(found, read=read, not_read=not_read)

    def _relocation_damage(self, binary: Any) -> str | None:
        """Where a PE's base relocation table or a Mach-O's rebase opcodes stop holding together, if they do."""
        if self._kind == "PE":
            return _pe_relocation_damage(binary)
        if self._kind == "MachO" and binary.has_dyld_info:
            segments: list[Any] = list(binary.segments)
            spans = [_rebase_segment(segment) for segment in segments]
            opcodes = bytes(binary.dyld_info.rebase_opcodes)
            return check_rebase_opcodes(opcodes, spans, self.bits // 8).error
        return None

    def _iat_slots(self, binary: Any) -> dict[int, SlotTarget]:
        """A PE's import address table: each entry's address -> its function and DLL (`#16` for one
        imported by ordinal)."""
        base = self._imagebase(binary)
        slots: dict[int, SlotTarget] = {}
        imports: list[Any] = list(binary.imports)
        for library in imports:
            dll = clean_name(library.name) or "?"
            entries: list[Any] = list(library.entries)
            for entry in entries:
                name = f"#{int(entry.ordinal)}" if entry.is_ordinal else clean_name(entry.name)
                if int(entry.iat_address) and name:
                    slots.setdefault(base + int(entry.iat_address), SlotTarget(name, None, True, dll, "PE"))
        return slots

    def import_slots(self) -> dict[int, SlotTarget]:
        """GOT slot address -> the function a PLT stub jumping through it reaches.

        `.plt`/`.plt.sec` stubs jump through JUMP_SLOT slots, `.plt.got` stubs
        through GLOB_DAT (or absolute) slots; an IRELATIVE slot holds what its
        resolver returns, and the resolver is the GNU_IFUNC symbol (`strlen`)
        at the relocation's addend.
        """
        binary = self._binary
        if binary is not None and self._kind == "PE":
            return self._iat_slots(binary)
        if binary is not None and self._kind == "MachO":
            return _symbol_pointers(binary, self.bits // 8)
        if binary is None or self._kind != "ELF":
            return {}
        at_address = {r.address: r.names[0] for r in self.inventory.records if r.names}
        slots: dict[int, SlotTarget] = {}
        relocations: Iterable[Any] = binary.relocations  # one at a time, as in `data_relocations`
        for reloc in relocations:
            kind = relocation_kind(reloc)
            if kind in _SLOT_RELOCATIONS and reloc.has_symbol and reloc.symbol.name:
                symbol = reloc.symbol
                defined = int(symbol.value) if symbol.shndx != 0 and symbol.value else None
                got = kind not in _ABSOLUTE_RELOCATIONS
                slots.setdefault(int(reloc.address), SlotTarget(clean_name(symbol.name), defined, got))
            elif kind == "IRELATIVE" and int(reloc.addend) in at_address:
                resolver = int(reloc.addend)
                slots.setdefault(int(reloc.address), SlotTarget(at_address[resolver], resolver))
        return slots


def open_documents(path: str) -> list[tuple[str | None, LiefDocument]]:
    """The documents of one file: the file, or each slice of a universal Mach-O, labelled by its
    architecture as lipo names it (`arm64`, `x86_64`; `arm64, slice 3` where two share one)."""
    try:
        with open(path, "rb") as file:
            head = file.read(FAT_HEADER.size + MAX_SLICES * FAT_ARCH_64.size)
            file_size = os.fstat(file.fileno()).st_size
    except OSError:
        return [(None, LiefDocument(path))]  # the document says why it cannot be read
    if not is_fat(head):
        return [(None, LiefDocument(path))]
    header = read_fat_header(head, file_size)
    if header.error is not None:
        return [(None, LiefDocument(path, fat_error=header.error))]
    shared = {s.architecture for s in header.slices if sum(o.architecture == s.architecture for o in header.slices) > 1}
    return [
        (
            f"{s.architecture}, slice {s.index}" if s.architecture in shared else s.architecture,
            LiefDocument(path, fat_slice=s),
        )
        for s in header.slices
    ]


def _parse_slice(image: BinaryImage, fat_slice: FatSlice) -> Any:
    """LIEF's parse of one slice's bytes on their own (a thin Mach-O), or None."""
    if not fat_slice.readable:
        return None
    if isinstance(image.source, bytes):
        data = image.source[fat_slice.offset : fat_slice.offset + fat_slice.readable]
    else:
        with open(image.source, "rb") as file:
            file.seek(fat_slice.offset)
            data = file.read(fat_slice.readable)
    # A file object, not bytes: LIEF takes bytes that name an existing file for its path.
    parsed = lief.MachO.parse(io.BytesIO(data))
    return parsed.at(0) if parsed is not None and parsed.size else None


def _slice_error(path: str, fat_slice: FatSlice) -> str:
    if fat_slice.problem is not None and not fat_slice.readable:
        return fat_slice.problem
    failed = (
        f"LIEF could not parse slice {fat_slice.index} ({fat_slice.architecture}) of {os.path.basename(path)}: "
        f"{fat_slice.readable:,} bytes at offset 0x{fat_slice.offset:x}"
    )
    return failed if fat_slice.problem is None else f"{failed}; {fat_slice.problem}"


INDIRECT_SYMBOL_LOCAL = 0x8000_0000
INDIRECT_SYMBOL_ABS = 0x4000_0000
"""Indirect symbol table entries that name no symbol: a pointer to something of the file's own, or absolute."""
INDIRECT_ENTRY_BYTES = 4
"""An indirect symbol table entry: a 32-bit index into the symbol table."""
_POINTER_SECTIONS = ("NON_LAZY_SYMBOL_POINTERS", "LAZY_SYMBOL_POINTERS", "LAZY_DYLIB_SYMBOL_POINTERS")


def _indirect_symbols(binary: Any) -> list[int]:
    """The indirect symbol table's entries, read from its bytes: LIEF's own list leaves out the entries that
    name no symbol, and with them the positions sections index it by."""
    if not binary.has_dynamic_symbol_command:
        return []
    command = binary.dynamic_symbol_command
    linkedit = binary.get_segment("__LINKEDIT")
    count = int(command.nb_indirect_symbols)
    if linkedit is None or not count:
        return []
    address = int(linkedit.virtual_address) + int(command.indirect_symbol_offset) - int(linkedit.file_offset)
    raw = bytes(binary.get_content_from_virtual_address(address, count * INDIRECT_ENTRY_BYTES))
    return [int.from_bytes(raw[at : at + INDIRECT_ENTRY_BYTES], "little") for at in range(0, len(raw) - 3, 4)]


def _symbol_pointers(binary: Any, width: int) -> dict[int, SlotTarget]:
    """A Mach-O's symbol pointers (`__got`, `__la_symbol_ptr`): each pointer's address -> the symbol the
    indirect symbol table gives it (a section's `reserved1` is its first entry there), with its dylib."""
    entries = _indirect_symbols(binary)
    symbols: list[Any] = list(binary.symbols)
    slots: dict[int, SlotTarget] = {}
    sections: list[Any] = list(binary.sections)
    for section in sections:
        if str(section.type).rsplit(".", 1)[-1] not in _POINTER_SECTIONS:
            continue
        first = int(section.reserved1)
        for position in range(int(section.size) // width):
            at = first + position
            index = entries[at] if at < len(entries) else INDIRECT_SYMBOL_LOCAL
            if index & (INDIRECT_SYMBOL_LOCAL | INDIRECT_SYMBOL_ABS) or index >= len(symbols):
                continue
            symbol = symbols[index]
            name = clean_name(symbol.name) if symbol.name else ""
            if name:
                dylib = clean_name(symbol.library.name) if symbol.library is not None else None
                defined = int(symbol.value) or None
                target = SlotTarget(name, defined, True, dylib, "MachO")
                slots.setdefault(int(section.virtual_address) + position * width, target)
    return slots


def _code_sections(binary: Any) -> list[CodeSection]:
    """A Mach-O's sections that hold instructions (the attributes the linker sets on `__text` and the like)."""
    flags = lief.MachO.Section.FLAGS
    sections: list[Any] = list(binary.sections)
    return [
        CodeSection(name_of(s), int(s.virtual_address), int(s.virtual_address) + int(s.size))
        for s in sections
        if int(s.size) and (s.has(flags.PURE_INSTRUCTIONS) or s.has(flags.SOME_INSTRUCTIONS))
    ]


MACH_HEADER_BYTES = 28
MACH_HEADER_64_BYTES = 32
"""A Mach header's size (32- and 64-bit), after which its load commands start."""
VM_PROT_EXECUTE = 4
"""A Mach-O segment's protection bit for executable pages."""


def _parse(source: str | bytes, fmt: str) -> Any:
    """LIEF's parse of `source`; a PE's exception directory (`.pdata`) too, whose RUNTIME_FUNCTION
    entries give x64 functions with their extents (off in LIEF's default configuration)."""
    # Bytes go in as a file object: LIEF takes bytes that name an existing file for its path.
    readable = io.BytesIO(source) if isinstance(source, bytes) else source
    if fmt == "PE":
        config = lief.PE.ParserConfig()
        config.parse_exceptions = True
        return lief.PE.parse(readable, config)
    return lief.parse(readable)


THUMB_BIT = 1
"""Bit 0 of a 32-bit ARM function symbol's value: the function is Thumb code."""
PE_READ_ONLY_DATA = ".rdata"
"""Where a Go PE's linker puts its function table, among the other read-only data."""
_MAPPING = re.compile(r"^\$([atdx])(?:\.|$)")
"""ARM ELF mapping symbols: `$a` ARM code, `$t` Thumb code, `$x` AArch64 code, `$d` data, from their
address on."""


def _mapping_marks(symbols: list[Any]) -> list[tuple[int, str]]:
    """`(address, kind)` of the mapping symbols, sorted."""
    marks: list[tuple[int, str]] = []
    for sym in symbols:
        found = _MAPPING.match(sym.name) if sym.name else None
        if found is not None and sym.shndx != 0:
            marks.append((int(sym.value), found.group(1)))
    return sorted(set(marks))


def _data_by_mapping(symbols: list[Any]) -> list[tuple[int, int]]:
    """`[start, end)` from each `$d` to the next code mapping symbol (the last runs to the next mark only)."""
    marks = _mapping_marks(symbols)
    ranges: list[tuple[int, int]] = []
    for (address, kind), following in itertools.pairwise(marks):
        if kind == "d" and following[1] != "d" and following[0] > address:
            ranges.append((address, following[0]))
    return ranges


def _thumb_by_mapping(symbols: list[Any], addresses: Any) -> set[int]:
    """The procedure addresses whose closest mapping symbol at or before them is `$t`."""
    marks = _mapping_marks(symbols)
    if not marks:
        return set()
    starts = [address for address, _kind in marks]
    thumb: set[int] = set()
    for address in addresses:
        at = bisect_right(starts, address) - 1
        if at >= 0 and marks[at][1] == "t":
            thumb.add(address)
    return thumb


def _machine(binary: Any, kind: str) -> str:
    """The header's own name for the machine: `EM_PPC64`, `IMAGE_FILE_MACHINE_ARM64`, `CPU_TYPE_POWERPC`."""
    if kind == "ELF":
        return "EM_" + str(binary.header.machine_type).rsplit(".", 1)[-1]
    if kind == "PE":
        return "IMAGE_FILE_MACHINE_" + str(binary.header.machine).rsplit(".", 1)[-1]
    if kind == "MachO":
        return "CPU_TYPE_" + str(binary.header.cpu_type).rsplit(".", 1)[-1]
    return "unknown machine"


def _endianness(header: Any) -> str:
    return "big-endian" if str(header.endianness).endswith("BIG") else "little-endian"


TRUNCATION_SHOWN = 4
"""Sections or segments named in a truncation warning; the rest are counted."""


def _truncation(binary: Any, kind: str, file_size: int, whole: str = "file") -> str | None:
    """Which sections or segments claim file bytes past the end of the file (a truncated copy), or past
    the end of what the file holds of a universal binary's slice (`whole` is then "slice")."""
    past: list[str] = []
    if kind == "ELF":
        segments: list[Any] = list(binary.segments)
        for seg in segments:
            if int(seg.file_offset) + int(seg.physical_size) > file_size:
                past.append(f"segment {str(seg.type).rsplit('.', 1)[-1]} at offset {hex_address(int(seg.file_offset))}")
        sections: list[Any] = list(binary.sections)
        for sec in sections:
            if sec.type != lief.ELF.Section.TYPE.NOBITS and int(sec.offset) + int(sec.size) > file_size:
                past.append(f"section {name_of(sec)}")
    elif kind == "PE":
        pe_sections: list[Any] = list(binary.sections)
        for sec in pe_sections:
            if int(sec.pointerto_raw_data) + int(sec.sizeof_raw_data) > file_size:
                past.append(f"section {name_of(sec)}")
    elif kind == "MachO":
        header = binary.header
        commands_end = (MACH_HEADER_64_BYTES if header.is_64bit else MACH_HEADER_BYTES) + int(header.sizeof_cmds)
        if commands_end > file_size:
            # LIEF drops load commands cut short, and with them every segment: name them, not just what survives.
            past.append(f"load commands (to offset {hex_address(commands_end)})")
        macho_segments: list[Any] = list(binary.segments)
        for seg in macho_segments:
            if int(seg.file_offset) + int(seg.file_size) > file_size:
                past.append(f"segment {name_of(seg)}")
    if not past:
        return None
    more = f" and {len(past) - TRUNCATION_SHOWN} more" if len(past) > TRUNCATION_SHOWN else ""
    return (
        f"truncated {whole}: {len(past)} sections or segments lie past its end ({file_size:,} bytes): "
        f"{', '.join(past[:TRUNCATION_SHOWN])}{more}; their bytes were not read, so procedures, strings and "
        "references there are missing"
    )


def _kind(binary: Any) -> str:
    if isinstance(binary, lief.ELF.Binary):
        return "ELF"
    if isinstance(binary, lief.MachO.Binary):
        return "MachO"
    if isinstance(binary, lief.PE.Binary):
        return "PE"
    return "unknown"


_PLT_SECTIONS = (".plt", ".plt.sec", ".plt.got")
MAX_DATA_RELOCATIONS = 4_000_000
"""Relocations read per document (a large program has a few hundred thousand); past that a damaged or
hostile table is not read further."""
MAX_DATA_SYMBOLS = 1_000_000
"""Symbols or exports read per document for naming data."""
PE_BASE_RELOCATIONS = "base relocations (.reloc)"
MACHO_DYLD_INFO = "rebases and binds (LC_DYLD_INFO)"
MACHO_CHAINED_FIXUPS = "chained fixups (LC_DYLD_CHAINED_FIXUPS)"
"""The relocation tables find_references names as read or not read."""
IMAGE_REL_BASED_HIGHLOW = 3
IMAGE_REL_BASED_HIGHADJ = 4
"""Its entry takes two slots: the second is the low half of the adjusted value."""
IMAGE_REL_BASED_DIR64 = 10
PE_RELOCATION_TYPE_SHIFT = 12
"""A base relocation entry is 16 bits: its type in the top 4, its offset in the page in the low 12."""
_PE_POINTER_RELOCATIONS = {IMAGE_REL_BASED_DIR64: ("DIR64", 8), IMAGE_REL_BASED_HIGHLOW: ("HIGHLOW", 4)}
"""PE base relocation types that relocate a whole pointer: their name and the pointer's width."""
REBASE_TYPE_POINTER = 1
REBASE_TYPE_TEXT_ABSOLUTE32 = 2
_MACHO_REBASE_WIDTHS = {REBASE_TYPE_POINTER: 0, REBASE_TYPE_TEXT_ABSOLUTE32: 4}
"""Mach-O rebase types that hold an absolute address, and its width (0: the document's pointer width)."""
BIND_SPECIAL_DYLIB_SELF = 0
"""A bind's library ordinal for this image itself (llvm-objdump's `this-image`)."""
PE_RELOCATION_BLOCK_HEADER = 8
"""A base relocation block starts with its page's RVA and its own size (two 32-bit words)."""


def _pe_relocation_entries(binary: Any) -> Iterator[Any]:
    """Every base relocation entry, less the slot after each HIGHADJ: that holds its parameter, not an entry
    (LIEF reads it as one; objdump and the loader do not)."""
    blocks: list[Any] = list(binary.relocations)
    for block in blocks:
        entries: list[Any] = list(block.entries)
        parameter = False
        for entry in entries:
            if not parameter:
                yield entry
            parameter = not parameter and int(entry.data) >> PE_RELOCATION_TYPE_SHIFT == IMAGE_REL_BASED_HIGHADJ


def _pe_relocation_damage(binary: Any) -> str | None:
    """A base relocation table whose blocks do not account for the bytes its data directory gives it: a block
    size that is too small, runs past the table or stops the walk (LIEF then reads no further)."""
    size = _pe_relocation_directory_size(binary)
    if not size:
        return None
    blocks: list[Any] = list(binary.relocations)
    accounted = sum(int(block.block_size) for block in blocks)
    small = sum(1 for block in blocks if int(block.block_size) < PE_RELOCATION_BLOCK_HEADER)
    if accounted == size and not small:
        return None
    return (
        f"{PE_BASE_RELOCATIONS}: its {len(blocks):,} blocks account for {accounted:,} of the {size:,} bytes its data "
        "directory gives it, so relocations in the rest are missing"
    )


def _pe_relocation_directory_size(binary: Any) -> int:
    """The bytes a PE's data directory gives its base relocation table (0: it has none). LIEF's
    `has_relocations` is false when the table is there but its first block is damaged."""
    directory = binary.data_directory(lief.PE.DataDirectory.TYPES.BASE_RELOCATION_TABLE)
    return int(directory.size) if directory is not None else 0


def _rebase_segment(segment: Any) -> Segment:
    """A Mach-O segment's extent and its sections', for checking rebase opcodes."""
    start = int(segment.virtual_address)
    sections: list[Any] = list(segment.sections)
    extents = tuple((int(s.virtual_address), int(s.virtual_address) + int(s.size)) for s in sections)
    return Segment(start, start + int(segment.virtual_size), extents)


def _sized_to_next(named: list[tuple[int, str]], end: int) -> list[tuple[int, int, str]]:
    """`(address, size, name)` of symbols in one section, each running to the next address or to `end`; of
    several names at one address, the first in sort order."""
    first: dict[int, str] = {}
    for address, name in sorted(named):
        first.setdefault(address, name)
    addresses = sorted(first)
    following = [*addresses[1:], end]
    return [
        (address, max(min(after, end) - address, 1), first[address])
        for address, after in zip(addresses, following, strict=True)
    ]


def _is_code_section(section: Any) -> bool:
    flags = lief.MachO.Section.FLAGS
    return bool(section.has(flags.PURE_INSTRUCTIONS) or section.has(flags.SOME_INSTRUCTIONS))


_RELOCATION_ARCH = re.compile(r"^(?:X86_64|AARCH64|ARM|386|I386|RISCV|PPC64|PPC)_")


def relocation_kind(reloc: Any) -> str:
    """An ELF relocation's type without its LIEF enum and architecture prefix: `JUMP_SLOT`, `RELATIVE`."""
    return _type_name(reloc.type)


@functools.cache
def _type_name(relocation_type: Any) -> str:
    # Once per type: formatting the enum costs more than the rest of reading a relocation (libLLVM has 382,000).
    return _RELOCATION_ARCH.sub("", str(relocation_type).rsplit(".", 1)[-1])


_SLOT_RELOCATIONS = frozenset({"JUMP_SLOT", "GLOB_DAT", "64", "ABS64", "GLOB_DAT32", "32"})
"""Relocation types (after the architecture prefix) that fill a GOT slot with a symbol's address."""
_ABSOLUTE_RELOCATIONS = frozenset({"64", "ABS64", "32"})
"""Of those, the ones that fill any word with an address: a pointer in data, not only a GOT slot."""
_ELF_LOADER_DATA = (".eh_frame", ".gcc_except_table", ".got", ".init_array", ".fini_array", ".tbss")


def _holds_data(kind: str, sec: Any) -> bool:
    if not int(sec.size):
        return False
    if kind == "ELF":
        if sec.type != lief.ELF.Section.TYPE.PROGBITS:
            return False  # symbol, string and relocation tables, notes, .bss
        if not sec.has(lief.ELF.Section.FLAGS.ALLOC) or sec.has(lief.ELF.Section.FLAGS.EXECINSTR):
            return False
        return not str(sec.name).startswith(_ELF_LOADER_DATA)
    if kind == "PE":
        chars = lief.PE.Section.CHARACTERISTICS
        return sec.has_characteristic(chars.CNT_INITIALIZED_DATA) and not sec.has_characteristic(chars.MEM_EXECUTE)
    if kind == "MachO":
        # Zero-fill sections have no bytes; code sections carry the instruction attributes.
        zerofill = {lief.MachO.Section.TYPE.ZEROFILL, lief.MachO.Section.TYPE.GB_ZEROFILL}
        code = lief.MachO.Section.FLAGS.PURE_INSTRUCTIONS
        return sec.type not in zerofill and not sec.has(code)
    return False


def _section_flags(kind: str, sec: Any) -> list[str]:
    flags: list[str] = []
    if kind == "ELF":
        if sec.has(lief.ELF.Section.FLAGS.ALLOC):
            flags.append("alloc")
        if sec.has(lief.ELF.Section.FLAGS.WRITE):
            flags.append("write")
        if sec.has(lief.ELF.Section.FLAGS.EXECINSTR):
            flags.append("exec")
    elif kind == "PE":
        chars = lief.PE.Section.CHARACTERISTICS
        for flag, label in (
            (chars.MEM_READ, "read"),
            (chars.MEM_WRITE, "write"),
            (chars.MEM_EXECUTE, "exec"),
        ):
            if sec.has_characteristic(flag):
                flags.append(label)
    elif kind == "MachO":
        segment = name_of(sec, "segment_name")
        if segment:
            flags.append(f"segment:{segment}")
    return flags


def _segment_flags(kind: str, seg: Any) -> list[str]:
    if kind == "ELF":
        pairs = (
            (lief.ELF.Segment.FLAGS.R, "read"),
            (lief.ELF.Segment.FLAGS.W, "write"),
            (lief.ELF.Segment.FLAGS.X, "exec"),
        )
        return [label for flag, label in pairs if seg.has(flag)]
    prot = int(seg.init_protection)
    return [label for bit, label in ((1, "read"), (2, "write"), (VM_PROT_EXECUTE, "exec")) if prot & bit]
