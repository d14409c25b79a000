"""A stripped Go binary's functions, from its `.gopclntab`, against the symbol table of the same build.

The fixture (tests/server/fixtures/kinds/go-hello, built by build.sh with Debian's Go 1.19) keeps its
symbol table; the test strips a copy with `objcopy --strip-all` (binutils), so the server sees what a
stripped Go binary offers: no symbols, only the runtime's function table. Truth is `readelf -sW` of the
unstripped file: every FUNC symbol with its address, size and name.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import lief
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rea_tui.server.providers.go_functions import GOPCLNTAB, read_go_functions
from tests.server.test_ground_truth_kinds import procedures_of

GO_HELLO = Path(__file__).resolve().parent / "fixtures" / "kinds" / "go-hello"
# Go aligns functions to 32 bytes on amd64: the table's extent runs over the padding, at most this much.
FUNCTION_ALIGNMENT = 32
# The symbol table and the function table spell some names apart: assembly functions' ABI0 symbols end in
# `.abi0` in the former only, and the latter writes an array type's length in a generated equality
# function's name as `[...]` (`type..eq.[5]internal/cpu.option` -> `type..eq.[...]internal/cpu.option`).
ABI0_SUFFIX = ".abi0"
_BINARY = lief.parse(str(GO_HELLO))
assert _BINARY is not None
GO_TABLE = bytes(_BINARY.get_section(GOPCLNTAB).content)
TEXT_ADDRESS = int(_BINARY.get_section(".text").virtual_address)
ARRAY_LENGTH = re.compile(r"\[\d+\]")


def as_in_the_function_table(symbol: str) -> str:
    return ARRAY_LENGTH.sub("[...]", symbol.removesuffix(ABI0_SUFFIX))


def func_symbols(path: Path) -> dict[int, tuple[int, str]]:
    """Address -> (size, name) of the FUNC symbols with a size, from readelf."""
    listing = subprocess.run(["readelf", "-sW", str(path)], capture_output=True, text=True, check=True).stdout
    symbols: dict[int, tuple[int, str]] = {}
    for line in listing.splitlines():
        fields = line.split(None, 7)  # a name may hold spaces (`type..eq.struct { ... }`)
        if len(fields) == 8 and fields[3] == "FUNC" and int(fields[2]) > 0:
            symbols[int(fields[1], 16)] = (int(fields[2]), fields[7])
    return symbols


@pytest.mark.asyncio(loop_scope="module")
async def test_a_stripped_go_binary_is_read_from_its_function_table(tmp_path: Path) -> None:
    if shutil.which("objcopy") is None or shutil.which("readelf") is None:
        pytest.fail("binutils missing: objcopy and readelf (CI has them)")
    truth = func_symbols(GO_HELLO)
    stripped = tmp_path / "go-hello-stripped"
    subprocess.run(["objcopy", "--strip-all", str(GO_HELLO), str(stripped)], check=True)
    assert func_symbols(stripped) == {}, "the copy still has symbols"
    procedures, _layout, _listing = await procedures_of(str(stripped))
    named = sum(
        1
        for address, (_size, name) in truth.items()
        if as_in_the_function_table(name) in procedures.get(address, {}).get("names", [])
    )
    padded = sum(
        1
        for address, (size, _name) in truth.items()
        if size <= (procedures.get(address, {}).get("size") or 0) < size + FUNCTION_ALIGNMENT
    )
    print(f"\ngo-hello: {len(truth)} FUNC symbols; named at their address {named}, sized to the padding {padded}")
    assert named == len(truth) and padded == len(truth)
    # The program's own functions, as an analyst looks for them.
    by_name = {n: a for a, (_s, n) in truth.items()}
    for own in ("main.main", "main.greet"):
        assert own in procedures[by_name[own]]["names"]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_damaged_function_table_gives_what_it_could_read_or_a_named_error(data: st.DataObject) -> None:
    """Hostile bytes over the real table: never an exception; functions in order, inside the table's claims."""
    table = bytearray(GO_TABLE)
    for _ in range(data.draw(st.integers(1, 8))):
        at = data.draw(st.integers(0, len(table) - 1))
        table[at : at + 4] = data.draw(st.binary(min_size=1, max_size=4))
    cut = data.draw(st.integers(0, len(table)))
    read = read_go_functions(bytes(table[:cut]), TEXT_ADDRESS)
    addresses = [f.address for f in read.functions]
    assert addresses == sorted(set(addresses))
    assert all(f.size > 0 for f in read.functions)
    assert read.error is not None or len(read.functions) > 0 or read.version is None


def test_the_intact_table_reads_whole() -> None:
    read = read_go_functions(GO_TABLE, TEXT_ADDRESS)
    assert read.version == "Go 1.18" and read.error is None  # Go 1.19 writes the 1.18 format
    assert len(read.functions) == len(func_symbols(GO_HELLO))
