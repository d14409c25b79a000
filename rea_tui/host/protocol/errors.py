"""Typed failures of the host core.

Every way a request to a server can fail maps to one of these, so the UI and
the CLI can show a clear message (and pick an exit code) without knowing the
MCP SDK's exception types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rea_tui.host.trust.safe_text import sanitize, sanitize_line


@dataclass(frozen=True)
class FieldDiagnostic:
    """One field a server named as wrong in an error's `data`."""

    field: str
    message: str


class HostError(Exception):
    """Base class of every failure the host core reports."""

    def describe(self) -> str:
        return str(self)


class ServerUnavailable(HostError):
    """The server could not be started or reached."""


class ServerExited(HostError):
    """The server process ended (or the connection closed) while in use."""

    def __init__(self, message: str, exit_code: int | None = None, stderr_tail: str = "") -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.stderr_tail = stderr_tail

    def describe(self) -> str:
        code = "unknown" if self.exit_code is None else str(self.exit_code)
        text = f"{self} (exit code {code})"
        if self.stderr_tail:
            text += "\n--- server stderr (last lines) ---\n" + self.stderr_tail
        return text


class CapabilityMissing(HostError):
    """The server does not declare what a request needs; nothing was sent."""

    def __init__(self, server: str, capability: str, method: str) -> None:
        super().__init__(f"{server} does not offer {capability} (no {capability!r} capability): {method} was not sent")
        self.server = server
        self.capability = capability
        self.method = method


class RequestTimedOut(HostError):
    """No reply within the request's timeout; the request was cancelled."""

    def __init__(self, method: str, timeout: float) -> None:
        super().__init__(f"{method} timed out after {timeout:g} s (the request was cancelled)")
        self.method = method
        self.timeout = timeout


@dataclass
class ProtocolError(HostError):
    """The server answered with a JSON-RPC error, or with a malformed result."""

    code: int
    message: str
    data: Any = None
    fields: list[FieldDiagnostic] = field(default_factory=list)
    # For a malformed result: the reply as the server sent it (from the traffic tap), when it was found.
    reply: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        super().__init__(self.message)

    def __str__(self) -> str:
        return f"error {self.code}: {sanitize_line(self.message)}"

    def describe(self) -> str:
        lines = [str(self)]
        lines += [f"  {sanitize_line(f.field)}: {sanitize_line(f.message)}" for f in self.fields]
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """The JSON-RPC error object (`code`, `message`, and `data` when the server sent some)."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error

    @classmethod
    def from_error(cls, code: int, message: str, data: Any = None) -> ProtocolError:
        return cls(code=code, message=sanitize(message, 2_000), data=data, fields=field_diagnostics(data))


# JSON-RPC codes the host produces itself for replies it cannot use.
MALFORMED_RESULT = -32700


def field_diagnostics(data: Any) -> list[FieldDiagnostic]:
    """Read field diagnostics from an error's `data`.

    Understands `{"errors": [{"field"|"path"|"loc": ..., "message"|"msg": ...}]}`
    (the REA contract and pydantic-style lists) and a bare list of such items.
    Anything else yields no diagnostics rather than an exception.
    """
    items: Any = data.get("errors") if isinstance(data, dict) else data
    if not isinstance(items, list):
        return []
    found: list[FieldDiagnostic] = []
    for item in items[:100]:
        if not isinstance(item, dict):
            continue
        name = item.get("field", item.get("path", item.get("loc")))
        if isinstance(name, list | tuple):
            name = ".".join(str(part) for part in name)
        text = item.get("message", item.get("msg", ""))
        if name is None:
            continue
        found.append(FieldDiagnostic(field=sanitize_line(name, 200), message=sanitize_line(text, 1_000)))
    return found


class AuthorizationRequired(HostError):
    """The server asks for OAuth authorization (HTTP 401, or 403 for more scope) and no usable token is held.

    `server` is the server's name, `status` the HTTP status that asked, `scope` the scope the
    server's `WWW-Authenticate` challenge named (if any), and `reason` what stopped rea-tui
    from answering it by itself. Sign in with `rea_tui.host.auth.login` (`rea-tui auth login`).
    """

    def __init__(self, server: str, *, status: int = 401, scope: str | None = None, reason: str = "") -> None:
        what = "more scope" if status == 403 else "authorization"
        text = f"{server}: authorization needed (the server answered HTTP {status}, asking for {what}"
        text += f": {scope})" if scope else ")"
        if reason:
            text += f"; {reason}"
        super().__init__(text)
        self.server = server
        self.status = status
        self.scope = scope
        self.reason = reason


class HttpStatusError(ServerUnavailable):
    """The server's HTTP endpoint answered with an error status and no JSON-RPC reply."""

    def __init__(self, url: str, status: int, reason: str = "") -> None:
        if status == 404:
            text = f"no MCP endpoint at {url} (HTTP 404)"
        elif status >= 500:
            text = f"server error at {url}: HTTP {status}"
        else:
            text = f"{url} answered HTTP {status}"
        if reason:
            text += f" {sanitize_line(reason, 200)}"
        super().__init__(text)
        self.url = url
        self.status = status
