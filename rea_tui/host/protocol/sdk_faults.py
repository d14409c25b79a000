"""What the SDK says about a server's malformed messages, as one line for the connection that got them.

The SDK drops a notification it cannot validate (a `notifications/progress`
whose `progress` is not a number, say) and logs a warning with the whole
traceback on its `client` logger, which nothing in rea-tui handles: the
traceback went to the terminal. Here that logger gets one handler, which
turns such a record into one line naming the method and what was wrong, and
hands it to the connection whose task logged it (a context variable each
connection sets in the task that owns its SDK client; the SDK's tasks inherit
it). Any other record of that logger is dropped, as the `mcp` loggers are.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from rea_tui.host.trust.safe_text import sanitize_line

# The SDK's logger for client-side faults (mcp/client/session.py names it so, not after its module).
SDK_CLIENT_LOGGER = "client"
INVALID_NOTIFICATION = "Failed to validate notification"
# How many of a message's problems are named, and how much of a value a server sent is shown.
PROBLEMS_SHOWN = 3
VALUE_SHOWN = 40
NAME_LIMIT = 80

Reporter = Callable[[str], None]
_REPORTER: ContextVar[Reporter | None] = ContextVar("rea_tui_sdk_fault_reporter", default=None)


def _problem(error: dict[str, Any]) -> str:
    where = ".".join(str(part) for part in error.get("loc", ())) or "the message"
    text = f"{sanitize_line(where, NAME_LIMIT)}: {sanitize_line(error.get('msg', 'invalid'), NAME_LIMIT)}"
    value = error.get("input")
    if isinstance(value, str | int | float | bool) or value is None:
        text += f" (got {sanitize_line(repr(value), VALUE_SHOWN)})"
    return text


def describe_invalid(method: object, exc: BaseException | None) -> str:
    """One line: the method, and what was wrong with its params (pydantic's errors, the first few)."""
    errors: list[dict[str, Any]] = []
    read_errors = getattr(exc, "errors", None)
    if callable(read_errors):
        try:
            errors = list(read_errors())
        except Exception:  # not pydantic's: named by its type below
            errors = []
    problems = "; ".join(_problem(e) for e in errors[:PROBLEMS_SHOWN])
    if len(errors) > PROBLEMS_SHOWN:
        problems += f"; and {len(errors) - PROBLEMS_SHOWN} more"
    if not problems:
        problems = sanitize_line(f"{type(exc).__name__}: {exc}" if exc is not None else "invalid", NAME_LIMIT * 2)
    return f"ignored a malformed {sanitize_line(method, NAME_LIMIT)}: {problems}"


class SdkFaultHandler(logging.Handler):
    """Hands an invalid-notification record to the reporter of the connection that logged it, in one line."""

    def emit(self, record: logging.LogRecord) -> None:
        report = _REPORTER.get()
        if report is None or not str(record.msg).startswith(INVALID_NOTIFICATION):
            return
        method = record.args[0] if isinstance(record.args, tuple) and record.args else "?"
        exc = record.exc_info[1] if record.exc_info else None
        report(describe_invalid(method, exc))


def install_fault_handler() -> None:
    """Give the SDK's client logger its one handler (once), and keep its records off the terminal."""
    logger = logging.getLogger(SDK_CLIENT_LOGGER)
    if not any(isinstance(h, SdkFaultHandler) for h in logger.handlers):
        logger.addHandler(SdkFaultHandler())
    logger.propagate = False


def report_faults_to(report: Reporter) -> None:
    """From now on in this task (and the tasks it starts), SDK faults go to `report`: for the task that
    owns a connection's SDK client, whose context ends with it."""
    _REPORTER.set(report)
