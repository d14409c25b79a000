"""The one function that turns any server-provided string into safe plain text.

Everything a server sends (names, descriptions, completion values, results,
stderr) passes through `sanitize` where it enters the host, before it is
shown, logged or exported. The result contains no escape sequences and no
control characters other than newline and tab, so it can be handed to Rich
as plain text (never markup) and can never reach the terminal as a command.
Bidi controls (which reorder what follows them: a U+202E turns `exe.txt` into
`txt.exe` on screen), zero-width characters and every other format character
(which hide what a name really is, or smuggle text no one sees) are kept
visible as `<U+202E>`, so the analyst sees that they are there.
"""

from __future__ import annotations

import re
from typing import Final

DEFAULT_LIMIT: Final = 20_000

# ESC-introduced sequences, in the order they must be tried:
#  - OSC/DCS/SOS/PM/APC strings run until BEL or ST (ESC \\), or the end of input;
#  - CSI: ESC [ parameters, intermediates, final byte;
#  - any other two-byte ESC sequence (ESC followed by one char).
_ESCAPE_SEQUENCE: Final = re.compile(
    r"""
    \x1b[\]PX^_] .*? (?: \x07 | \x1b\\ | $ )   # OSC, DCS, SOS, PM, APC strings
    | \x1b\[ [0-?]* [ -/]* [@-~]?               # CSI
    | \x1b .?                                   # two-byte escapes and a lone ESC
    | [\x9d\x90\x98\x9e\x9f] .*? (?: \x07 | \x9c | $ )  # 8-bit OSC/DCS/SOS/PM/APC
    | \x9b [0-?]* [ -/]* [@-~]?                 # 8-bit CSI
    """,
    re.VERBOSE | re.DOTALL,
)

# Every Unicode format character (category Cf), and the line and paragraph separators (they break a line
# where none shows): bidi embeddings, overrides, isolates and marks; zero-width characters and joiners; the
# soft hyphen; invisible operators; the BOM; interlinear annotation marks; prepended number signs; and the
# tag characters (U+E0000 block), which spell out ASCII no one sees. Kept in two parts: a regex class
# with the ranges beyond U+FFFF scans five times slower, so text without such characters skips them.
_HIDDEN_BMP: Final = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f\u2028-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
)
_HIDDEN_ASTRAL: Final = (
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
INVISIBLE_CONTROLS: Final = _HIDDEN_BMP + _HIDDEN_ASTRAL
# C0 controls except TAB (\x09) and LF (\x0a), DEL, and the C1 range.
CONTROLS: Final = "\x00-\x08\x0b-\x1f\x7f-\x9f"
_CONTROL_CHARACTERS: Final = re.compile(f"[{CONTROLS}]")
_INVISIBLE: Final = re.compile(f"[{INVISIBLE_CONTROLS}]")
# Every character `has_hidden` looks for, for finding and replacing them once some are known to be there.
HIDDEN_CHARACTER: Final = re.compile(f"[{CONTROLS}{INVISIBLE_CONTROLS}]")
_HIDDEN_IN_BMP: Final = re.compile(f"[{CONTROLS}{_HIDDEN_BMP}]")
_ANY_ASTRAL: Final = re.compile("[\U00010000-\U0010ffff]")
_HIDDEN_IN_ASTRAL: Final = re.compile(f"[{_HIDDEN_ASTRAL}]")


def has_hidden(text: str) -> bool:
    """Whether `text` holds a control (other than newline and tab) or an invisible character: the check
    every string and every painted line goes through, fast for the usual text (one scan; more only
    for text with characters beyond U+FFFF, emoji say)."""
    if _HIDDEN_IN_BMP.search(text) is not None:
        return True
    return not text.isascii() and _ANY_ASTRAL.search(text) is not None and _HIDDEN_IN_ASTRAL.search(text) is not None


def visible(character: str) -> str:
    """How a neutralized invisible character is shown: `<U+202E>`."""
    return f"<U+{ord(character):04X}>"


def sanitize(value: object, limit: int | None = DEFAULT_LIMIT) -> str:
    """Return `value` as plain, terminal-safe text.

    Non-strings are converted with `str()`. Carriage returns become newlines
    (a bare CR would let a string overwrite what was shown before it on the
    same line). With a `limit`, text longer than it is cut and ends with a
    visible "... (N more characters)" marker.
    """
    text = value if isinstance(value, str) else str(value)
    if (limit is None or len(text) <= limit) and not has_hidden(text):
        return text
    overflow = 0
    if limit is not None and len(text) > 4 * limit:
        # Bound the regex work on huge payloads; the precise cut happens below
        # once escape sequences are gone.
        overflow = len(text) - 4 * limit
        text = text[: 4 * limit]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _ESCAPE_SEQUENCE.sub("", text)
    text = _CONTROL_CHARACTERS.sub("", text)
    text = _INVISIBLE.sub(lambda m: visible(m.group(0)), text)
    if limit is not None and (len(text) > limit or overflow):
        more = max(len(text) - limit, 0) + overflow
        text = f"{text[:limit]}... ({more:,} more characters)"
    return text


LINE_LIMIT: Final = 500


def sanitize_line(value: object, limit: int | None = LINE_LIMIT) -> str:
    """Like `sanitize`, for places that show a single line (names, titles, table cells)."""
    text = sanitize(value, limit)
    return text.replace("\n", " ").replace("\t", " ") if "\n" in text or "\t" in text else text
