"""Where each MCP client keeps its config files, and how each client's dialect reads as `mcpServers` entries.

Shared by the discovery of other clients' configs (`rea_tui.host.config.discovery`)
and the trust gate (`rea_tui.host.trust.trust_store`), which lists what a folder's
own files would run. Each reader returns a `ClientFile`: the entries, the
servers the file itself turns off, and its client-wide switches (Gemini CLI's
`mcp.excluded`); Claude Code's switches live in its settings files
(`claude_code_switches`). VS Code's and Zed's files are JSONC
(`rea_tui.host.config.jsonc`). Reading only: nothing here expands, starts or connects
(variables are `rea_tui.host.config.client_variables`).
"""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rea_tui.host.config import jsonc
from rea_tui.host.config.inputs import InputSpec, declared_inputs

Scope = Literal["project", "user"]

# A client's settings file that only turns servers off is a few kilobytes; a bigger one is not read.
SWITCH_FILE_LIMIT = 4 * 1024 * 1024


@dataclass(frozen=True)
class Switch:
    """A setting that turns a client's servers off by name, wherever they are defined."""

    path: Path
    setting: str  # as the client spells it: `disabledMcpjsonServers`, `mcp.excluded`...
    names: frozenset[str]
    # The names are the only servers left on (Gemini's `mcp.allowed`).
    allow_list: bool = False
    # Only the servers of the folder's `.mcp.json` (Claude Code's `disabledMcpjsonServers`).
    only_mcp_json: bool = False

    def turns_off(self, name: str, from_mcp_json: bool) -> bool:
        if self.only_mcp_json and not from_mcp_json:
            return False
        return (name not in self.names) if self.allow_list else (name in self.names)

    def reason(self) -> str:
        how = "not in" if self.allow_list else "turned off by"
        return f"{how} {self.setting} of {self.path}"


@dataclass(frozen=True)
class ClientFile:
    """One client config file as its client reads it: server entries (in rea-tui's `mcpServers` shape),
    declared inputs, the servers the file itself turns off (name -> the setting), and its switches."""

    servers: dict[str, Any]
    inputs: dict[str, InputSpec] = field(default_factory=dict)
    disabled: dict[str, str] = field(default_factory=dict)
    switches: tuple[Switch, ...] = ()


Reader = Callable[[str, Path, Path], ClientFile]


def _read_json(text: str) -> Any:
    return jsonc.loads_json(text)


