"""Targets: what `open_binary` opens, and the documents and providers it yields.

A target is a file, a directory of binaries, a macOS `.app` bundle, the
deterministic synthetic target, or the default target (the running Python
interpreter and the shared libraries it loads).
"""

from __future__ import annotations

import os
import plistlib
import sys
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from rea_tui.server.analysis.code_listing import DataSymbol
from rea_tui.server.analysis.code_references import SlotTarget
from rea_tui.server.analysis.data_references import RelocationTables
from rea_tui.server.analysis.disassembly import CapstoneMode
from rea_tui.server.analysis.string_index import SectionBytes
from rea_tui.server.providers.base import DocumentInventory, InventoryProvider, Provider
from rea_tui.server.providers.synthetic import SyntheticSpec, build_inventories, build_providers
from rea_tui.server.providers.synthetic_document import SyntheticDocument
from rea_tui.server.target.binary_formats import sniff_format
from rea_tui.server.target.target_paths import (
    DEFAULT_LABEL,
    DEFAULT_TARGET,
    SYNTHETIC_PATH,
    TargetError,
    check_openable,
)

TargetKind = Literal["file", "directory", "app", "synthetic", "default"]

MAX_DIRECTORY_FILES = 4000
MAX_DOCUMENTS = 64


class DocumentBackend(Protocol):
    format: str
    arch: str
    bits: int
    error: str | None
    read_note: str | None
    """What of the file was not read (a sparse file's hole)."""
    code_note: str | None
    """Why the code cannot be disassembled (an unsupported architecture), when it cannot."""

    @property
    def not_decoded(self) -> list[str]:
        """What of the document the server could not decode (architecture, truncation, unwind records)."""
        ...

    inventory: DocumentInventory

    def read(self, address: int, size: int) -> bytes: ...

    def view(self, address: int, size: int) -> bytes | memoryview:
        """Like `read`, without a copy where the parsed file holds the bytes (a search over all the code)."""
        ...

    def layout(self) -> dict[str, Any]: ...

    def disassembly_target(self) -> CapstoneMode | None: ...

    def code_mode(self, address: int) -> CapstoneMode | None:
        """The mode of the procedure at `address` (32-bit ARM: Thumb or ARM), else `disassembly_target()`."""
        ...

    def code_spans(self, start: int, end: int) -> list[tuple[int, int]]:
        """The parts of `[start, end)` that are code, less data among it (ARM literal pools)."""
        ...

    def data_sections(self) -> list[SectionBytes]: ...

    def absolute_ranges(self) -> list[tuple[int, int]]: ...

    def stub_sections(self) -> list[SectionBytes]: ...

    def import_slots(self) -> dict[int, SlotTarget]: ...

    def data_symbols(self) -> list[DataSymbol]: ...

    def data_relocations(self) -> RelocationTables: ...


@dataclass(slots=True)
class Document:
    id: int
    name: str
    path: str | None
    backend: DocumentBackend

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "path": self.path,
            "format": self.backend.format,
            "arch": self.backend.arch,
        }
        if self.backend.read_note is not None:
            info["read"] = self.backend.read_note
        if self.backend.error is not None:
            info["error"] = self.backend.error
        else:
            info["procedure_count"] = len(self.backend.inventory.records)
            if self.backend.not_decoded:
                info["not_decoded"] = self.backend.not_decoded
        return info


@dataclass(slots=True)
class Target:
    kind: TargetKind
    path: str | None
    label: str
    documents: list[Document]
    providers: dict[str, Provider]
    main_executable: str | None = None
    javascript_root: str | None = None
    synthetic: SyntheticSpec | None = None
    notes: list[str] = field(default_factory=list)

    def document(self, name: str) -> Document | None:
        for doc in self.documents:
            if doc.name == name:
                return doc
        return None

    @property
    def primary(self) -> Document | None:
        return self.documents[0] if self.documents else None

    def provider_names(self) -> list[str]:
        deep = sorted(name for name in self.providers if name != "auto")
        return ["auto", *deep]

    def describe(self) -> dict[str, Any]:
        return {
            "target": self.path,
            "kind": self.kind,
            "label": self.label,
            "documents": [doc.describe() for doc in self.documents],
            "providers": [self.providers[name].describe() for name in self.provider_names()],
            "main_executable": self.main_executable,
        }


# -- JavaScript / Electron detection -----------------------------------------------


def javascript_markers(path: str) -> list[str]:
    """Files that mark `path` as a JavaScript/Electron application directory."""
    if not os.path.isdir(path):
        return []
    candidates = (
        "package.json",
        "app.asar",
        os.path.join("resources", "app.asar"),
        os.path.join("Contents", "Resources", "app.asar"),
        os.path.join("resources", "app", "package.json"),
        os.path.join("Contents", "Resources", "app", "package.json"),
    )
    return [c for c in candidates if os.path.exists(os.path.join(path, c))]


