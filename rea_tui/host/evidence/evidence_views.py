"""Reading a tool result like a tool: a disassembly as a listing, lists of things as tables.

The shapes are those of the REA tools' `structuredContent` (inspect_procedure's
disassembly; list_documents, list_procedures, search_strings, find_references,
callers, callees, inspect_binary_layout), read leniently: a field of the wrong
type is left empty, and a shape that is not recognised gives no view at all (the
caller shows the JSON tree instead). A list the server sent empty reads as what
it is: a table with no rows titled `no strings containing 'x'`. The views hold the server's text as it
came; whoever shows them sanitizes or escapes it (the TUI and the report).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# More rows than this are left out of a view (the JSON tree and the raw result keep them all).
MAX_ROWS = 1_000
# A hexadecimal address, as capstone writes a direct operand.
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
# Mnemonics whose direct operand is a code address (x86 and ARM spellings).
_BRANCHES = re.compile(r"(call|jmp|j[a-z]{1,3}|b|bl|b\.[a-z]{2}|cbn?z|tbn?z|loop[a-z]*)")
# `name+0x1f8`: a place inside the procedure `name`.
_OFFSET_SUFFIX = re.compile(r"\+0x[0-9a-fA-F]+$")

RowFacts = Mapping[str, str]
"""What one row names, by kind: `procedure`, `address`, `string`, `document`, `evidence` (see evidence_actions)."""


@dataclass(frozen=True)
class Instruction:
    address: str
    hex_bytes: str
    mnemonic: str
    operands: str
    # The symbol a call or jump goes to (`PyErr_NoMemory`, `PyUnicode_AsEncodedString+0x2b8`), if known.
    target: str = ""
    # What an operand's memory address holds, as objdump's comment: a quoted string or a symbol.
    comment: str = ""


@dataclass(frozen=True)
class DisassemblyListing:
    """A disassembly window, one instruction per row."""

    title: str
    instructions: tuple[Instruction, ...]
    note: str = ""
    # What each instruction names (aligned with `instructions`): its place, or where it branches to.
    facts: tuple[RowFacts, ...] = ()


@dataclass(frozen=True)
class ResultTable:
    """Rows of one kind of thing (documents, procedures, strings, references)."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    # Which columns hold numbers (right-aligned).
    numeric: frozenset[int] = frozenset()
    note: str = ""
    # What each row names (aligned with `rows`; empty where a row names nothing the host knows).
    facts: tuple[RowFacts, ...] = ()


ResultView = DisassemblyListing | ResultTable


def _text(value: Any) -> str:
    if value is None or isinstance(value, dict | list):
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _count(value: Any) -> str:
    """A size or a count, with thousands separators."""
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else _text(value)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value[:MAX_ROWS] if isinstance(item, dict)] if isinstance(value, list) else []


def _names(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(n) for n in value if isinstance(n, str))
    return _text(value)


def _first_name(value: Any) -> str:
    names = value if isinstance(value, list) else []
    return next((str(n) for n in names if isinstance(n, str) and n), "")


