"""Benchmark what reading more binary kinds costs when a document opens, in process.

Run: `python benchmarks/binary_kinds.py` (no assertions; prints figures and ratios).

For each file present (Debian's busybox-static, libstdc++, the running `node`,
pip's `t64.exe`), in the same run and alternated, medians of a few runs:

- baseline: `lief.parse` alone (what opening cost before FDEs, `.pdata` and
  demangling were read);
- the whole document open (`LiefDocument`: parse, inventory, FDEs where there is
  no `.eh_frame_hdr`, `.pdata`, demangled names, truncation check);
- the parts: reading the `.eh_frame` FDEs (`read_frame_entries` on the section's bytes), and
  demangling every `_Z` name;
- `readelf --debug-dump=frames` on the same file, the toolchain's own reading of the FDEs.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import lief  # noqa: E402

from rea_tui.server.providers.demangling import demangled  # noqa: E402
from rea_tui.server.providers.frame_entries import read_frame_entries  # noqa: E402
from rea_tui.server.providers.lief_documents import LiefDocument  # noqa: E402

RUNS = 3
"""Runs of each measurement, alternated; the median is printed."""


def files() -> list[str]:
    found = ["/bin/busybox", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", shutil.which("node") or ""]
    import pip

    found.extend(str(p) for p in Path(pip.__file__).parent.rglob("t64.exe"))
    return [f for f in found if f and Path(f).is_file()]


def timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def measure(path: str) -> None:
    names = [n for r in LiefDocument(path).inventory.records for n in r.names if n.startswith("_Z")]
    binary = lief.parse(path)
    frames = binary.get_section(".eh_frame") if isinstance(binary, lief.ELF.Binary) else None
    content = bytes(frames.content) if frames is not None else b""
    address = int(frames.virtual_address) if frames is not None else 0
    readelf = shutil.which("readelf")
    frames_command = [readelf, "--debug-dump=frames", path] if readelf and not path.endswith(".exe") else None
    samples: dict[str, list[float]] = {k: [] for k in ("parse", "document", "frames", "demangle", "readelf")}
    for _ in range(RUNS):
        samples["parse"].append(timed(lambda: lief.parse(path)))
        samples["document"].append(timed(lambda: LiefDocument(path)))
        samples["frames"].append(timed(lambda: read_frame_entries(content, address, 8)))
        samples["demangle"].append(timed(lambda: [demangled(n) for n in names]))
        if frames_command is not None:
            samples["readelf"].append(timed(lambda: subprocess.run(frames_command, capture_output=True, check=False)))
    med = {k: statistics.median(v) if v else float("nan") for k, v in samples.items()}
    print(
        f"{Path(path).name:<28} {med['parse']:>9.3f}s {med['document']:>8.3f}s "
        f"{med['document'] / med['parse']:>5.1f}x {med['frames']:>6.3f}s {med['demangle']:>8.3f}s "
        f"{med['readelf']:>7.3f}s  ({len(names):,} mangled names)"
    )


def main() -> None:
    lief.logging.disable()
    print(f"{'file':<28} {'lief.parse':>10} {'document':>9} {'ratio':>6} {'FDEs':>7} {'demangle':>9} {'readelf':>8}")
    for path in files():
        measure(path)


if __name__ == "__main__":
    main()
