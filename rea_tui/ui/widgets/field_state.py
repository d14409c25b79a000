"""What one field of a schema form holds, whether or not its widget is mounted.

A `FieldState` keeps what the analyst typed or picked and where the field's
first value came from (the analyst or the prompt, the server's default, or
nothing), and reads it as the value to send: an optional boolean left unset
and an untouched empty field send nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from rea_tui.host import FormField, UnreadableValue, coerce, fits, sanitize

Origin = Literal["given", "default", "none"]


def is_sensitive(schema: dict[str, Any]) -> bool:
    """A value the form marks as secret: typed masked, and redacted from transcripts."""
    return schema.get("format") == "password" or schema.get("writeOnly") is True or schema.get("x-sensitive") is True


def _as_text(kind: str, value: Any) -> str:
    """A prefilled value (often the server's default) as editable text: shown, edited and sent as it is seen."""
    if value is None:
        return ""
    if kind == "json":
        text = json.dumps(value, indent=2, ensure_ascii=False)
    elif kind == "array" and isinstance(value, list):
        text = json.dumps(value, ensure_ascii=False)
    else:
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return sanitize(text, None)


def _typed(prop: FormField, text: str) -> Any:
    """Text given for a boolean or a pick (a prompt argument) as the value it names, or the text if none."""
    if prop.kind == "boolean":
        try:
            return coerce(text, {"type": "boolean"})
        except UnreadableValue:
            return text
    named = {c.value if isinstance(c.value, str) else json.dumps(c.value): c.value for c in prop.choices}
    if prop.kind == "multi":
        return [named[part.strip()] for part in text.split(",") if part.strip() in named]
    return named.get(text, text)


@dataclass
class FieldState:
    """One property's value as it stands, whether or not its field is mounted."""

    prop: FormField
    origin: Origin
    text: str = ""
    # boolean: True / False / None (not set); choice: the choice's index or None; multi: chosen indexes.
    picked: Any = None
    touched: bool = False
    error: str | None = None
    suggestions: list[str] = field(default_factory=list)
    # What the field sends before anyone touches it (the server's default, as shown).
    initial: Any = None

    @classmethod
    def create(cls, prop: FormField, given: dict[str, Any], suggestions: Sequence[str]) -> FieldState:
        origin: Origin = "given" if prop.name in given else "default" if prop.has_default else "none"
        initial = given.get(prop.name) if origin == "given" else prop.default if origin == "default" else None
        state = cls(prop, origin, suggestions=[s for s in suggestions if fits(prop, s)])
        if isinstance(initial, str) and prop.kind in ("boolean", "choice", "multi"):
            initial = _typed(prop, initial)  # a prompt's value is text: read it as the field's type
        if prop.kind == "boolean":
            state.picked = initial if isinstance(initial, bool) else (False if prop.required else None)
        elif prop.kind == "choice":
            state.picked = next((i for i, c in enumerate(prop.choices) if c.value == initial), None)
        elif prop.kind == "multi":
            chosen = initial if isinstance(initial, list) else []
            state.picked = [i for i, c in enumerate(prop.choices) if c.value in chosen]
        else:
            state.text = _as_text(prop.kind, initial)
        try:
            state.initial = state.read()[1]
        except UnreadableValue:
            state.initial = None  # a default that does not read as its own type is never "the server's default"
        return state

    def read(self) -> tuple[bool, Any]:
        """(present, value): what this field sends, if anything; raises UnreadableValue."""
        prop = self.prop
        if prop.kind == "boolean":
            return self.picked is not None, self.picked
        if prop.kind == "choice":
            return self.picked is not None, None if self.picked is None else prop.choices[self.picked].value
        if prop.kind == "multi":
            present = bool(self.picked) or self.touched or self.origin != "none"
            return present, [prop.choices[i].value for i in sorted(self.picked)]
        if not self.text.strip():
            return False, None
        if prop.kind == "json":
            try:
                return True, json.loads(self.text)
            except ValueError as exc:
                raise UnreadableValue(f"not valid JSON: {exc}") from None
        return True, coerce(self.text, prop.schema)

    def is_server_default(self, value: Any) -> bool:
        return self.origin == "default" and self.initial is not None and value == self.initial
