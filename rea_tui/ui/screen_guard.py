"""The egress guard on the screen: every frame Textual paints passes here before it is written.

Server text is made safe where it enters the host. This guard stands behind
that, on the one path every frame takes (`ReaApp._display`, which Textual
calls with each compositor update, headless or not): it checks the text of
every segment that is not one of Textual's own control segments. A character
that could act on a terminal means some display path skipped the ingress:
under strict mode (the test suite) that raises, so the test of that path
fails; otherwise the character is dropped from the frame (such characters
take no cell, so nothing moves) and the frame goes out safe.
"""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from textual.strip import Strip

from rea_tui.host import UNSAFE_CHARACTER, EgressViolation, has_unsafe, strict_egress

# How much of the offending line a violation quotes.
SNIPPET = 200


def _clean(strip: Strip) -> Strip:
    """`strip` with nothing unsafe in its text; the same object when it was already safe."""
    if not has_unsafe(strip.text):
        return strip  # the usual case, checked on every strip of every frame: all of its text is safe
    segments = list(strip)
    text = "".join(s.text for s in segments if s.control is None)
    if not has_unsafe(text):
        return strip
    if strict_egress():
        found = ", ".join(sorted({f"U+{ord(c):04X}" for c in UNSAFE_CHARACTER.findall(text)}))
        raise EgressViolation(f"the screen would write unsanitized text ({found}) in {text.strip()[:SNIPPET]!r}")
    cleaned = [
        Segment(UNSAFE_CHARACTER.sub("", s.text), s.style, s.control) if s.control is None else s for s in segments
    ]
    return Strip(cleaned, strip.cell_length)


def _clean_line(line: Any) -> Any:
    return _clean(line) if isinstance(line, Strip) else [_clean(strip) for strip in line]


def guard_update(update: Any) -> Any:
    """A compositor update with every strip checked (and, outside strict mode, cleaned).

    Duck-typed on what Textual's updates hold (a full or inline update has
    `strips`, a partial one `chops`), so no private Textual module is imported.
    """
    strips = getattr(update, "strips", None)
    if isinstance(strips, list):
        update.strips = [_clean_line(line) for line in strips]
    chops = getattr(update, "chops", None)
    if isinstance(chops, list):
        update.chops = [
            {offset: (None if strip is None else _clean(strip)) for offset, strip in chop.items()} for chop in chops
        ]
    return update