def _address(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _ADDRESS.fullmatch(value.strip()):
        return int(value.strip(), 16)
    return None


def _paging(data: dict[str, Any], shown: int) -> str:
    """ "rows 1-100 of 877; next page at offset 100", from the usual paging fields."""
    total, offset, next_offset = data.get("total"), data.get("offset"), data.get("next_offset")
    if not isinstance(total, int) or isinstance(total, bool):
        return ""
    start = offset if isinstance(offset, int) and not isinstance(offset, bool) else 0
    if shown == 0:
        text = f"none of {total:,}" if total else "none"
    else:
        text = f"rows {start + 1:,}-{start + shown:,} of {total:,}"
    if isinstance(next_offset, int) and not isinstance(next_offset, bool):
        text += f"; next page at offset {next_offset:,}"
    return text


def _procedure_label(procedure: dict[str, Any]) -> str:
    name = _first_name(procedure.get("names"))
    address = _text(procedure.get("address"))
    return f"{name} at {address}" if name and address else name or address


def _document_name(data: dict[str, Any]) -> str:
    return _text(_dict(data.get("document")).get("name"))


def _in_document(data: dict[str, Any]) -> str:
    name = _document_name(data)
    return f" in {name}" if name else ""


def _facts(**values: str) -> RowFacts:
    """The kinds a row names, without the empty ones."""
    return {kind: value for kind, value in values.items() if value}


def _procedure_facts(procedure: dict[str, Any], document: str) -> RowFacts:
    """A procedure by its first name (its address when it has none), in its document."""
    name = _first_name(procedure.get("names")) or _text(procedure.get("address"))
    return _facts(procedure=name, document=document)


# ---------------------------------------------------------------- disassembly


def _symbolizer(data: dict[str, Any], disassembly: dict[str, Any]) -> Callable[[str, str, str], str]:
    """Names for the direct targets of calls and jumps: the server's call names, or an offset in this procedure."""
    procedure = _dict(data.get("procedure"))
    start = _address(procedure.get("address"))
    size = procedure.get("size")
    own = _first_name(procedure.get("names"))
    by_site: dict[str, str] = {}
    by_target: dict[int, str] = {}
    for call in _dicts(disassembly.get("calls")):
        name = _first_name(call.get("names"))
        target = _address(call.get("target"))
        if name:
            by_site[_text(call.get("at"))] = name
            if target is not None:
                by_target[target] = name

    def symbol(site: str, operands: str, named: str) -> str:
        if site in by_site:
            return by_site[site]
        if named:  # the server's own name for the target (`strlen@plt`, `_PyCodec_Lookup+0x1f8`)
            return named
        target = _address(operands)
        if target is None:
            return ""
        if target in by_target:
            return by_target[target]
        inside = isinstance(size, int) and start is not None and start <= target < start + size
        if own and inside and start is not None:
            return own if target == start else f"{own}+0x{target - start:x}"
        return ""

    return symbol


def _operand_comment(row: dict[str, Any]) -> str:
    """objdump's `# <symbol>` for a RIP-relative operand, or the string it loads, quoted by the server."""
    referent = _dict(row.get("refers_to"))
    string = referent.get("string")
    if isinstance(string, str) and string:
        return string
    return _text(referent.get("name")) if referent.get("name") else ""


def disassembly_listing(data: dict[str, Any]) -> DisassemblyListing | None:
    disassembly = _dict(data.get("disassembly"))
    rows = _dicts(disassembly.get("instructions"))
    if not rows or not any("mnemonic" in row for row in rows):
        return None
    symbol = _symbolizer(data, disassembly)
    document = _document_name(data)
    own = _first_name(_dict(data.get("procedure")).get("names")) or _text(_dict(data.get("procedure")).get("address"))
    instructions = []
    facts: list[RowFacts] = []
    for row in rows:
        address, mnemonic, operands = _text(row.get("address")), _text(row.get("mnemonic")), _text(row.get("operands"))
        branch = _BRANCHES.fullmatch(mnemonic.strip().lower()) is not None
        named = _text(_dict(row.get("target")).get("name")) if _dict(row.get("target")).get("name") else ""
        target = symbol(address, operands, named) if branch else ""
        instructions.append(
            Instruction(address, _text(row.get("bytes")), mnemonic, operands, target, _operand_comment(row))
        )
        facts.append(_instruction_facts(address, operands if branch else "", target, own, document))
    procedure = _procedure_label(_dict(data.get("procedure")))
    title = f"{procedure}{_in_document(data)}" if procedure else "disassembly"
    window = _dict(disassembly.get("window"))
    notes = [f"{len(instructions):,} instructions"]
    if isinstance(window.get("bytes"), int):
        notes.append(f"a {window['bytes']:,}-byte window from {_text(window.get('start'))}")
    if disassembly.get("truncated") is True:
        following = disassembly.get("next_offset")
        notes.append(
            f"the procedure goes on past this page (offset={following} lists the next)"
            if isinstance(following, int)
            else "the procedure goes on past the window"
        )
    if isinstance(disassembly.get("note"), str) and disassembly["note"]:
        notes.append(disassembly["note"])
    return DisassemblyListing(title, tuple(instructions), "; ".join(notes), tuple(facts))


def _instruction_facts(address: str, branch_operands: str, target: str, own: str, document: str) -> RowFacts:
    """An instruction names its place in `own`; a direct branch names where it goes: the address, and the
    procedure that contains it (`_PyCodec_Lookup+0x230` is in `_PyCodec_Lookup`)."""
    goes_to = branch_operands.strip() if _ADDRESS.fullmatch(branch_operands.strip()) else ""
    if goes_to:
        procedure = _OFFSET_SUFFIX.sub("", target) if target else goes_to
        return _facts(procedure=procedure, address=goes_to, document=document)
    return _facts(procedure=own, address=address, document=document)


# ---------------------------------------------------------------- tables


def _table(
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[str]],
    data: dict[str, Any],
    numeric: Sequence[int] = (),
    facts: Sequence[RowFacts] = (),
) -> ResultTable:
    cells = tuple(tuple(r) for r in rows)
    return ResultTable(title, tuple(columns), cells, frozenset(numeric), _paging(data, len(rows)), tuple(facts))


