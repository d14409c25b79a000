"""Each MCP client's variable dialect, expanded as that client expands it.

A server entry found in another client's config means what that client makes
of it, so its variables are expanded by that client's rules, not rea-tui's:

| client         | variables                                                   | an unset variable      |
| -------------- | ----------------------------------------------------------- | ---------------------- |
| VS Code        | `${workspaceFolder}`, `${workspaceFolderBasename}`,          | empty (`${env:VAR}`)   |
|                | `${userHome}`, `${pathSeparator}`, `${/}`, `${env:VAR}`,     |                        |
|                | `${input:ID}` (asked for)                                    |                        |
| Cursor         | the same without `${input:ID}`                              | empty                  |
| Windsurf       | `${env:VAR}`                                                | an error               |
| Claude Code    | `${VAR}`, `${VAR:-default}`                                 | an error (no default)  |
| Gemini CLI     | `$VAR`, `${VAR}` (every value, headers too)                 | kept as written        |
| Codex          | none in values; `env_http_headers`, `bearer_token_env_var`  | header not sent; error |
| Claude Desktop | none                                                        |                        |
| Zed            | none                                                        |                        |

Cursor and Windsurf document no rule for an unset variable: Cursor's is read
as VS Code's (Cursor is built on VS Code), Windsurf's is refused rather than
sent as an empty credential. The workspace folder is the folder rea-tui runs in. A variable the client
would resolve but rea-tui cannot (VS Code's `${config:…}`, `${command:…}`,
Windsurf's `${file:…}`) is an error that says so, never sent as written.
A value is expanded once: what a variable expands to is never read again.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from rea_tui.host.config.inputs import InputAnswers

# What a client does with a variable that is not set.
Unset = Literal["error", "empty", "kept"]
UNSET_SAYS: dict[Unset, str] = {
    "error": "{client} refuses the entry, and so does rea-tui",
    "empty": "{client} sends it empty, and so does rea-tui",
    "kept": "{client} sends it as written, and so does rea-tui",
}


class VariableError(ValueError):
    """A variable cannot be expanded (unset where the client refuses, or not supported); the message says which."""


@dataclass(frozen=True)
class VariableContext:
    """What variables expand to: the environment, the user's home, the workspace folder, answers to inputs."""

    environ: Mapping[str, str]
    home: Path
    workspace: Path
    inputs: InputAnswers | None = None
    server: str = ""


@dataclass(frozen=True)
class UnsetVariable:
    """A variable of an entry whose environment variable is not set, and what the client does then."""

    written: str
    outcome: Unset

    def says(self, client: str) -> str:
        return f"{self.written} is not set: " + UNSET_SAYS[self.outcome].format(client=client)


# The editors' predefined variables (VS Code's and Cursor's).
def _editor_variable(name: str, ctx: VariableContext) -> str | None:
    return {
        "workspaceFolder": str(ctx.workspace),
        "workspaceFolderBasename": ctx.workspace.name,
        "userHome": str(ctx.home),
        "pathSeparator": os.sep,
        "/": os.sep,
    }.get(name)


@dataclass(frozen=True)
class Dialect:
    """One client's variables: the pattern that finds them, and how one is resolved.

    `resolve` returns the value, or None when the environment variable it names is not set
    (then `unset` says what happens); it raises VariableError for what rea-tui cannot resolve.
    `env_name` names the environment variable a match reads ('' when it reads none).
    """

    client: str
    pattern: re.Pattern[str] | None
    resolve: Callable[[re.Match[str], VariableContext], str | None]
    env_name: Callable[[re.Match[str]], str]
    unset: Unset = "error"

    def expand(self, value: str, ctx: VariableContext) -> str:
        if self.pattern is None:
            return value

        def replace(match: re.Match[str]) -> str:
            found = self.resolve(match, ctx)
            if found is not None:
                return found
            if self.unset == "empty":
                return ""
            if self.unset == "kept":
                return match.group(0)
            raise VariableError(
                f"environment variable {self.env_name(match)} is not set (used as {match.group(0)}; "
                f"{self.client} refuses the entry then)"
            )

        return self.pattern.sub(replace, value)

    def uses(self, value: str) -> list[str]:
        """The variables in `value`, as written."""
        return [m.group(0) for m in self.pattern.finditer(value)] if self.pattern is not None else []

    def unset_in(self, value: str, environ: Mapping[str, str]) -> list[UnsetVariable]:
        """The variables of `value` that read an environment variable that is not set (and have no default)."""
        if self.pattern is None:
            return []
        found = []
        for match in self.pattern.finditer(value):
            name = self.env_name(match)
            if name and name not in environ and not _has_default(match):
                found.append(UnsetVariable(match.group(0), self.unset))
        return found


def _has_default(match: re.Match[str]) -> bool:
    return "default" in match.re.groupindex and match.group("default") is not None


def _unsupported(client: str, written: str) -> VariableError:
    return VariableError(f"{written} is a {client} variable rea-tui does not support (it is not sent as written)")


# ------------------------------------------------------------------ VS Code and Cursor

_EDITOR = re.compile(r"\$\{(?P<body>[^}]*)\}")


def _editor_env(match: re.Match[str]) -> str:
    body = match.group("body")
    return body[4:] if body.startswith("env:") else ""


