"""The MCP servers people have already configured for other clients.

`rea-tui servers --discover` lists them with the file each came from, and
`--server NAME` finds them when the rea-tui config has no server of that name.
Files are read in this order, which is also the precedence for `--server`
(project files in the current directory first, then the user's):

project  `.mcp.json` (Claude Code), `~/.claude.json` `projects[CWD]` (Claude
         Code, local scope), `.cursor/mcp.json`, `.vscode/mcp.json`,
         `.gemini/settings.json`
user     `~/.claude.json` (Claude Code), Claude Desktop's
         `claude_desktop_config.json`, `~/.cursor/mcp.json`, VS Code's user
         `mcp.json`, `~/.codeium/windsurf/mcp_config.json`,
         `~/.gemini/settings.json`, `~/.codex/config.toml`

Each client's dialect is read as that client means it: Gemini's `httpUrl` is
streamable HTTP and its `url` is SSE, Windsurf's `serverUrl` is a URL, Codex's
TOML `[mcp_servers.NAME]` tables (with `bearer_token_env_var`) are entries.
Nothing is started or asked for until a server is picked.
"""

from __future__ import annotations

import json
import os
import sys
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rea_tui.host.config import ConfigError, ServerSpec, spec_from_entry
from rea_tui.host.inputs import InputAnswers, InputResolver, InputSpec, declared_inputs

Scope = Literal["project", "user"]


@dataclass(frozen=True)
class DiscoveredServer:
    """One server entry found in another client's config."""

    name: str
    client: str
    source: Path
    scope: Scope
    entry: Mapping[str, Any]
    inputs: Mapping[str, InputSpec] = field(default_factory=dict)

    def spec(self, resolver: InputResolver | None = None, environ: Mapping[str, str] | None = None) -> ServerSpec:
        """The entry as a ServerSpec (its `${input:...}` values asked for now)."""
        try:
            return spec_from_entry(self.name, dict(self.entry), environ, InputAnswers(self.inputs, resolver))
        except ConfigError as exc:
            raise ConfigError(f"{self.source} ({self.client}): {exc}") from None

    def describe_target(self) -> str:
        entry = self.entry
        if "url" in entry:
            return f"{entry.get('type', 'http')}: {entry['url']}"
        args = entry.get("args") or []
        return "stdio: " + " ".join([str(entry.get("command", "?")), *(str(a) for a in args)])


@dataclass(frozen=True)
class Discovery:
    servers: list[DiscoveredServer]
    problems: list[str]
    searched: list[tuple[str, Path]]

    def find(self, name: str) -> DiscoveredServer | None:
        """The entry `--server NAME` uses: the first in precedence order."""
        return next((s for s in self.servers if s.name == name), None)


