"""References searched per target in the code's bytes agree with the index that decodes every procedure.

The biggest x86-64 documents (libLLVM, node) find references by searching
their code for the fields that can hold a target (`reference_search`) and
decoding only the procedures holding them. Two checks: the byte search finds
exactly the fields a brute-force pass over every position finds, on random
code with planted references; and on libpython (the default target, real code)
the searched index answers exactly what the full index answers.
"""

from __future__ import annotations

import platform
import random
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rea_tui.server.analysis.code_references import CodeReference, ReferenceIndex
from rea_tui.server.analysis.reference_search import (
    FIELD,
    MAX_TRAILING_IMMEDIATE,
    CodeBytes,
    absolute_fields,
    relative_fields,
)
from rea_tui.server.analysis.target_analysis import DiscoveryOptions, TargetAnalysis
from rea_tui.server.target.target import Document, open_default

MAX_CODE_BYTES = 200_000
"""Random code up to three 64 KiB search windows long."""
PLANTED = 12
"""Fields planted per example that do reach the range."""


def brute_relative(code: CodeBytes, low: int, high: int) -> set[int]:
    found = set()
    for at in range(len(code.data) - FIELD + 1):
        value = int.from_bytes(code.data[at : at + FIELD], "little", signed=True)
        field = code.address + at
        if low - MAX_TRAILING_IMMEDIATE <= field + FIELD + value < high:
            found.add(field)
    return found


def brute_absolute(code: CodeBytes, low: int, high: int) -> set[int]:
    return {
        code.address + at
        for at in range(len(code.data) - FIELD + 1)
        if low <= int.from_bytes(code.data[at : at + FIELD], "little") < high
    }


def random_code(seed: int, size: int, base: int, low: int, high: int, *, absolute: bool) -> CodeBytes:
    rng = random.Random(seed)
    data = bytearray(rng.randbytes(size))
    for _ in range(PLANTED):
        at = rng.randrange(0, size - FIELD)
        target = rng.randrange(low, high)
        value = target if absolute else target - (base + at + FIELD) - rng.choice((0, 1, 2, 4))
        data[at : at + FIELD] = (value & 0xFFFF_FFFF).to_bytes(FIELD, "little")
    # A memoryview, as the parsed file's bytes are searched.
    return CodeBytes(base, memoryview(bytes(data)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    size=st.integers(FIELD + 1, MAX_CODE_BYTES),
    base=st.integers(0x1000, 0x7000_0000),
    distance=st.integers(-(2**24), 2**24),
    width=st.sampled_from([1, 2, 16, 300, 70_000]),
)
def test_relative_fields_are_every_position_a_brute_force_pass_finds(
    seed: int, size: int, base: int, distance: int, width: int
) -> None:
    low = max(0, base + size // 2 + distance)
    code = random_code(seed, size, base, low, low + width, absolute=False)
    assert set(relative_fields(code, low, low + width)) == brute_relative(code, low, low + width)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    size=st.integers(FIELD + 1, MAX_CODE_BYTES),
    low=st.integers(0x40_0000, 0x7000_0000),
    width=st.sampled_from([1, 7, 300, 5000, 70_000]),
)
def test_absolute_fields_are_every_position_a_brute_force_pass_finds(
    seed: int, size: int, low: int, width: int
) -> None:
    code = random_code(seed, size, 0x40_1000, low, low + width, absolute=True)
    assert set(absolute_fields(code, low, low + width)) == brute_absolute(code, low, low + width)


# -- real code: libpython, searched and decoded ------------------------------------------------

SAMPLED_TARGETS = 120
SAMPLED_PROCEDURES = 60


@pytest.fixture(scope="module")
def libpython() -> tuple[TargetAnalysis, Document]:
    if not (sys.platform.startswith("linux") and platform.machine() == "x86_64"):
        pytest.skip("the default target is x86-64 ELF only on x86-64 Linux")
    target = open_default()
    doc = next((d for d in target.documents if d.name.startswith("libpython")), None)
    assert doc is not None, f"no libpython among {[d.name for d in target.documents]}"
    return TargetAnalysis(target, DiscoveryOptions(limit=10**6, page_size=100, time_budget=60.0)), doc


def searched_index(analysis: TargetAnalysis, doc: Document) -> ReferenceIndex:
    backend = doc.backend
    code_sections = analysis.section_ranges(doc, code_only=True)
    return ReferenceIndex(
        backend.inventory.records,
        backend.read,
        backend.disassembly_target(),
        backend.absolute_ranges(),
        backend.stub_sections(),
        backend.import_slots(),
        code_sections,
        backend.code_mode,
        backend.code_spans,
        [CodeBytes(start, backend.view(start, end - start)) for start, end in code_sections],
    )


def test_searching_libpython_per_target_answers_what_decoding_it_all_answers(
    libpython: tuple[TargetAnalysis, Document],
) -> None:
    analysis, doc = libpython
    full = analysis.references(doc)
    searched = searched_index(analysis, doc)
    assert not full.searched_per_target and searched.searched_per_target
    assert len(full.references) > 50_000, "libpython's index should hold tens of thousands of references"
    rng = random.Random(7)
    records = doc.backend.inventory.records

    def rows(refs: list[CodeReference]) -> list[tuple[int, int, int, str]]:
        return [(r.site, r.source, r.target, r.kind) for r in refs]

    targets = rng.sample(sorted({r.target for r in full.references}), SAMPLED_TARGETS)
    for target in targets:
        assert rows(searched.to_range(target, target + 1)) == rows(full.to_range(target, target + 1)), hex(target)
    strings = analysis.strings().documents()
    own = next(index for candidate, index in strings if candidate is doc)
    for found in rng.sample(own.strings, SAMPLED_TARGETS):
        low, high = found.address, found.address + found.size
        assert rows(searched.to_range(low, high)) == rows(full.to_range(low, high)), hex(low)
    for position in rng.sample(range(len(records)), SAMPLED_PROCEDURES):
        record = records[position]
        assert rows(searched.to_procedure(record.address, record.names)) == rows(
            full.to_procedure(record.address, record.names)
        ), record.names
        assert rows(searched.from_source(position)) == rows(full.from_source(position)), record.names
