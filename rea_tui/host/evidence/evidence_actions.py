"""Acting on evidence: what a row names, which of a server's tools take it, and where the analyst has been.

A row of a result view names things by kind (`evidence_views.RowFacts`: a
procedure, an address, a string, a document, an evidence ID). The actions a
row offers are the server's own tools with an argument the value fits, by
name (the kind's own name, or one of a few aliases) and by the argument's
schema type; nothing here knows REA's tool names, so any server whose tools
take such arguments gets the same actions. An action fills one subject
argument and the row's document (when the tool takes one), and runs like any
call: through the tool's schema check and the approval dialog.

`InspectionHistory` is the navigation stack of the entries inspected (back
and forward, as in a browser or a disassembler).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rea_tui.host.protocol.models import Tool

# The kinds a row can name, in the order their actions are offered.
SUBJECT_KINDS: tuple[str, ...] = ("procedure", "string", "address", "evidence", "document")
# Kinds that also go along as context with an action on another subject (the procedure's document).
CONTEXT_KINDS: tuple[str, ...] = ("document",)
# Argument names a kind also fits beside its own name; few on purpose: a name match is a claim about meaning.
ALIASES: Mapping[str, tuple[str, ...]] = {
    "procedure": ("function", "symbol"),
    "address": ("addr",),
    "string": ("text",),
    "document": ("binary", "module"),
    "evidence": ("evidence_id", "source_evidence"),
}
# A value longer than this is not offered as an argument (a server's text can be anything).
VALUE_LIMIT = 4_096
# Entries remembered by the history (the oldest go first).
HISTORY_LIMIT = 500


@dataclass(frozen=True)
class RowAction:
    """One tool call a row offers: the tool and the arguments filled from the row."""

    tool: str
    arguments: dict[str, Any]
    # The kind of the value the action is about (`procedure`), for grouping and labels.
    subject: str

    @property
    def label(self) -> str:
        """`callers  procedure=_PyCodec_Lookup  document=libpython3.11.so.1.0` (server text: the UI sanitizes it)."""
        shown = "  ".join(f"{name}={_shown(value)}" for name, value in self.arguments.items())
        return f"{self.tool}  {shown}"


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def _types(schema: Mapping[str, Any]) -> set[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return {declared}
    if isinstance(declared, list):
        return {t for t in declared if isinstance(t, str)}
    return set()


def fitted(schema: Any, value: str) -> Any | None:
    """`value` as the argument `schema` takes it (a string, an integer, a one-item array), or None when it
    does not fit (another type, not in its enum)."""
    if not isinstance(schema, Mapping):
        return None
    enum = schema.get("enum")
    if isinstance(enum, list):
        return value if value in enum else None
    types = _types(schema)
    if not types or "string" in types:
        return value
    if types & {"integer", "number"} and value.isascii() and value.isdigit():
        return int(value)
    if "array" in types:
        item = fitted(schema.get("items") or {}, value)
        return None if item is None else [item]
    return None


def _properties(tool: Tool) -> dict[str, Any]:
    properties = tool.input_schema.get("properties")
    return {str(k): v for k, v in properties.items()} if isinstance(properties, dict) else {}


def _required(tool: Tool) -> set[str]:
    required = tool.input_schema.get("required")
    return {r for r in required if isinstance(r, str)} if isinstance(required, list) else set()


def _argument_for(kind: str, value: str, properties: Mapping[str, Any]) -> tuple[str, Any] | None:
    """The tool's argument that takes a value of `kind`: the kind's own name first, then its aliases."""
    for name in (kind, *ALIASES.get(kind, ())):
        if name in properties:
            taken = fitted(properties[name], value)
            if taken is not None:
                return name, taken
    return None


def _takes_a_subject(properties: Mapping[str, Any]) -> bool:
    names = {n for kind in SUBJECT_KINDS if kind not in CONTEXT_KINDS for n in (kind, *ALIASES.get(kind, ()))}
    return bool(names & set(properties))


def row_actions(facts: Mapping[str, str], tools: Iterable[Tool]) -> list[RowAction]:
    """The calls a row offers, subject by subject (a procedure's before its document's), each tool in the
    server's order; a tool is offered only when the row fills every argument it requires."""
    values = {k: v for k, v in facts.items() if isinstance(v, str) and v and len(v) <= VALUE_LIMIT}
    # The kinds the host knows first; any other name (a JSON field of another server's result) by its own name.
    subjects = [k for k in SUBJECT_KINDS if k in values] + [k for k in values if k not in SUBJECT_KINDS]
    if any(k not in CONTEXT_KINDS for k in subjects):
        # The document is the context of the procedure or string, not a subject of its own.
        subjects = [k for k in subjects if k not in CONTEXT_KINDS]
    tools = list(tools)
    actions: list[RowAction] = []
    seen: set[tuple[str, str]] = set()
    for kind in subjects:
        for tool in tools:
            properties = _properties(tool)
            if kind in CONTEXT_KINDS and _takes_a_subject(properties):
                continue  # a tool about a procedure or a string, not about the document alone
            subject = _argument_for(kind, values[kind], properties)
            if subject is None:
                continue
            arguments: dict[str, Any] = {subject[0]: subject[1]}
            for context in CONTEXT_KINDS:
                if context != kind and context in values:
                    found = _argument_for(context, values[context], properties)
                    if found is not None and found[0] not in arguments:
                        arguments[found[0]] = found[1]
            if not _required(tool) <= set(arguments):
                continue
            key = (tool.name, repr(sorted(arguments.items())))
            if key not in seen:
                seen.add(key)
                actions.append(RowAction(tool.name, arguments, kind))
    return actions


def row_label(facts: Mapping[str, str]) -> str:
    """What a row names, for a menu's title: `procedure _PyCodec_Lookup in libpython3.11.so.1.0`."""
    parts = [f"{kind} {facts[kind]}" for kind in SUBJECT_KINDS if kind not in CONTEXT_KINDS and facts.get(kind)]
    document = facts.get("document")
    if parts and document:
        return f"{', '.join(parts)} in {document}"
    return ", ".join(parts) or (f"document {document}" if document else "")


@dataclass
class InspectionHistory:
    """The entries inspected, in order, and where in them the analyst is (back and forward, like a browser)."""

    limit: int = HISTORY_LIMIT
    keys: list[str] = field(default_factory=list)
    index: int = -1

    @property
    def current(self) -> str | None:
        return self.keys[self.index] if 0 <= self.index < len(self.keys) else None

    @property
    def can_go_back(self) -> bool:
        return self.index > 0

    @property
    def can_go_forward(self) -> bool:
        return self.index < len(self.keys) - 1

    def visit(self, key: str) -> None:
        """`key` is inspected now: what was ahead of the current place is dropped (as a browser does)."""
        if key == self.current:
            return
        del self.keys[self.index + 1 :]
        self.keys.append(key)
        if len(self.keys) > self.limit:
            del self.keys[: len(self.keys) - self.limit]
        self.index = len(self.keys) - 1

    def back(self) -> str | None:
        if not self.can_go_back:
            return None
        self.index -= 1
        return self.current

    def forward(self) -> str | None:
        if not self.can_go_forward:
            return None
        self.index += 1
        return self.current

    def trail(self, around: int) -> tuple[Sequence[str], int]:
        """At most `around` keys on each side of the current one, and the current one's place among them."""
        start = max(0, self.index - around)
        return self.keys[start : self.index + around + 1], self.index - start