Reader = Callable[[Path, Path], tuple[dict[str, Any], dict[str, InputSpec]]]


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _section(data: Any, *keys: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    for key in keys:
        found = data.get(key)
        if isinstance(found, dict):
            return found
    return {}


def _mcp_servers(path: Path, cwd: Path) -> tuple[dict[str, Any], dict[str, InputSpec]]:
    return _section(_read_json(path), "mcpServers"), {}


def _vscode(path: Path, cwd: Path) -> tuple[dict[str, Any], dict[str, InputSpec]]:
    data = _read_json(path)
    return _section(data, "servers", "mcpServers"), declared_inputs(data)


def _claude_code_user(path: Path, cwd: Path) -> tuple[dict[str, Any], dict[str, InputSpec]]:
    return _section(_read_json(path), "mcpServers"), {}


def _claude_code_local(path: Path, cwd: Path) -> tuple[dict[str, Any], dict[str, InputSpec]]:
    projects = _section(_read_json(path), "projects")
    project = projects.get(str(cwd))
    return (_section(project, "mcpServers") if isinstance(project, dict) else {}), {}


def _gemini(path: Path, cwd: Path) -> tuple[dict[str, Any], dict[str, InputSpec]]:
    servers: dict[str, Any] = {}
    for name, entry in _section(_read_json(path), "mcpServers").items():
        if isinstance(entry, dict) and "httpUrl" in entry:
            entry = {**{k: v for k, v in entry.items() if k != "httpUrl"}, "type": "http", "url": entry["httpUrl"]}
        elif isinstance(entry, dict) and "url" in entry:
            entry = {**entry, "type": "sse"}
        servers[name] = entry
    return servers, {}


def _windsurf(path: Path, cwd: Path) -> tuple[dict[str, Any], dict[str, InputSpec]]:
    servers: dict[str, Any] = {}
    for name, entry in _section(_read_json(path), "mcpServers").items():
        if isinstance(entry, dict) and "serverUrl" in entry and "url" not in entry:
            entry = {**{k: v for k, v in entry.items() if k != "serverUrl"}, "url": entry["serverUrl"]}
        servers[name] = entry
    return servers, {}


def _codex(path: Path, cwd: Path) -> tuple[dict[str, Any], dict[str, InputSpec]]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    servers: dict[str, Any] = {}
    for name, table in (data.get("mcp_servers") or {}).items():
        if not isinstance(table, dict):
            continue
        entry: dict[str, Any] = {k: table[k] for k in ("command", "args", "env", "cwd", "url") if k in table}
        headers = dict(table.get("http_headers") or {})
        token_var = table.get("bearer_token_env_var")
        if isinstance(token_var, str) and token_var:
            headers["Authorization"] = f"Bearer ${{env:{token_var}}}"
        if headers:
            entry["headers"] = headers
        servers[str(name)] = entry
    return servers, {}


def _user_config_dir(home: Path, environ: Mapping[str, str]) -> Path:
    if sys.platform == "darwin":
        return home / "Library" / "Application Support"
    if sys.platform == "win32":
        return Path(environ.get("APPDATA", home / "AppData" / "Roaming"))
    return Path(environ.get("XDG_CONFIG_HOME") or home / ".config")


def config_sources(
    home: Path | None = None, cwd: Path | None = None, environ: Mapping[str, str] | None = None
) -> list[tuple[str, Scope, Path, Reader]]:
    """Every file looked at, in precedence order: (client, scope, path, reader)."""
    home = home or Path.home()
    cwd = cwd or Path.cwd()
    env = os.environ if environ is None else environ
    app = _user_config_dir(home, env)
    return [
        ("Claude Code", "project", cwd / ".mcp.json", _mcp_servers),
        ("Claude Code (local)", "project", home / ".claude.json", _claude_code_local),
        ("Cursor", "project", cwd / ".cursor" / "mcp.json", _mcp_servers),
        ("VS Code", "project", cwd / ".vscode" / "mcp.json", _vscode),
        ("Gemini CLI", "project", cwd / ".gemini" / "settings.json", _gemini),
        ("Claude Code", "user", home / ".claude.json", _claude_code_user),
        ("Claude Desktop", "user", app / "Claude" / "claude_desktop_config.json", _mcp_servers),
        ("Cursor", "user", home / ".cursor" / "mcp.json", _mcp_servers),
        ("VS Code", "user", app / "Code" / "User" / "mcp.json", _vscode),
        ("Windsurf", "user", home / ".codeium" / "windsurf" / "mcp_config.json", _windsurf),
        ("Gemini CLI", "user", home / ".gemini" / "settings.json", _gemini),
        ("Codex", "user", home / ".codex" / "config.toml", _codex),
    ]


def discover(home: Path | None = None, cwd: Path | None = None, environ: Mapping[str, str] | None = None) -> Discovery:
    """Read every known client config that exists; a file that cannot be read is a problem, not a failure."""
    servers: list[DiscoveredServer] = []
    problems: list[str] = []
    searched: list[tuple[str, Path]] = []
    for client, scope, path, reader in config_sources(home, cwd, environ):
        searched.append((client, path))
        if not path.is_file():
            continue
        try:
            entries, inputs = reader(path, cwd or Path.cwd())
        except (OSError, UnicodeDecodeError, ValueError, tomllib.TOMLDecodeError) as exc:
            problems.append(f"{path} ({client}): cannot read it: {exc}")
            continue
        for name, entry in entries.items():
            if not isinstance(entry, dict):
                problems.append(f"{path} ({client}): server {name!r} is not an object")
                continue
            servers.append(DiscoveredServer(str(name), client, path, scope, entry, inputs))
    return Discovery(servers, problems, searched)


def find_server(name: str, resolver: InputResolver | None = None) -> tuple[ServerSpec, Path] | None:
    """`--server NAME` outside the rea-tui config: the first discovered entry of that name, and its file."""
    found = discover().find(name)
    return None if found is None else (found.spec(resolver), found.source)
