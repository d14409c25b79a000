"""The egress guard: the last check before text reaches a terminal.

Server text is made display-safe where it enters the host (`sanitize`). This
guard stands behind that: whatever the CLI prints and whatever the TUI paints
passes `guard`, which neutralizes any character that could act on a terminal
(C0/C1 controls other than newline and tab, DEL, every format character,
line and paragraph separators). A character found here means some
path skipped the ingress: under `REA_TUI_STRICT_EGRESS=1` (the test suite sets
it) that raises `EgressViolation`, so a test of that path fails; otherwise the
character is shown visibly as `<U+XXXX>` and the screen stays intact.
"""

from __future__ import annotations

import os
from typing import Final

from rea_tui.host.trust.safe_text import HIDDEN_CHARACTER, has_hidden, visible

STRICT_ENV: Final = "REA_TUI_STRICT_EGRESS"

# What must never reach a terminal from outside: C0 controls but TAB and LF, DEL, C1, and the invisible ones
# (what sanitize neutralizes); `has_unsafe` checks for them fast, this finds them once some are there.
UNSAFE_CHARACTER: Final = HIDDEN_CHARACTER
has_unsafe: Final = has_hidden


class EgressViolation(RuntimeError):
    """A character that acts on a terminal was about to be written (strict mode)."""


def strict_egress() -> bool:
    return os.environ.get(STRICT_ENV) == "1"


def guard(text: str, where: str = "output") -> str:
    """`text` with nothing in it that can act on a terminal; raises in strict mode if it had any."""
    if not has_unsafe(text):
        return text
    if strict_egress():
        found = sorted({visible(c) for c in UNSAFE_CHARACTER.findall(text)})
        raise EgressViolation(f"{where}: unsanitized text would reach the terminal ({', '.join(found)})")
    return UNSAFE_CHARACTER.sub(lambda m: visible(m.group(0)), text)