def _sent_empty(data: dict[str, Any], key: str) -> bool:
    """The server sent `key` as an empty list (a recognised shape, with nothing in it)."""
    value = data.get(key)
    return isinstance(value, list) and not value


def _none(what: str, columns: Sequence[str], data: dict[str, Any]) -> ResultTable:
    """No rows: the title says so (`no strings containing 'x'`); past the end of a list, the note says where."""
    total = data.get("total")
    past_end = isinstance(total, int) and not isinstance(total, bool) and total > 0
    return ResultTable(f"no {what}", tuple(columns), (), frozenset(), _paging(data, 0) if past_end else "")


def _sites(value: Any) -> str:
    return ", ".join(" ".join(p for p in (_text(s.get("at")), _text(s.get("kind"))) if p) for s in _dicts(value))


def documents_table(data: dict[str, Any]) -> ResultTable | None:
    rows = _dicts(data.get("documents"))
    columns = ("id", "name", "format", "arch", "procedures", "path")
    if _sent_empty(data, "documents"):
        return _none("documents", columns, data)
    if not rows or not all("name" in row for row in rows):
        return None
    return _table(
        "documents",
        columns,
        [
            [
                *(_text(r.get(k)) for k in ("id", "name", "format", "arch")),
                _count(r.get("procedure_count")),
                _text(r.get("path")),
            ]
            for r in rows
        ],
        data,
        numeric=(0, 4),
        facts=[_facts(document=_text(r.get("name"))) for r in rows],
    )


def procedures_table(data: dict[str, Any]) -> ResultTable | None:
    rows = _dicts(data.get("procedures"))
    columns = ("id", "address", "names", "size")
    if _sent_empty(data, "procedures"):
        return _none(f"procedures{_in_document(data)}", columns, data)
    if not rows or not all("address" in row for row in rows):
        return None
    return _table(
        f"procedures{_in_document(data)}",
        columns,
        [[_text(r.get("id")), _text(r.get("address")), _names(r.get("names")), _count(r.get("size"))] for r in rows],
        data,
        numeric=(0, 3),
        facts=[_procedure_facts(r, _document_name(data)) for r in rows],
    )


def strings_table(data: dict[str, Any]) -> ResultTable | None:
    rows = _dicts(data.get("strings"))
    query = _text(data.get("query"))
    what = f"strings containing {query!r}" if query else "strings"
    columns = ("id", "document", "section", "address", "text")
    if _sent_empty(data, "strings"):
        return _none(what, columns, data)
    if not rows or not all("text" in row for row in rows):
        return None
    return _table(
        what,
        columns,
        [[_text(r.get(k)) for k in ("id", "document", "section", "address", "text")] for r in rows],
        data,
        numeric=(0,),
        facts=[_facts(string=_text(r.get("text")), document=_text(r.get("document"))) for r in rows],
    )


def _query_label(data: dict[str, Any]) -> str:
    query = _dict(data.get("query"))
    kind = _text(query.get("kind"))
    subject = query.get(kind) if kind else None
    if isinstance(subject, dict):
        label = _text(subject.get("text")) or _procedure_label(subject) or _text(subject.get("address"))
        return f"{kind} {label!r}" if kind == "string" else f"{kind} {label}"
    return f"{kind} {_text(subject)}".strip()


def references_table(data: dict[str, Any], key: str) -> ResultTable | None:
    rows = _dicts(data.get(key))
    if key == "references":
        subject = _query_label(data)
        title = f"code that refers to {subject}" if subject else "references"
    else:
        title = f"callers of {_procedure_label(_dict(data.get('procedure')))}"
    columns = ("procedure", "address", "size", "sites")
    if _sent_empty(data, key):
        return _none(title + _in_document(data), columns, data)
    if not rows or not all(isinstance(r.get("procedure"), dict) for r in rows):
        return None
    return _table(
        title + _in_document(data),
        columns,
        [
            [
                _names(_dict(r["procedure"]).get("names")),
                _text(_dict(r["procedure"]).get("address")),
                _count(_dict(r["procedure"]).get("size")),
                _sites(r.get("sites")),
            ]
            for r in rows
        ],
        data,
        numeric=(2,),
        facts=[_procedure_facts(_dict(r["procedure"]), _document_name(data)) for r in rows],
    )


