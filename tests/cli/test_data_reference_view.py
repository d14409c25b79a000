"""find_references reads as two tables: the code that refers to the subject, and the data that points to it.

Against the reference server on a PE fixture whose string only a pointer table reaches (a base relocation)
and on libpython, whose exception name is held by two relocated pointers.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from tests.cli import PYTHON, rea

KINDS = Path(__file__).resolve().parent.parent / "server" / "fixtures" / "kinds"


def reference_server(target: Path) -> tuple[str, str]:
    return ("--stdio", f"{shlex.quote(PYTHON)} -m rea_tui.server --target {shlex.quote(str(target))}")


def test_a_string_only_a_pointer_table_reaches_shows_its_data_reference() -> None:
    run = rea("call", "find_references", "string=alpha table entry", "--yes", *reference_server(KINDS / "exports.dll"))
    run.expect(0)
    assert "no code that refers to string 'alpha table entry' in exports.dll" in run.out
    assert (
        "data that points to string 'alpha table entry' in exports.dll (rows 1-1 of 1; searched: base relocations (.reloc))"
        in run.out
    )
    assert re.search(r"^table_names +0x[0-9a-f]+ +DIR64 +\.rdata *$", run.out, re.M), run.out


def test_a_pointer_in_a_data_symbol_names_the_code_that_uses_the_symbol() -> None:
    # The bundled server's default target: libpython's first "ModuleNotFoundError" is held by two RELATIVE pointers.
    found = rea(
        "call", "search_strings", "query=ModuleNotFoundError", "document=libpython3.11.so.1.0", "--yes", "--json"
    )
    found.expect(0)
    string_id = re.search(r'"id": (\d+),\s*"document": "libpython[^"]*",\s*"section": "\.rodata"', found.out)
    assert string_id, found.out
    run = rea("call", "find_references", f"string={string_id.group(1)}", "document=libpython3.11.so.1.0", "--yes")
    run.expect(0)
    assert "searched: dynamic relocations" in run.out
    assert re.search(
        r"^static_exceptions\+0x[0-9a-f]+ +0x[0-9a-f]+ +RELATIVE +\.data\.rel\.ro +.*_PyExc_InitTypes", run.out, re.M
    ), run.out
    assert re.search(r"^_PyExc_ModuleNotFoundError\+0x18 +0x[0-9a-f]+ +RELATIVE +\.data", run.out, re.M), run.out
