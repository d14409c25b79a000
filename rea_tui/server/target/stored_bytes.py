"""What of a file is stored on disk, so a binary is read by its real size, not its apparent one.

A sparse file (`truncate -s 3G`) claims gigabytes it does not hold: the parser
would allocate every byte of its apparent size (LIEF read a 3 GB file of
40 KB of data into 6 GB of memory). The holes are found with
`SEEK_DATA`/`SEEK_HOLE`: a file whose data ends before its apparent end is
read up to where its data ends, and the reply says what was left unread; a
file whose data is spread far wider than what the disk holds is refused with
a message that says why.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from typing import Final

BLOCK_BYTES: Final = 512
"""The unit of `st_blocks` (POSIX)."""

MAX_EXTENTS: Final = 100_000
"""Data extents walked before the walk stops and the file counts as dense (a hostile file can have millions)."""

SPREAD_FACTOR: Final = 4
"""How much wider than the stored bytes a file's data may spread (holes inside a binary are legal) ..."""

SPREAD_ALLOWANCE: Final = 64 * 1024 * 1024
"""... plus this much, so small binaries with a few holes are always read."""


class UnreadableFile(Exception):
    """The file is not read: the message says what it claims, what it holds, and why it is refused."""


@dataclass(frozen=True, slots=True)
class StoredExtent:
    apparent: int
    """`st_size`: what the file claims."""
    stored: int
    """Bytes the disk holds for it (`st_blocks`)."""
    data_end: int
    """Where its last data ends; beyond this it is one hole (equals `apparent` when holes are unknown)."""

    @property
    def hole_at_end(self) -> int:
        return self.apparent - self.data_end


def _data_end(fd: int, apparent: int) -> int:
    """The end of the file's last data extent; `apparent` when the file system cannot say."""
    position = 0
    end = 0
    for _ in range(MAX_EXTENTS):
        try:
            start = os.lseek(fd, position, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # no data at or after `position`: the rest is a hole
                return end
            return apparent  # SEEK_DATA unsupported here
        end = os.lseek(fd, start, os.SEEK_HOLE)
        if end >= apparent:
            return apparent
        position = end
    return apparent


def stored_extent(path: str) -> StoredExtent:
    """Raises OSError when the file cannot be opened."""
    with open(path, "rb") as fh:
        status = os.fstat(fh.fileno())
        apparent = status.st_size
        data_end = _data_end(fh.fileno(), apparent) if hasattr(os, "SEEK_DATA") else apparent
    return StoredExtent(apparent, status.st_blocks * BLOCK_BYTES, data_end)


def _size(count: int) -> str:
    if count < 1024:
        return f"{count:,} bytes"
    scaled = float(count)
    for unit in ("KiB", "MiB", "GiB"):
        scaled /= 1024
        if scaled < 1024 or unit == "GiB":
            break
    return f"{scaled:.1f} {unit}"


@dataclass(frozen=True, slots=True)
class BinaryImage:
    """What to hand the parser: the path (a dense file) or the bytes up to the end of the data."""

    source: str | bytes
    note: str | None = None
    """Says what was not read, when something was not."""


def binary_image(path: str) -> BinaryImage:
    """The file as the parser should read it, bounded by what the disk stores. Raises UnreadableFile."""
    try:
        extent = stored_extent(path)
    except OSError as exc:
        raise UnreadableFile(f"cannot read {os.path.basename(path)}: {exc.strerror or exc}") from None
    if extent.data_end > SPREAD_FACTOR * extent.stored + SPREAD_ALLOWANCE:
        raise UnreadableFile(
            f"{os.path.basename(path)} is sparse: it claims {_size(extent.apparent)} but the disk stores "
            f"{_size(extent.stored)}, spread over {_size(extent.data_end)} with holes between; "
            "reading it would allocate its apparent size, so it was not read"
        )
    if extent.hole_at_end <= SPREAD_ALLOWANCE:
        return BinaryImage(path)  # what the parser allocates stays within the allowance of what is stored
    with open(path, "rb") as fh:
        data = fh.read(extent.data_end)
    note = (
        f"sparse file: read the first {_size(extent.data_end)} (where its data ends); the remaining "
        f"{_size(extent.hole_at_end)} of its apparent {_size(extent.apparent)} are a hole (zeros) and were not "
        "read, so segments or sections that lie there have no content"
    )
    return BinaryImage(data, note)
