"""Static analysis of JavaScript/Electron application directories (bounded).

Reads `package.json`, lists script files (also inside an `app.asar` archive
header), and extracts feature seeds: IPC channels, exported and declared
functions, and module edges. Nothing is executed.
"""

from __future__ import annotations

import json
import os
import re
import struct
from typing import Any

from rea_tui.server.target.target import javascript_markers

MAX_FILES = 2000
MAX_SCANNED_FILES = 300
MAX_BYTES_PER_FILE = 256 * 1024
MAX_SEEDS = 500
_SCRIPT_EXT = (".js", ".mjs", ".cjs", ".ts", ".jsx", ".tsx")

_SEED_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("ipc_handler", re.compile(r"ipcMain\.(?:handle|on|once)\(\s*['\"`]([^'\"`]{1,200})['\"`]")),
    ("ipc_call", re.compile(r"ipcRenderer\.(?:invoke|send|sendSync|on)\(\s*['\"`]([^'\"`]{1,200})['\"`]")),
    ("exported_function", re.compile(r"export\s+(?:async\s+)?function\s+([A-Za-z_$][\w$]{0,100})")),
    ("function", re.compile(r"(?<![\w$.])function\s+([A-Za-z_$][\w$]{0,100})\s*\(")),
    ("app_event", re.compile(r"app\.on\(\s*['\"]([\w-]{1,100})['\"]")),
)
_IMPORT = re.compile(r"""(?:require\(\s*|from\s+|import\s*\(\s*)['"]([^'"]{1,300})['"]""")


def _read_asar_listing(path: str) -> list[str]:
    """File names from an asar archive header (a Chromium pickle holding JSON)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(16)
            if len(head) < 16:
                return []
            json_len = struct.unpack_from("<I", head, 12)[0]
            if json_len > 64 * 1024 * 1024:
                return []
            header = json.loads(fh.read(json_len).decode("utf-8", "replace"))
    except (OSError, ValueError, struct.error):
        return []
    names: list[str] = []

    def walk(node: Any, prefix: str) -> None:
        files = node.get("files") if isinstance(node, dict) else None
        if not isinstance(files, dict):
            return
        for name, child in files.items():
            if len(names) >= MAX_FILES:
                return
            full = f"{prefix}/{name}" if prefix else str(name)
            if isinstance(child, dict) and "files" in child:
                walk(child, full)
            else:
                names.append(full)

    walk(header, "")
    return names


def _package(root: str) -> dict[str, Any]:
    for candidate in (
        "package.json",
        os.path.join("resources", "app", "package.json"),
        os.path.join("Contents", "Resources", "app", "package.json"),
    ):
        full = os.path.join(root, candidate)
        if os.path.isfile(full):
            try:
                with open(full, encoding="utf-8") as fh:
                    data = json.load(fh)
            except (OSError, ValueError):
                return {"path": candidate, "error": "package.json is not valid JSON"}
            if not isinstance(data, dict):
                return {"path": candidate, "error": "package.json is not an object"}
            deps: dict[str, Any] = {}
            for key in ("dependencies", "devDependencies"):
                if isinstance(data.get(key), dict):
                    deps.update(data[key])
            return {
                "path": candidate,
                "name": data.get("name") if isinstance(data.get("name"), str) else None,
                "version": data.get("version") if isinstance(data.get("version"), str) else None,
                "main": data.get("main") if isinstance(data.get("main"), str) else None,
                "dependencies": sorted(str(k) for k in deps)[:200],
                "electron": "electron" in deps,
            }
    return {}


def analyze(input_path: str) -> dict[str, Any]:
    """Analyze a JS/Electron directory; raises ValueError when it is not one."""
    root = os.path.realpath(os.path.expanduser(input_path))
    markers = javascript_markers(root)
    if not markers:
        raise ValueError(f"not a JavaScript/Electron application directory (no package.json or app.asar): {input_path}")
    package = _package(root)
    scripts: list[str] = []
    skipped_dependencies = 0
    for dirpath, dirnames, filenames in os.walk(root):
        if "node_modules" in dirnames:
            skipped_dependencies += 1
        dirnames[:] = sorted(d for d in dirnames if d not in ("node_modules", ".git"))
        for filename in sorted(filenames):
            if filename.endswith(_SCRIPT_EXT):
                scripts.append(os.path.relpath(os.path.join(dirpath, filename), root))
                if len(scripts) >= MAX_FILES:
                    break
        if len(scripts) >= MAX_FILES:
            break
    asar: dict[str, list[str]] = {}
    for marker in markers:
        if marker.endswith("app.asar"):
            asar[marker] = [n for n in _read_asar_listing(os.path.join(root, marker)) if n.endswith(_SCRIPT_EXT)]
    seeds: list[dict[str, Any]] = []
    edges: list[dict[str, str]] = []
    for rel in scripts[:MAX_SCANNED_FILES]:
        try:
            with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
                text = fh.read(MAX_BYTES_PER_FILE)
        except OSError:
            continue
        for kind, pattern in _SEED_PATTERNS:
            for found in pattern.finditer(text):
                if len(seeds) < MAX_SEEDS:
                    line = text.count("\n", 0, found.start()) + 1
                    seeds.append({"kind": kind, "name": found.group(1), "file": rel, "line": line})
        for found in _IMPORT.finditer(text):
            if len(edges) < MAX_SEEDS:
                edges.append({"from": rel, "to": found.group(1)})
    electron = bool(package.get("electron")) or any(m.endswith("app.asar") for m in markers)
    return {
        "input_path": root,
        "markers": markers,
        "application": "electron" if electron else "javascript",
        "package": package,
        "scripts": {"count": len(scripts), "files": scripts[:200], "truncated": len(scripts) > 200},
        "asar": {name: {"scripts": len(files), "files": files[:100]} for name, files in asar.items()},
        "node_modules_directories": skipped_dependencies,
        "feature_seeds": seeds,
        "module_edges": edges,
    }