def is_javascript_application(path: str) -> bool:
    return bool(javascript_markers(path))


# -- building targets -----------------------------------------------------------------


def slice_document_name(name: str, label: str | None) -> str:
    """A universal Mach-O's slice is named by its file and its architecture: `Notes (arm64)`."""
    return name if label is None else f"{name} ({label})"


def _real_documents(entries: list[tuple[str, str]]) -> tuple[list[Document], InventoryProvider]:
    from rea_tui.server.providers.lief_documents import open_documents

    documents: list[Document] = []
    inventories: dict[str, DocumentInventory] = {}
    for name, path in entries:
        for label, backend in open_documents(path):
            document_name = slice_document_name(name, label)
            documents.append(Document(id=len(documents) + 1, name=document_name, path=path, backend=backend))
            inventories[document_name] = backend.inventory
    provider = InventoryProvider("auto", [(d.name, d.backend.format) for d in documents], inventories)
    return documents, provider


def _unique_names(paths: list[str], root: str | None) -> list[tuple[str, str]]:
    """Basenames, or root-relative paths where basenames collide."""
    base_counts: dict[str, int] = {}
    for p in paths:
        base_counts[os.path.basename(p)] = base_counts.get(os.path.basename(p), 0) + 1
    out: list[tuple[str, str]] = []
    for p in paths:
        name = os.path.basename(p)
        if base_counts[name] > 1:
            name = os.path.relpath(p, root) if root else p
        out.append((name, p))
    return out


def open_synthetic(spec: SyntheticSpec) -> Target:
    inventories = build_inventories(spec)
    documents = [
        Document(
            id=index,
            name=name,
            path=None,
            backend=SyntheticDocument(name, base, inventories[name], spec.seed),
        )
        for index, (name, _frac, base) in enumerate(spec.layout(), start=1)
    ]
    providers = {p.name: p for p in build_providers(spec, inventories)}
    return Target(
        kind="synthetic",
        path=spec.label,
        label=f"synthetic Notes.app ({spec.procedures} procedures, seed {spec.seed})",
        documents=documents,
        providers=providers,
        main_executable=None,
        synthetic=spec,
    )


