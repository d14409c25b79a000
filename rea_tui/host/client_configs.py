"""Where each MCP client keeps its config files, and how each client's dialect reads as `mcpServers` entries.

Shared by the discovery of other clients' configs (`rea_tui.host.discovery`)
and the trust gate (`rea_tui.host.trust_store`), which lists what a folder's
own files would run. Reading only: nothing here expands, starts or connects.
"""

from __future__ import annotations

import json
import os
import sys
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from rea_tui.host.inputs import InputSpec, declared_inputs

Scope = Literal["project", "user"]


Reader = Callable[[str, Path], tuple[dict[str, Any], dict[str, InputSpec]]]


def _read_json(text: str) -> Any:
    return json.loads(text)


def _section(data: Any, *keys: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    for key in keys:
        found = data.get(key)
        if isinstance(found, dict):
            return found
    return {}


def _mcp_servers(text: str, cwd: Path) -> tuple[dict[str, Any], dict[str, InputSpec]]:
    return _section(_read_json(text), "mcpServers"), {}


def _vscode(text: str, cwd: Path) -> tuple[dict[str, Any], dict[str, InputSpec]]:
    data = _read_json(text)
    return _section(data, "servers", "mcpServers"), declared_inputs(data)


def _claude_code_user(text: str, cwd: Path) -> tuple[dict[str, Any], dict[str, InputSpec]]:
    return _section(_read_json(text), "mcpServers"), {}


def _claude_code_local(text: str, cwd: Path) -> tuple[dict[str, Any], dict[str, InputSpec]]:
    projects = _section(_read_json(text), "projects")
    project = projects.get(str(cwd))
    return (_section(project, "mcpServers") if isinstance(project, dict) else {}), {}


def _gemini(text: str, cwd: Path) -> tuple[dict[str, Any], dict[str, InputSpec]]:
    servers: dict[str, Any] = {}
    for name, entry in _section(_read_json(text), "mcpServers").items():
        if isinstance(entry, dict) and "httpUrl" in entry:
            entry = {**{k: v for k, v in entry.items() if k != "httpUrl"}, "type": "http", "url": entry["httpUrl"]}
        elif isinstance(entry, dict) and "url" in entry:
            entry = {**entry, "type": "sse"}
        servers[name] = entry
    return servers, {}


def _windsurf(text: str, cwd: Path) -> tuple[dict[str, Any], dict[str, InputSpec]]:
    servers: dict[str, Any] = {}
    for name, entry in _section(_read_json(text), "mcpServers").items():
        if isinstance(entry, dict) and "serverUrl" in entry and "url" not in entry:
            entry = {**{k: v for k, v in entry.items() if k != "serverUrl"}, "url": entry["serverUrl"]}
        servers[name] = entry
    return servers, {}


def _codex(text: str, cwd: Path) -> tuple[dict[str, Any], dict[str, InputSpec]]:
    data = tomllib.loads(text)
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


def read_folder_entries(client: str, text: str, cwd: Path) -> dict[str, Any]:
    """The server entries of a folder file's text, read as `client` reads them (ValueError if it cannot)."""
    if client == "rea-tui":
        return _section(_read_json(text), "mcpServers", "servers")
    reader = next(r for c, scope, _, r in config_sources(cwd=cwd) if c == client and scope == "project")
    return reader(text, cwd)[0]
