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
         `~/.gemini/settings.json`, `~/.codex/config.toml`, Zed's
         `settings.json` (`context_servers`)

Each client's dialect is read as that client means it: Gemini's `httpUrl` is
streamable HTTP and its `url` is SSE, Windsurf's `serverUrl` is a URL, Codex's
TOML `[mcp_servers.NAME]` tables (with `bearer_token_env_var` and
`env_http_headers`) are entries, VS Code's and Zed's files are JSONC. Each
client's variables are expanded by that client's rules
(`rea_tui.host.config.client_variables`), and each way a client turns a server off
is honoured (`"disabled": true`, `enabled = false`, `"enabled": false`,
`disabledMcpjsonServers`, `disabledMcpServers`, `mcp.excluded`,
`mcp.allowed`): such a server is listed as disabled, with the file that says
so, and never started. Nothing is started or asked for until a server is picked.

The project files are the folder's own, and a folder is not trusted by being
the current directory: their text comes from the trust gate
(`rea_tui.host.trust.trust_store`), and until the analyst trusts the folder their
servers are listed with the reason and cannot be used. For `--server NAME`
the user's own files win over the folder's, in the order above.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from rea_tui.host.config.client_configs import Scope, Switch, claude_code_switches, config_sources
from rea_tui.host.config.client_variables import (
    VariableContext,
    VariableError,
    codex_headers,
    codex_unset,
    dialect_for,
)
from rea_tui.host.config.config import (
    LOCAL_CONFIG_NAME,
    ConfigError,
    ConfigFile,
    ServerSpec,
    config_files,
    spec_from_entry,
)
from rea_tui.host.config.inputs import InputAnswers, InputResolver, InputSpec
from rea_tui.host.trust.safe_text import sanitize_line
from rea_tui.host.trust.trust_store import TrustGate, folder_servers, trust_argument, trust_gate


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
    # Which of its client's settings turns it off (and in which file); empty when none does.
    disabled: str = ""
    # What `${userHome}` and `${workspaceFolder}` are (the home and folder it was discovered from).
    home: Path | None = None
    workspace: Path | None = None

    def spec(self, resolver: InputResolver | None = None, environ: Mapping[str, str] | None = None) -> ServerSpec:
        """The entry as a ServerSpec, its variables expanded as its client expands them (`${input:...}` asked for
        now); an untrusted or a disabled one is a ConfigError that says why."""
        if self.untrusted:
            raise ConfigError(
                f"{sanitize_line(self.source)} ({self.client}): server {sanitize_line(self.name)!r} is not used: "
                f"{self.untrusted}"
            )
        if self.disabled:
            raise ConfigError(self.disabled_message())
        env = os.environ if environ is None else environ
        context = VariableContext(
            env, self.home or Path.home(), self.workspace or Path.cwd(), InputAnswers(self.inputs, resolver), self.name
        )
        dialect = dialect_for(self.client)

        def expand(value: str) -> str:
            try:
                return dialect.expand(value, context)
            except VariableError as exc:
                raise ConfigError(f"server {self.name!r}: {exc}") from None

        try:
            entry = dict(self.entry)
            if self.client == "Codex":
                extra = codex_headers(entry, env, self.name)
                entry["headers"] = {**(entry.get("headers") or {}), **extra}
            return spec_from_entry(self.name, entry, env, context.inputs, expand_value=expand)
        except VariableError as exc:
            raise ConfigError(f"{self.source} ({self.client}): {exc}") from None
        except ConfigError as exc:
            raise ConfigError(f"{self.source} ({self.client}): {exc}") from None

    def disabled_message(self) -> str:
        return (
            f"server {sanitize_line(self.name)!r} is disabled: {sanitize_line(self.disabled)} ({self.client}); "
            "rea-tui does not start it"
        )

    def unset_variables(self, environ: Mapping[str, str] | None = None) -> list[str]:
        """Each variable of its entry that reads an unset environment variable, and what its client does then."""
        env = os.environ if environ is None else environ
        if self.client == "Codex":
            return codex_unset(self.entry, env)
        dialect = dialect_for(self.client)
        said: dict[str, None] = {}
        for value in _strings(self.entry):
            for unset in dialect.unset_in(value, env):
                said[unset.says(self.client.removesuffix(" (local)"))] = None
        return list(said)

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
        """The entry `--server NAME` uses: the user's own first, then a trusted folder's (never an untrusted one,
        never a disabled one)."""
        own = (s for s in self.servers if s.name == name and not s.from_folder and not s.disabled)
        trusted = (s for s in self.servers if s.name == name and s.from_folder and not s.untrusted and not s.disabled)
        return next(own, None) or next(trusted, None)


