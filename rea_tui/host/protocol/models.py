"""What the host knows about a server's prompts, tools, resources and content.

This is where server text enters the host, so it is made display-safe here,
once (`safe_text.sanitize`): every name, title, description, URI and text a
model carries is safe to show. Identifiers the server must get back intact
are also kept as the server sent them, in `wire_*` fields read only by the
code that builds requests (`.wire` gives the raw value, or the name when they
are the same). Schemas and `structuredContent` are data, not text: they stay
as they came and are never shown without sanitizing.

Parsed leniently from raw JSON: a server that sends a wrong type in one field
loses that field (or that item), never the whole listing. Each item also keeps
the object the server sent (`raw`), for machine output only (JSON, escaped): never shown.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

from rea_tui.host.trust.safe_text import DEFAULT_LIMIT, LINE_LIMIT, sanitize, sanitize_line

# How long each kind of server text may be once it is in the host (content text is kept whole: it is shown in parts).
NAME_LIMIT = LINE_LIMIT
DESCRIPTION_LIMIT = DEFAULT_LIMIT
URI_LIMIT = 2_000


def _name(value: Any, default: str = "") -> str:
    return sanitize_line(value, NAME_LIMIT) if isinstance(value, str) else default


def _opt_name(value: Any) -> str | None:
    return sanitize_line(value, NAME_LIMIT) if isinstance(value, str) else None


def _text(value: Any, limit: int | None = DESCRIPTION_LIMIT) -> str:
    return sanitize(value, limit) if isinstance(value, str) else ""


def _raw(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _wire(raw: str, safe: str) -> str:
    """The raw form, kept only where it differs from the safe one."""
    return "" if raw == safe else raw


def _safe_annotations(value: Any) -> dict[str, Any]:
    """Annotations are only ever shown: their strings are made safe, other values kept."""
    annotations: dict[str, Any] = {}
    for key, item in _dict(value).items():
        annotations[sanitize_line(key, NAME_LIMIT)] = sanitize_line(item, NAME_LIMIT) if isinstance(item, str) else item
    return annotations


@dataclass(frozen=True)
class PromptArgument:
    name: str
    title: str | None = None
    description: str = ""
    required: bool = False
    wire_name: str = ""
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def label(self) -> str:
        return self.title or self.name

    @property
    def wire(self) -> str:
        """The name as the server sent it (what goes back in prompts/get and completion)."""
        return self.wire_name or self.name


@dataclass(frozen=True)
class Prompt:
    name: str
    title: str | None = None
    description: str = ""
    arguments: tuple[PromptArgument, ...] = ()
    wire_name: str = ""
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def label(self) -> str:
        return self.title or self.name

    @property
    def wire(self) -> str:
        return self.wire_name or self.name

    @property
    def required_arguments(self) -> tuple[PromptArgument, ...]:
        return tuple(a for a in self.arguments if a.required)

    def wire_arguments(self, values: dict[str, str]) -> dict[str, str]:
        """`values` keyed by argument name, re-keyed by the names the server sent (unknown names kept)."""
        wire = {a.name: a.wire for a in self.arguments}
        return {wire.get(name, name): value for name, value in values.items()}


def parse_prompt(raw: Any) -> Prompt | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        return None
    arguments: list[PromptArgument] = []
    raw_args = raw.get("arguments")
    for item in raw_args if isinstance(raw_args, list) else []:
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            name = _name(item["name"])
            arguments.append(
                PromptArgument(
                    name=name,
                    title=_opt_name(item.get("title")),
                    description=_text(item.get("description")),
                    required=item.get("required") is True,
                    wire_name=_wire(item["name"], name),
                    raw=item,
                )
            )
    name = _name(raw["name"])
    return Prompt(
        name=name,
        title=_opt_name(raw.get("title")),
        description=_text(raw.get("description")),
        arguments=tuple(arguments),
        wire_name=_wire(raw["name"], name),
        raw=raw,
    )


@dataclass(frozen=True)
class Tool:
    name: str
    title: str | None = None
    description: str = ""
    input_schema: dict[str, Any] = field(default_factory=dict)
    output_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] = field(default_factory=dict)
    wire_name: str = ""
    # What the server declared about how the tool runs (task support), kept as it came.
    execution: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def label(self) -> str:
        title = self.annotations.get("title")
        return self.title or (title if isinstance(title, str) else "") or self.name

    @property
    def wire(self) -> str:
        return self.wire_name or self.name

    @property
    def read_only(self) -> bool:
        """Declared read-only by the server (declared, not verified)."""
        return self.annotations.get("readOnlyHint") is True

    @property
    def destructive(self) -> bool:
        # The spec's default for destructiveHint is true when readOnlyHint is not set.
        return not self.read_only and self.annotations.get("destructiveHint", True) is not False


def parse_tool(raw: Any) -> Tool | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        return None
    output = raw.get("outputSchema")
    name = _name(raw["name"])
    return Tool(
        name=name,
        title=_opt_name(raw.get("title")),
        description=_text(raw.get("description")),
        input_schema=_dict(raw.get("inputSchema")),
        output_schema=output if isinstance(output, dict) else None,
        annotations=_safe_annotations(raw.get("annotations")),
        wire_name=_wire(raw["name"], name),
        execution=_dict(raw.get("execution")),
        raw=raw,
    )


@dataclass(frozen=True)
class Resource:
    uri: str
    name: str = ""
    title: str | None = None
    description: str = ""
    mime_type: str | None = None
    wire_uri: str = ""
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def wire(self) -> str:
        return self.wire_uri or self.uri


def _uri(value: str) -> str:
    return sanitize_line(value, URI_LIMIT)


def parse_resource(raw: Any) -> Resource | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("uri"), str):
        return None
    uri = _uri(raw["uri"])
    return Resource(
        uri=uri,
        name=_name(raw.get("name")),
        title=_opt_name(raw.get("title")),
        description=_text(raw.get("description")),
        mime_type=_opt_name(raw.get("mimeType")),
        wire_uri=_wire(raw["uri"], uri),
        raw=raw,
    )


_TEMPLATE_VARIABLE = re.compile(r"\{[+#./;?&]?([^}]+)\}")


def template_variables(uri_template: str) -> tuple[str, ...]:
    """Variable names in RFC 6570 order of appearance (`{a}`, `{+a}`, `{?a,b}`...)."""
    names: list[str] = []
    for group in _TEMPLATE_VARIABLE.findall(uri_template):
        for part in group.split(","):
            name = part.strip().rstrip("*").split(":")[0]
            if name and name not in names:
                names.append(name)
    return tuple(names)


@dataclass(frozen=True)
class ResourceTemplate:
    uri_template: str
    name: str = ""
    title: str | None = None
    description: str = ""
    mime_type: str | None = None
    wire_template: str = ""
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def wire(self) -> str:
        return self.wire_template or self.uri_template

    @property
    def variables(self) -> tuple[str, ...]:
        return template_variables(self.uri_template)

    @property
    def wire_variables(self) -> tuple[str, ...]:
        """The variable names as the server sent them (what completion asks about)."""
        return template_variables(self.wire)

    def wire_values(self, values: dict[str, str]) -> dict[str, str]:
        """`values` keyed by variable name, re-keyed by the names in the server's template."""
        if len(self.wire_variables) != len(self.variables):
            return dict(values)
        wire = dict(zip(self.variables, self.wire_variables, strict=True))
        return {wire.get(name, name): value for name, value in values.items()}

    def expand(self, values: dict[str, str]) -> str:
        """Fill the server's template (simple expansion; values are percent-encoded): the URI to read."""
        from urllib.parse import quote

        values = self.wire_values(values)

        def replace(match: re.Match[str]) -> str:
            expression = match.group(0)[1:-1]
            operator = expression[0] if expression[0] in "+#./;?&" else ""
            names = [p.strip().rstrip("*").split(":")[0] for p in expression.lstrip("+#./;?&").split(",")]
            safe = ":/?#[]@!$&'()*+,;=" if operator in "+#" else ""
            present = [(n, quote(values[n], safe=safe)) for n in names if values.get(n)]
            if operator in ("?", "&"):
                return (operator if present else "") + "&".join(f"{n}={v}" for n, v in present)
            prefix = {"#": "#", ".": ".", "/": "/", ";": ";"}.get(operator, "")
            return prefix + ",".join(v for _, v in present) if present else ""

        return _TEMPLATE_VARIABLE.sub(replace, self.wire)


