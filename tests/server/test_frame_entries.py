"""Reading `.eh_frame` FDEs from hostile bytes: a result or a named error, never an exception or a hang.

The records are a real ELF's (/bin/true), overwritten at random places with
random bytes by hypothesis; the untouched file is the control, checked against
readelf's FDEs.
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


def eh_frame_extent() -> tuple[int, int]:
    """File offset and size of the real ELF's `.eh_frame`."""
    headers = subprocess.run(["readelf", "-S", "-W", REAL_ELF], capture_output=True, text=True, check=True).stdout
    found = re.search(r"\.eh_frame\s+PROGBITS\s+[0-9a-f]+ ([0-9a-f]+) ([0-9a-f]+)", headers)
    assert found is not None
    return int(found.group(1), 16), int(found.group(2), 16)


def test_untouched_records_are_readelfs_fdes(tmp_path: Path) -> None:
    read = read_frame_entries(REAL_ELF)
    assert read.error is None
    assert dict(read.extents) == frame_extents(REAL_ELF, tmp_path)


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
    offset, size = eh_frame_extent()
    data = bytearray(ORIGINAL)
    for where, chunk in patches:
        at = offset + int(where * size)
        data[at : at + len(chunk)] = chunk
    read = read_frame_entries(bytes(data[: len(ORIGINAL)]))
    if read.error is not None:
        assert read.error.startswith(".eh_frame could not be decoded: ") and read.extents == []
    else:
        assert all(length > 0 for _start, length in read.extents)
