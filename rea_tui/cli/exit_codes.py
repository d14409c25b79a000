"""The exit codes of every `rea-tui` command, and how a host error maps to one."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """What a command's exit status means (the same in text and `--json` mode)."""

    OK = 0
    NOT_RUN = 1  # approval declined, or the tool returned isError
    USAGE = 2
    UNAVAILABLE = 3  # the server could not be reached, or exited
    PROTOCOL = 4  # a JSON-RPC error or a malformed reply
    TIMEOUT = 5
    NARROWING = 6  # the tool asked a progressive-narrowing question
    AUDIT_FINDINGS = 7  # `audit` found an error-severity finding
    AUTH_NEEDED = 8  # HTTP 401/403 and no usable token: `rea-tui auth login NAME`
    INTERRUPTED = 130  # ctrl+c, as shells report SIGINT


EXIT_CODES_HELP = (
    "exit codes: 0 ok, 1 not run or tool error, 2 usage, 3 server unavailable or exited\n"
    "(HTTP 404: no MCP endpoint; HTTP 5xx), 4 protocol error (or a reply over --max-reply-size),\n"
    "5 timeout, 6 narrowing question, 7 audit found an error,\n"
    "8 authorization needed (HTTP 401/403: run `rea-tui auth login NAME`),\n"
    "130 interrupted."
)


def exit_code_for(error: BaseException) -> ExitCode:
    """The exit code for a host error (anything else is a usage problem)."""
    from rea_tui.host import AuthorizationRequired, ProtocolError, RequestTimedOut, ServerExited, ServerUnavailable

    if isinstance(error, AuthorizationRequired):
        return ExitCode.AUTH_NEEDED
    if isinstance(error, ServerUnavailable | ServerExited):
        return ExitCode.UNAVAILABLE
    if isinstance(error, RequestTimedOut):
        return ExitCode.TIMEOUT
    if isinstance(error, ProtocolError):
        return ExitCode.PROTOCOL
    return ExitCode.USAGE