def _section(data: Any, *keys: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    for key in keys:
        found = data.get(key)
        if isinstance(found, dict):
            return found
    return {}


def _names(value: Any) -> frozenset[str]:
    return frozenset(str(v) for v in value) if isinstance(value, list) else frozenset()


def _disabled_flag(servers: Mapping[str, Any]) -> dict[str, str]:
    """Cursor's and Windsurf's `"disabled": true` on an entry."""
    return {n: '"disabled": true' for n, e in servers.items() if isinstance(e, dict) and e.get("disabled") is True}


def _mcp_servers(text: str, cwd: Path, path: Path) -> ClientFile:
    return ClientFile(_section(_read_json(text), "mcpServers"))


def _cursor(text: str, cwd: Path, path: Path) -> ClientFile:
    servers = _section(_read_json(text), "mcpServers")
    return ClientFile(servers, disabled=_disabled_flag(servers))


def _vscode(text: str, cwd: Path, path: Path) -> ClientFile:
    # VS Code writes mcp.json as JSONC: comments and trailing commas.
    data = jsonc.loads(text)
    return ClientFile(_section(data, "servers", "mcpServers"), declared_inputs(data))


def _claude_code_user(text: str, cwd: Path, path: Path) -> ClientFile:
    return ClientFile(_section(_read_json(text), "mcpServers"))


def _claude_code_local(text: str, cwd: Path, path: Path) -> ClientFile:
    projects = _section(_read_json(text), "projects")
    project = projects.get(str(cwd))
    return ClientFile(_section(project, "mcpServers") if isinstance(project, dict) else {})


def _gemini(text: str, cwd: Path, path: Path) -> ClientFile:
    # Gemini CLI strips comments from settings.json (a trailing comma is still an error).
    data = jsonc.loads(text, trailing_commas=False)
    servers: dict[str, Any] = {}
    for name, entry in _section(data, "mcpServers").items():
        if isinstance(entry, dict) and "httpUrl" in entry:
            entry = {**{k: v for k, v in entry.items() if k != "httpUrl"}, "type": "http", "url": entry["httpUrl"]}
        elif isinstance(entry, dict) and "url" in entry:
            entry = {**entry, "type": "sse"}
        servers[name] = entry
    mcp = data.get("mcp") if isinstance(data.get("mcp"), dict) else {}
    switches = []
    # `mcp.excluded` / `mcp.allowed`, and their names before settings v2 (top-level).
    for key, setting, allow in (
        ("excluded", "mcp.excluded", False),
        ("allowed", "mcp.allowed", True),
    ):
        if isinstance(mcp.get(key), list):
            switches.append(Switch(path, setting, _names(mcp[key]), allow_list=allow))
    for setting, allow in (("excludeMCPServers", False), ("allowMCPServers", True)):
        if isinstance(data.get(setting), list):
            switches.append(Switch(path, setting, _names(data[setting]), allow_list=allow))
    return ClientFile(servers, switches=tuple(switches))


def _windsurf(text: str, cwd: Path, path: Path) -> ClientFile:
    servers: dict[str, Any] = {}
    for name, entry in _section(_read_json(text), "mcpServers").items():
        if isinstance(entry, dict) and "serverUrl" in entry and "url" not in entry:
            entry = {**{k: v for k, v in entry.items() if k != "serverUrl"}, "url": entry["serverUrl"]}
        servers[name] = entry
    return ClientFile(servers, disabled=_disabled_flag(servers))


def _codex(text: str, cwd: Path, path: Path) -> ClientFile:
    data = tomllib.loads(text)
    servers: dict[str, Any] = {}
    disabled: dict[str, str] = {}
    for name, table in (data.get("mcp_servers") or {}).items():
        if not isinstance(table, dict):
            continue
        keep = ("command", "args", "env", "cwd", "url", "env_http_headers", "bearer_token_env_var")
        entry: dict[str, Any] = {k: table[k] for k in keep if k in table}
        if isinstance(table.get("http_headers"), dict):
            entry["headers"] = dict(table["http_headers"])
        servers[str(name)] = entry
        if table.get("enabled") is False:
            disabled[str(name)] = "enabled = false"
    return ClientFile(servers, disabled=disabled)


def _zed(text: str, cwd: Path, path: Path) -> ClientFile:
    """Zed's `context_servers` (JSONC settings): `command` as a string with `args` and `env` beside it, or the
    older object `{path, args, env}`; `url` with `headers`; `"enabled": false` turns one off."""
    servers: dict[str, Any] = {}
    disabled: dict[str, str] = {}
    for name, entry in _section(jsonc.loads(text), "context_servers").items():
        if not isinstance(entry, dict):
            servers[name] = entry
            continue
        command = entry.get("command")
        converted: dict[str, Any]
        if isinstance(command, dict):
            converted = {"command": command.get("path"), "args": command.get("args"), "env": command.get("env")}
        elif "url" in entry:
            converted = {"type": "http", "url": entry["url"], "headers": entry.get("headers")}
        elif command is not None:
            converted = {"command": command, "args": entry.get("args"), "env": entry.get("env")}
        else:
            converted = {"zedExtension": True}
            disabled[name] = "a Zed extension's server (rea-tui cannot start one)"
        servers[name] = {k: v for k, v in converted.items() if v is not None}
        if entry.get("enabled") is False:
            disabled[name] = '"enabled": false'
    return ClientFile(servers, disabled=disabled)


def _bounded_json(path: Path) -> Any:
    """A small JSON settings file, or None when it is absent, too big or not JSON."""
    try:
        with path.open("rb") as handle:
            data = handle.read(SWITCH_FILE_LIMIT + 1)
    except OSError:
        return None
    if len(data) > SWITCH_FILE_LIMIT:
        return None
    try:
        return jsonc.loads_json(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None


def claude_code_switches(home: Path, cwd: Path) -> list[Switch]:
    """Claude Code's switches: `disabledMcpjsonServers` (the folder's `.mcp.json` servers) in its settings files
    and in `~/.claude.json`'s entry for the folder, and `disabledMcpServers` (any of its servers) there.

    These files can only turn servers off, so the folder's own `.claude/settings*.json` are read here, not
    through the trust gate: they start nothing and connect nowhere.
    """
    switches: list[Switch] = []
    for path in (home / ".claude" / "settings.json", cwd / ".claude" / "settings.json",
                 cwd / ".claude" / "settings.local.json"):  # fmt: skip
        data = _bounded_json(path)
        if isinstance(data, dict) and isinstance(data.get("disabledMcpjsonServers"), list):
            names = _names(data["disabledMcpjsonServers"])
            switches.append(Switch(path, "disabledMcpjsonServers", names, only_mcp_json=True))
    data = _bounded_json(home / ".claude.json")
    projects = data.get("projects") if isinstance(data, dict) else None
    project = projects.get(str(cwd)) if isinstance(projects, dict) else None
    if isinstance(project, dict):
        where = home / ".claude.json"
        if isinstance(project.get("disabledMcpjsonServers"), list):
            names = _names(project["disabledMcpjsonServers"])
            switches.append(Switch(where, "disabledMcpjsonServers", names, only_mcp_json=True))
        if isinstance(project.get("disabledMcpServers"), list):
            switches.append(Switch(where, "disabledMcpServers", _names(project["disabledMcpServers"])))
    return switches


def _user_config_dir(home: Path, environ: Mapping[str, str]) -> Path:
    if sys.platform == "darwin":
        return home / "Library" / "Application Support"
    if sys.platform == "win32":
        return Path(environ.get("APPDATA", home / "AppData" / "Roaming"))
    return Path(environ.get("XDG_CONFIG_HOME") or home / ".config")


def _zed_config_dir(home: Path, environ: Mapping[str, str]) -> Path:
    if sys.platform == "win32":
        return Path(environ.get("APPDATA", home / "AppData" / "Roaming")) / "Zed"
    if sys.platform == "darwin":
        return home / ".config" / "zed"
    return Path(environ.get("XDG_CONFIG_HOME") or home / ".config") / "zed"


def config_sources(
    home: Path | None = None, cwd: Path | None = None, environ: Mapping[str, str] | None = None
) -> list[tuple[str, Scope, Path, Reader]]:
    """Every file looked at, in precedence order: (client, scope, path, reader).

    A folder's `.zed/settings.json` is not among them: repositories carry it for editor settings, and as a
    folder file it would ask for trust in every such folder; only the user's Zed settings are read.
    """
    home = home or Path.home()
    cwd = cwd or Path.cwd()
    env = os.environ if environ is None else environ
    app = _user_config_dir(home, env)
    return [
        ("Claude Code", "project", cwd / ".mcp.json", _mcp_servers),
        ("Claude Code (local)", "project", home / ".claude.json", _claude_code_local),
        ("Cursor", "project", cwd / ".cursor" / "mcp.json", _cursor),
        ("VS Code", "project", cwd / ".vscode" / "mcp.json", _vscode),
        ("Gemini CLI", "project", cwd / ".gemini" / "settings.json", _gemini),
        ("Claude Code", "user", home / ".claude.json", _claude_code_user),
        ("Claude Desktop", "user", app / "Claude" / "claude_desktop_config.json", _mcp_servers),
        ("Cursor", "user", home / ".cursor" / "mcp.json", _cursor),
        ("VS Code", "user", app / "Code" / "User" / "mcp.json", _vscode),
        ("Windsurf", "user", home / ".codeium" / "windsurf" / "mcp_config.json", _windsurf),
        ("Gemini CLI", "user", home / ".gemini" / "settings.json", _gemini),
        ("Codex", "user", home / ".codex" / "config.toml", _codex),
        ("Zed", "user", _zed_config_dir(home, env) / "settings.json", _zed),
    ]


def read_folder_entries(client: str, text: str, cwd: Path) -> dict[str, Any]:
    """The server entries of a folder file's text, read as `client` reads them (ValueError if it cannot)."""
    if client == "rea-tui":
        return _section(_read_json(text), "mcpServers", "servers")
    path, reader = next((p, r) for c, scope, p, r in config_sources(cwd=cwd) if c == client and scope == "project")
    return reader(text, cwd, path).servers
