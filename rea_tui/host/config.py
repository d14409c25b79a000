"""Server specs and the `mcpServers` / VS Code `servers` config files.

rea-tui reads the config people already have for Claude Desktop, Cursor
(`{"mcpServers": {name: {command, args, env, cwd} | {url, headers}}}`) and VS
Code (`{"servers": {name: {"type": "stdio" | "http", ...}}}`). Values may use
`${VAR}` and `${env:VAR}`. Look-up order: `--config PATH`, then
`./.rea-tui.json`, then `config.json` in the user config directory; the first
file that exists is used.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Transport = Literal["stdio", "http"]
ProtocolChoice = Literal["auto", "legacy", "2026-07-28"]
PROTOCOL_CHOICES: tuple[ProtocolChoice, ...] = ("auto", "legacy", "2026-07-28")

DEFAULT_SERVER_NAME = "rea (bundled)"
LOCAL_CONFIG_NAME = ".rea-tui.json"

_VARIABLE = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}")
_SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSW|KEY|AUTH|CRED|SESSION|COOKIE", re.IGNORECASE)


class ConfigError(Exception):
    """A config file or a server option is wrong; the message says how."""


@dataclass(frozen=True)
class ServerSpec:
    """How to reach one MCP server."""

    name: str
    transport: Transport
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    protocol: ProtocolChoice = "auto"
    bundled: bool = False

    @property
    def fingerprint(self) -> str:
        """A stable identity for remembering what this server spoke (no secrets in it)."""
        if self.transport == "http":
            return f"http {self.url}"
        return "stdio " + shlex.join([self.command, *self.args])

    def display_target(self) -> str:
        """Where the server is, for people (no header or env values)."""
        return self.url if self.transport == "http" else shlex.join([self.command, *self.args])

    def secret_values(self) -> list[str]:
        """Values that must never be shown or logged: secret-looking env values and all header values."""
        values = [v for k, v in self.env.items() if _SECRET_NAME.search(k) and len(v) >= 4]
        values += [v for v in self.headers.values() if len(v) >= 4]
        # Also the credential part of "Bearer xyz" style headers on its own.
        values += [v.split(" ", 1)[1] for v in self.headers.values() if " " in v and len(v.split(" ", 1)[1]) >= 4]
        return sorted(set(values), key=len, reverse=True)


def bundled_server_spec(extra_args: tuple[str, ...] = ()) -> ServerSpec:
    """The reference REA server, started with the current interpreter."""
    return ServerSpec(
        name=DEFAULT_SERVER_NAME,
        transport="stdio",
        command=sys.executable,
        args=("-m", "rea_tui.server", *extra_args),
        bundled=True,
    )


def expand_variables(value: str, environ: Mapping[str, str] | None = None) -> str:
    """Expand `${VAR}` and `${env:VAR}`; an unset variable is a ConfigError."""
    env = os.environ if environ is None else environ

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in env:
            raise ConfigError(f"environment variable {name} is not set (used as {match.group(0)})")
        return env[name]

    return _VARIABLE.sub(replace, value)


def _string_map(raw: Any, what: str, environ: Mapping[str, str] | None) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{what} must be an object of strings")
    return {str(k): expand_variables(str(v), environ) for k, v in raw.items()}


def spec_from_entry(name: str, entry: Any, environ: Mapping[str, str] | None = None) -> ServerSpec:
    """Build a ServerSpec from one config entry of either dialect."""
    if not isinstance(entry, dict):
        raise ConfigError(f"server {name!r}: entry must be an object")
    kind = entry.get("type")
    protocol = entry.get("protocol", "auto")
    if protocol not in PROTOCOL_CHOICES:
        raise ConfigError(f"server {name!r}: protocol must be one of {', '.join(PROTOCOL_CHOICES)}")
    if kind in ("http", "streamable-http", "streamableHttp") or (kind is None and "url" in entry):
        url = entry.get("url")
        if not isinstance(url, str) or not url:
            raise ConfigError(f"server {name!r}: an http server needs a url")
        return ServerSpec(
            name=name,
            transport="http",
            url=expand_variables(url, environ),
            headers=_string_map(entry.get("headers"), f"server {name!r}: headers", environ),
            protocol=protocol,
        )
    if kind not in (None, "stdio"):
        raise ConfigError(f"server {name!r}: unsupported type {kind!r} (use stdio or http)")
    command = entry.get("command")
    if not isinstance(command, str) or not command:
        raise ConfigError(f"server {name!r}: a stdio server needs a command")
    args = entry.get("args", [])
    if not isinstance(args, list):
        raise ConfigError(f"server {name!r}: args must be a list")
    cwd = entry.get("cwd")
    return ServerSpec(
        name=name,
        transport="stdio",
        command=expand_variables(command, environ),
        args=tuple(expand_variables(str(a), environ) for a in args),
        env=_string_map(entry.get("env"), f"server {name!r}: env", environ),
        cwd=expand_variables(cwd, environ) if isinstance(cwd, str) else None,
        protocol=protocol,
    )


def parse_config(data: Any, environ: Mapping[str, str] | None = None) -> list[ServerSpec]:
    """All servers in a parsed config document, in file order."""
    if not isinstance(data, dict):
        raise ConfigError("the config must be a JSON object")
    section = data.get("mcpServers", data.get("servers"))
    if section is None:
        return []
    if not isinstance(section, dict):
        raise ConfigError("mcpServers/servers must be an object keyed by server name")
    return [spec_from_entry(str(name), entry, environ) for name, entry in section.items()]


def user_config_path() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("rea-tui")) / "config.json"


def find_config(explicit: str | None) -> Path | None:
    """The config file to use: the explicit one (must exist), else the first that exists."""
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise ConfigError(f"config file not found: {path}")
        return path
    for candidate in (Path.cwd() / LOCAL_CONFIG_NAME, user_config_path()):
        if candidate.is_file():
            return candidate
    return None


def load_config(path: Path, environ: Mapping[str, str] | None = None) -> list[ServerSpec]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path} is not valid JSON: {exc}") from exc
    try:
        return parse_config(data, environ)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from exc


def parse_header(text: str) -> tuple[str, str]:
    """`'Name: value'` as given to `--header`."""
    name, sep, value = text.partition(":")
    if not sep or not name.strip():
        raise ConfigError(f"--header must look like 'Name: value', got {text!r}")
    return name.strip(), expand_variables(value.strip())


@dataclass(frozen=True)
class ServerSelection:
    """What the server options on the command line asked for."""

    server: str | None = None
    url: str | None = None
    headers: tuple[str, ...] = ()
    stdio: tuple[str, ...] = ()
    config: str | None = None
    protocol: ProtocolChoice | None = None


def resolve_servers(selection: ServerSelection) -> tuple[list[ServerSpec], Path | None]:
    """The servers to connect to, and the config file they came from (if any).

    An explicit `--url` or `--stdio` wins; `--server NAME` picks from the
    config; otherwise every configured server; with nothing configured, the
    bundled reference server.
    """
    if selection.url and selection.stdio:
        raise ConfigError("give either --url or --stdio, not both")
    override: dict[str, Any] = {"protocol": selection.protocol} if selection.protocol else {}
    if selection.url:
        headers = dict(parse_header(h) for h in selection.headers)
        return [ServerSpec(name=selection.url, transport="http", url=selection.url, headers=headers, **override)], None
    if selection.headers:
        raise ConfigError("--header needs --url")
    if selection.stdio:
        command, *args = selection.stdio
        name = Path(command).name + (" " + " ".join(args) if args else "")
        return [ServerSpec(name=name, transport="stdio", command=command, args=tuple(args), **override)], None
    path = find_config(selection.config)
    specs = load_config(path) if path else []
    if selection.server:
        chosen = [s for s in specs if s.name == selection.server]
        if not chosen:
            known = ", ".join(s.name for s in specs) or "none"
            where = str(path) if path else "no config file found"
            raise ConfigError(f"no server named {selection.server!r} ({where}; configured: {known})")
        specs = chosen
    if not specs:
        specs = [bundled_server_spec()]
    if override:
        specs = [_with_protocol(s, selection.protocol) for s in specs]
    return specs, path


def _with_protocol(spec: ServerSpec, protocol: ProtocolChoice | None) -> ServerSpec:
    from dataclasses import replace

    return replace(spec, protocol=protocol) if protocol else spec


def split_stdio_command(text: str) -> tuple[str, ...]:
    """`--stdio 'COMMAND ARGS'` split like a shell would (no shell runs)."""
    parts = tuple(shlex.split(text))
    if not parts:
        raise ConfigError("--stdio needs a command")
    return parts
