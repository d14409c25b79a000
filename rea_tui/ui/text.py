"""Server text as Rich `Text`: sanitized, never parsed as markup.

Every widget that shows a server string builds it here. Passing a `Text`
(not a `str`) to Textual widgets means no markup is interpreted.
"""

from __future__ import annotations

from typing import Protocol

from rich.text import Text
from textual.notifications import SeverityLevel

from rea_tui.host import DEFAULT_LIMIT, sanitize, sanitize_line


def plain(value: object, limit: int | None = DEFAULT_LIMIT, style: str = "") -> Text:
    return Text(sanitize(value, limit), style=style)


def plain_line(value: object, limit: int | None = 500, style: str = "") -> Text:
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
        sanitize(message, 1_000),
        title=sanitize_line(title, 100),
        severity=severity,
        timeout=timeout,
        markup=False,
    )
