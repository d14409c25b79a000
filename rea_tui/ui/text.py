"""Server text as Rich `Text`: sanitized, never parsed as markup.

Every widget that shows a server string builds it here. Passing a `Text`
(not a `str`) to Textual widgets means no markup is interpreted.
"""

from __future__ import annotations

from typing import Protocol

from rich.text import Text
from textual.notifications import SeverityLevel

from rea_tui.host import DEFAULT_LIMIT, sanitize, sanitize_line

# How much of a server string is shown, by what it is. A widget wraps or cuts to its width anyway;
# these bound the work and keep one hostile string from filling a screen.
WORD_LIMIT = 40
"""A token: a role, a logger, a table cell, a mnemonic, a JSON value beside its key."""
NAME_LIMIT = 80
"""A name: a server, tool, prompt, resource, task or target."""
LINE_LIMIT = 300
"""One line of text: a title, a suggestion, a candidate, a status message, a URI."""
MESSAGE_LIMIT = 500
"""A message: an error, a server's reply to a narrowing, a resource's description."""
PARAGRAPH_LIMIT = 2_000
"""A description or a note: what a prompt, a field or a question says of itself."""
DOCUMENT_LIMIT = 5_000
"""A block read in place: arguments, capabilities, an elicitation's message, an error with its detail."""
BODY_LIMIT = 20_000
"""The longest text shown whole: an embedded resource's text, a replay's difference."""
TOAST_TITLE_LIMIT = 100
TOAST_LIMIT = 1_000


def plain(value: object, limit: int | None = DEFAULT_LIMIT, style: str = "") -> Text:
    return Text(sanitize(value, limit), style=style)


def plain_line(value: object, limit: int | None = MESSAGE_LIMIT, style: str = "") -> Text:
    return Text(sanitize_line(value, limit), style=style, no_wrap=True, overflow="ellipsis")


def join(*parts: Text | str, separator: str = "") -> Text:
    """Concatenate our own strings (which may carry styles) with sanitized server text."""
    result = Text()
    for index, part in enumerate(parts):
        if index and separator:
            result.append(separator)
        result.append(part if isinstance(part, Text) else Text(part))
    return result


class _Notifier(Protocol):
    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...


def notify_plain(
    target: _Notifier,
    message: object,
    *,
    title: object = "",
    severity: SeverityLevel = "information",
    timeout: float | None = None,
) -> None:
    """A toast whose text may come from a server: sanitized and never read as markup."""
    target.notify(
        sanitize(message, TOAST_LIMIT),
        title=sanitize_line(title, TOAST_TITLE_LIMIT),
        severity=severity,
        timeout=timeout,
        markup=False,
    )
