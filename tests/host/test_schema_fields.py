"""Reading a schema's properties as form fields: kinds, choices, local refs, defaults, unknown keys, fits."""

from __future__ import annotations

from rea_tui.host import Choice, fits, form_fields, unknown_keys, with_defaults

SCHEMA = {
    "type": "object",
    "$defs": {"Mode": {"type": "string", "enum": ["fast", "safe"], "title": "Mode"}},
    "properties": {
        "mode": {"$ref": "#/$defs/Mode", "default": "safe"},
        "maybe": {"anyOf": [{"$ref": "#/$defs/Mode"}, {"type": "null"}], "description": "optional mode"},
        "colour": {"type": "string", "oneOf": [{"const": "#f00", "title": "Red"}, {"const": "#0f0"}]},
        "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}},
        "sizes": {"type": "array", "items": {"anyOf": [{"const": 1, "title": "One"}, {"const": 2, "title": "Two"}]}},
        "flag": {"type": "boolean", "title": " "},
        "count": {"type": "integer"},
        "ratio": {"type": "number"},
        "names": {"type": "array", "items": {"type": "integer"}},
        "blob": {"type": "object"},
        "remote": {"$ref": "https://example.org/schema.json"},
    },
    "required": ["count"],
}


def test_each_property_becomes_the_field_it_reads_as() -> None:
    fields = {f.name: f for f in form_fields(SCHEMA)}
    assert list(fields) == list(SCHEMA["properties"])  # the schema's order
    kinds = {name: f.kind for name, f in fields.items()}
    assert kinds == {
        "mode": "choice",
        "maybe": "choice",
        "colour": "choice",
        "legacy": "choice",
        "tags": "multi",
        "sizes": "multi",
        "flag": "boolean",
        "count": "integer",
        "ratio": "number",
        "names": "array",
        "blob": "json",
        "remote": "string",
    }
    # A local $ref (pydantic's enums) is followed; the referring schema's own keywords win.
    assert (fields["mode"].title, fields["mode"].default, fields["mode"].has_default) == ("Mode", "safe", True)
    assert fields["maybe"].description == "optional mode"
    assert fields["colour"].choices == (Choice("#f00", "Red"), Choice("#0f0", "#0f0"))
    assert [c.label for c in fields["legacy"].choices] == ["Alpha", "Beta"]
    assert [c.value for c in fields["sizes"].choices] == [1, 2]
    assert fields["flag"].title is None  # a blank title is no title
    assert fields["count"].required and not fields["ratio"].required
    assert fields["remote"].unfetched_ref == "https://example.org/schema.json"
    assert fields["mode"].unfetched_ref is None


def test_defaults_fill_only_what_is_absent_and_unknown_keys_are_found() -> None:
    assert with_defaults(SCHEMA, {}) == {"mode": "safe"}
    assert with_defaults(SCHEMA, {"mode": "fast", "count": 1}) == {"mode": "fast", "count": 1}
    assert unknown_keys(SCHEMA, {"mode": "fast", "nickname": "x", "count": 1}) == ["nickname"]
    assert unknown_keys({"type": "object"}, {"a": 1}) == ["a"]


def test_a_suggestion_fits_only_a_field_of_its_type() -> None:
    fields = {f.name: f for f in form_fields(SCHEMA)}
    assert fits(fields["count"], "12") and not fits(fields["count"], "openDocument")
    assert fits(fields["ratio"], "1.5") and fits(fields["ratio"], "2")
    assert fits(fields["names"], "1, 2") and not fits(fields["names"], "a, b")
    assert fits(fields["blob"], '{"a": 1}') and not fits(fields["blob"], "[1]")
    assert fits(fields["remote"], "anything")
    assert not fits(fields["mode"], "fast")  # choices are picked, not typed
    assert not fits(fields["flag"], "true")
