"""How a URL a server asks the analyst to open is shown, and whether it may be opened at all.

A host that looks like a known domain may not be one: `аpple.com` with a
Cyrillic `а` reads exactly like `apple.com`. So a non-ASCII host is shown in
its punycode form (`xn--pple-43d.com`), letters from more than one script in
one label are called out, and so are credentials before the host
(`https://bank.example@evil.example/`). Only http and https URLs are ever
opened (a `javascript:`, `file:` or `data:` URL is shown, never opened).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from rea_tui.host.trust.safe_text import CONTROLS, INVISIBLE_CONTROLS, sanitize_line

OPENABLE_SCHEMES = ("http", "https")
URL_LIMIT = 4_000


@dataclass(frozen=True)
class UrlView:
    """A URL ready to show: its safe text, its host as the browser will resolve it, and what to beware of."""

    text: str
    host: str  # punycode for a non-ASCII host; "" when there is none
    openable: bool
    warnings: tuple[str, ...] = field(default=())


def _script(character: str) -> str:
    """The script a letter belongs to, by its Unicode name (LATIN, CYRILLIC, GREEK...)."""
    name = unicodedata.name(character, "")
    return name.split(" ", 1)[0] if name else "UNKNOWN"


def _mixed_scripts(label: str) -> set[str]:
    return {_script(c) for c in label if c.isalpha()}


def _punycode(host: str) -> str | None:
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return None


# Characters a one-line URL shows escaped: controls (newline included), DEL, C1, the backslash itself (so an
# escape in the URL cannot pass for one of ours), and every invisible character `sanitize` makes visible.
_ESCAPED_IN_LINE = re.compile(f"[\\\\{CONTROLS}\t\n{INVISIBLE_CONTROLS}]")


def _escape(match: re.Match[str]) -> str:
    character = match.group(0)
    if character == "\\":
        return "\\\\"
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def one_line_url(url: str, limit: int = URL_LIMIT) -> str:
    """`url` as exactly one terminal-safe line: a newline or any control shows as its escape (`\\n` as
    `\\x0a`), so nothing in the URL can start a line of its own (a forged `host:` line, say)."""
    shown = _ESCAPED_IN_LINE.sub(_escape, url[:limit])
    return f"{shown}... ({len(url) - limit:,} more characters)" if len(url) > limit else shown


def view_url(url: str) -> UrlView:
    text = sanitize_line(url, URL_LIMIT)
    warnings: list[str] = []
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname or ""
    except ValueError:
        return UrlView(text, "", False, ("this is not a URL rea-tui can read; it will not be opened",))
    scheme = parts.scheme.lower()
    openable = scheme in OPENABLE_SCHEMES and bool(host)
    if not openable:
        warnings.append(f"a {sanitize_line(scheme or 'schemeless', 40)} URL is never opened (only http and https)")
    if parts.username is not None or parts.password is not None:
        warnings.append("the part before @ is not the host: the browser goes to the host after it")
    shown_host = host
    for label in host.split("."):
        # A punycode label written out: what it stands for may be a look-alike too.
        if label.startswith("xn--"):
            try:
                decoded = label.encode("ascii").decode("idna")
            except UnicodeError:
                continue
            scripts = _mixed_scripts(decoded)
            if len(scripts) > 1:
                mixed = " and ".join(sorted(s.title() for s in scripts))
                warnings.append(f"{label} stands for {sanitize_line(decoded, 80)!r}, which mixes {mixed} letters")
    if host and not host.isascii():
        encoded = _punycode(host)
        if encoded is None:
            return UrlView(text, "", False, (*warnings, "the host name is not valid; it will not be opened"))
        shown_host = encoded
        warnings.append("the host has non-ASCII letters: the browser resolves it as shown in punycode")
        for label in host.split("."):
            scripts = _mixed_scripts(label)
            if len(scripts) > 1:
                mixed = " and ".join(sorted(s.title() for s in scripts))
                warnings.append(f"{sanitize_line(label, 80)!r} mixes {mixed} letters: a look-alike of another name?")
    return UrlView(text, sanitize_line(shown_host, URL_LIMIT), openable, tuple(warnings))