def _strings(value: Any) -> list[str]:
    """Every string value in an entry (not its keys); without recursion, as an entry may nest deep."""
    found: list[str] = []
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            pending.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            pending.extend(reversed(item))
    return found


def _turned_off(server: DiscoveredServer, switches: list[tuple[Switch, Scope]]) -> str:
    """Which switch of its client turns the server off ('' if none): a block list, else the allow list of the
    most specific scope that has one (the folder's over the user's, as Gemini CLI merges its settings)."""
    from_mcp_json = server.client == "Claude Code" and server.scope == "project"
    for switch, _ in switches:
        if not switch.allow_list and switch.turns_off(server.name, from_mcp_json):
            return switch.reason()
    allows = [switch for switch, scope in sorted(switches, key=lambda s: s[1] != "project") if switch.allow_list]
    if allows and allows[0].turns_off(server.name, from_mcp_json):
        return allows[0].reason()
    return ""


def discover(home: Path | None = None, cwd: Path | None = None, environ: Mapping[str, str] | None = None) -> Discovery:
    """Read every known client config that exists; a file that cannot be read is a problem, not a failure.

    The folder's own files are taken from the trust gate (read once, hashed); their servers are
    listed, marked untrusted until the folder is trusted. Each client's switches are applied to its
    servers (a folder file's only once it is trusted, except to its own servers).
    """
    servers: list[DiscoveredServer] = []
    problems: list[str] = []
    searched: list[tuple[str, Path]] = []
    here = cwd or Path.cwd()
    user_home = home or Path.home()
    gate = trust_gate(here)
    # Each client's switches (Gemini CLI's settings, Claude Code's settings files), by client.
    switches: dict[str, list[tuple[Switch, Scope]]] = {
        "Claude Code": [(s, "user") for s in claude_code_switches(user_home, here)]
    }
    for client, scope, path, reader in config_sources(home, cwd, environ):
        searched.append((client, path))
        folder_file = gate.file(path) if scope == "project" else None
        if folder_file is None and not path.is_file():
            continue
        try:
            if folder_file is not None and folder_file.state == "unreadable":
                raise ValueError(folder_file.problem)
            text = folder_file.text if folder_file is not None else path.read_text(encoding="utf-8")
            read = reader(text, here, path)
        except (OSError, UnicodeDecodeError, ValueError, tomllib.TOMLDecodeError) as exc:
            problems.append(f"{path} ({client}): cannot read it: {exc}")
            continue
        untrusted = folder_file.reason() if folder_file is not None else ""
        for switch in read.switches:
            if not untrusted:
                switches.setdefault(client.removesuffix(" (local)"), []).append((switch, scope))
        for name, entry in read.servers.items():
            if not isinstance(entry, dict):
                problems.append(f"{path} ({client}): server {name!r} is not an object")
                continue
            servers.append(
                DiscoveredServer(
                    str(name),
                    client,
                    path,
                    scope,
                    entry,
                    read.inputs,
                    folder_file is not None,
                    untrusted,
                    disabled=read.disabled.get(name, "") and f"{read.disabled[name]} in {path}",
                    home=user_home,
                    workspace=here,
                )
            )
    for index, server in enumerate(servers):
        if not server.disabled:
            off = _turned_off(server, switches.get(server.client.removesuffix(" (local)"), []))
            if off:
                servers[index] = replace(server, disabled=off)
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
        if server.from_folder and not server.untrusted and not server.disabled:
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
        (
            s
            for s in found.servers
            if s.name == name and s.from_folder == from_folder and not s.untrusted and not s.disabled
        ),
        None,
    )
    if server is not None:
        return server.spec(resolver), server.source
    if not from_folder:
        return None  # the folder's are looked at next; a disabled one is said then
    gate = found.gate
    for file in gate.untrusted if gate is not None else ():
        if any(s.name == name for s in folder_servers(file)):
            raise ConfigError(
                f"server {sanitize_line(name)!r} is in {sanitize_line(file.path)}, which is not used: "
                f"{file.reason()} (`rea-tui trust {trust_argument(file.path.parent)}` lists what it runs and "
                "trusts the folder)"
            )
    disabled = next((s for s in found.servers if s.name == name and s.disabled and not s.untrusted), None)
    if disabled is not None:
        raise ConfigError(disabled.disabled_message())
    return None
