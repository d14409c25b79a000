"""Server specs and the `mcpServers` / VS Code `servers` config files.

rea-tui reads the config people already have for Claude Desktop, Cursor
(`{"mcpServers": {name: {command, args, env, cwd} | {url, headers}}}`) and VS
Code (`{"servers": {name: {"type": "stdio" | "http", ...}}}`). Values may use
`${VAR}` and `${env:VAR}`. `--config PATH` is the only file read when it is
given; otherwise `config.json` in the user config directory, and
`./.rea-tui.json` once the analyst trusts the folder (`rea_tui.host.trust.trust_store`
reads it and says whether it may be used); a server of the user's own wins a
name that both define.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from rea_tui.host.features.roots import Root, RootError, parse_roots
from rea_tui.host.trust.trust_store import trust_gate

if TYPE_CHECKING:
    from rea_tui.host.config.inputs import InputAnswers as Inputs
    from rea_tui.host.config.inputs import InputResolver

Transport = Literal["stdio", "http", "sse"]
ProtocolChoice = Literal["auto", "legacy", "2026-07-28"]
PROTOCOL_CHOICES: tuple[ProtocolChoice, ...] = ("auto", "legacy", "2026-07-28")

DEFAULT_SERVER_NAME = "rea (bundled)"
LOCAL_CONFIG_NAME = ".rea-tui.json"

_VARIABLE = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}")
_INPUT = re.compile(r"\$\{input:([A-Za-z0-9_.-]+)\}")
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
    # OAuth options of the entry (camelCase keys, see rea_tui.host.auth.settings) and values asked for.
    oauth: Mapping[str, str] = field(default_factory=dict)
    asked: tuple[str, ...] = ()
    # The folders offered to the server (`roots/list`); the entry's `roots`, else none.
    roots: tuple[Root, ...] = ()

    @property
    def fingerprint(self) -> str:
        """A stable identity for remembering what this server spoke (no secrets in it)."""
        if self.transport != "stdio":
            return f"{self.transport} {self.url}"
        return "stdio " + shlex.join([self.command, *self.args])

    def display_target(self) -> str:
        """Where the server is, for people (no header or env values)."""
        return self.url if self.transport != "stdio" else shlex.join([self.command, *self.args])

    def secret_values(self) -> list[str]:
        """Values that must never be shown or logged: secret-looking env values and all header values."""
        values = [v for k, v in self.env.items() if _SECRET_NAME.search(k) and len(v) >= 4]
        values += [v for v in self.headers.values() if len(v) >= 4]
        # Also the credential part of "Bearer xyz" style headers on its own.
        values += [v.split(" ", 1)[1] for v in self.headers.values() if " " in v and len(v.split(" ", 1)[1]) >= 4]
        values += [v for k, v in self.oauth.items() if k == "clientSecret" and len(v) >= 4]
        values += [v for v in self.asked if len(v) >= 4]
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


def expand_variables(
    value: str, environ: Mapping[str, str] | None = None, inputs: Inputs | None = None, server: str = ""
) -> str:
    """Expand `${VAR}`, `${env:VAR}` and `${input:NAME}`; an unset variable or an unanswered input is a ConfigError."""
    env = os.environ if environ is None else environ
    if "${input:" in value:
        value = _INPUT.sub(lambda m: _ask(inputs, m.group(1), server), value)

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in env:
            raise ConfigError(f"environment variable {name} is not set (used as {match.group(0)})")
        return env[name]

    return _VARIABLE.sub(replace, value)


def _ask(inputs: Inputs | None, name: str, server: str) -> str:
    from rea_tui.host.config.inputs import InputAnswers, InputUnavailable

    answers = inputs if inputs is not None else InputAnswers({})
    try:
        return answers.value(name, server)
    except InputUnavailable as exc:
        raise ConfigError(str(exc)) from None


def _string_map(raw: Any, what: str, expand: Callable[[str], str]) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{what} must be an object of strings")
    return {str(k): expand(str(v)) for k, v in raw.items()}


def _http_kind(kind: Any, url: str) -> Transport:
    """`sse` for `type: sse` or a URL whose path ends in /sse, else streamable `http`."""
    if kind == "sse":
        return "sse"
    if kind is None and urlsplit(url).path.rstrip("/").endswith("/sse"):
        return "sse"
    return "http"


def spec_from_entry(
    name: str,
    entry: Any,
    environ: Mapping[str, str] | None = None,
    inputs: Inputs | None = None,
    expand_value: Callable[[str], str] | None = None,
) -> ServerSpec:
    """Build a ServerSpec from one config entry of either dialect.

    Values are expanded by rea-tui's own variables, or by `expand_value` when given (another client's
    dialect, `rea_tui.host.config.client_variables`; it raises ConfigError for a value it refuses).
    """
    if not isinstance(entry, dict):
        raise ConfigError(f"server {name!r}: entry must be an object")
    kind = entry.get("type")
    protocol = entry.get("protocol", "auto")
    if protocol not in PROTOCOL_CHOICES:
        raise ConfigError(f"server {name!r}: protocol must be one of {', '.join(PROTOCOL_CHOICES)}")
    used: dict[str, str] = {}
    try:
        roots = parse_roots(entry.get("roots"))
    except RootError as exc:
        raise ConfigError(f"server {name!r}: {exc}") from None

    def expand(value: str) -> str:
        expanded = expand_value(value) if expand_value is not None else expand_variables(value, environ, inputs, name)
        for match in _INPUT.finditer(value):
            used[match.group(1)] = inputs.values.get(match.group(1), "") if inputs is not None else ""
        return expanded

    if kind in ("http", "streamable-http", "streamableHttp", "sse") or (kind is None and "url" in entry):
        url = entry.get("url")
        if not isinstance(url, str) or not url:
            raise ConfigError(f"server {name!r}: an http server needs a url")
        from rea_tui.host.auth.settings import OAuthSettings, OAuthSettingsError, oauth_entry

        try:
            oauth = {k: expand(v) for k, v in oauth_entry(entry).items()}
            OAuthSettings.from_mapping(oauth)
        except OAuthSettingsError as exc:
            raise ConfigError(f"server {name!r}: {exc}") from None
        expanded_url = expand(url)
        if urlsplit(expanded_url).scheme not in ("http", "https"):
            raise ConfigError(f"server {name!r}: url must start with http:// or https://, not {expanded_url!r}")
        return ServerSpec(
            name=name,
            transport=_http_kind(kind, expanded_url),
            url=expanded_url,
            headers=_string_map(entry.get("headers"), f"server {name!r}: headers", expand),
            protocol=protocol,
            oauth=oauth,
            asked=tuple(used.values()),
            roots=roots,
        )
    if kind not in (None, "stdio"):
        raise ConfigError(f"server {name!r}: unsupported type {kind!r} (use stdio, http or sse)")
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
        command=expand(command),
        args=tuple(expand(str(a)) for a in args),
        env=_string_map(entry.get("env"), f"server {name!r}: env", expand),
        cwd=expand(cwd) if isinstance(cwd, str) else None,
        protocol=protocol,
        asked=tuple(used.values()),
        roots=roots,
    )


def config_section(data: Any) -> dict[str, Any]:
    """The `mcpServers` (or VS Code `servers`) object of a parsed config document."""
    if not isinstance(data, dict):
        raise ConfigError("the config must be a JSON object")
    section = data.get("mcpServers", data.get("servers"))
    if section is None:
        return {}
    if not isinstance(section, dict):
        raise ConfigError("mcpServers/servers must be an object keyed by server name")
    return section


def parse_config(
    data: Any,
    environ: Mapping[str, str] | None = None,
    resolver: InputResolver | None = None,
    only: str | None = None,
    skip: Collection[str] = (),
) -> list[ServerSpec]:
    """The servers in a parsed config document, in file order (only the one named `only`, none in `skip`).

    `${input:NAME}` values are asked for through `resolver` (else on the terminal), each once.
    """
    from rea_tui.host.config.inputs import InputAnswers, declared_inputs

    section = config_section(data)
    inputs = InputAnswers(declared_inputs(data), resolver)
    return [
        spec_from_entry(str(name), entry, environ, inputs)
        for name, entry in section.items()
        if (only is None or str(name) == only) and str(name) not in skip
    ]


def user_config_path() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("rea-tui")) / "config.json"


@dataclass(frozen=True)
class ConfigFile:
    """A config file that may be used, and its text as read (for a folder's file: the text that was hashed)."""

    path: Path
    text: str
    # The folder's own `.rea-tui.json` (trusted), not one of the user's: a name the user's define is theirs.
    from_folder: bool = False

    def data(self) -> Any:
        from rea_tui.host.config.jsonc import loads_json

        try:
            return loads_json(self.text)
        except ValueError as exc:
            raise ConfigError(f"{self.path} is not valid JSON: {exc}") from exc

    def names(self) -> list[str]:
        return [str(n) for n in config_section(self.data())]

    def load(
        self,
        environ: Mapping[str, str] | None = None,
        resolver: InputResolver | None = None,
        only: str | None = None,
        skip: Collection[str] = (),
    ) -> list[ServerSpec]:
        """Its servers (only `only`, none of `skip`: a skipped entry is not expanded nor asked about)."""
        try:
            return parse_config(self.data(), environ, resolver, only, skip)
        except ConfigError as exc:
            raise ConfigError(f"{self.path}: {exc}") from exc


def _read_file(path: Path) -> ConfigFile:
    try:
        return ConfigFile(path, path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc


def config_files(explicit: str | None) -> list[ConfigFile]:
    """The config files to use, the user's own first: the explicit one (must exist) alone, else the user
    config and the folder's `.rea-tui.json` when the trust gate says the folder is trusted with it."""
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise ConfigError(f"config file not found: {path}")
        return [_read_file(path)]
    found = [_read_file(user_config_path())] if user_config_path().is_file() else []
    local = trust_gate().usable_file(LOCAL_CONFIG_NAME)
    if local is not None:
        found.append(ConfigFile(local.path, local.text, from_folder=True))
    return found


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


# Programs that start the program that matters (npx PACKAGE, python -m MODULE, uv run SCRIPT...).
_RUNNERS = re.compile(r"(npx|bunx|uvx|pipx|pnpx|uv|node|nodejs|deno|bun|pnpm|yarn|docker|python[\d.]*|pypy[\d.]*)")
# Words a runner takes before the program (uv run, pipx run, pnpm dlx, docker run, deno run...).
_RUNNER_WORDS = frozenset({"run", "exec", "dlx", "x", "tool", "--"})
# Script names that say nothing: their folder says more (dist/index.js -> dist).
_GENERIC_SCRIPTS = frozenset({"index", "main", "server", "cli", "__main__", "app"})
SHORT_DETAIL_LIMIT = 30
# A script inside an installed npm package: the package names it (`node_modules/@scope/name/dist/index.js`).
_NODE_PACKAGE = re.compile(r"node_modules/(?:@[^/]+/)?(?P<name>[^/@]+)")


def _program_name(word: str) -> str:
    """`@scope/server-everything@1.2` -> `server-everything`; `build/server/index.js` -> `server`;
    `…/node_modules/@scope/server-everything/dist/index.js` -> `server-everything`."""
    packages = list(_NODE_PACKAGE.finditer(word))
    if packages:
        return packages[-1].group("name")
    if word.startswith("@"):
        word = word[1:]
    # A version after a package's name (`name@1.2`); an @ followed by a path is part of the path.
    head, at, version = word.rpartition("@")
    if at and head and "/" not in version:
        word = head
    path = Path(word)
    stem = path.stem if path.suffix in (".js", ".mjs", ".cjs", ".ts", ".py") else path.name
    if stem in _GENERIC_SCRIPTS and path.parent.name not in ("", "."):
        return path.parent.name
    return stem or word


def _last_meaningful(args: list[str]) -> str:
    """The last option with its value (`--synthetic 2000` -> `synthetic 2000`), else the last word."""
    if not args:
        return ""
    last = args[-1]
    if last.startswith("-"):
        name, _, value = last.lstrip("-").partition("=")
        return f"{name} {Path(value).name}".strip() if value else name
    before = args[-2] if len(args) > 1 else ""
    value = Path(last).name if "/" in last else last
    if before.startswith("-") and "=" not in before:
        return f"{before.lstrip('-')} {value}"
    return value


def short_server_name(command: str, args: tuple[str, ...]) -> str:
    """A stdio server's name for people: its program and its last meaningful argument.

    `rea server --synthetic 2000` -> `rea (synthetic 2000)`;
    `npx -y @modelcontextprotocol/server-everything` -> `server-everything`;
    `python -m rea_tui.server --target /bin/ls` -> `rea_tui (target ls)`.
    """
    program = Path(command).name
    rest = list(args)
    if _RUNNERS.fullmatch(program):
        for index, word in enumerate(rest):
            if word == "-m" and index + 1 < len(rest):
                # `-m rea_tui.server`: the package says more than a generic last part.
                module = rest[index + 1].split(".")
                generic = len(module) > 1 and module[-1] in _GENERIC_SCRIPTS
                program, rest = ".".join(module[:-1] if generic else module), rest[index + 2 :]
                break
            if word.startswith("-") or word in _RUNNER_WORDS:
                continue
            program, rest = _program_name(word), rest[index + 1 :]
            break
        else:
            rest = []
    detail = _last_meaningful(rest)
    if len(detail) > SHORT_DETAIL_LIMIT:
        detail = detail[: SHORT_DETAIL_LIMIT - 1] + "…"
    return f"{program} ({detail})" if detail else program


# Finds a server by name elsewhere (other clients' configs): its spec and the file it came from. The flag
# says where to look: the user's own files (False) or the trusted folder's (True).
ServerFallback = Callable[[str, "InputResolver | None", bool], "tuple[ServerSpec, Path] | None"]


def resolve_servers(
    selection: ServerSelection, resolver: InputResolver | None = None, fallback: ServerFallback | None = None
) -> tuple[list[ServerSpec], Path | None]:
    """The servers to connect to, and the config file they came from (if any).

    An explicit `--url` or `--stdio` wins; `--config PATH` is the only file
    read when given. `--server NAME` picks the user's own server of that name
    (the rea-tui user config, then `fallback`'s user files: the CLI passes
    `rea_tui.host.config.discovery.find_server`), else a trusted folder's (its
    `.rea-tui.json`, then `fallback`'s folder files); otherwise every server of
    the user config and of the trusted `.rea-tui.json` (the user's keeps a name
    both define); with nothing configured, the bundled reference server. A
    folder's files come only through the trust gate (`config_files`).
    `${input:NAME}` values are asked for through `resolver` (else on the terminal).
    """
    if selection.url and selection.stdio:
        raise ConfigError("give either --url or --stdio, not both")
    override: dict[str, Any] = {"protocol": selection.protocol} if selection.protocol else {}
    if selection.url:
        headers = dict(parse_header(h) for h in selection.headers)
        kind = _http_kind(None, selection.url)
        return [ServerSpec(name=selection.url, transport=kind, url=selection.url, headers=headers, **override)], None
    if selection.headers:
        raise ConfigError("--header needs --url")
    if selection.stdio:
        command, *args = selection.stdio
        name = short_server_name(command, tuple(args))
        return [ServerSpec(name=name, transport="stdio", command=command, args=tuple(args), **override)], None
    files = config_files(selection.config)
    path = files[0].path if files else None
    if selection.server:
        found = configured_server(selection.server, files, resolver, None if selection.config else fallback)
        if found is None:
            known = ", ".join(n for f in files for n in f.names()) or "none"
            where = ", ".join(str(f.path) for f in files) or "no config file found"
            also = "" if selection.config else "; nor in other clients' configs (see `rea-tui servers --discover`)"
            raise ConfigError(f"no server named {selection.server!r} ({where}; configured: {known}{also})")
        specs, path = [found[0]], found[1]
    else:
        specs = []
        for config in files:
            # The user's own file comes first and keeps a name both define.
            specs += config.load(None, resolver, skip={s.name for s in specs})
    if not specs:
        specs = [bundled_server_spec()]
    if override:
        specs = [_with_protocol(s, selection.protocol) for s in specs]
    return specs, path


def configured_server(
    name: str, files: list[ConfigFile], resolver: InputResolver | None, fallback: ServerFallback | None
) -> tuple[ServerSpec, Path] | None:
    """The server `name` and its file: the user's own first (rea-tui's config, then `fallback`'s user files),
    then a trusted folder's (its `.rea-tui.json`, then `fallback`'s folder files)."""
    for from_folder in (False, True):
        owner = next((f for f in files if f.from_folder == from_folder and name in f.names()), None)
        if owner is not None:
            return owner.load(None, resolver, only=name)[0], owner.path
        found = fallback(name, resolver, from_folder) if fallback is not None else None
        if found is not None:
            return found
    return None


def _with_protocol(spec: ServerSpec, protocol: ProtocolChoice | None) -> ServerSpec:
    from dataclasses import replace

    return replace(spec, protocol=protocol) if protocol else spec


def split_stdio_command(text: str) -> tuple[str, ...]:
    """`--stdio 'COMMAND ARGS'` split like a shell would (no shell runs)."""
    parts = tuple(shlex.split(text))
    if not parts:
        raise ConfigError("--stdio needs a command")
    return parts