def parse_resource_template(raw: Any) -> ResourceTemplate | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("uriTemplate"), str):
        return None
    template = _uri(raw["uriTemplate"])
    return ResourceTemplate(
        uri_template=template,
        name=_name(raw.get("name")),
        title=_opt_name(raw.get("title")),
        description=_text(raw.get("description")),
        mime_type=_opt_name(raw.get("mimeType")),
        wire_template=_wire(raw["uriTemplate"], template),
        raw=raw,
    )


# ---------------------------------------------------------------- content


@dataclass(frozen=True)
class TextBlock:
    text: str
    kind: str = "text"
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class MediaBlock:
    """An image or audio block: shown as its type and size, never decoded."""

    kind: str
    mime_type: str
    size_bytes: int
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class ResourceLinkBlock:
    uri: str
    name: str = ""
    description: str = ""
    mime_type: str | None = None
    kind: str = "resource_link"
    wire_uri: str = ""
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def wire(self) -> str:
        """The URI as the server sent it (what "open into evidence" reads)."""
        return self.wire_uri or self.uri


@dataclass(frozen=True)
class EmbeddedResourceBlock:
    uri: str
    mime_type: str | None
    text: str | None
    blob_size: int | None = None
    kind: str = "resource"
    # The whole block (`{"type": "resource", "resource": {...}}`), also for a resources/read item.
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class UnknownBlock:
    kind: str
    raw: dict[str, Any] = field(default_factory=dict)


