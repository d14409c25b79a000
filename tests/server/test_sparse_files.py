"""A sparse binary is read by what the disk stores: the server's memory stays small and it says what it skipped.

Each file starts with a real ELF (this interpreter) and claims gigabytes of holes
(`truncate`); the server's peak resident size is read from /proc while it runs.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from mcp import Client

from tests.server.http_live import http_server
from tests.server.test_http_sessions import structured

APPARENT_BYTES = 4 * 1024**3
"""What each sparse file claims; reading it whole would take the server past this."""
PEAK_RSS_LIMIT_BYTES = 512 * 1024**2
"""Far above what the server needs for the interpreter's binary, far below the apparent size."""


def sparse_copy(tmp_path: Path, name: str, *, tail_byte: bool) -> Path:
    """This interpreter's ELF, then a hole up to `APPARENT_BYTES` (and one stored byte at the very end)."""
    path = tmp_path / name
    shutil.copyfile(os.path.realpath(sys.executable), path)
    with path.open("r+b") as fh:
        fh.truncate(APPARENT_BYTES)
        if tail_byte:
            fh.seek(APPARENT_BYTES - 1)
            fh.write(b"\x01")
    assert path.stat().st_blocks * 512 < APPARENT_BYTES // 100, "the file system made the file sparse"
    return path


async def test_a_sparse_binary_is_read_up_to_its_data_and_says_so(tmp_path: Path) -> None:
    trailing_hole = sparse_copy(tmp_path, "trailing-hole", tail_byte=False)
    spread = sparse_copy(tmp_path, "spread-data", tail_byte=True)
    with http_server("--no-target") as server:
        async with Client(server.url, mode="legacy", cache=None) as client:
            opened = await structured(client, "open_binary", {"path": str(trailing_hole)})
            document = opened["documents"][0]
            assert document["format"] == "ELF" and "error" not in document and document["procedure_count"] > 0
            assert "sparse file" in document["read"] and "were not read" in document["read"]

            refused = (await structured(client, "open_binary", {"path": str(spread)}))["documents"][0]
            assert "is sparse" in refused["error"] and "4.0 GiB" in refused["error"]
            assert "not read" in refused["error"] and "procedure_count" not in refused
        assert server.peak_rss_bytes() < PEAK_RSS_LIMIT_BYTES