def _mapped_libraries() -> list[str]:
    """Paths of the shared objects mapped into this process (Linux), else []."""
    maps = "/proc/self/maps"
    found: list[str] = []
    if not os.path.exists(maps):
        return found
    with open(maps, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            parts = line.split(None, 5)
            if len(parts) == 6:
                path = parts[5].strip()
                if path.startswith("/") and ".so" in os.path.basename(path) and path not in found:
                    found.append(path)
    return found


def _resolve_library(name: str, loader: str, mapped: list[str]) -> str | None:
    """Where the dependency `name` of `loader` lives on disk, or None."""
    exe_dir = os.path.dirname(os.path.realpath(sys.executable))
    loader_dir = os.path.dirname(loader)
    candidates: list[str] = []
    if name.startswith("/"):
        candidates.append(name)
    elif name.startswith(("@executable_path/", "@loader_path/", "@rpath/")):
        head, _, rest = name.partition("/")
        bases = {"@executable_path": [exe_dir], "@loader_path": [loader_dir]}.get(
            head, [loader_dir, os.path.join(exe_dir, "..", "lib"), os.path.join(sys.base_prefix, "lib")]
        )
        candidates.extend(os.path.join(base, rest) for base in bases)
    else:
        base = os.path.basename(name)
        for path in mapped:
            mapped_base = os.path.basename(path)
            if mapped_base == base or mapped_base.startswith(base + "."):
                candidates.append(path)
        candidates.extend(os.path.join(d, base) for d in (loader_dir, exe_dir, os.path.join(sys.base_prefix, "lib")))
    for candidate in candidates:
        if os.path.isfile(candidate):
            return os.path.realpath(candidate)
    return None


def _library_rank(path: str) -> tuple[int, str]:
    # libpython first after the interpreter: it is where the procedures are.
    name = os.path.basename(path)
    return (0 if name.startswith(("libpython", "python", "Python")) else 1, name)


def open_default() -> Target:
    """The running interpreter and the shared libraries it links against (transitively).

    Libraries loaded later by extension modules (OpenSSL, zlib...) are not
    part of the interpreter and are left out.
    """
    from rea_tui.server.providers.lief_documents import LiefDocument, open_documents

    exe = os.path.realpath(sys.executable)
    mapped = _mapped_libraries()
    parsed: dict[str, list[tuple[str | None, LiefDocument]]] = {}
    queue = [exe]
    while queue and len(parsed) < MAX_DOCUMENTS:
        path = queue.pop(0)
        if path in parsed:
            continue
        slices = open_documents(path)  # a universal interpreter (python.org's universal2) has a slice per architecture
        parsed[path] = slices
        deps: list[str] = []
        for _label, doc in slices:
            deps.extend(dep for dep in doc.libraries if dep not in deps)
            if doc.interpreter and doc.interpreter not in deps:
                deps.append(doc.interpreter)
        for dep in deps:
            resolved = _resolve_library(dep, path, mapped)
            if resolved is not None and resolved not in parsed and resolved not in queue:
                queue.append(resolved)
    ordered = [exe, *sorted((p for p in parsed if p != exe), key=_library_rank)]
    documents: list[Document] = []
    inventories: dict[str, DocumentInventory] = {}
    for name, path in _unique_names(ordered, None):
        for label, backend in parsed[path]:
            document_name = slice_document_name(name, label)
            documents.append(Document(id=len(documents) + 1, name=document_name, path=path, backend=backend))
            inventories[document_name] = backend.inventory
    provider = InventoryProvider("auto", [(d.name, d.backend.format) for d in documents], inventories)
    return Target(
        kind="default",
        path=exe,
        label=DEFAULT_LABEL,
        documents=documents,
        providers={"auto": provider},
        main_executable=exe,
    )


def _app_bundle_files(path: str) -> tuple[str | None, list[str]]:
    contents = os.path.join(path, "Contents")
    main: str | None = None
    info = os.path.join(contents, "Info.plist")
    if os.path.isfile(info):
        try:
            with open(info, "rb") as fh:
                plist = plistlib.load(fh)
            exe_name = plist.get("CFBundleExecutable")
            if isinstance(exe_name, str):
                candidate = os.path.join(contents, "MacOS", exe_name)
                if os.path.isfile(candidate):
                    main = candidate
        except (OSError, plistlib.InvalidFileException, ValueError):
            pass
    files = _binary_files(contents if os.path.isdir(contents) else path)
    if main is None:
        macos = [f for f in files if os.sep + "MacOS" + os.sep in f]
        main = macos[0] if macos else (files[0] if files else None)
    if main is not None:
        files = [main, *[f for f in files if f != main]]
    return main, files


def _binary_files(root: str) -> list[str]:
    found: list[str] = []
    seen = 0
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in ("node_modules", ".git"))
        for filename in sorted(filenames):
            seen += 1
            if seen > MAX_DIRECTORY_FILES or len(found) >= MAX_DOCUMENTS:
                return found
            full = os.path.join(dirpath, filename)
            if os.path.islink(full) or not os.path.isfile(full):
                continue
            if sniff_format(full) is not None:
                found.append(full)
    return found


def open_path(path: str) -> Target:
    """Open `path` as a target, or raise `TargetError` saying why not."""
    check_openable(path)
    match = SYNTHETIC_PATH.match(path.strip())
    if match:
        return open_synthetic(SyntheticSpec(int(match.group(1)), int(match.group(2) or 0)))
    if path.strip() == DEFAULT_TARGET:
        return open_default()
    full = os.path.realpath(os.path.expanduser(path))
    if os.path.isfile(full):
        documents, provider = _real_documents([(os.path.basename(full), full)])
        return Target(
            kind="file",
            path=full,
            label=os.path.basename(full),
            documents=documents,
            providers={"auto": provider},
            main_executable=full if os.access(full, os.X_OK) else None,
        )
    if full.rstrip(os.sep).endswith(".app") and os.path.isdir(os.path.join(full, "Contents")):
        main, files = _app_bundle_files(full)
        if not files:
            raise TargetError(f"the app bundle has no executable binaries: {path}")
        documents, provider = _real_documents(_unique_names(files, full))
        return Target(
            kind="app",
            path=full,
            label=os.path.basename(full.rstrip(os.sep)),
            documents=documents,
            providers={"auto": provider},
            main_executable=main,
            javascript_root=full if is_javascript_application(full) else None,
        )
    files = _binary_files(full)
    if not files:
        if is_javascript_application(full):
            raise TargetError(
                "this is a JavaScript/Electron application directory, not a binary target; "
                f"the available analysis operation is analyze_javascript_application(input_path={full!r})"
            )
        raise TargetError(f"the directory contains no ELF, Mach-O or PE binaries: {path}")
    documents, provider = _real_documents(_unique_names(files, full))
    executables = [f for f in files if os.access(f, os.X_OK)]
    return Target(
        kind="directory",
        path=full,
        label=os.path.basename(full.rstrip(os.sep)) or full,
        documents=documents,
        providers={"auto": provider},
        main_executable=executables[0] if executables else None,
        javascript_root=full if is_javascript_application(full) else None,
    )