ContentBlock = TextBlock | MediaBlock | ResourceLinkBlock | EmbeddedResourceBlock | UnknownBlock


def _decoded_size(data: Any) -> int:
    if not isinstance(data, str):
        return 0
    padding = data.count("=", max(len(data) - 2, 0))
    return max(len(data) * 3 // 4 - padding, 0)


def parse_resource_contents(raw: Any) -> EmbeddedResourceBlock | None:
    """One item of `resources/read` contents (or of an embedded resource block)."""
    if not isinstance(raw, dict):
        return None
    blob = raw.get("blob")
    text = raw.get("text")
    return EmbeddedResourceBlock(
        uri=_uri(_raw(raw.get("uri"))),
        mime_type=_opt_name(raw.get("mimeType")),
        text=sanitize(text, None) if isinstance(text, str) else None,
        blob_size=_decoded_size(blob) if isinstance(blob, str) else None,
        raw={"type": "resource", "resource": raw},
    )


def parse_content_block(raw: Any) -> ContentBlock:
    if not isinstance(raw, dict):
        return UnknownBlock(kind=type(raw).__name__)
    kind = _name(raw.get("type"), "unknown")
    if kind == "text":
        return TextBlock(text=_text(raw.get("text"), None), raw=raw)
    if kind in ("image", "audio"):
        return MediaBlock(
            kind=kind, mime_type=_name(raw.get("mimeType"), "?"), size_bytes=_decoded_size(raw.get("data")), raw=raw
        )
    if kind == "resource_link":
        raw_uri = _raw(raw.get("uri"))
        uri = _uri(raw_uri)
        return ResourceLinkBlock(
            uri=uri,
            name=_name(raw.get("name")),
            description=_text(raw.get("description")),
            mime_type=_opt_name(raw.get("mimeType")),
            wire_uri=_wire(raw_uri, uri),
            raw=raw,
        )
    if kind == "resource":
        embedded = parse_resource_contents(raw.get("resource"))
        if embedded is not None:
            return replace(embedded, raw=raw)
    return UnknownBlock(kind=kind, raw=raw)


def parse_content(raw: Any) -> list[ContentBlock]:
    """A message's or result's `content`: a single block or a list of blocks."""
    if isinstance(raw, list):
        return [parse_content_block(item) for item in raw]
    if raw is None:
        return []
    return [parse_content_block(raw)]


def block_text(block: ContentBlock) -> str:
    """The text a block carries (for finding tool names, searching, exporting)."""
    if isinstance(block, TextBlock):
        return block.text
    if isinstance(block, EmbeddedResourceBlock):
        return block.text or ""
    if isinstance(block, ResourceLinkBlock):
        return f"{block.name} {block.description}"
    return ""


def block_json(block: ContentBlock) -> dict[str, Any]:
    """A content block for machine output: as the server sent it (MCP's keys, data included).

    A block restored from an older transcript has no server form; it is
    written with MCP's camelCase keys from what was kept.
    """
    if block.raw:
        return dict(block.raw)
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, MediaBlock):
        return {"type": block.kind, "mimeType": block.mime_type, "sizeBytes": block.size_bytes}
    if isinstance(block, ResourceLinkBlock):
        link: dict[str, Any] = {"type": "resource_link", "uri": block.uri, "name": block.name}
        if block.description:
            link["description"] = block.description
        if block.mime_type is not None:
            link["mimeType"] = block.mime_type
        return link
    if isinstance(block, EmbeddedResourceBlock):
        embedded: dict[str, Any] = {"uri": block.uri}
        if block.mime_type is not None:
            embedded["mimeType"] = block.mime_type
        if block.text is not None:
            embedded["text"] = block.text
        if block.blob_size is not None:
            embedded["blobSize"] = block.blob_size
        return {"type": "resource", "resource": embedded}
    return {"type": block.kind}


def block_summary(block: ContentBlock) -> str:
    """One line naming what a block is: its type, MIME type, size and URI (plain text; sanitize to show it)."""
    if isinstance(block, TextBlock):
        return f"<text, {len(block.text):,} characters>"
    if isinstance(block, MediaBlock):
        return f"<{block.kind} {block.mime_type}, {block.size_bytes:,} bytes>"
    if isinstance(block, ResourceLinkBlock):
        parts = [block.uri] + ([block.mime_type] if block.mime_type else [])
        named = f" {block.name!r}" if block.name else ""
        return f"<resource_link {' '.join(parts)}{named}>"
    if isinstance(block, EmbeddedResourceBlock):
        kind = block.mime_type or "no MIME type"
        if block.text is not None:
            size = f"{len(block.text):,} characters"
        elif block.blob_size is not None:
            size = f"{block.blob_size:,} bytes, binary"
        else:
            size = "empty"
        return f"<resource {block.uri or '(no uri)'} ({kind}, {size})>"
    return f"<{block.kind}, {len(json.dumps(block.raw, default=str)):,} bytes of JSON>"