def _editor_resolver(client: str, inputs: bool) -> Callable[[re.Match[str], VariableContext], str | None]:
    def resolve(match: re.Match[str], ctx: VariableContext) -> str | None:
        body = match.group("body")
        if body.startswith("env:"):
            return ctx.environ.get(body[4:])
        if inputs and body.startswith("input:"):
            return _ask(ctx, body[6:])
        found = _editor_variable(body, ctx)
        if found is None:
            raise _unsupported(client, match.group(0))
        return found

    return resolve


def _ask(ctx: VariableContext, name: str) -> str:
    from rea_tui.host.config.inputs import InputAnswers, InputUnavailable

    answers = ctx.inputs if ctx.inputs is not None else InputAnswers({})
    try:
        return answers.value(name, ctx.server)
    except InputUnavailable as exc:
        raise VariableError(str(exc)) from None


# ------------------------------------------------------------------ Windsurf

_WINDSURF = re.compile(r"\$\{(?P<kind>env|file):(?P<name>[^}]*)\}")


def _windsurf(match: re.Match[str], ctx: VariableContext) -> str | None:
    if match.group("kind") == "file":
        raise _unsupported("Windsurf", match.group(0))
    return ctx.environ.get(match.group("name"))


def _windsurf_env(match: re.Match[str]) -> str:
    return match.group("name") if match.group("kind") == "env" else ""


# ------------------------------------------------------------------ Claude Code

# `${NAME}` or `${NAME:-default}`: the name is what comes before the first `:-`, the default what follows it
# up to a second `:-` (if any), as Claude Code splits it.
_CLAUDE_CODE = re.compile(r"\$\{(?P<name>(?:(?!:-)[^}])+)(?::-(?P<default>[^}]*))?\}")


def _claude_code(match: re.Match[str], ctx: VariableContext) -> str | None:
    found = ctx.environ.get(match.group("name"))
    if found is not None:
        return found
    default = match.group("default")
    return default.split(":-", 1)[0] if default is not None else None


# ------------------------------------------------------------------ Gemini CLI

# `$NAME` (ASCII word characters, as JavaScript's \w) or `${ANYTHING}`.
_GEMINI = re.compile(r"\$(?:(?P<bare>[A-Za-z0-9_]+)|\{(?P<braced>[^}]+)\})")


def _gemini_name(match: re.Match[str]) -> str:
    return match.group("bare") or match.group("braced")


def _gemini(match: re.Match[str], ctx: VariableContext) -> str | None:
    return ctx.environ.get(_gemini_name(match))


def _none(match: re.Match[str], ctx: VariableContext) -> str | None:
    return match.group(0)


def _no_env(match: re.Match[str]) -> str:
    return ""


DIALECTS: dict[str, Dialect] = {
    "VS Code": Dialect("VS Code", _EDITOR, _editor_resolver("VS Code", inputs=True), _editor_env, "empty"),
    "Cursor": Dialect("Cursor", _EDITOR, _editor_resolver("Cursor", inputs=False), _editor_env, "empty"),
    "Windsurf": Dialect("Windsurf", _WINDSURF, _windsurf, _windsurf_env, "error"),
    "Claude Code": Dialect("Claude Code", _CLAUDE_CODE, _claude_code, lambda m: m.group("name"), "error"),
    "Gemini CLI": Dialect("Gemini CLI", _GEMINI, _gemini, _gemini_name, "kept"),
}
NO_VARIABLES = Dialect("", None, _none, _no_env)


def dialect_for(client: str) -> Dialect:
    """The dialect of a client as `config_sources` names it ("Claude Code (local)" is Claude Code's)."""
    return DIALECTS.get(client.removesuffix(" (local)"), NO_VARIABLES)


# ------------------------------------------------------------------ Codex's headers from the environment


def codex_headers(entry: Mapping[str, Any], environ: Mapping[str, str], server: str) -> dict[str, str]:
    """The headers Codex sends from the environment: `env_http_headers` (header -> variable; an unset or blank
    variable sends no header) and `bearer_token_env_var` (unset or empty: Codex refuses to start the server)."""
    headers: dict[str, str] = {}
    named = entry.get("env_http_headers")
    for header, variable in named.items() if isinstance(named, dict) else ():
        value = environ.get(str(variable), "")
        if value.strip():
            headers[str(header)] = value
    token_var = entry.get("bearer_token_env_var")
    if isinstance(token_var, str) and token_var:
        token = environ.get(token_var, "")
        if not token:
            state = "empty" if token_var in environ else "not set"
            raise VariableError(
                f"environment variable {token_var} (bearer_token_env_var of server {server!r}) is {state}; "
                "Codex refuses the server then"
            )
        headers["Authorization"] = f"Bearer {token}"
    return headers


def codex_unset(entry: Mapping[str, Any], environ: Mapping[str, str]) -> list[str]:
    """What Codex does with the entry's variables that are not set, one line each."""
    said: list[str] = []
    named = entry.get("env_http_headers")
    for header, variable in named.items() if isinstance(named, dict) else ():
        if not environ.get(str(variable), "").strip():
            said.append(f"{variable} (header {header}) is not set: Codex sends no such header, nor does rea-tui")
    token_var = entry.get("bearer_token_env_var")
    if isinstance(token_var, str) and token_var and not environ.get(token_var):
        said.append(f"{token_var} (bearer_token_env_var) is not set: Codex refuses the entry, and so does rea-tui")
    return said
