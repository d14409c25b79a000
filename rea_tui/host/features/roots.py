"""The roots a client offers a server (`roots/list`): folders the server may work in.

Each server entry may list its roots (default none); the TUI can edit them
while connected, and every change is announced to the server with
`notifications/roots/list_changed`, after which it asks `roots/list` again.

```json
{"mcpServers": {"files": {"command": "mcp-server-filesystem", "args": ["/srv"],
                          "roots": ["~/project", {"uri": "file:///srv/data", "name": "data"}]}}}
```

A root is a `file://` URI (MCP 2025-11-25 allows no other scheme); a path is
turned into one (`~` expanded, made absolute).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from rea_tui.host.protocol.observers import Listeners, Unsubscribe

FILE_SCHEME = "file"
# Names and URIs longer than this are refused (a config typo, or a hostile file).
ROOT_TEXT_LIMIT = 4_096


class RootError(ValueError):
    """A root entry that is not a usable path or file:// URI; the message says why."""


@dataclass(frozen=True)
class Root:
    uri: str
    name: str | None = None

    def to_json(self) -> dict[str, str]:
        return {"uri": self.uri, **({"name": self.name} if self.name else {})}

    @property
    def path(self) -> str:
        """The folder the URI names (for people)."""
        return unquote(urlsplit(self.uri).path)


def root_from(value: Any) -> Root:
    """A root from a config or dialog entry: a path, a file:// URI, or `{uri|path, name}`."""
    name: str | None = None
    if isinstance(value, dict):
        raw_name = value.get("name")
        name = raw_name if isinstance(raw_name, str) and raw_name else None
        value = value.get("uri", value.get("path"))
    if not isinstance(value, str) or not value.strip():
        raise RootError("a root must be a path or a file:// URI")
    text = value.strip()
    if len(text) > ROOT_TEXT_LIMIT or (name is not None and len(name) > ROOT_TEXT_LIMIT):
        raise RootError(f"a root is limited to {ROOT_TEXT_LIMIT:,} characters")
    scheme = urlsplit(text).scheme
    if scheme and len(scheme) > 1:  # a one-letter "scheme" is a Windows drive
        if scheme != FILE_SCHEME:
            raise RootError(f"{text!r}: roots must be file:// URIs (MCP allows no other scheme)")
        return Root(text, name)
    return Root(Path(text).expanduser().absolute().as_uri(), name)


def parse_roots(raw: Any) -> tuple[Root, ...]:
    """The `roots` of a config entry (a list); raises RootError for a bad one."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise RootError("roots must be a list of paths or file:// URIs")
    return tuple(dict.fromkeys(root_from(item) for item in raw))


class Roots:
    """One connection's roots, what the server last asked, and who wants to hear of changes."""

    def __init__(self, roots: Iterable[Root] = ()) -> None:
        self.items: tuple[Root, ...] = tuple(roots)
        # How many times the server asked `roots/list`.
        self.listed = 0
        self.listeners: Listeners[tuple[Root, ...]] = Listeners()

    def subscribe(self, listener: Callable[[tuple[Root, ...]], None]) -> Unsubscribe:
        return self.listeners.subscribe(listener)

    def replace(self, roots: Iterable[Root]) -> bool:
        """Set the roots; True when they changed."""
        new = tuple(dict.fromkeys(roots))
        if new == self.items:
            return False
        self.items = new
        self.listeners.emit(new)
        return True

    def to_json(self) -> list[dict[str, str]]:
        return [root.to_json() for root in self.items]
