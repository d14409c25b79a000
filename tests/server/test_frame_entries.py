"""Reading `.eh_frame` FDEs: readelf's FDEs on real files; hostile bytes give a result or a named error.

Real files: /bin/true, libstdc++ (CIEs with personality routines, `zPLR`) and
the AArch64 fixture, each against `readelf --debug-dump=frames`. Hostile: a
real ELF's records overwritten at random places with random bytes by
hypothesis, never an exception or a hang.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rea_tui.server.providers.frame_entries import read_frame_entries
from tests.server.binutils_truth import frame_extents

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the machine's /bin/true")

REAL_ELF = "/bin/true"
PATCHES = 8
"""Overwrites per example."""


REAL_FILES = (
    REAL_ELF,
    "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
    str(Path(__file__).resolve().parent / "fixtures" / "kinds" / "strings-aarch64"),
)
POINTER_BYTES = 8
"""The real files are 64-bit."""


def eh_frame_extent(path: str = REAL_ELF) -> tuple[int, int, int]:
    """Address, file offset and size of an ELF's `.eh_frame`, by readelf."""
    headers = subprocess.run(["readelf", "-S", "-W", path], capture_output=True, text=True, check=True).stdout
    found = re.search(r"\.eh_frame\s+PROGBITS\s+([0-9a-f]+) ([0-9a-f]+) ([0-9a-f]+)", headers)
    assert found is not None
    return int(found.group(1), 16), int(found.group(2), 16), int(found.group(3), 16)


@pytest.mark.parametrize("path", REAL_FILES)
def test_records_are_readelfs_fdes(path: str, tmp_path: Path) -> None:
    if not Path(path).is_file():
        pytest.fail(f"{path} is missing")
    address, offset, size = eh_frame_extent(path)
    data = Path(path).read_bytes()[offset : offset + size]
    read = read_frame_entries(data, address, POINTER_BYTES)
    truth = frame_extents(path, tmp_path)
    print(f"\n{Path(path).name}: readelf FDEs {len(truth)}, read {len(read.extents)}")
    assert read.error is None and read.unread == 0
    assert dict(read.extents) == truth


ORIGINAL = Path(REAL_ELF).read_bytes() if Path(REAL_ELF).is_file() else b""


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    patches=st.lists(
        st.tuples(st.floats(min_value=0, max_value=1, exclude_max=True), st.binary(min_size=1, max_size=16)),
        min_size=1,
        max_size=PATCHES,
    )
)
def test_hostile_records_give_extents_or_a_named_error(patches: list[tuple[float, bytes]]) -> None:
    address, offset, size = eh_frame_extent()
    data = bytearray(ORIGINAL[offset : offset + size])
    for where, chunk in patches:
        at = int(where * size)
        data[at : at + len(chunk)] = chunk
    read = read_frame_entries(bytes(data[:size]), address, POINTER_BYTES)
    assert read.error is None or read.error.startswith(".eh_frame")
    assert all(length > 0 for _start, length in read.extents)