def data_references_table(data: dict[str, Any]) -> ResultTable | None:
    """find_references' data half: the pointers to the subject, each with what holds it and the code using that."""
    if not isinstance(data.get("data_references"), list):
        return None
    rows = _dicts(data.get("data_references"))
    subject = _query_label(data)
    title = (f"data that points to {subject}" if subject else "data references") + _in_document(data)
    columns = ("holder", "at", "type", "section", "used by")
    searched = _dict(data.get("searched"))
    read = _text(searched.get("data")) or _text(searched.get("not_searched"))
    paging = {
        "total": data.get("data_total"),
        "offset": data.get("offset"),
        "next_offset": data.get("data_next_offset"),
    }
    if not rows:
        return ResultTable(f"no {title}", columns, (), frozenset(), f"searched: {read}" if read else "")
    table = _table(
        title,
        columns,
        [
            [
                _text(r.get("holder")),
                _text(r.get("at")),
                _text(r.get("type")),
                _text(r.get("section")),
                _used_by(r),
            ]
            for r in rows
        ],
        paging,
        facts=[_facts(address=_text(r.get("at")), document=_document_name(data)) for r in rows],
    )
    note = "; ".join(part for part in (table.note, f"searched: {read}" if read else "") if part)
    return ResultTable(table.title, table.columns, table.rows, table.numeric, note, table.facts)


def _used_by(row: dict[str, Any]) -> str:
    """The procedures whose code uses the data symbol holding a pointer, and how many more there are."""
    users = [_first_name(u.get("names")) or _text(u.get("address")) for u in _dicts(row.get("used_by"))]
    total = row.get("used_by_total")
    more = total - len(users) if isinstance(total, int) and not isinstance(total, bool) else 0
    return ", ".join(users) + (f" (+{more:,})" if more > 0 else "")


def callees_table(data: dict[str, Any]) -> ResultTable | None:
    rows = _dicts(data.get("callees"))
    title = f"called by {_procedure_label(_dict(data.get('procedure')))}{_in_document(data)}"
    columns = ("target", "names", "import", "sites")
    if _sent_empty(data, "callees"):
        return _none(f"calls from {_procedure_label(_dict(data.get('procedure')))}{_in_document(data)}", columns, data)
    if not rows or not all("target" in r for r in rows):
        return None
    return _table(
        title,
        columns,
        [
            [
                _text(r.get("target")),
                _names(r.get("names")) or _names(_dict(r.get("procedure")).get("names")),
                _text(r.get("import")),
                _sites(r.get("sites")),
            ]
            for r in rows
        ],
        data,
        facts=[_callee_facts(r, _document_name(data)) for r in rows],
    )


def _callee_facts(row: dict[str, Any], document: str) -> RowFacts:
    """A callee by name (its target address when unnamed); an import by its own name (`PyErr_NoMemory`, not the
    PLT stub's `PyErr_NoMemory@plt`), and with no document: it lives in another one."""
    imported = row.get("import")
    if isinstance(imported, str) and imported:
        return _facts(procedure=imported)
    name = _first_name(_dict(row.get("procedure")).get("names")) or _first_name(row.get("names"))
    return _facts(procedure=name or _text(row.get("target")), document=document)


def sections_table(data: dict[str, Any]) -> ResultTable | None:
    layout = _dict(data.get("layout"))
    rows = _dicts(layout.get("sections"))
    if _sent_empty(layout, "sections"):
        return _none(f"sections{_in_document(data)}", ("name", "address", "size", "entropy", "flags"), data)
    if not rows or not all("name" in r for r in rows):
        return None
    facts = [f"{k} {_text(layout.get(k))}" for k in ("format", "arch", "entrypoint") if _text(layout.get(k))]
    return ResultTable(
        f"sections{_in_document(data)}",
        ("name", "address", "size", "entropy", "flags"),
        tuple(
            (
                _text(r.get("name")),
                _text(r.get("address")),
                _count(r.get("size")),
                _text(r.get("entropy")),
                _names(r.get("flags")),
            )
            for r in rows
        ),
        frozenset({2, 3}),
        ", ".join(facts),
    )


def result_views(structured: Any) -> list[ResultView]:
    """The listing or tables a result reads as; empty when its shape is not one of these."""
    if not isinstance(structured, dict):
        return []
    found: list[ResultView | None] = [
        disassembly_listing(structured),
        documents_table(structured),
        procedures_table(structured),
        strings_table(structured),
        references_table(structured, "references"),
        data_references_table(structured),
        references_table(structured, "callers"),
        callees_table(structured),
        sections_table(structured),
    ]
    return [view for view in found if view is not None]
