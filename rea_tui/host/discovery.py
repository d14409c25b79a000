"""The MCP servers people have already configured for other clients.

`rea-tui servers --discover` lists them with the file each came from, and
`--server NAME` finds them when the rea-tui config has no server of that name.
Files are read in this order (project files in the current directory first,
then the user's):

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

The project files are the folder's own, and a folder is not trusted by being
the current directory: their text comes from the trust gate
(`rea_tui.host.trust_store`), and until the analyst trusts the folder their
servers are listed with the reason and cannot be used. For `--server NAME`
the user's own files win over the folder's, in the order above.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from rea_tui.host.client_configs import Scope, config_sources
from rea_tui.host.config import (
    LOCAL_CONFIG_NAME,
    ConfigError,
    ConfigFile,
    ServerSpec,
    config_files,
    spec_from_entry,
)
from rea_tui.host.inputs import InputAnswers, InputResolver, InputSpec
from rea_tui.host.safe_text import sanitize_line
from rea_tui.host.trust_store import TrustGate, folder_servers, trust_argument, trust_gate


@dataclass(frozen=True)
class DiscoveredServer:
    """One server entry found in another client's config."""

    name: str
    client: str
    source: Path
    scope: Scope
    entry: Mapping[str, Any]
    inputs: Mapping[str, InputSpec] = field(default_factory=dict)
    # From the folder's own files (not the user's): used only once the folder is trusted.
    from_folder: bool = False
    # Why it cannot be used (its folder is not trusted, or its file changed since); empty when it can.
    untrusted: str = ""

    def spec(self, resolver: InputResolver | None = None, environ: Mapping[str, str] | None = None) -> ServerSpec:
        """The entry as a ServerSpec (its `${input:...}` values asked for now); an untrusted one is a ConfigError."""
        if self.untrusted:
            raise ConfigError(
                f"{sanitize_line(self.source)} ({self.client}): server {sanitize_line(self.name)!r} is not used: "
                f"{self.untrusted}"
            )
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

    gate: TrustGate | None = None

    def find(self, name: str) -> DiscoveredServer | None:
        """The entry `--server NAME` uses: the user's own first, then a trusted folder's (never an untrusted one)."""
        own = (s for s in self.servers if s.name == name and not s.from_folder)
        trusted = (s for s in self.servers if s.name == name and s.from_folder and not s.untrusted)
        return next(own, None) or next(trusted, None)


def discover(home: Path | None = None, cwd: Path | None = None, environ: Mapping[str, str] | None = None) -> Discovery:
    """Read every known client config that exists; a file that cannot be read is a problem, not a failure.

    The folder's own files are taken from the trust gate (read once, hashed); their servers are
    listed, marked untrusted until the folder is trusted.
    """
    servers: list[DiscoveredServer] = []
    problems: list[str] = []
    searched: list[tuple[str, Path]] = []
    here = cwd or Path.cwd()
    gate = trust_gate(here)
    for client, scope, path, reader in config_sources(home, cwd, environ):
        searched.append((client, path))
        folder_file = gate.file(path) if scope == "project" else None
        if folder_file is None and not path.is_file():
            continue
        try:
            if folder_file is not None and folder_file.state == "unreadable":
                raise ValueError(folder_file.problem)
            text = folder_file.text if folder_file is not None else path.read_text(encoding="utf-8")
            entries, inputs = reader(text, here)
        except (OSError, UnicodeDecodeError, ValueError, tomllib.TOMLDecodeError) as exc:
            problems.append(f"{path} ({client}): cannot read it: {exc}")
            continue
        untrusted = folder_file.reason() if folder_file is not None else ""
        for name, entry in entries.items():
            if not isinstance(entry, dict):
                problems.append(f"{path} ({client}): server {name!r} is not an object")
                continue
            servers.append(
                DiscoveredServer(str(name), client, path, scope, entry, inputs, folder_file is not None, untrusted)
            )
    return Discovery(servers, problems, searched, gate)


def trusted_folder_servers(
    resolver: InputResolver | None = None, taken: Collection[str] = ()
) -> tuple[list[ServerSpec], list[str]]:
    """The servers of the current folder's trusted files whose names are not in `taken`, and the problems."""
    specs: list[ServerSpec] = []
    problems: list[str] = []
    found = discover()
    assert found.gate is not None
    local = found.gate.usable_file(LOCAL_CONFIG_NAME)
    # The user's own servers keep their names: a folder's server of the same name is not added.
    seen = set(taken) | {s.name for s in found.servers if not s.from_folder}
    seen |= {n for f in config_files(None) if f.path != (local.path if local else None) for n in f.names()}

    def build(name: str, make: Callable[[], ServerSpec]) -> None:
        if name in seen:
            return
        seen.add(name)
        try:
            specs.append(make())
        except ConfigError as exc:
            problems.append(str(exc))

    if local is not None:
        config = ConfigFile(local.path, local.text)
        try:
            names = config.names()
        except ConfigError as exc:
            problems.append(str(exc))
            names = []
        for name in names:
            build(name, partial(_only, config, name, resolver))
    for server in found.servers:
        if server.from_folder and not server.untrusted:
            build(server.name, partial(server.spec, resolver))
    return specs, problems


def _only(config: ConfigFile, name: str, resolver: InputResolver | None) -> ServerSpec:
    return config.load(None, resolver, only=name)[0]


def find_server(
    name: str, resolver: InputResolver | None = None, from_folder: bool = False
) -> tuple[ServerSpec, Path] | None:
    """`--server NAME` outside the rea-tui config: the user's own entry of that name (or, with `from_folder`,
    a trusted folder file's), and its file. Asked for a folder's, a name that only an untrusted folder file
    defines is a ConfigError that says so."""
    found = discover()
    server = next(
        (s for s in found.servers if s.name == name and s.from_folder == from_folder and not s.untrusted), None
    )
    if server is not None:
        return server.spec(resolver), server.source
    gate = found.gate
    for file in gate.untrusted if gate is not None and from_folder else ():
        if any(s.name == name for s in folder_servers(file)):
            raise ConfigError(
                f"server {sanitize_line(name)!r} is in {sanitize_line(file.path)}, which is not used: "
                f"{file.reason()} (`rea-tui trust {trust_argument(file.path.parent)}` lists what it runs and "
                "trusts the folder)"
            )
    return None
