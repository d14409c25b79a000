"""Acting on evidence, host side: what a row names, which tools take it (REA's and any server's), the history."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from rea_tui.host import InspectionHistory, Tool, result_views, row_actions, row_label
from rea_tui.host.evidence.evidence_actions import fitted
from rea_tui.server.toolkit.tool_declarations import DECLARATIONS

REA_TOOLS = [Tool(d.name, input_schema=d.input_schema) for d in DECLARATIONS]


def labels(facts: dict[str, str], tools: list[Tool] = REA_TOOLS) -> list[str]:
    return [a.label for a in row_actions(facts, tools)]


def test_a_procedure_offers_inspect_references_callers_and_callees_in_its_document() -> None:
    assert labels({"procedure": "_PyCodec_Lookup", "document": "libpython3.11.so.1.0"}) == [
        "inspect_procedure  procedure=_PyCodec_Lookup  document=libpython3.11.so.1.0",
        "find_references  procedure=_PyCodec_Lookup  document=libpython3.11.so.1.0",
        "callers  procedure=_PyCodec_Lookup  document=libpython3.11.so.1.0",
        "callees  procedure=_PyCodec_Lookup  document=libpython3.11.so.1.0",
    ]


def test_a_string_offers_its_references_and_an_address_its_procedure() -> None:
    assert labels({"string": "unknown encoding: %s", "document": "libpython3.11.so.1.0"}) == [
        "find_references  string=unknown encoding: %s  document=libpython3.11.so.1.0"
    ]
    # A branch target: the procedure that contains it first, then the references to the address itself.
    branch = labels({"procedure": "_PyCodec_Lookup", "address": "0x2528f0", "document": "libpython3.11.so.1.0"})
    assert branch[0] == "inspect_procedure  procedure=_PyCodec_Lookup  document=libpython3.11.so.1.0"
    assert branch[-1] == "find_references  address=0x2528f0  document=libpython3.11.so.1.0"


def test_a_document_alone_offers_the_tools_about_documents_and_an_evidence_id_its_views() -> None:
    assert labels({"document": "Notes"}) == ["list_procedures  document=Notes", "inspect_binary_layout  document=Notes"]
    assert labels({"evidence": "E-0004"}) == ["inspect_analysis_view  evidence=E-0004"]


def test_another_servers_tools_are_matched_by_argument_name_and_type() -> None:
    """Not REA's names: a `function` (alias of procedure) string, a `text` string, an integer `address` that an
    address in hex does not fit, and a tool that requires something the row does not name."""
    tools = [
        Tool("decompile", input_schema={"type": "object", "properties": {"function": {"type": "string"}}}),
        Tool("grep", input_schema={"type": "object", "properties": {"text": {}, "binary": {"type": "string"}}}),
        Tool("xrefs", input_schema={"type": "object", "properties": {"address": {"type": "integer"}}}),
        Tool(
            "rename",
            input_schema={
                "type": "object",
                "properties": {"function": {"type": "string"}, "new_name": {"type": "string"}},
                "required": ["function", "new_name"],
            },
        ),
        Tool("pick", input_schema={"type": "object", "properties": {"procedure": {"enum": ["a", "b"]}}}),
    ]
    assert labels({"procedure": "main", "address": "0x401000", "document": "a.out"}, tools) == [
        "decompile  function=main"
    ]
    assert labels({"string": "hello", "document": "a.out"}, tools) == ["grep  text=hello  binary=a.out"]
    assert [a.arguments for a in row_actions({"address": "4096"}, tools)] == [{"address": 4096}]
    assert labels({"procedure": "b"}, tools) == ["decompile  function=b", "pick  procedure=b"]


def test_values_fit_by_type_and_a_huge_value_is_not_offered() -> None:
    assert fitted({"type": ["string", "null"]}, "x") == "x"
    assert fitted({"type": "array", "items": {"type": "string"}}, "E-0001") == ["E-0001"]
    assert fitted({"type": "integer"}, "0x10") is None
    assert fitted({"type": "boolean"}, "yes") is None
    assert fitted("not a schema", "x") is None
    assert row_actions({"procedure": "x" * 5_000}, REA_TOOLS) == []


@given(
    st.dictionaries(st.sampled_from(["procedure", "string", "address", "document", "evidence", "other"]), st.text()),
    st.dictionaries(st.text(max_size=12), st.one_of(st.none(), st.dictionaries(st.text(max_size=8), st.text()))),
)
def test_hostile_schemas_and_values_never_break_the_matching(facts: dict[str, str], properties: Any) -> None:
    tool = Tool("t", input_schema={"type": "object", "properties": properties, "required": ["x", 3]})
    for action in row_actions(facts, [tool, *REA_TOOLS]):
        assert action.arguments and all(name in (properties or {}) or action.tool != "t" for name in action.arguments)
    row_label(facts)


def test_rows_name_what_they_show() -> None:
    """The facts come from the result's rows: a reference names its procedure and the document of the reply."""
    references = {
        "document": {"id": 1, "name": "Notes"},
        "query": {"kind": "string", "string": {"text": "Offline"}},
        "references": [{"procedure": {"names": ["SearchNotesEntry", "_s"], "address": "0x1000002c0"}, "sites": []}],
    }
    (table,) = result_views(references)
    assert table.facts == ({"procedure": "SearchNotesEntry", "document": "Notes"},)
    listing = {
        "document": {"name": "Notes"},
        "procedure": {"names": ["f"], "address": "0x1000", "size": 64},
        "disassembly": {
            "instructions": [
                {"address": "0x1000", "mnemonic": "push", "operands": "rbp"},
                {"address": "0x1004", "mnemonic": "call", "operands": "0x2000"},
                {"address": "0x1008", "mnemonic": "jne", "operands": "0x1010"},
            ],
            "calls": [{"at": "0x1004", "target": "0x2000", "names": ["g"]}],
        },
    }
    (view,) = result_views(listing)
    assert view.facts == (
        {"procedure": "f", "address": "0x1000", "document": "Notes"},
        {"procedure": "g", "address": "0x2000", "document": "Notes"},
        {"procedure": "f", "address": "0x1010", "document": "Notes"},
    )
    callees = {"procedure": {"names": ["f"]}, "callees": [{"target": "0x3000", "names": ["m@plt"], "import": "m"}]}
    (table,) = result_views(callees)
    assert table.facts == ({"procedure": "m"},)


def test_history_goes_back_and_forward_and_a_new_visit_drops_what_was_ahead() -> None:
    history = InspectionHistory(limit=3)
    for key in ("E1", "E2", "E2", "E3"):
        history.visit(key)
    assert history.keys == ["E1", "E2", "E3"]
    assert history.back() == "E2" and history.back() == "E1" and history.back() is None
    assert history.forward() == "E2"
    history.visit("E4")
    assert history.keys == ["E1", "E2", "E4"] and history.forward() is None
    history.visit("E5")
    assert history.keys == ["E2", "E4", "E5"] and history.current == "E5"
    assert history.trail(1) == (["E4", "E5"], 1)
